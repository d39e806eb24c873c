/* cudaroioverlay: metadata -> what to draw (boxes, labels, colours, trails). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>

#include <algorithm>
#include <climits>

#include "gstcudaroioverlay_priv.h"

using cvis::overlay::Rgb;

/* Distinct, saturated colours, light and dark (the label ink follows the luma). */
static const Rgb kPalette[] = {
  {230, 25, 75}, {60, 180, 75}, {255, 225, 25}, {0, 130, 200}, {245, 130, 48}, {145, 30, 180},
  {70, 240, 240}, {240, 50, 230}, {210, 245, 60}, {250, 190, 212}, {0, 128, 128},
  {170, 110, 40},
};
static const guint kPaletteSize = G_N_ELEMENTS (kPalette);

static guint
type_hash (const gchar * s)
{
  guint32 h = 2166136261u;      /* FNV-1a: stable across runs and machines */
  for (; *s; s++)
    h = (h ^ (guint8) * s) * 16777619u;
  return h;
}

Rgb
gst_cuda_roi_overlay_color (const Settings & s, const gchar * roi_type, gint id,
    gboolean is_track)
{
  const gboolean by_id = s.color_by == GST_CUDA_ROI_OVERLAY_COLOR_BY_ID ||
      (s.color_by == GST_CUDA_ROI_OVERLAY_COLOR_BY_AUTO && is_track);
  if (by_id)
    return kPalette[(guint) ((id % (gint) kPaletteSize) + (gint) kPaletteSize) % kPaletteSize];
  if (g_strcmp0 (roi_type, "foreground") == 0)
    return kPalette[1];         /* green */
  return kPalette[type_hash (roi_type ? roi_type : "") % kPaletteSize];
}

static void
append_number (std::string * text, const gchar * prefix, gdouble v)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
  *text += prefix;
  *text += g_ascii_formatd (buf, sizeof (buf), "%.2f", v);
}

/* "<label or roi_type> <id> <score> d<distance> <area>px lost", from the ROI's param structures
 * (fields "label", "id", "score", "distance", "area", "lost"; those present), and its short form
 * "<label or roi_type> <id>". The track id comes from the "id" field when there is one.
 * Foreground blobs are "fg" (they are many and small). */
static std::string
make_label (GstVideoRegionOfInterestMeta * roi, const gchar * type, gint * id,
    std::string * short_label, gboolean * lost)
{
  std::string name = !type ? "roi" : g_strcmp0 (type, "foreground") == 0 ? "fg" : type, extra;
  for (GList * l = roi->params; l; l = l->next) {
    const GstStructure *p = (const GstStructure *) l->data;
    const gchar *label = gst_structure_get_string (p, "label");
    gdouble d;
    gint i;
    guint u;
    gboolean b;
    if (label && *label)
      name = label;
    if (gst_structure_get_int (p, "id", &i))
      *id = i;
    else if (gst_structure_get_uint (p, "id", &u))
      *id = (gint) MIN (u, (guint) G_MAXINT);
    if (gst_structure_get_double (p, "score", &d))
      append_number (&extra, " ", d);
    if (gst_structure_get_double (p, "distance", &d))
      append_number (&extra, " d", d);
    if (gst_structure_get_uint (p, "area", &u))
      extra += " " + std::to_string (u) + "px";
    if (gst_structure_get_boolean (p, "lost", &b) && b) {
      extra += " lost";
      *lost = TRUE;
    }
  }
  if (*id >= 0)
    name += " " + std::to_string (*id);
  *short_label = name;
  return name + extra;
}

gint
gst_cuda_roi_overlay_priority (const gchar * roi_type, gboolean is_track, gboolean lost)
{
  if (is_track)
    return lost ? 1 : 3;
  return g_strcmp0 (roi_type, "foreground") == 0 ? 0 : 2;
}

static gint
to_int (guint v)
{
  return (gint) MIN (v, (guint) (G_MAXINT / 4));
}

void
gst_cuda_roi_overlay_build_scene (GstCudaRoiOverlay * self, const Settings & s, State * st,
    GstBuffer * buf, gint width, gint height)
{
  cvis::overlay::Scene & sc = st->scene;
  size_t nboxes = 0, ntrails = 0;
  gpointer iter = NULL;
  GstMeta *meta;
  const guint64 frame = st->frame++;
  (void) self;
  (void) width;
  (void) height;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &iter,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    const gchar *type = g_quark_to_string (roi->roi_type);
    if (!s.types.empty () && !s.types.count (type ? type : ""))
      continue;
    const gboolean is_track = g_strcmp0 (type, GST_CUDA_ROI_OVERLAY_TRACK_TYPE) == 0;
    gint id = roi->id;
    std::string short_label;
    gboolean lost = FALSE;
    std::string label = make_label (roi, type, &id, &short_label, &lost);
    if (nboxes == sc.boxes.size ())
      sc.boxes.emplace_back ();
    cvis::overlay::Box & b = sc.boxes[nboxes++];
    b.x = to_int (roi->x);
    b.y = to_int (roi->y);
    b.w = to_int (roi->w);
    b.h = to_int (roi->h);
    b.color = gst_cuda_roi_overlay_color (s, type, id, is_track);
    if (s.labels) {
      b.label.swap (label);
      b.short_label.swap (short_label);
    } else {
      b.label.clear ();
      b.short_label.clear ();
    }
    b.priority = gst_cuda_roi_overlay_priority (type, is_track, lost);
    if (!s.trails || !is_track || s.trail_length < 2)
      continue;
    /* Trails: the box centre appended to the track's history; a track back after more than
     * trail-length frames starts a new trail. */
    Trail & t = st->trails[id];
    if (!t.points.empty () && frame - t.last_seen > s.trail_length)
      t.points.clear ();
    t.points.push_back ({b.x + b.w / 2, b.y + b.h / 2});
    while (t.points.size () > s.trail_length)
      t.points.pop_front ();
    t.last_seen = frame;
    t.color = b.color;
    if (t.points.size () < 2)
      continue;
    if (ntrails == sc.trails.size ())
      sc.trails.emplace_back ();
    cvis::overlay::Polyline & pl = sc.trails[ntrails++];
    pl.points.assign (t.points.begin (), t.points.end ());
    pl.color = t.color;
  }
  sc.boxes.resize (nboxes);
  sc.trails.resize (ntrails);
  /* Tracks gone for longer than a trail are forgotten. */
  for (auto it = st->trails.begin (); it != st->trails.end ();) {
    if (frame - it->second.last_seen > s.trail_length)
      it = st->trails.erase (it);
    else
      ++it;
  }
}

/* cvisstore: the metadata of one buffer as store rows. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cvis/cvisactionmeta.h>
#include <gst/cvis/cvisceddmeta.h>

#include "gstcvisstore_priv.h"

/* The ROI's parameter structures as text, "; "-separated. */
static std::string
roi_attrs (const GstVideoRegionOfInterestMeta * roi)
{
  std::string out;
  for (GList * l = roi->params; l; l = l->next) {
    gchar *s = gst_structure_to_string (GST_STRUCTURE (l->data));
    if (!out.empty ())
      out += "; ";
    out += s;
    g_free (s);
  }
  return out;
}

/* FALSE for a track box the tracker marks as lost (it shows where the target was last seen). */
static gboolean
track_seen (const GstVideoRegionOfInterestMeta * roi)
{
  for (GList * l = roi->params; l; l = l->next) {
    gboolean lost = FALSE;
    if (gst_structure_get_boolean (GST_STRUCTURE (l->data), "lost", &lost) && lost)
      return FALSE;
  }
  return TRUE;
}

static void
collect_descriptors (GstBuffer * buf, const cvis::store::RowKey & key, gint64 pts, bool shots,
    bool descriptors, cvis::store::Batch * batch)
{
  GstCustomMeta *meta = gst_buffer_get_cvis_cedd_meta (buf);
  if (!meta)
    return;
  gdouble distance = -1.0;
  gboolean shot = FALSE;
  const gboolean has_shot = gst_cvis_cedd_meta_get_shot (meta, &distance, &shot);
  const guint n = descriptors ? gst_cvis_cedd_meta_get_count (meta) : 0;
  for (guint i = 0; i < n; i++) {
    GstCvisCeddEntry e;
    if (!gst_cvis_cedd_meta_get_entry (meta, i, &e))
      continue;
    cvis::store::DescriptorRow r;
    r.key = key;
    r.key.region = (gint32) i;
    r.pts = pts;
    r.roi_id = e.roi_id;
    if (e.roi_id != GST_CVIS_CEDD_FRAME_ID) {
      GstVideoRegionOfInterestMeta *roi =
          gst_buffer_get_video_region_of_interest_meta_id (buf, e.roi_id);
      if (roi)
        r.roi_type = g_quark_to_string (roi->roi_type);
    } else if (has_shot) {
      r.shot_change = shot;
      r.distance = distance;
    }
    r.x = e.x;
    r.y = e.y;
    r.w = e.width;
    r.h = e.height;
    std::copy (e.levels, e.levels + GST_CVIS_CEDD_BINS, r.levels);
    batch->descriptors.push_back (std::move (r));
  }
  if (shots && has_shot && shot) {
    cvis::store::ShotRow s;
    s.key = key;
    s.pts = pts;
    s.distance = distance;
    s.source = "cedd";
    batch->shots.push_back (std::move (s));
  }
}

void
gst_cvis_store_collect (GstCvisStore * self, GstBuffer * buf, cvis::store::Batch * batch)
{
  GstCvisStoreState & st = *self->state;
  GstClockTime stream_time;
  const guint64 frame = st.position.advance (buf, &GST_BASE_TRANSFORM (self)->segment, &st.info,
      &stream_time);
  const gint64 pts = GST_CLOCK_TIME_IS_VALID (stream_time) ? (gint64) stream_time : -1;
  cvis::store::RowKey key;
  key.stream = st.stream;
  key.frame = (int64_t) frame;
  const guint rec = st.records;

  if (rec & (GST_CVIS_STORE_RECORDS_DESCRIPTORS | GST_CVIS_STORE_RECORDS_SHOTS))
    collect_descriptors (buf, key, pts, rec & GST_CVIS_STORE_RECORDS_SHOTS,
        rec & GST_CVIS_STORE_RECORDS_DESCRIPTORS, batch);

  gpointer iter = NULL;
  GstMeta *m;
  gint32 region = 0;
  std::vector < GstVideoRegionOfInterestMeta * >action_boxes;
  while ((m = gst_buffer_iterate_meta_filtered (buf, &iter,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    auto *roi = reinterpret_cast < GstVideoRegionOfInterestMeta * >(m);
    const char *type = g_quark_to_string (roi->roi_type);
    if (type && g_str_equal (type, GST_CVIS_ACTION_ROI_TYPE))
      action_boxes.push_back (roi);
    if (rec & GST_CVIS_STORE_RECORDS_BOXES) {
      cvis::store::BoxRow b;
      b.key = key;
      b.key.region = region;
      b.pts = pts;
      b.roi_type = type ? type : "";
      b.roi_id = roi->id;
      b.parent_id = roi->parent_id;
      b.x = (gint32) roi->x;
      b.y = (gint32) roi->y;
      b.w = (gint32) roi->w;
      b.h = (gint32) roi->h;
      b.attrs = roi_attrs (roi);
      batch->boxes.push_back (std::move (b));
    }
    if ((rec & GST_CVIS_STORE_RECORDS_TRACKS) && type && g_str_equal (type, "track") &&
        track_seen (roi)) {
      auto it = st.tracks.find (roi->id);
      if (it == st.tracks.end ()) {
        cvis::store::TrackRow t;
        t.stream = st.stream;
        t.track_id = roi->id;
        t.first_frame = t.last_frame = (int64_t) frame;
        t.first_pts = t.last_pts = pts;
        st.tracks.emplace (roi->id, t);
      } else {
        cvis::store::TrackRow & t = it->second;
        if ((int64_t) frame < t.first_frame) {
          t.first_frame = (int64_t) frame;
          t.first_pts = pts;
        }
        if ((int64_t) frame > t.last_frame) {
          t.last_frame = (int64_t) frame;
          t.last_pts = pts;
        }
      }
    }
    region++;
  }

  if (rec & GST_CVIS_STORE_RECORDS_ACTIONS) {
    iter = NULL;
    gint32 k = 0;
    const GstMetaInfo *action_info = gst_cvis_action_meta_get_info ();
    while ((m = gst_buffer_iterate_meta (buf, &iter))) {
      if (m->info != action_info)
        continue;
      GstCvisActionInfo a;
      if (!gst_cvis_action_meta_get (reinterpret_cast < GstCustomMeta * >(m), &a))
        continue;
      cvis::store::ActionRow r;
      r.key = key;
      r.key.region = k;
      r.pts = pts;
      r.label = a.label ? a.label : "";
      r.model_id = a.model_id;
      r.score = a.score;
      r.distance = a.distance;
      r.first_frame = (int64_t) a.first_frame;
      r.last_frame = (int64_t) a.last_frame;
      r.start = GST_CLOCK_TIME_IS_VALID (a.start) ? (int64_t) a.start : -1;
      r.end = GST_CLOCK_TIME_IS_VALID (a.end) ? (int64_t) a.end : -1;
      if ((size_t) k < action_boxes.size ()) {
        r.x = (gint32) action_boxes[k]->x;
        r.y = (gint32) action_boxes[k]->y;
        r.w = (gint32) action_boxes[k]->w;
        r.h = (gint32) action_boxes[k]->h;
      }
      batch->actions.push_back (std::move (r));
      k++;
    }
  }

  if (++st.frames_since_tracks >= TRACK_SPAN_FRAMES)
    gst_cvis_store_take_tracks (self, batch);
}

void
gst_cvis_store_take_tracks (GstCvisStore * self, cvis::store::Batch * batch)
{
  GstCvisStoreState & st = *self->state;
  for (auto & kv:st.tracks)
    batch->tracks.push_back (kv.second);
  st.tracks.clear ();
  st.frames_since_tracks = 0;
}

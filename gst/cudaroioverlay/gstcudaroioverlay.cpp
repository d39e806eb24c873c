/**
 * SECTION:element-cudaroioverlay
 * @title: cudaroioverlay
 *
 * Draws what the other elements found onto the frames, in place: an outline for every
 * GstVideoRegionOfInterestMeta (foreground blobs of cudabgsub / cudamedian3d, tracks of
 * cudarcdtrack, detections and actions of any element), coloured per roi_type or per track id,
 * with a short label in a built-in 5x7 bitmap font (the label or roi_type ("fg" for foreground
 * blobs), the id, and the score,
 * distance, area and lost flag found in the ROI's param structures), the trail of every track
 * (roi_type "track": the centres of its last `trail-length` boxes) and, when the frame carries a
 * GstCvisForegroundMeta, its foreground mask tinted over the frame.
 *
 * CUDA-memory frames (NV12, RGBA and the other formats below) are drawn on the GPU; system-memory
 * frames by the CPU reference, also with backend=cuda (drawing is cheaper than moving the frame).
 * Both write the same bytes. The element changes pixels only: metadata passes unchanged.
 *
 * Trade-offs: `mask` tints every masked pixel (a pass over the frame); `labels` at `font-scale` 1
 * are small on 1080p (the default 0 scales the font with the frame height); `types` restricts the
 * drawing to some roi_types (e.g. "track" alone once tracks exist).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball num-buffers=300 ! video/x-raw,format=RGBA \
 *     ! cudabgsub output=frame ! cudaroioverlay ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec \
 *     ! cudamedian3d output=frame ! cudaroioverlay line-width=3 ! cudadownload \
 *     ! videoconvert ! x264enc ! mp4mux ! filesink location=annotated.mp4
 * ]|
 * The second line draws on the decoded NV12 frames in CUDA memory.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaroioverlay.h"

#include <gst/cvis/cvisforegroundmeta.h>

#include <sstream>

#include "gstcudaroioverlay_priv.h"
#include "gstcvisutils.h"

GST_DEBUG_CATEGORY (gst_cuda_roi_overlay_debug);
#define GST_CAT_DEFAULT gst_cuda_roi_overlay_debug

enum {
  PROP_0,
  PROP_TYPES,
  PROP_LABELS,
  PROP_MASK,
  PROP_MASK_COLOR,
  PROP_TRAILS,
  PROP_TRAIL_LENGTH,
  PROP_LINE_WIDTH,
  PROP_FONT_SCALE,
  PROP_COLOR_BY,
  PROP_LABEL_LAYOUT,
  PROP_LABEL_FULL_AREA,
  PROP_LABEL_MIN_AREA,
};

G_DEFINE_TYPE (GstCudaRoiOverlay, gst_cuda_roi_overlay, GST_TYPE_CVIS_FILTER);

/* *INDENT-OFF* */
GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_roi_overlay_color_by_get_type, "GstCudaRoiOverlayColorBy",
    {GST_CUDA_ROI_OVERLAY_COLOR_BY_AUTO, "Tracks by id, other boxes by roi_type", "auto"},
    {GST_CUDA_ROI_OVERLAY_COLOR_BY_TYPE, "Every box by its roi_type", "type"},
    {GST_CUDA_ROI_OVERLAY_COLOR_BY_ID, "Every box by its id", "id"})
/* *INDENT-ON* */

/* --------------------------------------------------------------------------------------------- */

static void
parse_types (Settings * s, const gchar * text)
{
  s->types.clear ();
  s->types_text = text ? text : "";
  std::stringstream in (s->types_text);
  std::string item;
  while (std::getline (in, item, ',')) {
    const size_t a = item.find_first_not_of (" \t"), b = item.find_last_not_of (" \t");
    if (a != std::string::npos)
      s->types.insert (item.substr (a, b - a + 1));
  }
}

static void
gst_cuda_roi_overlay_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstCudaRoiOverlay *self = GST_CUDA_ROI_OVERLAY (object);
  if (!gst_cvis_filter_property_settable (GST_CVIS_FILTER (self), pspec))
    return;
  std::lock_guard<std::mutex> lk (*self->lock);
  Settings & s = *self->settings;
  s.version++;
  switch (prop_id) {
    case PROP_TYPES:
      parse_types (&s, g_value_get_string (value));
      break;
    case PROP_LABELS:
      s.labels = g_value_get_boolean (value);
      break;
    case PROP_MASK:
      s.mask = g_value_get_boolean (value);
      break;
    case PROP_MASK_COLOR:
      s.mask_color = g_value_get_uint (value);
      break;
    case PROP_TRAILS:
      s.trails = g_value_get_boolean (value);
      break;
    case PROP_TRAIL_LENGTH:
      s.trail_length = g_value_get_uint (value);
      break;
    case PROP_LINE_WIDTH:
      s.line_width = g_value_get_uint (value);
      break;
    case PROP_FONT_SCALE:
      s.font_scale = g_value_get_uint (value);
      break;
    case PROP_COLOR_BY:
      s.color_by = (GstCudaRoiOverlayColorBy) g_value_get_enum (value);
      break;
    case PROP_LABEL_LAYOUT:
      s.label_layout = g_value_get_boolean (value);
      break;
    case PROP_LABEL_FULL_AREA:
      s.label_full_area = g_value_get_double (value);
      break;
    case PROP_LABEL_MIN_AREA:
      s.label_min_area = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_roi_overlay_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaRoiOverlay *self = GST_CUDA_ROI_OVERLAY (object);
  std::lock_guard<std::mutex> lk (*self->lock);
  const Settings & s = *self->settings;
  switch (prop_id) {
    case PROP_TYPES:
      g_value_set_string (value, s.types_text.empty ()? NULL : s.types_text.c_str ());
      break;
    case PROP_LABELS:
      g_value_set_boolean (value, s.labels);
      break;
    case PROP_MASK:
      g_value_set_boolean (value, s.mask);
      break;
    case PROP_MASK_COLOR:
      g_value_set_uint (value, s.mask_color);
      break;
    case PROP_TRAILS:
      g_value_set_boolean (value, s.trails);
      break;
    case PROP_TRAIL_LENGTH:
      g_value_set_uint (value, s.trail_length);
      break;
    case PROP_LINE_WIDTH:
      g_value_set_uint (value, s.line_width);
      break;
    case PROP_FONT_SCALE:
      g_value_set_uint (value, s.font_scale);
      break;
    case PROP_COLOR_BY:
      g_value_set_enum (value, s.color_by);
      break;
    case PROP_LABEL_LAYOUT:
      g_value_set_boolean (value, s.label_layout);
      break;
    case PROP_LABEL_FULL_AREA:
      g_value_set_double (value, s.label_full_area);
      break;
    case PROP_LABEL_MIN_AREA:
      g_value_set_double (value, s.label_min_area);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* --------------------------------------------------------------------------------------------- */

static cvis::Status
gst_cuda_roi_overlay_configure (GstCvisFilter * filter, const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, cvis::Backend backend)
{
  GstCudaRoiOverlay *self = GST_CUDA_ROI_OVERLAY (filter);
  State & st = *self->state;
  (void) in_info;
  (void) out_info;
  cvis::Status s;
  if (!st.cpu && !(st.cpu = cvis::overlay::make_drawer (cvis::Backend::kCpu, &s)))
    return s;
  if (backend == cvis::Backend::kCuda && !st.cuda &&
      !(st.cuda = cvis::overlay::make_drawer (cvis::Backend::kCuda, &s)))
    return s;
  return cvis::Status::Ok ();
}

static void
gst_cuda_roi_overlay_reset (GstCvisFilter * filter)
{
  State & st = *GST_CUDA_ROI_OVERLAY (filter)->state;
  st.trails.clear ();
  st.frame = 0;
}

static void
gst_cuda_roi_overlay_release (GstCvisFilter * filter)
{
  State & st = *GST_CUDA_ROI_OVERLAY (filter)->state;
  if (st.cuda)
    st.cuda->release ();
  st.cuda.reset ();
  st.cpu.reset ();
  st.scene = cvis::overlay::Scene ();
  st.warned_mask = FALSE;
}

/* The foreground meta's mask mapped in the frame's memory space (a CUDA mask of a system-memory
 * frame is downloaded; a system-memory mask of a CUDA frame is uploaded by the drawer). FALSE
 * (nothing mapped) when there is none or it does not fit the frame. */
static cvis::Status
map_mask (GstCudaRoiOverlay * self, GstBuffer * buf, const cvis::ImageView & frame,
    GstCvisFrame * mask, gboolean * mapped)
{
  State & st = *self->state;
  GstCvisForegroundInfo info;
  GstCustomMeta *meta = gst_buffer_get_cvis_foreground_meta (buf);
  *mapped = FALSE;
  if (!meta || !gst_cvis_foreground_meta_get (meta, &info))
    return cvis::Status::Ok ();
  if (info.width != frame.width || info.height != frame.height) {
    if (!st.warned_mask)
      GST_WARNING_OBJECT (self, "foreground mask %dx%d does not fit the %dx%d frame: not drawn",
          info.width, info.height, frame.width, frame.height);
    st.warned_mask = TRUE;
    return cvis::Status::Ok ();
  }
  GstVideoInfo vi;
  gst_video_info_set_format (&vi, GST_VIDEO_FORMAT_GRAY8, info.width, info.height);
  GstCvisFilter *filter = GST_CVIS_FILTER (self);
  CVIS_RETURN_IF_ERROR (frame.space == cvis::MemorySpace::kDevice ?
      mask->map (filter, info.mask, &vi, GST_MAP_READ) :
      mask->map_host (filter, info.mask, &vi, GST_MAP_READ));
  *mapped = TRUE;
  return cvis::Status::Ok ();
}

static cvis::Status
gst_cuda_roi_overlay_analyse (GstCvisFilter * filter, GstBuffer * buf,
    const cvis::ImageView & frame, cvis::StreamHandle stream)
{
  GstCudaRoiOverlay *self = GST_CUDA_ROI_OVERLAY (filter);
  State & st = *self->state;
  {
    /* A copy of the properties, taken when they changed (no copy per frame). */
    std::lock_guard<std::mutex> lk (*self->lock);
    if (!st.have_settings || st.settings.version != self->settings->version)
      st.settings = *self->settings;
    st.have_settings = TRUE;
  }
  const Settings & s = st.settings;
  gst_cuda_roi_overlay_build_scene (self, s, &st, buf, frame.width, frame.height);

  GstCvisFrame mask;
  gboolean have_mask = FALSE;
  cvis::ImageView mask_view;
  st.scene.mask = nullptr;
  if (s.mask && (s.mask_color >> 24) > 0) {
    CVIS_RETURN_IF_ERROR (map_mask (self, buf, frame, &mask, &have_mask));
    if (have_mask) {
      mask_view = mask.view ();
      st.scene.mask = &mask_view;
    }
  }
  if (st.scene.boxes.empty () && st.scene.trails.empty () && !st.scene.mask)
    return cvis::Status::Ok ();

  cvis::overlay::Params p;
  p.line_width = (int) s.line_width;
  p.font_scale = s.font_scale ? (int) s.font_scale : MAX (1, frame.height / 360);
  p.labels = s.labels;
  p.label_layout = s.label_layout;
  p.label_full_area = s.label_full_area;
  /* A minimum above the full-label size: small boxes get no label (validate() refuses it). */
  p.label_min_area = MIN (s.label_min_area, s.label_full_area);
  p.mask_alpha = (int) (s.mask_color >> 24);
  p.mask_color = {(guint8) (s.mask_color >> 16), (guint8) (s.mask_color >> 8),
    (guint8) s.mask_color};
  cvis::overlay::Drawer * d =
      frame.space == cvis::MemorySpace::kDevice ? st.cuda.get () : st.cpu.get ();
  if (!d)
    return cvis::internal_error ("cudaroioverlay: no drawer for this frame's memory");
  CVIS_RETURN_IF_ERROR (d->configure (p));
  return d->draw (st.scene, frame, stream);
}

/* --------------------------------------------------------------------------------------------- */

static void
gst_cuda_roi_overlay_finalize (GObject * object)
{
  GstCudaRoiOverlay *self = GST_CUDA_ROI_OVERLAY (object);
  delete self->state;
  delete self->settings;
  delete self->lock;
  G_OBJECT_CLASS (gst_cuda_roi_overlay_parent_class)->finalize (object);
}

static void
gst_cuda_roi_overlay_class_init (GstCudaRoiOverlayClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCvisFilterClass *filter_class = GST_CVIS_FILTER_CLASS (klass);
  const GParamFlags rw = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING);

  gobject_class->set_property = gst_cuda_roi_overlay_set_property;
  gobject_class->get_property = gst_cuda_roi_overlay_get_property;
  gobject_class->finalize = gst_cuda_roi_overlay_finalize;

  g_object_class_install_property (gobject_class, PROP_TYPES,
      g_param_spec_string ("types", "Types",
          "Comma-separated roi_types to draw, e.g. \"track,action\" (NULL or empty: all)", NULL,
          rw));
  g_object_class_install_property (gobject_class, PROP_LABELS,
      g_param_spec_boolean ("labels", "Labels",
          "Draw a label by every box (label or roi_type, id, score / distance / area / lost "
          "from the ROI's param structures)", DEFAULT_LABELS, rw));
  g_object_class_install_property (gobject_class, PROP_LABEL_LAYOUT,
      g_param_spec_boolean ("label-layout", "Label layout",
          "Lay labels out so that none overlaps another and all stay inside the frame (tracks "
          "first, then larger boxes; a label that finds no free place around its box is "
          "shortened, then dropped); false: every label above its box", DEFAULT_LABEL_LAYOUT,
          rw));
  g_object_class_install_property (gobject_class, PROP_LABEL_FULL_AREA,
      g_param_spec_double ("label-full-area", "Full label area",
          "With label-layout: boxes smaller than this share of the frame's area get the short "
          "label \"<name> <id>\" only", 0.0, 1.0, DEFAULT_LABEL_FULL_AREA, rw));
  g_object_class_install_property (gobject_class, PROP_LABEL_MIN_AREA,
      g_param_spec_double ("label-min-area", "Minimum label area",
          "With label-layout: boxes smaller than this share of the frame's area get no label",
          0.0, 1.0, DEFAULT_LABEL_MIN_AREA, rw));
  g_object_class_install_property (gobject_class, PROP_MASK,
      g_param_spec_boolean ("mask", "Mask",
          "Tint the foreground mask of the GstCvisForegroundMeta over the frame", DEFAULT_MASK,
          rw));
  g_object_class_install_property (gobject_class, PROP_MASK_COLOR,
      g_param_spec_uint ("mask-color", "Mask colour",
          "Tint of the foreground mask as 0xAARRGGBB; AA is the strength (0: no tint, 255: "
          "opaque)", 0, G_MAXUINT32, DEFAULT_MASK_COLOR, rw));
  g_object_class_install_property (gobject_class, PROP_TRAILS,
      g_param_spec_boolean ("trails", "Trails",
          "Draw the path of every track (roi_type \"track\") through its last trail-length "
          "boxes' centres", DEFAULT_TRAILS, rw));
  g_object_class_install_property (gobject_class, PROP_TRAIL_LENGTH,
      g_param_spec_uint ("trail-length", "Trail length",
          "Frames of history per track; a track unseen for longer is forgotten", 2, 1000,
          DEFAULT_TRAIL_LENGTH, rw));
  g_object_class_install_property (gobject_class, PROP_LINE_WIDTH,
      g_param_spec_uint ("line-width", "Line width", "Box outlines and trails, in pixels", 1, 64,
          DEFAULT_LINE_WIDTH, rw));
  g_object_class_install_property (gobject_class, PROP_FONT_SCALE,
      g_param_spec_uint ("font-scale", "Font scale",
          "Pixels per font pixel of the 5x7 label font (0: frame height / 360, at least 1)", 0, 16,
          DEFAULT_FONT_SCALE, rw));
  g_object_class_install_property (gobject_class, PROP_COLOR_BY,
      g_param_spec_enum ("color-by", "Colour by", "How box colours are chosen",
          GST_TYPE_CUDA_ROI_OVERLAY_COLOR_BY, DEFAULT_COLOR_BY, rw));

  gst_element_class_set_static_metadata (element_class, "ROI overlay",
      "Filter/Effect/Video",
      "Draws regions of interest (boxes, labels, track trails) and foreground masks onto the "
      "frames, on the GPU for CUDA memory, with the CPU reference otherwise",
      "gst-cuda-vision");
  gst_cvis_filter_class_add_pad_templates (element_class, "{ " GST_CVIS_CUDA_FORMATS " }",
      "{ " GST_CVIS_SYS_FORMATS " }");

  filter_class->in_place = TRUE;
  filter_class->writable = TRUE;
  filter_class->configure = gst_cuda_roi_overlay_configure;
  filter_class->analyse = gst_cuda_roi_overlay_analyse;
  filter_class->reset = gst_cuda_roi_overlay_reset;
  filter_class->release = gst_cuda_roi_overlay_release;

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_ROI_OVERLAY_COLOR_BY, (GstPluginAPIFlags) 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_roi_overlay_debug, "cudaroioverlay", 0, "ROI overlay");
}

static void
gst_cuda_roi_overlay_init (GstCudaRoiOverlay * self)
{
  self->lock = new std::mutex ();
  self->settings = new Settings ();
  self->state = new State ();
}

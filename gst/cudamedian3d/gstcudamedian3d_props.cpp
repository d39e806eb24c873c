/* cudamedian3d: enum types and properties. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string>

#include "gstcudamedian3d_priv.h"
#include "gstcvisutils.h"

namespace m3d = cvis::median3d;

enum {
  PROP_0,
  PROP_SPATIAL_SIZE,
  PROP_SPATIAL_HEIGHT,
  PROP_TEMPORAL_SIZE,
  PROP_BINS,
  PROP_METHOD,
  PROP_CHANNELS,
  PROP_WINDOW,
  PROP_OUTPUT,
  PROP_THRESHOLD,
  PROP_MIN_BLOB_AREA,
  PROP_MAX_BLOBS,
  PROP_MODE,
  PROP_MOTION_FIRST,  /* mode=motion's properties: gstcudamedian3d_motion_props.cpp */
};


GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_median3d_mode_get_type, "GstCudaMedian3dMode",
    {GST_CUDA_MEDIAN3D_MODE_MOTION, "Motion detector: exact median and MAD of a long per-pixel "
        "sample history", "motion"},
    {GST_CUDA_MEDIAN3D_MODE_PAPER, "The paper's m x n x (T+1) median with Otsu's threshold",
        "paper"})
GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_median3d_output_get_type, "GstCudaMedian3dOutput",
    {GST_CUDA_MEDIAN3D_OUTPUT_BACKGROUND, "The median (background) image", "background"},
    {GST_CUDA_MEDIAN3D_OUTPUT_MASK, "GRAY8 foreground mask", "mask"},
    {GST_CUDA_MEDIAN3D_OUTPUT_FRAME, "Frames with foreground meta and blob boxes", "frame"})
GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_median3d_window_get_type, "GstCudaMedian3dWindow",
    {GST_CUDA_MEDIAN3D_WINDOW_CENTERED, "Centered on the frame (latency T/2 frames)", "centered"},
    {GST_CUDA_MEDIAN3D_WINDOW_CAUSAL, "The frame and the T before it (no latency)", "causal"})
GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_median3d_method_get_type, "GstCudaMedian3dMethod",
    {GST_CUDA_MEDIAN3D_METHOD_INTEGRAL_HISTOGRAM, "Joint integral histogram (the paper's)",
        "integral-histogram"},
    {GST_CUDA_MEDIAN3D_METHOD_SEPARABLE, "2-D medians then temporal median (M2D+t, approximate)",
        "separable"},
    {GST_CUDA_MEDIAN3D_METHOD_SLIDING_HISTOGRAM, "Per-pixel temporal histograms, box sums",
        "sliding-histogram"})
GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_median3d_channels_get_type, "GstCudaMedian3dChannels",
    {GST_CUDA_MEDIAN3D_CHANNELS_LUMA, "Luma (Y, or BT.601 luma of RGB)", "luma"},
    {GST_CUDA_MEDIAN3D_CHANNELS_RGB, "Each channel (R, G, B; Y, U, V for YUV)", "rgb"})

/* --------------------------------------------------------------------------------------------- */
/* Properties. Those of one mode only are taken in the other too (the mode may be set after
 * them); start warns once about those the mode ignores. */

/* The properties of mode=paper (after `mode`, `output`, the blob settings: both modes). */
static const gchar *const kPaperProps[] = { "spatial-size", "spatial-height", "temporal-size",
  "bins", "method", "channels", "window", "threshold", NULL
};

/* At start (GstCvisFilter::check_settings): the settings of the mode as a whole (tau-min <=
 * tau-max and the window's size, whatever order they were set in); a warning for those of the
 * other mode that were set. */
static cvis::Status
gst_cuda_median3d_check_settings (GstCvisFilter * filter)
{
  GstCudaMedian3d *self = GST_CUDA_MEDIAN3D (filter);
  GstCudaMedian3dSettings s;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    s = *self->settings;
  }
  if (s.mode == GST_CUDA_MEDIAN3D_MODE_MOTION) {
    gst_cvis_filter_warn_ignored (filter, kPaperProps, "mode=motion (they apply to mode=paper)");
    if (s.motion.tau_min > s.motion.tau_max)
      return cvis::invalid_argument ("tau-min " + std::to_string (s.motion.tau_min) +
          " is above tau-max " + std::to_string (s.motion.tau_max));
    return m3d::validate (s.motion);
  }
  gst_cvis_filter_warn_ignored (filter, gst_cuda_median3d_motion_property_names (),
      "mode=paper (they apply to mode=motion)");
  m3d::Params p = s.params;
  p.spatial_w = s.spatial_size;
  p.spatial_h = s.spatial_height ? s.spatial_height : s.spatial_size;
  return m3d::validate (p);
}

static void
gst_cuda_median3d_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstCudaMedian3d *self = GST_CUDA_MEDIAN3D (object);
  if (!gst_cvis_filter_property_settable (GST_CVIS_FILTER (self), pspec))
    return;
  std::lock_guard < std::mutex > lk (*self->lock);
  GstCudaMedian3dSettings & s = *self->settings;
  switch (prop_id) {
    case PROP_SPATIAL_SIZE:
    case PROP_SPATIAL_HEIGHT:{
      const gint v = g_value_get_int (value);
      if (v % 2 == 0 && !(v == 0 && prop_id == PROP_SPATIAL_HEIGHT)) {
        g_warning ("cudamedian3d: %s must be odd, %d refused", pspec->name, v);
        break;
      }
      if (prop_id == PROP_SPATIAL_SIZE)
        s.spatial_size = v;
      else
        s.spatial_height = v;
      break;
    }
    case PROP_TEMPORAL_SIZE:
      s.params.temporal = g_value_get_int (value);
      break;
    case PROP_BINS:
      s.params.bins = g_value_get_int (value);
      break;
    case PROP_METHOD:
      s.params.method = (m3d::Method) g_value_get_enum (value);
      break;
    case PROP_CHANNELS:
      s.params.channels = (m3d::Channels) g_value_get_enum (value);
      break;
    case PROP_WINDOW:
      s.window = (GstCudaMedian3dWindow) g_value_get_enum (value);
      break;
    case PROP_OUTPUT:
      s.output = (GstCudaMedian3dOutput) g_value_get_enum (value);
      break;
    case PROP_THRESHOLD:
      s.threshold = g_value_get_int (value);
      break;
    case PROP_MIN_BLOB_AREA:
      s.min_blob_area = g_value_get_uint (value);
      break;
    case PROP_MAX_BLOBS:
      s.max_blobs = g_value_get_uint (value);
      break;
    case PROP_MODE:
      s.mode = (GstCudaMedian3dMode) g_value_get_enum (value);
      break;
    default:
      if (prop_id < PROP_MOTION_FIRST ||
          prop_id >= PROP_MOTION_FIRST + GST_CUDA_MEDIAN3D_MOTION_PROPS) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      } else {
        gst_cuda_median3d_set_motion_property (&s.motion, prop_id - PROP_MOTION_FIRST, value,
            pspec);
      }
      break;
  }
}

static void
gst_cuda_median3d_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaMedian3d *self = GST_CUDA_MEDIAN3D (object);
  std::lock_guard < std::mutex > lk (*self->lock);
  const GstCudaMedian3dSettings & s = *self->settings;
  switch (prop_id) {
    case PROP_SPATIAL_SIZE:
      g_value_set_int (value, s.spatial_size);
      break;
    case PROP_SPATIAL_HEIGHT:
      g_value_set_int (value, s.spatial_height);
      break;
    case PROP_TEMPORAL_SIZE:
      g_value_set_int (value, s.params.temporal);
      break;
    case PROP_BINS:
      g_value_set_int (value, s.params.bins);
      break;
    case PROP_METHOD:
      g_value_set_enum (value, (gint) s.params.method);
      break;
    case PROP_CHANNELS:
      g_value_set_enum (value, (gint) s.params.channels);
      break;
    case PROP_WINDOW:
      g_value_set_enum (value, s.window);
      break;
    case PROP_OUTPUT:
      g_value_set_enum (value, s.output);
      break;
    case PROP_THRESHOLD:
      g_value_set_int (value, s.threshold);
      break;
    case PROP_MIN_BLOB_AREA:
      g_value_set_uint (value, s.min_blob_area);
      break;
    case PROP_MAX_BLOBS:
      g_value_set_uint (value, s.max_blobs);
      break;
    case PROP_MODE:
      g_value_set_enum (value, s.mode);
      break;
    default:
      if (prop_id < PROP_MOTION_FIRST || !gst_cuda_median3d_get_motion_property (s.motion,
              prop_id - PROP_MOTION_FIRST, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

void
gst_cuda_median3d_install_properties (GObjectClass * gobject_class)
{
  const GParamFlags ready = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY);
  const GParamFlags playing = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING);
  const m3d::Params d;

  gobject_class->set_property = gst_cuda_median3d_set_property;
  gobject_class->get_property = gst_cuda_median3d_get_property;
  GST_CVIS_FILTER_CLASS (gobject_class)->check_settings = gst_cuda_median3d_check_settings;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "motion: a motion detector against the exact median of a "
          "long per-pixel sample history (no latency); paper: the paper's m x n x (T+1) median "
          "with Otsu's threshold (the spatial/temporal/bins/method/channels/window/threshold "
          "properties apply to it only)", gst_cuda_median3d_mode_get_type (),
          GST_CUDA_MEDIAN3D_MODE_MOTION, ready));
  g_object_class_install_property (gobject_class, PROP_SPATIAL_SIZE,
      g_param_spec_int ("spatial-size", "Spatial size",
          "Window width m (and height n unless spatial-height is set), odd; larger windows "
          "remove larger moving objects and blur the background's edges", 1, m3d::kMaxSpatial,
          d.spatial_w, ready));
  g_object_class_install_property (gobject_class, PROP_SPATIAL_HEIGHT,
      g_param_spec_int ("spatial-height", "Spatial height",
          "Window height n, odd (0 = spatial-size)", 0, m3d::kMaxSpatial, 0, ready));
  g_object_class_install_property (gobject_class, PROP_TEMPORAL_SIZE,
      g_param_spec_int ("temporal-size", "Temporal size",
          "Frames in the window (T+1): longer windows ignore slower objects, centered windows add "
          "(T+1-1)/2 frames of latency; m*n*(T+1) must not exceed 65535", 1, m3d::kMaxTemporal,
          d.temporal, ready));
  g_object_class_install_property (gobject_class, PROP_BINS,
      g_param_spec_int ("bins", "Bins",
          "Histogram bins (uniform over 0..255): 256 gives the exact median; fewer bins cost less "
          "memory and time and quantise the background", 8, 256, d.bins, ready));
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "How the median is computed",
          gst_cuda_median3d_method_get_type (), (gint) d.method, ready));
  g_object_class_install_property (gobject_class, PROP_CHANNELS,
      g_param_spec_enum ("channels", "Channels", "Median of the luma or of each channel",
          gst_cuda_median3d_channels_get_type (), (gint) d.channels, ready));
  g_object_class_install_property (gobject_class, PROP_WINDOW,
      g_param_spec_enum ("window", "Window", "Frames around (centered) or before (causal) each "
          "output frame", gst_cuda_median3d_window_get_type (),
          GST_CUDA_MEDIAN3D_WINDOW_CENTERED, ready));
  g_object_class_install_property (gobject_class, PROP_OUTPUT,
      g_param_spec_enum ("output", "Output", "What leaves the source pad",
          gst_cuda_median3d_output_get_type (), GST_CUDA_MEDIAN3D_OUTPUT_BACKGROUND, ready));
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_int ("threshold", "Threshold",
          "Foreground when |I - median| > threshold; -1: Otsu's threshold of each frame", -1, 255,
          -1, playing));
  g_object_class_install_property (gobject_class, PROP_MIN_BLOB_AREA,
      g_param_spec_uint ("min-blob-area", "Minimum blob area",
          "output=frame/mask: foreground blobs smaller than this (pixels) get no box; 0: 1/3000 "
          "of the frame's area, at least 25 (691 at 1920x1080)", 0, G_MAXUINT, 0, playing));
  g_object_class_install_property (gobject_class, PROP_MAX_BLOBS,
      g_param_spec_uint ("max-blobs", "Maximum blobs",
          "output=frame/mask: boxes per frame at most (the largest blobs)", 0, 100000, 64,
          playing));

  gst_cuda_median3d_install_motion_properties (gobject_class, PROP_MOTION_FIRST);

  gst_type_mark_as_plugin_api (gst_cuda_median3d_mode_get_type (), (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (gst_cuda_median3d_output_get_type (), (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (gst_cuda_median3d_window_get_type (), (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (gst_cuda_median3d_method_get_type (), (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (gst_cuda_median3d_channels_get_type (), (GstPluginAPIFlags) 0);
}

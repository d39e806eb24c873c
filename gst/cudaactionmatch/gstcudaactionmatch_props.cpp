/* cudaactionmatch: enum types and properties. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string>

#include "gstcudaactionmatch_priv.h"
#include "gstcvisutils.h"

namespace am = cvis::actionmatch;
namespace al = cvis::actionlearn;
namespace stip = cvis::stip;

enum {
  PROP_0,
  PROP_MODEL_LOCATION,
  PROP_BLOCK_FRAMES,
  PROP_OVERLAP,
  PROP_DISTANCE,
  PROP_MIN_SCORE,
  PROP_MIN_POINTS,
  PROP_SIGMA,
  PROP_TAU,
  PROP_THRESHOLD,
  PROP_MAX_POINTS,
  PROP_CELL_SIZE,
  PROP_CELL_FRAMES,
  PROP_FLOW_HISTOGRAM,
  PROP_SPEED_SPLIT,
  PROP_DETECTOR,
  PROP_HARRIS_K,
  PROP_HARRIS_SCALE,
};

GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_action_match_distance_get_type, "GstCudaActionMatchDistance",
    {GST_CUDA_ACTION_MATCH_DISTANCE_ENERGY, "The optimum's whole energy", "energy"},
    {GST_CUDA_ACTION_MATCH_DISTANCE_APPEARANCE,
        "The optimum's appearance part (the paper's best)", "appearance"})

GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_action_match_flow_histogram_get_type,
    "GstCudaActionMatchFlowHistogram",
    {GST_CUDA_ACTION_MATCH_FLOW_HISTOGRAM_PAPER,
        "4 flow directions + no motion per cell (the paper's 162 values)", "paper"},
    {GST_CUDA_ACTION_MATCH_FLOW_HISTOGRAM_SPEED,
        "Flow directions split at speed-split (234 values): keeps the speed", "speed"})

GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_action_match_detector_get_type, "GstCudaActionMatchDetector",
    {GST_CUDA_ACTION_MATCH_DETECTOR_PERIODIC,
        "Periodic detector: spatial Gaussian, temporal Gabor pair (Dollar et al.)", "periodic"},
    {GST_CUDA_ACTION_MATCH_DETECTOR_HARRIS, "Space-time Harris corners (Laptev)", "harris"})

/* Settings that size the window or the dictionary change only in NULL / READY (their pspecs
 * say GST_PARAM_MUTABLE_READY), each value as given: the whole (overlap < block-frames, the
 * front end's limits) is judged at start, so the order of setting does not matter. */
static cvis::Status
gst_cuda_action_match_check_settings (GstCvisFilter * filter)
{
  GstCudaActionMatch *self = GST_CUDA_ACTION_MATCH (filter);
  al::RecogniserParams p;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    p = self->settings->params;
  }
  if (p.overlap >= p.block_frames)
    return cvis::invalid_argument ("overlap " + std::to_string (p.overlap) +
        " must be less than block-frames " + std::to_string (p.block_frames));
  return al::validate (p);
}

static void
gst_cuda_action_match_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstCudaActionMatch *self = GST_CUDA_ACTION_MATCH (object);
  if (!gst_cvis_filter_property_settable (GST_CVIS_FILTER (self), pspec))
    return;
  std::lock_guard < std::mutex > lk (*self->lock);
  GstCudaActionMatchSettings & s = *self->settings;
  al::RecogniserParams & p = s.params;
  switch (prop_id) {
    case PROP_MODEL_LOCATION:{
      const gchar *v = g_value_get_string (value);
      s.model_location = v ? v : "";
      break;
    }
    case PROP_BLOCK_FRAMES:
      p.block_frames = (int) g_value_get_uint (value);
      break;
    case PROP_OVERLAP:
      p.overlap = (int) g_value_get_uint (value);
      break;
    case PROP_DISTANCE:
      p.distance = (am::Distance) g_value_get_enum (value);
      break;
    case PROP_MIN_SCORE:
      s.min_score = g_value_get_double (value);
      break;
    case PROP_MIN_POINTS:
      p.min_nodes = (int) g_value_get_uint (value);
      break;
    case PROP_SIGMA:
      p.frontend.sigma = g_value_get_double (value);
      break;
    case PROP_TAU:
      p.frontend.tau = g_value_get_double (value);
      break;
    case PROP_THRESHOLD:
      p.frontend.threshold = g_value_get_double (value);
      break;
    case PROP_MAX_POINTS:
      p.frontend.max_points = (int) g_value_get_uint (value);
      break;
    case PROP_CELL_SIZE:
      p.frontend.cell_size = g_value_get_double (value);
      break;
    case PROP_CELL_FRAMES:
      p.frontend.cell_frames = (int) g_value_get_uint (value);
      break;
    case PROP_FLOW_HISTOGRAM:
      p.frontend.flow_histogram = (stip::FlowHistogram) g_value_get_enum (value);
      break;
    case PROP_SPEED_SPLIT:
      p.frontend.speed_split = g_value_get_double (value);
      break;
    case PROP_DETECTOR:
      p.frontend.detector = (stip::Detector) g_value_get_enum (value);
      break;
    case PROP_HARRIS_K:
      p.frontend.harris_k = g_value_get_double (value);
      break;
    case PROP_HARRIS_SCALE:
      p.frontend.harris_scale = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_action_match_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaActionMatch *self = GST_CUDA_ACTION_MATCH (object);
  std::lock_guard < std::mutex > lk (*self->lock);
  const GstCudaActionMatchSettings & s = *self->settings;
  const al::RecogniserParams & p = s.params;
  switch (prop_id) {
    case PROP_MODEL_LOCATION:
      g_value_set_string (value, s.model_location.c_str ());
      break;
    case PROP_BLOCK_FRAMES:
      g_value_set_uint (value, (guint) p.block_frames);
      break;
    case PROP_OVERLAP:
      g_value_set_uint (value, (guint) p.overlap);
      break;
    case PROP_DISTANCE:
      g_value_set_enum (value, (gint) p.distance);
      break;
    case PROP_MIN_SCORE:
      g_value_set_double (value, s.min_score);
      break;
    case PROP_MIN_POINTS:
      g_value_set_uint (value, (guint) p.min_nodes);
      break;
    case PROP_SIGMA:
      g_value_set_double (value, p.frontend.sigma);
      break;
    case PROP_TAU:
      g_value_set_double (value, p.frontend.tau);
      break;
    case PROP_THRESHOLD:
      g_value_set_double (value, p.frontend.threshold);
      break;
    case PROP_MAX_POINTS:
      g_value_set_uint (value, (guint) p.frontend.max_points);
      break;
    case PROP_CELL_SIZE:
      g_value_set_double (value, p.frontend.cell_size);
      break;
    case PROP_CELL_FRAMES:
      g_value_set_uint (value, (guint) p.frontend.cell_frames);
      break;
    case PROP_FLOW_HISTOGRAM:
      g_value_set_enum (value, (gint) p.frontend.flow_histogram);
      break;
    case PROP_SPEED_SPLIT:
      g_value_set_double (value, p.frontend.speed_split);
      break;
    case PROP_DETECTOR:
      g_value_set_enum (value, (gint) p.frontend.detector);
      break;
    case PROP_HARRIS_K:
      g_value_set_double (value, p.frontend.harris_k);
      break;
    case PROP_HARRIS_SCALE:
      g_value_set_double (value, p.frontend.harris_scale);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

void
gst_cuda_action_match_install_properties (GObjectClass * klass)
{
  const GParamFlags rw = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  const GParamFlags ready = (GParamFlags) (rw | GST_PARAM_MUTABLE_READY);
  const al::RecogniserParams d;
  klass->set_property = gst_cuda_action_match_set_property;
  klass->get_property = gst_cuda_action_match_get_property;
  GST_CVIS_FILTER_CLASS (klass)->check_settings = gst_cuda_action_match_check_settings;

  g_object_class_install_property (klass, PROP_MODEL_LOCATION,
      g_param_spec_string ("model-location", "Dictionary",
          "The action dictionary (cvis-action train); read at start", "", ready));
  g_object_class_install_property (klass, PROP_BLOCK_FRAMES,
      g_param_spec_uint ("block-frames", "Block frames",
          "Frames per scene block matched against the models", 10, 10000,
          (guint) d.block_frames, ready));
  g_object_class_install_property (klass, PROP_OVERLAP,
      g_param_spec_uint ("overlap", "Overlap",
          "Frames shared by consecutive blocks (less than block-frames)", 0, 9999,
          (guint) d.overlap, ready));
  g_object_class_install_property (klass, PROP_DISTANCE,
      g_param_spec_enum ("distance", "Distance", "What is compared between a block and a model",
          gst_cuda_action_match_distance_get_type (), (gint) d.distance, ready));
  g_object_class_install_property (klass, PROP_MIN_SCORE,
      g_param_spec_double ("min-score", "Minimum score",
          "Blocks whose margin to another class's model is smaller report no action "
          "(0 = every block with a match)", 0.0, 1.0, 0.0, (GParamFlags) (rw |
              GST_PARAM_MUTABLE_PLAYING)));
  g_object_class_install_property (klass, PROP_MIN_POINTS,
      g_param_spec_uint ("min-points", "Minimum points",
          "Blocks with fewer interest points report no action", 1, 32767,
          (guint) d.min_nodes, ready));
  g_object_class_install_property (klass, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Detector: spatial scale of the Gaussian (pixels); as the dictionary's training",
          0.5, 8.0, d.frontend.sigma, ready));
  g_object_class_install_property (klass, PROP_TAU,
      g_param_spec_double ("tau", "Tau",
          "Detector: temporal scale of the Gabor pair (frames); as the dictionary's training",
          0.5, 8.0, d.frontend.tau, ready));
  g_object_class_install_property (klass, PROP_THRESHOLD,
      g_param_spec_double ("threshold", "Threshold",
          "Detector: minimum response (intensities in 0..1); as the dictionary's training",
          0.0, 1e6, d.frontend.threshold, ready));
  g_object_class_install_property (klass, PROP_MAX_POINTS,
      g_param_spec_uint ("max-points", "Maximum points",
          "Detector: strongest points kept per frame; as the dictionary's training", 1, 64,
          (guint) d.frontend.max_points, ready));
  g_object_class_install_property (klass, PROP_CELL_SIZE,
      g_param_spec_double ("cell-size", "Cell size",
          "Descriptor: spatial cell (pixels); as the dictionary's training", 2.0, 64.0,
          d.frontend.cell_size, ready));
  g_object_class_install_property (klass, PROP_CELL_FRAMES,
      g_param_spec_uint ("cell-frames", "Cell frames",
          "Descriptor: temporal cell (frames); as the dictionary's training", 1, 16,
          (guint) d.frontend.cell_frames, ready));
  g_object_class_install_property (klass, PROP_FLOW_HISTOGRAM,
      g_param_spec_enum ("flow-histogram", "Flow histogram",
          "Descriptor: how the flow is binned; must be the dictionary's (it records it)",
          gst_cuda_action_match_flow_histogram_get_type (), (gint) d.frontend.flow_histogram,
          ready));
  g_object_class_install_property (klass, PROP_SPEED_SPLIT,
      g_param_spec_double ("speed-split", "Speed split",
          "Descriptor: flow speed (pixels/frame) between the slow and fast bins of "
          "flow-histogram=speed; must be the dictionary's", stip::kMinSpeedSplit,
          stip::kMaxSpeedSplit, d.frontend.speed_split, ready));
  g_object_class_install_property (klass, PROP_DETECTOR,
      g_param_spec_enum ("detector", "Detector",
          "Detector: the interest point detector; as the dictionary's training",
          gst_cuda_action_match_detector_get_type (), (gint) d.frontend.detector, ready));
  g_object_class_install_property (klass, PROP_HARRIS_K,
      g_param_spec_double ("harris-k", "Harris k",
          "Detector (harris): weight of trace^3 in det - k trace^3; as the dictionary's training",
          0.0, 0.1, d.frontend.harris_k, ready));
  g_object_class_install_property (klass, PROP_HARRIS_SCALE,
      g_param_spec_double ("harris-scale", "Harris integration scale",
          "Detector (harris): integration scale over (sigma, tau); harris-scale x sigma and "
          "x tau at most 8; as the dictionary's training", 1.0, 4.0, d.frontend.harris_scale,
          ready));
}

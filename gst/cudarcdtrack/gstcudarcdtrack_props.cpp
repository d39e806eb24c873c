/* cudarcdtrack: enum types and properties. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string>
#include <vector>

#include "gstcudarcdtrack_priv.h"

enum {
  PROP_0,
  PROP_MODE,
  PROP_ROI,
  PROP_INIT_ROI_TYPE,
  PROP_INIT_MIN_AREA,
  PROP_INIT_PERSISTENCE,
  PROP_MAX_TARGETS,
  PROP_LOST_TIMEOUT,
  PROP_STATIC_TIMEOUT,
  PROP_INIT_ALIGNED_STEPS,
  PROP_LOST_RADIUS,
  PROP_FEATURES,
  PROP_DISTANCE,
  PROP_PARTS,
  PROP_SCALES,
  PROP_SCALE_MIN,
  PROP_SCALE_MAX,
  PROP_STEP,
  PROP_SEARCH_RADIUS,
  PROP_UPDATE_RATE,
  PROP_LOST_THRESHOLD,
  PROP_RIDGE,
  PROP_MOTION_WEIGHT,
  PROP_SCALE_WEIGHT,
  PROP_CONTEXT_WEIGHT,
  PROP_SCALE_PREDICTION,
  PROP_SCALE_GAIN,
  PROP_MODEL_ANCHOR,
  PROP_OCCLUSION_RATIO,
  PROP_COAST_FRAMES,
  PROP_LOCAL_REACQUIRE,
  PROP_ROTATION_BOX,
  PROP_ROTATION_SOURCE,
  PROP_TEMPLATE_REFINE,
  PROP_TOP_K,
  PROP_MODEL_LOCATION,
  PROP_THRESHOLD,
  PROP_NMS_OVERLAP,
  PROP_MAX_DETECTIONS,
  PROP_DUPLICATE_TIMEOUT,
  PROP_STILL_TIMEOUT,
};

#define DEFINE_ENUM(fn, name, ...)                                       \
  GType fn (void) {                                                      \
    static gsize type = 0;                                               \
    static const GEnumValue values[] = { __VA_ARGS__, {0, NULL, NULL} }; \
    if (g_once_init_enter (&type))                                       \
      g_once_init_leave (&type, g_enum_register_static (name, values));  \
    return (GType) type;                                                 \
  }

DEFINE_ENUM (gst_cuda_rcd_track_mode_get_type, "GstCudaRcdTrackMode",
    {GST_CUDA_RCD_TRACK_MODE_TRACK, "Track targets (roi, init-roi-type, signals, a model)",
        "track"},
    {GST_CUDA_RCD_TRACK_MODE_DETECT, "Detect every window like the model-location template",
        "detect"})
DEFINE_ENUM (gst_cuda_rcd_track_distance_get_type, "GstCudaRcdTrackDistance",
    {GST_CUDA_RCD_TRACK_DISTANCE_JBLD, "Jensen-Bregman LogDet divergence (thesis Eq. 10)", "jbld"},
    {GST_CUDA_RCD_TRACK_DISTANCE_FOERSTNER,
        "Foerstner distance of the generalised eigenvalues (Eq. 5)", "foerstner"})
DEFINE_ENUM (gst_cuda_rcd_track_rotation_source_get_type, "GstCudaRcdTrackRotationSource",
    {GST_CUDA_RCD_TRACK_ROTATION_TENSOR,
        "Orientation of the gradient structure tensor (anisotropic textures only)", "tensor"},
    {GST_CUDA_RCD_TRACK_ROTATION_LAYOUT,
        "The angle whose turned first window is nearest to the matched window", "layout"},
    {GST_CUDA_RCD_TRACK_ROTATION_FALLBACK,
        "The tensor where the first window's gradients have an orientation, else the layout",
        "fallback"},
    {GST_CUDA_RCD_TRACK_ROTATION_BOTH, "The mean of both where both measure", "both"})

/* --------------------------------------------------------------------------------------------- */
/* Property contracts: the parameters are judged as a whole (scale-min <= scale-max...), at start
 * in NULL / READY (any order of setting works) and at once while running; roi boxes must lie in
 * the frame (checked against the sizes upstream offers at start, and at every configure). */

static cvis::Status
check_params (const rcd::Params & p)
{
  if (p.scale_min > p.scale_max) {
    char buf[128];
    g_snprintf (buf, sizeof buf, "scale-min %g is above scale-max %g", p.scale_min, p.scale_max);
    return cvis::invalid_argument (buf);
  }
  return rcd::validate (p);
}

static cvis::Status
gst_cuda_rcd_track_check_settings (GstCvisFilter * filter)
{
  GstCudaRcdTrack *self = GST_CUDA_RCD_TRACK (filter);
  std::lock_guard < std::mutex > lk (*self->lock);
  return check_params (self->settings->params);
}

static cvis::Status
gst_cuda_rcd_track_check_size (GstCvisFilter * filter, gint width, gint height)
{
  GstCudaRcdTrack *self = GST_CUDA_RCD_TRACK (filter);
  std::string roi;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    if (self->settings->mode != GST_CUDA_RCD_TRACK_MODE_TRACK)
      return cvis::Status::Ok ();
    roi = self->settings->roi;
  }
  std::vector < rcd::Box > boxes;
  std::string err;
  if (roi.empty () || !rcd::parse_boxes (roi, &boxes, &err))
    return cvis::Status::Ok ();  /* start reports a roi that does not parse */
  for (size_t k = 0; k < boxes.size (); k++) {
    const rcd::Box & b = boxes[k];
    if (b.x < 0 || b.y < 0 || (gint64) b.x + b.w > width || (gint64) b.y + b.h > height)
      return cvis::invalid_argument ("roi box " + std::to_string (k + 1) + " (" +
          std::to_string (b.x) + "," + std::to_string (b.y) + "," + std::to_string (b.w) + "," +
          std::to_string (b.h) + ") does not lie inside the " + std::to_string (width) + "x" +
          std::to_string (height) + " frames upstream offers");
  }
  return cvis::Status::Ok ();
}

static void
gst_cuda_rcd_track_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstCudaRcdTrack *self = GST_CUDA_RCD_TRACK (object);
  if (!gst_cvis_filter_property_settable (GST_CVIS_FILTER (self), pspec))
    return;
  std::lock_guard < std::mutex > lk (*self->lock);
  GstCudaRcdTrackSettings & s = *self->settings;
  rcd::Params & p = s.params;
  switch (prop_id) {
    case PROP_MODE:
      s.mode = (GstCudaRcdTrackMode) g_value_get_enum (value);
      break;
    case PROP_ROI:{
      const gchar *v = g_value_get_string (value);
      s.roi = v ? v : "";
      std::vector < rcd::Box > boxes;
      std::string err;
      /* Kept anyway: start() turns it into an element error the user sees. */
      if (!s.roi.empty () && !rcd::parse_boxes (s.roi, &boxes, &err))
        g_warning ("cudarcdtrack: roi '%s': %s", s.roi.c_str (), err.c_str ());
      break;
    }
    case PROP_INIT_ROI_TYPE:{
      const gchar *v = g_value_get_string (value);
      s.init_roi_type = v ? v : "";
      break;
    }
    case PROP_INIT_MIN_AREA:
      s.init_min_area = g_value_get_uint (value);
      break;
    case PROP_INIT_PERSISTENCE:
      s.init_persistence = g_value_get_uint (value);
      break;
    case PROP_MAX_TARGETS:
      s.max_targets = g_value_get_uint (value);
      break;
    case PROP_LOST_TIMEOUT:
      s.lost_timeout = g_value_get_uint (value);
      break;
    case PROP_STATIC_TIMEOUT:
      s.static_timeout = g_value_get_uint (value);
      break;
    case PROP_DUPLICATE_TIMEOUT:
      s.duplicate_timeout = g_value_get_uint (value);
      break;
    case PROP_STILL_TIMEOUT:
      s.still_timeout = g_value_get_uint (value);
      break;
    case PROP_INIT_ALIGNED_STEPS:
      s.init_aligned_steps = g_value_get_boolean (value);
      break;
    case PROP_LOST_RADIUS:
      s.lost_radius = g_value_get_double (value);
      break;
    case PROP_FEATURES:{
      const gchar *v = g_value_get_string (value);
      rcd::FeatureSet f;
      std::string err;
      if (!v || !rcd::parse_features (v, &f, &err))
        g_warning ("cudarcdtrack: features '%s' refused: %s", v ? v : "(null)",
            v ? err.c_str () : "no value");
      else
        p.features = f;
      break;
    }
    case PROP_DISTANCE:
      p.distance = (rcd::Distance) g_value_get_enum (value);
      break;
    case PROP_PARTS:{
      const gint v = g_value_get_int (value);
      if (v != 1 && v != 5)
        g_warning ("cudarcdtrack: parts must be 1 or 5, %d refused", v);
      else
        p.parts = v;
      break;
    }
    case PROP_SCALES:
      p.scales = g_value_get_int (value);
      break;
    case PROP_SCALE_MIN:
    case PROP_SCALE_MAX:{
      rcd::Params changed = p;
      (prop_id == PROP_SCALE_MIN ? changed.scale_min : changed.scale_max) =
          g_value_get_double (value);
      if (!gst_cvis_filter_accept_change (GST_CVIS_FILTER (self), pspec,
              check_params (changed)))
        return;
      p = changed;
      break;
    }
    case PROP_STEP:
      p.step = g_value_get_int (value);
      break;
    case PROP_SEARCH_RADIUS:
      p.search_radius = g_value_get_double (value);
      break;
    case PROP_UPDATE_RATE:
      p.update_rate = g_value_get_double (value);
      break;
    case PROP_LOST_THRESHOLD:
      p.lost_threshold = g_value_get_double (value);
      break;
    case PROP_RIDGE:
      p.ridge = g_value_get_double (value);
      break;
    case PROP_MOTION_WEIGHT:
      p.motion_weight = g_value_get_double (value);
      break;
    case PROP_SCALE_WEIGHT:
      p.scale_weight = g_value_get_double (value);
      break;
    case PROP_CONTEXT_WEIGHT:
      p.context_weight = g_value_get_double (value);
      break;
    case PROP_SCALE_PREDICTION:
      p.scale_prediction = g_value_get_double (value);
      break;
    case PROP_SCALE_GAIN:
      p.scale_gain = g_value_get_double (value);
      break;
    case PROP_MODEL_ANCHOR:
      p.model_anchor = g_value_get_double (value);
      break;
    case PROP_OCCLUSION_RATIO:
      p.occlusion_ratio = g_value_get_double (value);
      break;
    case PROP_COAST_FRAMES:
      p.coast_frames = g_value_get_int (value);
      break;
    case PROP_LOCAL_REACQUIRE:
      p.local_reacquire = g_value_get_boolean (value) != FALSE;
      break;
    case PROP_ROTATION_BOX:
      p.rotation_box = g_value_get_boolean (value) != FALSE;
      break;
    case PROP_ROTATION_SOURCE:
      p.rotation_source = (rcd::RotationSource) g_value_get_enum (value);
      break;
    case PROP_TEMPLATE_REFINE:
      p.template_refine = g_value_get_boolean (value) != FALSE;
      break;
    case PROP_TOP_K:
      p.top_k = g_value_get_int (value);
      break;
    case PROP_MODEL_LOCATION:{
      const gchar *v = g_value_get_string (value);
      s.model_location = v ? v : "";
      break;
    }
    case PROP_THRESHOLD:
      p.threshold = g_value_get_double (value);
      break;
    case PROP_NMS_OVERLAP:
      p.nms_iou = g_value_get_double (value);
      break;
    case PROP_MAX_DETECTIONS:
      p.max_detections = (int) g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
  }
  s.version++;
}

static void
gst_cuda_rcd_track_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaRcdTrack *self = GST_CUDA_RCD_TRACK (object);
  std::lock_guard < std::mutex > lk (*self->lock);
  const GstCudaRcdTrackSettings & s = *self->settings;
  const rcd::Params & p = s.params;
  switch (prop_id) {
    case PROP_MODE:
      g_value_set_enum (value, s.mode);
      break;
    case PROP_ROI:
      g_value_set_string (value, s.roi.empty ()? NULL : s.roi.c_str ());
      break;
    case PROP_INIT_ROI_TYPE:
      g_value_set_string (value, s.init_roi_type.empty ()? NULL : s.init_roi_type.c_str ());
      break;
    case PROP_INIT_MIN_AREA:
      g_value_set_uint (value, s.init_min_area);
      break;
    case PROP_INIT_PERSISTENCE:
      g_value_set_uint (value, s.init_persistence);
      break;
    case PROP_MAX_TARGETS:
      g_value_set_uint (value, s.max_targets);
      break;
    case PROP_LOST_TIMEOUT:
      g_value_set_uint (value, s.lost_timeout);
      break;
    case PROP_STATIC_TIMEOUT:
      g_value_set_uint (value, s.static_timeout);
      break;
    case PROP_DUPLICATE_TIMEOUT:
      g_value_set_uint (value, s.duplicate_timeout);
      break;
    case PROP_STILL_TIMEOUT:
      g_value_set_uint (value, s.still_timeout);
      break;
    case PROP_INIT_ALIGNED_STEPS:
      g_value_set_boolean (value, s.init_aligned_steps);
      break;
    case PROP_LOST_RADIUS:
      g_value_set_double (value, s.lost_radius);
      break;
    case PROP_FEATURES:
      g_value_set_string (value, rcd::feature_names (p.features).c_str ());
      break;
    case PROP_DISTANCE:
      g_value_set_enum (value, (gint) p.distance);
      break;
    case PROP_PARTS:
      g_value_set_int (value, p.parts);
      break;
    case PROP_SCALES:
      g_value_set_int (value, p.scales);
      break;
    case PROP_SCALE_MIN:
      g_value_set_double (value, p.scale_min);
      break;
    case PROP_SCALE_MAX:
      g_value_set_double (value, p.scale_max);
      break;
    case PROP_STEP:
      g_value_set_int (value, p.step);
      break;
    case PROP_SEARCH_RADIUS:
      g_value_set_double (value, p.search_radius);
      break;
    case PROP_UPDATE_RATE:
      g_value_set_double (value, p.update_rate);
      break;
    case PROP_LOST_THRESHOLD:
      g_value_set_double (value, p.lost_threshold);
      break;
    case PROP_RIDGE:
      g_value_set_double (value, p.ridge);
      break;
    case PROP_MOTION_WEIGHT:
      g_value_set_double (value, p.motion_weight);
      break;
    case PROP_SCALE_WEIGHT:
      g_value_set_double (value, p.scale_weight);
      break;
    case PROP_CONTEXT_WEIGHT:
      g_value_set_double (value, p.context_weight);
      break;
    case PROP_SCALE_PREDICTION:
      g_value_set_double (value, p.scale_prediction);
      break;
    case PROP_SCALE_GAIN:
      g_value_set_double (value, p.scale_gain);
      break;
    case PROP_MODEL_ANCHOR:
      g_value_set_double (value, p.model_anchor);
      break;
    case PROP_OCCLUSION_RATIO:
      g_value_set_double (value, p.occlusion_ratio);
      break;
    case PROP_COAST_FRAMES:
      g_value_set_int (value, p.coast_frames);
      break;
    case PROP_LOCAL_REACQUIRE:
      g_value_set_boolean (value, p.local_reacquire);
      break;
    case PROP_ROTATION_BOX:
      g_value_set_boolean (value, p.rotation_box);
      break;
    case PROP_ROTATION_SOURCE:
      g_value_set_enum (value, (gint) p.rotation_source);
      break;
    case PROP_TEMPLATE_REFINE:
      g_value_set_boolean (value, p.template_refine);
      break;
    case PROP_TOP_K:
      g_value_set_int (value, p.top_k);
      break;
    case PROP_MODEL_LOCATION:
      g_value_set_string (value, s.model_location.empty ()? NULL : s.model_location.c_str ());
      break;
    case PROP_THRESHOLD:
      g_value_set_double (value, p.threshold);
      break;
    case PROP_NMS_OVERLAP:
      g_value_set_double (value, p.nms_iou);
      break;
    case PROP_MAX_DETECTIONS:
      g_value_set_uint (value, (guint) p.max_detections);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

void
gst_cuda_rcd_track_install_properties (GObjectClass * gobject_class)
{
  const GParamFlags ready = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY);
  const GParamFlags playing = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING);
  const rcd::Params d;

  gobject_class->set_property = gst_cuda_rcd_track_set_property;
  gobject_class->get_property = gst_cuda_rcd_track_get_property;
  GST_CVIS_FILTER_CLASS (gobject_class)->check_settings = gst_cuda_rcd_track_check_settings;
  GST_CVIS_FILTER_CLASS (gobject_class)->check_size = gst_cuda_rcd_track_check_size;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "track: follow targets; detect: report every window like the model-location template",
          gst_cuda_rcd_track_mode_get_type (), GST_CUDA_RCD_TRACK_MODE_TRACK, ready));
  g_object_class_install_property (gobject_class, PROP_ROI,
      g_param_spec_string ("roi", "Regions of interest",
          "Targets to track, in pixels of the first frame: \"x,y,w,h\" or \"x,y,w,h;x,y,w,h;...\" "
          "(ids 0, 1, ... in this order; an element error at start when it does not parse or a "
          "box lies outside the frame)", NULL, ready));
  g_object_class_install_property (gobject_class, PROP_INIT_ROI_TYPE,
      g_param_spec_string ("init-roi-type", "Initial ROI type",
          "Start a target on every upstream GstVideoRegionOfInterestMeta of this roi_type (e.g. "
          "\"foreground\" from cudabgsub or cudamedian3d) that persists init-persistence frames "
          "with init-min-area pixels, is filled at least a quarter by its object when the meta "
          "has a pixel count (a \"foreground\" structure's \"area\") and overlaps no target "
          "(NULL: off)", NULL, playing));
  g_object_class_install_property (gobject_class, PROP_INIT_MIN_AREA,
      g_param_spec_uint ("init-min-area", "Initial ROI minimum area",
          "Smaller init-roi-type boxes (pixels) start no target (0: automatic, 1/5000 of the "
          "frame's area and at least 64: 415 pixels at 1920x1080, 64 up to 640x512)", 0,
          G_MAXUINT, 0, playing));
  g_object_class_install_property (gobject_class, PROP_INIT_PERSISTENCE,
      g_param_spec_uint ("init-persistence", "Initial ROI persistence",
          "Frames an init-roi-type box must be seen (overlapping itself by half) before a target "
          "starts on it", 1, 1000, 3, playing));
  g_object_class_install_property (gobject_class, PROP_MAX_TARGETS,
      g_param_spec_uint ("max-targets", "Maximum targets",
          "Targets at most (init-roi-type and the track signal start no more)", 1, 4096, 64,
          playing));
  g_object_class_install_property (gobject_class, PROP_LOST_TIMEOUT,
      g_param_spec_uint ("lost-timeout", "Lost timeout",
          "Frames a target started from an init-roi-type box may stay lost before it is removed "
          "(a cvis-rcdtrack-removed message; 0: kept, searched over the whole frame every frame); "
          "targets from roi, model-location and the track signal are kept until untracked",
          0, G_MAXUINT, 30, playing));
  g_object_class_install_property (gobject_class, PROP_STATIC_TIMEOUT,
      g_param_spec_uint ("static-timeout", "Static timeout",
          "Frames a target started from an init-roi-type box may overlap none of that type's "
          "boxes of init-min-area pixels before it is removed (a cvis-rcdtrack-removed message): its object stopped "
          "moving, or the target stayed on the background the object left; 0: never",
          0, G_MAXUINT, 60, playing));
  g_object_class_install_property (gobject_class, PROP_DUPLICATE_TIMEOUT,
      g_param_spec_uint ("duplicate-timeout", "Duplicate timeout",
          "Frames a target started from an init-roi-type box may be a duplicate of an older "
          "target (both tracked, the smaller box at least half the other's area and 70% inside "
          "it: one object), or a part of another target (its box under half the other's area, "
          "70% inside it and at least 0.6 of its width: a person's head or legs), or stacked on "
          "an older target with one init box holding both (a person's torso and legs; the older "
          "then restarts on the union of their boxes), before it is removed (a "
          "cvis-rcdtrack-removed message); 0: never", 0, G_MAXUINT, 10, playing));
  g_object_class_install_property (gobject_class, PROP_STILL_TIMEOUT,
      g_param_spec_uint ("still-timeout", "Still timeout",
          "Frames after its start at which a target started from an init-roi-type box must be "
          "away from where it started (its centre by a quarter of its first box's size) or be "
          "removed (a cvis-rcdtrack-removed message): a change of the background, such as the "
          "light, not an object; then for static-timeout frames a box like it starts no target; "
          "0: never", 0, G_MAXUINT, 20, playing));
  g_object_class_install_property (gobject_class, PROP_INIT_ALIGNED_STEPS,
      g_param_spec_boolean ("init-aligned-steps", "Aligned steps of init-roi-type targets",
          "Targets started from init-roi-type boxes (with step 0) round their search steps down "
          "to a multiple of 4 (of 2 under 8 pixels): a grid at least as fine, on integral images "
          "of 4x4 or 2x2-pixel cells where an odd step needs single pixels (several times "
          "cheaper with many targets); false: the exact steps of the other targets; applies to "
          "targets started after the change", TRUE, playing));
  g_object_class_install_property (gobject_class, PROP_LOST_RADIUS,
      g_param_spec_double ("lost-radius", "Lost search radius",
          "Targets started from init-roi-type boxes, once lost, are searched within this many "
          "target sizes of where they were last seen (negative: the whole frame, as the other "
          "targets); applies to targets started after the change", -1.0, 99.0, 3.0, playing));
  g_object_class_install_property (gobject_class, PROP_FEATURES,
      g_param_spec_string ("features", "Features",
          "Per-pixel features: \"thesis\" (R, G, B, Ix, Iy), \"tuzel\" (x, y, I, |Ix|, |Iy|, "
          "|Ixx|, |Iyy|) or a comma list of x, y, r, g, b, i, ix, iy, |ix|, |iy|, |ixx|, |iyy| "
          "(2 to 9; more features describe more but cost quadratically more)",
          rcd::feature_names (d.features).c_str (), ready));
  g_object_class_install_property (gobject_class, PROP_DISTANCE,
      g_param_spec_enum ("distance", "Distance", "Dissimilarity of covariance matrices",
          gst_cuda_rcd_track_distance_get_type (), (gint) d.distance, ready));
  g_object_class_install_property (gobject_class, PROP_PARTS,
      g_param_spec_int ("parts", "Parts",
          "Covariances per window: 1 (the thesis) or 5 (the window and its four halves, the sum "
          "of their distances minus the largest: layout-aware and robust to a half occluded)",
          1, 5, d.parts, ready));
  g_object_class_install_property (gobject_class, PROP_SCALES,
      g_param_spec_int ("scales", "Scales",
          "Window sizes per search, geometric from scale-min to scale-max times the target size",
          1, 16, d.scales, playing));
  g_object_class_install_property (gobject_class, PROP_SCALE_MIN,
      g_param_spec_double ("scale-min", "Smallest scale", "Smallest window size factor",
          1.0 / 16, 16.0, d.scale_min, playing));
  g_object_class_install_property (gobject_class, PROP_SCALE_MAX,
      g_param_spec_double ("scale-max", "Largest scale", "Largest window size factor",
          1.0 / 16, 16.0, d.scale_max, playing));
  g_object_class_install_property (gobject_class, PROP_STEP,
      g_param_spec_int ("step", "Step",
          "Grid step of the coarse search in pixels (0: an eighth of the target's smaller side); "
          "a finer search (the largest power of two up "
          "to a quarter of it) follows around the best window", 0, 256, d.step, playing));
  g_object_class_install_property (gobject_class, PROP_SEARCH_RADIUS,
      g_param_spec_double ("search-radius", "Search radius",
          "Window centres within this many target sizes of the predicted position (negative: "
          "the whole frame every frame); lost targets are searched over the whole frame",
          -1.0, 99.0, d.search_radius, playing));
  g_object_class_install_property (gobject_class, PROP_UPDATE_RATE,
      g_param_spec_double ("update-rate", "Update rate",
          "Weight of each matched window in the model's log-Euclidean running mean (0: keep the "
          "first model)", 0.0, 1.0, d.update_rate, playing));
  g_object_class_install_property (gobject_class, PROP_LOST_THRESHOLD,
      g_param_spec_double ("lost-threshold", "Lost threshold",
          "A target whose best window is farther than this is lost (message "
          GST_CUDA_RCD_TRACK_LOST_MESSAGE ") and searched over the whole frame until a window is "
          "nearer again (message " GST_CUDA_RCD_TRACK_REACQUIRED_MESSAGE ")", 1e-6, 1e6,
          d.lost_threshold, playing));
  g_object_class_install_property (gobject_class, PROP_RIDGE,
      g_param_spec_double ("ridge", "Ridge",
          "Added to every variance (times the feature's noise scale) so that flat windows stay "
          "comparable", 1e-6, 1e6, d.ridge, ready));
  g_object_class_install_property (gobject_class, PROP_MOTION_WEIGHT,
      g_param_spec_double ("motion-weight", "Motion weight",
          "Score penalty per squared target size of offset from the predicted position", 0.0,
          1e6, d.motion_weight, playing));
  g_object_class_install_property (gobject_class, PROP_SCALE_WEIGHT,
      g_param_spec_double ("scale-weight", "Scale weight",
          "Score penalty times ln^2 of the size change", 0.0, 1e6, d.scale_weight, playing));
  g_object_class_install_property (gobject_class, PROP_CONTEXT_WEIGHT,
      g_param_spec_double ("context-weight", "Context weight",
          "Score bonus times the distance (at most 1) between the model and the ring around a "
          "window: windows that fit the target beat windows inside it (0: off)", 0.0, 1e6,
          d.context_weight, playing));
  g_object_class_install_property (gobject_class, PROP_SCALE_PREDICTION,
      g_param_spec_double ("scale-prediction", "Scale prediction",
          "Gain of the smoothed per-frame size change; the search sizes are centred on the size "
          "it predicts (0: on the current size)", 0.0, 1.0, d.scale_prediction, playing));
  g_object_class_install_property (gobject_class, PROP_SCALE_GAIN,
      g_param_spec_double ("scale-gain", "Scale gain",
          "Share of a frame's measured size change taken while tracking (with scale-prediction "
          "an alpha-beta filter of the log size; 1: the best window's size as is)", 0.01, 1.0,
          d.scale_gain, playing));
  g_object_class_install_property (gobject_class, PROP_MODEL_ANCHOR,
      g_param_spec_double ("model-anchor", "Model anchor",
          "Weight of the first model in the model matched (log-Euclidean mean with the running "
          "model): bounds how far learning occluders or background drifts it (0: off)", 0.0, 1.0,
          d.model_anchor, playing));
  g_object_class_install_property (gobject_class, PROP_OCCLUSION_RATIO,
      g_param_spec_double ("occlusion-ratio", "Occlusion ratio",
          "A tracking frame whose best distance is above this many times the target's running "
          "distance (clamped to 1/4..1/2 of lost-threshold) and that no other size explains is "
          "uncertain (e.g. partly occluded): it keeps the size, velocity, rotation and model "
          "(0: off)", 0.0, 1e6, d.occlusion_ratio, playing));
  g_object_class_install_property (gobject_class, PROP_COAST_FRAMES,
      g_param_spec_int ("coast-frames", "Coast frames",
          "With occlusion-ratio: a tracking frame above lost-threshold (at most twice it) that "
          "follows an uncertain one, within this many uncertain frames in a row, is uncertain "
          "instead of lost, and from it on the box moves with the velocity of the confident "
          "frames (a target disappearing behind an occluder keeps moving) (0: off)", 0, 100000,
          d.coast_frames, playing));
  g_object_class_install_property (gobject_class, PROP_LOCAL_REACQUIRE,
      g_param_spec_boolean ("local-reacquire", "Local re-acquisition",
          "A lost target is also searched near where it was last seen (an area widening to twice "
          "search-radius, the motion and scale priors on) and found again there by a window "
          "nearer than 3/4 of lost-threshold (the whole-frame search needs half of it)",
          d.local_reacquire, playing));
  g_object_class_install_property (gobject_class, PROP_ROTATION_BOX,
      g_param_spec_boolean ("rotation-box", "Rotation box",
          "Report the axis-aligned box of the target turned by half its in-plane rotation since "
          "it started (estimated from the orientation of the Ix, Iy covariance; needs those "
          "features; half, as the estimate's errors only widen the box), as tracking benchmarks "
          "define the truth; false: the matched window itself",
          d.rotation_box, playing));
  g_object_class_install_property (gobject_class, PROP_ROTATION_SOURCE,
      g_param_spec_enum ("rotation-source", "Rotation source",
          "Where rotation-box's rotation comes from: the gradient structure tensor (textures "
          "whose gradients have an orientation), the first window's layout turned (cells of the "
          "first frame, any texture), the tensor with the layout where it has none, or both",
          gst_cuda_rcd_track_rotation_source_get_type (), (gint) d.rotation_source, playing));
  g_object_class_install_property (gobject_class, PROP_TEMPLATE_REFINE,
      g_param_spec_boolean ("template-refine", "Template refinement",
          "A target started from a box keeps that box's grey image and, on every confident "
          "tracking frame away from the frame's border, the box's centre moves to where that "
          "image correlates best (normalised cross-correlation at least 0.7, within a quarter of "
          "the size around the matched window, at its size and 8% either side; the size stays "
          "the windows'): it places the box on flat targets such as cars, whose covariances "
          "match inner windows as well as the whole",
          d.template_refine, playing));
  g_object_class_install_property (gobject_class, PROP_TOP_K,
      g_param_spec_int ("top-k", "Top k",
          "Best coarse windows per target refined by the fine search", 1, 8, d.top_k, playing));
  g_object_class_install_property (gobject_class, PROP_MODEL_LOCATION,
      g_param_spec_string ("model-location", "Model location",
          "A saved model (the save-model signal) or a PNG / binary PPM image of the target: the "
          "template of mode=detect, or in mode=track a target found by whole-frame search",
          NULL, ready));
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_double ("threshold", "Threshold",
          "mode=detect: windows nearer than this are detections", 1e-6, 1e6, d.threshold,
          playing));
  g_object_class_install_property (gobject_class, PROP_NMS_OVERLAP,
      g_param_spec_double ("nms-overlap", "NMS overlap",
          "mode=detect: a detection overlapping a better one by more than this (IoU) is dropped",
          0.0, 1.0, d.nms_iou, playing));
  g_object_class_install_property (gobject_class, PROP_MAX_DETECTIONS,
      g_param_spec_uint ("max-detections", "Maximum detections",
          "mode=detect: detections per frame at most (the best)", 1, 4096,
          (guint) d.max_detections, playing));

  gst_type_mark_as_plugin_api (gst_cuda_rcd_track_mode_get_type (), (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (gst_cuda_rcd_track_distance_get_type (), (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (gst_cuda_rcd_track_rotation_source_get_type (),
      (GstPluginAPIFlags) 0);
}

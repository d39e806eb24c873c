/* cudabgsub: enum types and properties. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudabgsub_priv.h"
#include "gstcvisutils.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_bg_sub_debug);
#define GST_CAT_DEFAULT gst_cuda_bg_sub_debug

namespace bg = cvis::bgsub;

enum {
  PROP_0,
  PROP_OUTPUT,
  PROP_KERNEL,
  PROP_NUM_SAMPLES,
  PROP_NEIGHBORHOOD,
  PROP_UPDATE_PERIOD,
  PROP_THRESHOLD,
  PROP_CPWL_POINTS,
  PROP_CPWL_FIT,
  PROP_COLOR_SPACE,
  PROP_CLEANUP,
  PROP_MIN_BLOB_AREA,
  PROP_MAX_BLOBS,
  PROP_SIGMA_MIN,
  PROP_SIGMA_MAX,
  PROP_SPATIAL_SIGMA,
  PROP_INTENSITY_SIGMA_SCALE,
  PROP_CONSERVATIVE_UPDATE,
  PROP_UPDATE_MARGIN,
  PROP_UPDATE_OWN,
  PROP_STILL_LEND_FRACTION,
  PROP_DYNAMIC_FRACTION,
  PROP_ILLUMINATION,
  PROP_SHADOWS,
  PROP_SHADOW_LOW,
  PROP_SHADOW_HIGH,
  PROP_SHADOW_CHROMA,
  PROP_SHADOW_SAMPLES,
  PROP_SHOT_CHANGES,
  PROP_CUT_FRACTION,
  PROP_CUT_FRAMES,
  PROP_CUT_WARMUP,
  PROP_CUT_REFILL,
  PROP_MIN_MASK_AREA,
  PROP_PERSISTENCE,
  PROP_GHOST_PASSES,
  PROP_GHOST_LEVELS,
  PROP_GHOST_MATCHES,
  PROP_GHOST_STILL,
  PROP_SHIFT_TEST,
  PROP_SHIFT_LEVELS,
};

GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_bg_sub_output_get_type, "GstCudaBgSubOutput",
    {GST_CUDA_BG_SUB_OUTPUT_MASK, "GRAY8 foreground mask with blob boxes", "mask"},
    {GST_CUDA_BG_SUB_OUTPUT_FRAME, "Frames with foreground meta and blob boxes", "frame"})
GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_bg_sub_kernel_get_type, "GstCudaBgSubKernel",
    {(gint) bg::Kernel::kExact, "expf", "exact"},
    {(gint) bg::Kernel::kFast, "__expf (special function unit)", "fast"},
    {(gint) bg::Kernel::kTextureUniform, "CPWL, uniform partition, texture filtering",
          "cpwl-texture"},
    {(gint) bg::Kernel::kManualUniform, "CPWL, uniform partition, manual lerp", "cpwl-manual"},
    {(gint) bg::Kernel::kTextureOptimized, "CPWL, optimized partition, texture filtering",
          "cpwl-opt-texture"},
    {(gint) bg::Kernel::kManualOptimized, "CPWL, optimized partition, manual lerp",
          "cpwl-opt-manual"},
    {(gint) bg::Kernel::kSlopeUniform, "CPWL, uniform partition, value+slope table",
          "cpwl-slope"},
    {(gint) bg::Kernel::kFastFused, "one __expf per sample for the 3-channel product",
          "fast-fused"})
GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_bg_sub_fit_get_type, "GstCudaBgSubFit",
    {(gint) cvis::cpwl::Fit::kInterpolant, "Linear interpolant", "interpolant"},
    {(gint) cvis::cpwl::Fit::kProjection, "L2 orthogonal projection", "projection"})
GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_bg_sub_color_space_get_type, "GstCudaBgSubColorSpace",
    {(gint) bg::ColorSpace::kRgb, "R, G, B", "rgb"},
    {(gint) bg::ColorSpace::kChromaticity, "Chromaticity and intensity (shadow-robust)",
          "chromaticity"})
GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_bg_sub_cleanup_get_type, "GstCudaBgSubCleanup",
    {(gint) bg::Cleanup::kNone, "None", "none"},
    {(gint) bg::Cleanup::kMedian, "3x3 median", "median"},
    {(gint) bg::Cleanup::kOpening, "3x3 morphological opening", "opening"})

/* --------------------------------------------------------------------------------------------- */
/* Properties: the pairs (sigma-min <= sigma-max, shadow-low <= shadow-high) and the other rules
 * between values (cut-warmup <= num-samples...) are judged as a whole, at start in NULL / READY
 * (gst_cuda_bg_sub_check_settings: any order of setting works) and at once while running (a value
 * that breaks them is refused with a warning, the previous one stays). */

/* The parameters as a whole, in the properties' names where a pair is broken. */
static cvis::Status
check_params (const bg::Params & p)
{
  char buf[160];
  if (p.sigma_min > p.sigma_max) {
    g_snprintf (buf, sizeof buf, "sigma-min %g is above sigma-max %g", p.sigma_min, p.sigma_max);
    return cvis::invalid_argument (buf);
  }
  if (p.shadow_low > p.shadow_high) {
    g_snprintf (buf, sizeof buf, "shadow-low %g is above shadow-high %g", p.shadow_low,
        p.shadow_high);
    return cvis::invalid_argument (buf);
  }
  return bg::validate (p);
}

cvis::Status
gst_cuda_bg_sub_check_settings (GstCvisFilter * filter)
{
  GstCudaBgSub *self = GST_CUDA_BG_SUB (filter);
  std::lock_guard < std::mutex > lk (*self->lock);
  return check_params (self->settings->params);
}

void
gst_cuda_bg_sub_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstCudaBgSub *self = GST_CUDA_BG_SUB (object);
  if (!gst_cvis_filter_property_settable (GST_CVIS_FILTER (self), pspec))
    return;
  std::lock_guard < std::mutex > lk (*self->lock);
  GstCudaBgSubSettings & s = *self->settings;
  bg::Params p = s.params;
  switch (prop_id) {
    case PROP_OUTPUT:
      s.output = (GstCudaBgSubOutput) g_value_get_enum (value);
      return;
    case PROP_MAX_BLOBS:
      s.max_blobs = g_value_get_uint (value);
      return;
    case PROP_MIN_BLOB_AREA:
      s.min_blob_area = g_value_get_uint (value);
      s.dirty = true;
      return;
    case PROP_KERNEL: p.kernel = (bg::Kernel) g_value_get_enum (value); break;
    case PROP_NUM_SAMPLES: p.num_samples = g_value_get_int (value); break;
    case PROP_NEIGHBORHOOD: p.neighborhood = g_value_get_int (value); break;
    case PROP_UPDATE_PERIOD: p.update_period = g_value_get_int (value); break;
    case PROP_THRESHOLD: p.threshold = g_value_get_double (value); break;
    case PROP_CPWL_POINTS: p.cpwl_points = g_value_get_int (value); break;
    case PROP_CPWL_FIT: p.cpwl_fit = (cvis::cpwl::Fit) g_value_get_enum (value); break;
    case PROP_COLOR_SPACE: p.color = (bg::ColorSpace) g_value_get_enum (value); break;
    case PROP_CLEANUP: p.cleanup = (bg::Cleanup) g_value_get_enum (value); break;
    case PROP_SIGMA_MIN: p.sigma_min = g_value_get_float (value); break;
    case PROP_SIGMA_MAX: p.sigma_max = g_value_get_float (value); break;
    case PROP_SPATIAL_SIGMA: p.spatial_sigma = g_value_get_float (value); break;
    case PROP_INTENSITY_SIGMA_SCALE: p.intensity_sigma_scale = g_value_get_float (value); break;
    case PROP_CONSERVATIVE_UPDATE: p.conservative_update = g_value_get_boolean (value); break;
    case PROP_UPDATE_OWN: p.update_own = g_value_get_boolean (value); break;
    case PROP_STILL_LEND_FRACTION: p.still_lend_fraction = g_value_get_float (value); break;
    case PROP_DYNAMIC_FRACTION: p.dynamic_fraction = g_value_get_float (value); break;
    case PROP_UPDATE_MARGIN: p.update_margin = g_value_get_double (value); break;
    case PROP_ILLUMINATION: p.illumination = g_value_get_boolean (value); break;
    case PROP_SHADOWS: p.shadows = g_value_get_boolean (value); break;
    case PROP_SHIFT_TEST: p.shift_test = g_value_get_boolean (value); break;
    case PROP_SHIFT_LEVELS: p.shift_levels = g_value_get_int (value); break;
    case PROP_SHADOW_LOW: p.shadow_low = g_value_get_float (value); break;
    case PROP_SHADOW_HIGH: p.shadow_high = g_value_get_float (value); break;
    case PROP_SHADOW_CHROMA: p.shadow_chroma = g_value_get_int (value); break;
    case PROP_SHADOW_SAMPLES: p.shadow_samples = g_value_get_int (value); break;
    case PROP_SHOT_CHANGES: p.shot_change = g_value_get_boolean (value); break;
    case PROP_CUT_FRACTION: p.cut_fraction = g_value_get_double (value); break;
    case PROP_CUT_FRAMES: p.cut_frames = g_value_get_int (value); break;
    case PROP_CUT_WARMUP: p.cut_warmup = g_value_get_int (value); break;
    case PROP_CUT_REFILL: p.cut_refill = g_value_get_int (value); break;
    case PROP_MIN_MASK_AREA: p.min_mask_area = g_value_get_int (value); break;
    case PROP_PERSISTENCE: p.persistence = g_value_get_float (value); break;
    case PROP_GHOST_PASSES: p.ghost_passes = g_value_get_int (value); break;
    case PROP_GHOST_LEVELS: p.ghost_levels = g_value_get_int (value); break;
    case PROP_GHOST_MATCHES: p.ghost_matches = g_value_get_int (value); break;
    case PROP_GHOST_STILL: p.ghost_still = g_value_get_int (value); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
  }
  if (!gst_cvis_filter_accept_change (GST_CVIS_FILTER (self), pspec, check_params (p)))
    return;
  s.params = p;
  s.dirty = true;
}

void
gst_cuda_bg_sub_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaBgSub *self = GST_CUDA_BG_SUB (object);
  std::lock_guard < std::mutex > lk (*self->lock);
  const GstCudaBgSubSettings & s = *self->settings;
  const bg::Params & p = s.params;
  switch (prop_id) {
    case PROP_OUTPUT: g_value_set_enum (value, s.output); break;
    case PROP_MAX_BLOBS: g_value_set_uint (value, s.max_blobs); break;
    case PROP_KERNEL: g_value_set_enum (value, (gint) p.kernel); break;
    case PROP_NUM_SAMPLES: g_value_set_int (value, p.num_samples); break;
    case PROP_NEIGHBORHOOD: g_value_set_int (value, p.neighborhood); break;
    case PROP_UPDATE_PERIOD: g_value_set_int (value, p.update_period); break;
    case PROP_THRESHOLD: g_value_set_double (value, p.threshold); break;
    case PROP_CPWL_POINTS: g_value_set_int (value, p.cpwl_points); break;
    case PROP_CPWL_FIT: g_value_set_enum (value, (gint) p.cpwl_fit); break;
    case PROP_COLOR_SPACE: g_value_set_enum (value, (gint) p.color); break;
    case PROP_CLEANUP: g_value_set_enum (value, (gint) p.cleanup); break;
    case PROP_MIN_BLOB_AREA: g_value_set_uint (value, s.min_blob_area); break;
    case PROP_SIGMA_MIN: g_value_set_float (value, p.sigma_min); break;
    case PROP_SIGMA_MAX: g_value_set_float (value, p.sigma_max); break;
    case PROP_SPATIAL_SIGMA: g_value_set_float (value, p.spatial_sigma); break;
    case PROP_INTENSITY_SIGMA_SCALE: g_value_set_float (value, p.intensity_sigma_scale); break;
    case PROP_CONSERVATIVE_UPDATE: g_value_set_boolean (value, p.conservative_update); break;
    case PROP_UPDATE_OWN: g_value_set_boolean (value, p.update_own); break;
    case PROP_STILL_LEND_FRACTION: g_value_set_float (value, p.still_lend_fraction); break;
    case PROP_DYNAMIC_FRACTION: g_value_set_float (value, p.dynamic_fraction); break;
    case PROP_UPDATE_MARGIN: g_value_set_double (value, p.update_margin); break;
    case PROP_ILLUMINATION: g_value_set_boolean (value, p.illumination); break;
    case PROP_SHADOWS: g_value_set_boolean (value, p.shadows); break;
    case PROP_SHIFT_TEST: g_value_set_boolean (value, p.shift_test); break;
    case PROP_SHIFT_LEVELS: g_value_set_int (value, p.shift_levels); break;
    case PROP_SHADOW_LOW: g_value_set_float (value, p.shadow_low); break;
    case PROP_SHADOW_HIGH: g_value_set_float (value, p.shadow_high); break;
    case PROP_SHADOW_CHROMA: g_value_set_int (value, p.shadow_chroma); break;
    case PROP_SHADOW_SAMPLES: g_value_set_int (value, p.shadow_samples); break;
    case PROP_SHOT_CHANGES: g_value_set_boolean (value, p.shot_change); break;
    case PROP_CUT_FRACTION: g_value_set_double (value, p.cut_fraction); break;
    case PROP_CUT_FRAMES: g_value_set_int (value, p.cut_frames); break;
    case PROP_CUT_WARMUP: g_value_set_int (value, p.cut_warmup); break;
    case PROP_CUT_REFILL: g_value_set_int (value, p.cut_refill); break;
    case PROP_MIN_MASK_AREA: g_value_set_int (value, p.min_mask_area); break;
    case PROP_PERSISTENCE: g_value_set_float (value, p.persistence); break;
    case PROP_GHOST_PASSES: g_value_set_int (value, p.ghost_passes); break;
    case PROP_GHOST_LEVELS: g_value_set_int (value, p.ghost_levels); break;
    case PROP_GHOST_MATCHES: g_value_set_int (value, p.ghost_matches); break;
    case PROP_GHOST_STILL: g_value_set_int (value, p.ghost_still); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

void
gst_cuda_bg_sub_install_properties (GObjectClass * c)
{
  const GParamFlags ready = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY);
  const GParamFlags playing = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING);
  const bg::Params d;
  g_object_class_install_property (c, PROP_OUTPUT, g_param_spec_enum ("output", "Output",
          "What leaves the source pad", gst_cuda_bg_sub_output_get_type (),
          GST_CUDA_BG_SUB_OUTPUT_MASK, ready));
  g_object_class_install_property (c, PROP_KERNEL, g_param_spec_enum ("kernel", "Kernel",
          "How the Gaussian kernel is evaluated (speed vs. exactness; see the element docs)",
          gst_cuda_bg_sub_kernel_get_type (), (gint) d.kernel, playing));
  g_object_class_install_property (c, PROP_NUM_SAMPLES, g_param_spec_int ("num-samples",
          "Samples", "Background samples kept per pixel (memory and time grow with it; a change "
          "restarts the warm-up)", 2, bg::kMaxSamples, d.num_samples, playing));
  g_object_class_install_property (c, PROP_NEIGHBORHOOD, g_param_spec_int ("neighborhood",
          "Neighbourhood", "Radius r of the (2r+1)^2 pixels whose samples each pixel uses "
          "(robust to small background motion; time grows with (2r+1)^2)", 0, bg::kMaxRadius,
          d.neighborhood, playing));
  g_object_class_install_property (c, PROP_UPDATE_PERIOD, g_param_spec_int ("update-period",
          "Update period", "Background pixels refresh one sample every this many frames (longer: "
          "slower adaptation, longer memory)", 1, G_MAXINT, d.update_period, playing));
  g_object_class_install_property (c, PROP_THRESHOLD, g_param_spec_double ("threshold",
          "Threshold", "Foreground when the background density (per level^3) is below this: "
          "higher finds more foreground", 1e-30, 1.0, d.threshold, playing));
  g_object_class_install_property (c, PROP_CPWL_POINTS, g_param_spec_int ("cpwl-points",
          "CPWL points", "Segments N of the piecewise-linear Gaussian (cpwl-* kernels): more is "
          "more accurate, at the same speed (uniform) or slower (optimized)",
          cvis::cpwl::kMinSegments, cvis::cpwl::kMaxSegments, d.cpwl_points, playing));
  g_object_class_install_property (c, PROP_CPWL_FIT, g_param_spec_enum ("cpwl-fit", "CPWL fit",
          "Interpolant, or L2 projection (sqrt(6) smaller error at the same cost)",
          gst_cuda_bg_sub_fit_get_type (), (gint) d.cpwl_fit, playing));
  g_object_class_install_property (c, PROP_COLOR_SPACE, g_param_spec_enum ("color-space",
          "Colour space", "Feature space (a change restarts the warm-up)",
          gst_cuda_bg_sub_color_space_get_type (), (gint) d.color, playing));
  g_object_class_install_property (c, PROP_CLEANUP, g_param_spec_enum ("cleanup", "Clean-up",
          "Mask clean-up before the output and the blobs", gst_cuda_bg_sub_cleanup_get_type (),
          (gint) d.cleanup, playing));
  g_object_class_install_property (c, PROP_MIN_BLOB_AREA, g_param_spec_uint ("min-blob-area",
          "Minimum blob area", "Foreground blobs smaller than this (pixels) get no box; 0: "
          "1/3000 of the frame's area, at least 25", 0, G_MAXINT, 0, playing));
  g_object_class_install_property (c, PROP_MAX_BLOBS, g_param_spec_uint ("max-blobs",
          "Maximum blobs", "Boxes per frame at most (the largest blobs)", 0, 100000, 64, playing));
  g_object_class_install_property (c, PROP_SIGMA_MIN, g_param_spec_float ("sigma-min",
          "Minimum bandwidth", "Smallest colour kernel bandwidth, in levels (<= sigma-max)",
          0.01f, 255.0f, d.sigma_min, playing));
  g_object_class_install_property (c, PROP_SIGMA_MAX, g_param_spec_float ("sigma-max",
          "Maximum bandwidth", "Largest colour kernel bandwidth, in levels (>= sigma-min)",
          0.01f, 255.0f, d.sigma_max, playing));
  g_object_class_install_property (c, PROP_SPATIAL_SIGMA, g_param_spec_float ("spatial-sigma",
          "Spatial bandwidth", "Bandwidth of the positional kernel over the neighbourhood, in "
          "pixels", 0.01f, 100.0f, d.spatial_sigma, playing));
  g_object_class_install_property (c, PROP_INTENSITY_SIGMA_SCALE,
      g_param_spec_float ("intensity-sigma-scale", "Intensity bandwidth scale",
          "color-space=chromaticity: the intensity kernel is this much wider (more shadow-robust, "
          "less sensitive to intensity-only changes)", 0.01f, 100.0f, d.intensity_sigma_scale,
          playing));
  g_object_class_install_property (c, PROP_CONSERVATIVE_UPDATE,
      g_param_spec_boolean ("conservative-update", "Conservative update",
          "Update only pixels that are background before the clean-up too (keeps object "
          "colours out of the neighbours' reference samples)", d.conservative_update, playing));
  g_object_class_install_property (c, PROP_UPDATE_MARGIN,
      g_param_spec_double ("update-margin", "Update margin",
          "conservative-update: a pixel refreshes its samples only when its density is at least "
          "this multiple of threshold (larger: objects leak less into the model, the model "
          "follows illumination changes less)", 1.0, 1e12, d.update_margin, playing));
  g_object_class_install_property (c, PROP_UPDATE_OWN,
      g_param_spec_boolean ("update-own", "Update on own samples",
          "Update only pixels whose own samples explain their value and one of which holds it "
          "within ghost-levels (the neighbours' samples alone classify but do not teach: flat "
          "objects next to a moving background are not learnt from their contour)",
          d.update_own, playing));
  g_object_class_install_property (c, PROP_STILL_LEND_FRACTION, g_param_spec_float (
          "still-lend-fraction", "Still lend fraction", "update-own: a pixel that only its "
          "neighbours' samples explain learns its value when a background 4-neighbour holds it in "
          "this share of its samples, where the background is still (at most dynamic-fraction of "
          "the pixels have a wide bandwidth); elsewhere in half of them. 0.125: ghosts on a still "
          "street dissolve 4 times faster, slow flat objects are taken in as fast",
          0.001f, 0.5f, d.still_lend_fraction, playing));
  g_object_class_install_property (c, PROP_DYNAMIC_FRACTION, g_param_spec_float (
          "dynamic-fraction", "Dynamic fraction", "still-lend-fraction: the background moves "
          "(leaves, grass, water) when more than this share of the pixels have a bandwidth median "
          "above 6 levels", 0.0f, 1.0f, d.dynamic_fraction, playing));
  /* Scene extensions (issue 12): all off (and min-mask-area 0) is the paper's model. */
  g_object_class_install_property (c, PROP_ILLUMINATION, g_param_spec_boolean ("illumination",
          "Illumination", "Compensate global illumination changes: per-channel gains (the median "
          "ratio frame / newest sample over the background), bandwidths widened below gain 1 "
          "(color-space=rgb)", d.illumination, playing));
  g_object_class_install_property (c, PROP_SHADOWS, g_param_spec_boolean ("shadows", "Shadows",
          "Foreground that at least shadow-samples of the pixel's own samples explain as a cast "
          "shadow (darker by shadow-low..shadow-high, chroma dimmed alike) is background and does "
          "not update the model (color-space=rgb)", d.shadows, playing));
  g_object_class_install_property (c, PROP_SHADOW_LOW, g_param_spec_float ("shadow-low",
          "Shadow low", "shadows: darkest shadow, as a fraction of the background luma (16ths; "
          "<= shadow-high)", 0.0625f, 15.9f, d.shadow_low, playing));
  g_object_class_install_property (c, PROP_SHADOW_HIGH, g_param_spec_float ("shadow-high",
          "Shadow high", "shadows: lightest shadow, as a fraction of the background luma (16ths; "
          ">= shadow-low)", 0.0625f, 15.9f, d.shadow_high, playing));
  g_object_class_install_property (c, PROP_SHADOW_CHROMA, g_param_spec_int ("shadow-chroma",
          "Shadow chroma", "shadows: chroma tolerance, in levels (larger: tinted shadows, and more "
          "dark objects lost as shadows)", 0, 255, d.shadow_chroma, playing));
  g_object_class_install_property (c, PROP_SHADOW_SAMPLES, g_param_spec_int ("shadow-samples",
          "Shadow samples", "shadows: samples that must explain the pixel as a shadow (at most "
          "num-samples are used)", 1, bg::kMaxSamples, d.shadow_samples, playing));
  g_object_class_install_property (c, PROP_SHIFT_TEST, g_param_spec_boolean ("shift-test",
          "Shift test", "Foreground whose value lies between one of the pixel's samples and the "
          "same sample of a background neighbour (within shift-levels, across a coloured edge: "
          "an edge blended by a camera that creeps by a fraction of a pixel) is background and "
          "does not update the model (color-space=rgb)", d.shift_test, playing));
  g_object_class_install_property (c, PROP_SHIFT_LEVELS, g_param_spec_int ("shift-levels",
          "Shift levels", "shift-test: tolerance in levels off the segment; the edge's colour "
          "change less its grey part must exceed 4/3 of it", 1, 255, d.shift_levels, playing));
  g_object_class_install_property (c, PROP_SHOT_CHANGES, g_param_spec_boolean ("shot-changes",
          "Shot changes", "Detect cuts (most pixels foreground and changed at once, and staying "
          "foreground), restart the model with a cut-warmup-frame warm-up and post a "
          "cvis-shot-change element message", d.shot_change, playing));
  g_object_class_install_property (c, PROP_CUT_FRACTION, g_param_spec_double ("cut-fraction",
          "Cut fraction", "shot-changes: fraction of the pixels that must be foreground and "
          "changed", 0.01, 1.0, d.cut_fraction, playing));
  g_object_class_install_property (c, PROP_CUT_FRAMES, g_param_spec_int ("cut-frames",
          "Cut frames", "shot-changes: frames in a row the foreground must stay above "
          "cut-fraction to confirm a cut", 1, 1000, d.cut_frames, playing));
  g_object_class_install_property (c, PROP_CUT_WARMUP, g_param_spec_int ("cut-warmup",
          "Cut warm-up", "shot-changes: frames that refill the model after a cut (empty masks; at "
          "most num-samples)", 2, bg::kMaxSamples, d.cut_warmup, playing));
  g_object_class_install_property (c, PROP_CUT_REFILL, g_param_spec_int ("cut-refill",
          "Cut refill", "shot-changes: frames after the warm-up of a cut in which every pixel "
          "refreshes its samples (what moved during the short warm-up leaves no ghost; an object "
          "that stops then is absorbed)", 0, G_MAXINT, d.cut_refill, playing));
  g_object_class_install_property (c, PROP_MIN_MASK_AREA, g_param_spec_int ("min-mask-area",
          "Minimum mask area", "Mask components smaller than this (pixels, 8-connected) are "
          "cleared from the mask (0: none)", 0, G_MAXINT, d.min_mask_area, playing));
  g_object_class_install_property (c, PROP_PERSISTENCE, g_param_spec_float ("persistence",
          "Persistence", "A mask component is output only when at least this share of its "
          "pixels was in the previous frame's mask: flickering water glints and ripples go, an "
          "object's first frame and objects moving more than about 70% of their length a frame "
          "too (0: off)", 0.0f, 1.0f, d.persistence, playing));
  g_object_class_install_property (c, PROP_GHOST_PASSES, g_param_spec_int ("ghost-passes",
          "Ghost passes", "Ghosts (background revealed by an object that was in the samples): "
          "passes per frame of the contour test (a ghost shrinks by about a pixel per frame; "
          "passes after the first find no new source); 0: off", 0, 64, d.ghost_passes, playing));
  g_object_class_install_property (c, PROP_GHOST_LEVELS, g_param_spec_int ("ghost-levels",
          "Ghost levels", "ghost-passes: a neighbour's sample matches a pixel within this many "
          "levels per channel; also the stillness tolerance between frames", 0, 255,
          d.ghost_levels, playing));
  g_object_class_install_property (c, PROP_GHOST_MATCHES, g_param_spec_int ("ghost-matches",
          "Ghost matches", "ghost-passes: samples of the background neighbour that must match",
          1, bg::kMaxSamples, d.ghost_matches, playing));
  g_object_class_install_property (c, PROP_GHOST_STILL, g_param_spec_int ("ghost-still",
          "Ghost still frames", "ghost-passes: frames a pixel must have stayed within "
          "ghost-levels before it may be a ghost (moving objects change)", 0, 255,
          d.ghost_still, playing));
}

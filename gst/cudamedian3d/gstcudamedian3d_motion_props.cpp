/* cudamedian3d: mode=motion's properties (cvis::median3d::MotionParams), installed after the
 * element's own with consecutive ids. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudamedian3d_priv.h"

namespace m3d = cvis::median3d;

/* Relative ids (the element adds its first id). */
enum {
  M_HISTORY,
  M_SAMPLE_PERIOD,
  M_NOISE_FACTOR,
  M_TAU_MIN,
  M_TAU_MAX,
  M_CHROMA,
  M_SHADOWS,
  M_ILLUMINATION,
  M_ADOPT_FRAMES,
  M_ABSORB_FRAMES,
  M_MIN_MASK_AREA,
  M_SHOT_CHANGES,
  M_LIVE_BACKGROUND,
  M_ADOPT_TIGHT,
  M_ADOPT_FRAMES_DYNAMIC,
  M_DYNAMIC_FRACTION,
  M_PERSISTENCE,
  M_SHIFT_TEST,
  M_DYNAMIC_CHANGE_FRACTION,
  M_COUNT
};
static_assert (M_COUNT == GST_CUDA_MEDIAN3D_MOTION_PROPS, "property count");

const gchar *const *
gst_cuda_median3d_motion_property_names (void)
{
  static const gchar *const names[] = { "history", "sample-period", "noise-factor", "tau-min",
    "tau-max", "chroma", "shadows", "illumination", "adopt-frames", "absorb-frames",
    "min-mask-area", "shot-changes", "live-background", "adopt-tight",
    "adopt-frames-dynamic", "dynamic-fraction", "persistence", "shift-test",
    "dynamic-change-fraction", NULL
  };
  static_assert (G_N_ELEMENTS (names) == M_COUNT + 1, "one name per property");
  return names;
}

/* mode=motion's parameters (cvis::median3d::MotionParams); a value the pspec cannot refuse (an
 * even history) is refused here with a warning. tau-min and tau-max are taken in any order: the
 * pair is checked at start. */
void
gst_cuda_median3d_set_motion_property (m3d::MotionParams * m, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  (void) pspec;
  switch (prop_id) {
    case M_HISTORY:{
      const gint v = g_value_get_int (value);
      if (v % 2 == 0)
        g_warning ("cudamedian3d: history must be odd, %d refused", v);
      else
        m->history = v;
      break;
    }
    case M_SAMPLE_PERIOD:
      m->sample_period = g_value_get_int (value);
      break;
    case M_NOISE_FACTOR:
      m->noise_factor = (float) g_value_get_double (value);
      break;
    case M_TAU_MIN:
      m->tau_min = g_value_get_int (value);
      break;
    case M_TAU_MAX:
      m->tau_max = g_value_get_int (value);
      break;
    case M_CHROMA:
      m->color = g_value_get_boolean (value);
      break;
    case M_SHADOWS:
      m->shadows = g_value_get_boolean (value);
      break;
    case M_ILLUMINATION:
      m->illumination = g_value_get_boolean (value);
      break;
    case M_ADOPT_FRAMES:
      m->adopt_frames = g_value_get_int (value);
      break;
    case M_ABSORB_FRAMES:
      m->absorb_frames = g_value_get_int (value);
      break;
    case M_MIN_MASK_AREA:
      m->min_mask_area = g_value_get_int (value);
      break;
    case M_SHOT_CHANGES:
      m->shot_change = g_value_get_boolean (value);
      break;
    case M_LIVE_BACKGROUND:
      m->live_background = g_value_get_boolean (value);
      break;
    case M_ADOPT_TIGHT:
      m->adopt_tight = g_value_get_boolean (value);
      break;
    case M_ADOPT_FRAMES_DYNAMIC:
      m->adopt_frames_dynamic = g_value_get_int (value);
      break;
    case M_DYNAMIC_FRACTION:
      m->dynamic_fraction = static_cast<float>(g_value_get_double (value));
      break;
    case M_PERSISTENCE:
      m->persistence = static_cast<float>(g_value_get_double (value));
      break;
    case M_SHIFT_TEST:
      m->shift_test = g_value_get_boolean (value);
      break;
    case M_DYNAMIC_CHANGE_FRACTION:
      m->dynamic_change_fraction = static_cast<float>(g_value_get_double (value));
      break;
    default:
      break;
  }
}

gboolean
gst_cuda_median3d_get_motion_property (const m3d::MotionParams & m, guint prop_id, GValue * value)
{
  switch (prop_id) {
    case M_HISTORY:
      g_value_set_int (value, m.history);
      return TRUE;
    case M_SAMPLE_PERIOD:
      g_value_set_int (value, m.sample_period);
      return TRUE;
    case M_NOISE_FACTOR:
      g_value_set_double (value, m.noise_factor);
      return TRUE;
    case M_TAU_MIN:
      g_value_set_int (value, m.tau_min);
      return TRUE;
    case M_TAU_MAX:
      g_value_set_int (value, m.tau_max);
      return TRUE;
    case M_CHROMA:
      g_value_set_boolean (value, m.color);
      return TRUE;
    case M_SHADOWS:
      g_value_set_boolean (value, m.shadows);
      return TRUE;
    case M_ILLUMINATION:
      g_value_set_boolean (value, m.illumination);
      return TRUE;
    case M_ADOPT_FRAMES:
      g_value_set_int (value, m.adopt_frames);
      return TRUE;
    case M_ABSORB_FRAMES:
      g_value_set_int (value, m.absorb_frames);
      return TRUE;
    case M_MIN_MASK_AREA:
      g_value_set_int (value, m.min_mask_area);
      return TRUE;
    case M_SHOT_CHANGES:
      g_value_set_boolean (value, m.shot_change);
      return TRUE;
    case M_LIVE_BACKGROUND:
      g_value_set_boolean (value, m.live_background);
      return TRUE;
    case M_ADOPT_TIGHT:
      g_value_set_boolean (value, m.adopt_tight);
      return TRUE;
    case M_ADOPT_FRAMES_DYNAMIC:
      g_value_set_int (value, m.adopt_frames_dynamic);
      return TRUE;
    case M_DYNAMIC_FRACTION:
      g_value_set_double (value, m.dynamic_fraction);
      return TRUE;
    case M_PERSISTENCE:
      g_value_set_double (value, m.persistence);
      return TRUE;
    case M_SHIFT_TEST:
      g_value_set_boolean (value, m.shift_test);
      return TRUE;
    case M_DYNAMIC_CHANGE_FRACTION:
      g_value_set_double (value, m.dynamic_change_fraction);
      return TRUE;
    default:
      return FALSE;
  }
}


void
gst_cuda_median3d_install_motion_properties (GObjectClass * k, guint first)
{
  const GParamFlags ready = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY);
  const m3d::MotionParams d;
  g_object_class_install_property (k, first + M_HISTORY, g_param_spec_int ("history", "History",
          "mode=motion: background samples kept per pixel (odd); their exact median is the "
          "background, their median absolute deviation the pixel's noise", 3, m3d::kMaxHistory,
          d.history, ready));
  g_object_class_install_property (k, first + M_SAMPLE_PERIOD, g_param_spec_int ("sample-period",
          "Sample period", "mode=motion: frames between two samples of a background pixel "
          "(history x sample-period frames of support)", 1, 64, d.sample_period, ready));
  g_object_class_install_property (k, first + M_NOISE_FACTOR, g_param_spec_double ("noise-factor",
          "Noise factor", "mode=motion: a pixel differs from its background when the difference "
          "exceeds noise-factor x its median absolute deviation (clamped to tau-min..tau-max)",
          0.0, 64.0, d.noise_factor, ready));
  g_object_class_install_property (k, first + M_TAU_MIN, g_param_spec_int ("tau-min", "Minimum "
          "threshold", "mode=motion: smallest luma difference called foreground (levels; chroma: "
          "6)", 1, 255, d.tau_min, ready));
  g_object_class_install_property (k, first + M_TAU_MAX, g_param_spec_int ("tau-max", "Maximum "
          "threshold", "mode=motion: largest per-pixel threshold (levels)", 6, 255, d.tau_max,
          ready));
  g_object_class_install_property (k, first + M_CHROMA, g_param_spec_boolean ("chroma", "Chroma",
          "mode=motion: compare U and V too (a pixel is background when Y, U and V all match; "
          "needed by the shadow test); FALSE: luma only", d.color, ready));
  g_object_class_install_property (k, first + M_SHADOWS, g_param_spec_boolean ("shadows",
          "Shadows", "mode=motion, chroma: pixels darker than the background by a factor of "
          "0.4-0.9 with the chroma dimmed alike are cast shadows, not foreground", d.shadows,
          ready));
  g_object_class_install_property (k, first + M_ILLUMINATION, g_param_spec_boolean (
          "illumination", "Illumination", "mode=motion: compensate global illumination changes "
          "(the median gain of the background pixels, and chroma offsets)", d.illumination,
          ready));
  g_object_class_install_property (k, first + M_ADOPT_FRAMES, g_param_spec_int ("adopt-frames",
          "Adopt frames", "mode=motion: a pixel that matches a neighbour's background this many "
          "frames in a row takes over its samples (revealed background, ghosts, dissolve); 0 = "
          "never", 0, 255, d.adopt_frames, ready));
  g_object_class_install_property (k, first + M_ADOPT_TIGHT, g_param_spec_boolean ("adopt-tight",
          "Adopt tight", "mode=motion: adoption also needs the neighbour's background within "
          "tau-min of the pixel (chroma: 6 levels), not within the neighbour's own threshold (wide "
          "where the background moves: leaves or grass would match a stopped object's colour)",
          d.adopt_tight, ready));
  g_object_class_install_property (k, first + M_ADOPT_FRAMES_DYNAMIC, g_param_spec_int (
          "adopt-frames-dynamic", "Adopt frames (moving background)", "mode=motion: adopt-frames "
          "while the scene's background moves (at the previous frame more than dynamic-fraction "
          "of the pixels had a luma threshold above 2 x tau-min): a flat object beside a patch of "
          "its colour is taken over this much more slowly; 0 = adopt-frames always", 0, 255,
          d.adopt_frames_dynamic, ready));
  g_object_class_install_property (k, first + M_DYNAMIC_FRACTION, g_param_spec_double (
          "dynamic-fraction", "Moving-background fraction", "mode=motion: fraction of the pixels "
          "with a wide threshold above which the scene counts as a moving background "
          "(adopt-frames-dynamic)", 0.0, 1.0, d.dynamic_fraction, ready));
  g_object_class_install_property (k, first + M_PERSISTENCE, g_param_spec_double (
          "persistence", "Persistence", "mode=motion: a mask component is output (and boxed) "
          "only when at least this share of its pixels was in the previous frame's mask: "
          "flickering water glints go, an object's first frame and objects moving more than "
          "about 70% of their length a frame too (0: off)", 0.0, 1.0, d.persistence, ready));
  g_object_class_install_property (k, first + M_SHIFT_TEST, g_param_spec_boolean ("shift-test",
          "Shift test", "mode=motion with chroma: a pixel that neither its own nor a neighbour's "
          "background explains is background (not learnt) when it is a blend of its background "
          "and a neighbour's (an edge moved by less than a pixel: a creeping camera)",
          d.shift_test, ready));
  g_object_class_install_property (k, first + M_DYNAMIC_CHANGE_FRACTION, g_param_spec_double (
          "dynamic-change-fraction", "Moving-background change fraction", "mode=motion: the "
          "scene also counts as a moving background (adopt-frames-dynamic) when more than this "
          "fraction of the pixels changed luma by more than their threshold since the frame "
          "before (waves); 1 = never", 0.0, 1.0, d.dynamic_change_fraction, ready));
  g_object_class_install_property (k, first + M_ABSORB_FRAMES, g_param_spec_int ("absorb-frames",
          "Absorb frames", "mode=motion: a pixel foreground this many frames in a row becomes "
          "background (0 = never: stopped objects stay foreground)", 0, 65535, d.absorb_frames,
          ready));
  g_object_class_install_property (k, first + M_MIN_MASK_AREA, g_param_spec_int ("min-mask-area",
          "Minimum mask area", "mode=motion: mask components smaller than this (pixels, "
          "8-connected) are cleared", 0, G_MAXINT, d.min_mask_area, ready));
  g_object_class_install_property (k, first + M_SHOT_CHANGES, g_param_spec_boolean (
          "shot-changes", "Shot changes", "mode=motion: detect cuts (most pixels change at once "
          "and stay changed), restart the model and post a cvis-shot-change element message",
          d.shot_change, ready));
  g_object_class_install_property (k, first + M_LIVE_BACKGROUND, g_param_spec_boolean (
          "live-background", "Live background", "mode=motion, output=background: pixels that are "
          "background in this frame show the frame's own luma (a moving background such as "
          "foliage is its own best estimate), the others the median; FALSE: the median everywhere",
          d.live_background, ready));
}

/**
 * SECTION:element-cudabgsub
 * @title: cudabgsub
 *
 * Foreground segmentation with a nonparametric spatio-temporal background model [1, 2]: every
 * pixel keeps its last `num-samples` background colours; a frame's pixel is compared, through
 * products of 1-D Gaussian kernels with per-pixel bandwidths (from the median absolute deviation
 * of consecutive samples), with the samples of its (2 `neighborhood` + 1)^2 neighbourhood, and is
 * foreground when that density falls below `threshold`. Only background pixels refresh their
 * samples (every `update-period` frames). The defaults evaluate 1296 Gaussians per pixel and
 * frame, as the paper's model (~1300).
 *
 * [1] D. Berjón, G. Gallego, C. Cuevas, F. Morán, N. García, "Optimal Piecewise Linear Function
 *     Approximation for GPU-based Applications", IEEE Trans. Cybernetics 46(11), 2016.
 * [2] D. Berjón, C. Cuevas, F. Morán, N. García, "GPU-based implementation of an optimized
 *     nonparametric background modeling for real-time moving object detection", IEEE Trans.
 *     Consumer Electronics 59(2), 2013.
 *
 * `kernel` chooses how the Gaussian is evaluated: `exact` (expf), `fast` (the GPU's special
 * function unit), or a continuous piecewise-linear approximation with `cpwl-points` segments
 * fitted by `cpwl-fit` [1]: on a uniform partition through the texture unit's linear filtering
 * (`cpwl-texture`, the paper's choice on Fermi), in shared memory (`cpwl-manual`, `cpwl-slope`),
 * or on the paper's optimized partition (`cpwl-opt-*`); `fast-fused` evaluates one exponential
 * per sample for the whole product (the default: the fastest on the H100 whose masks equal
 * `exact`'s). Fewer points cost accuracy, not time. `color-space=chromaticity`
 * trades sensitivity to intensity-only changes for robustness to shadows.
 *
 * Real footage (on by default; all off with min-mask-area=0 persistence=0 gives the paper's model):
 * `illumination` divides each frame by per-channel global gains measured on the background;
 * `shadows` keeps cast shadows (darker by `shadow-low`..`shadow-high`, chroma dimmed alike,
 * explained by `shadow-samples` of the pixel's own samples) out of the mask and the model;
 * `shift-test` keeps edges blended by a camera that creeps by a fraction of a pixel out of the
 * mask and the model; `min-mask-area` clears small mask components; `persistence` outputs only the components
 * that were mostly in the previous frame's mask (flicker such as water glints goes, and an
 * object's first frame); `shot-changes` detects cuts (most pixels
 * foreground and changed at once, for `cut-frames` frames), restarts the model with a short
 * warm-up of `cut-warmup` frames and posts the element message "cvis-shot-change" (fields frame:
 * frames since start or flush, this one included; pts; running-time) on the first frame of that
 * warm-up; then, for `cut-refill` frames, every pixel refreshes its samples, so what moved during
 * the short warm-up leaves no ghost. Stopped objects stay foreground (only background pixels
 * refresh their samples; after a cut, once the refill is over). A ghost (background uncovered
 * by an object that was in the samples) is taken in from its contour, about a layer per frame:
 * a raw-foreground pixel that has stayed within `ghost-levels` for `ghost-still` frames and whose
 * current value `ghost-matches` samples of an equally still background 4-neighbour explain takes
 * over that neighbour's samples, when the neighbour's own model explains the neighbour (raw
 * background: a pixel taken over in this frame is no source before the next) and the two differ
 * by at most `ghost-levels` in the frame (no edge in the frame across the contour, one in the
 * model; a still flat object a little off its background keeps its interior);
 * `ghost-passes=0` leaves ghosts to the neighbourhood's samples (1 pixel per frame at most).
 *
 * Warm-up: the first `num-samples` frames after start, a flush, a caps change or a change of
 * `num-samples` / `color-space` only fill the model; their masks are all background.
 *
 * Outputs: `output=mask` gives a GRAY8 mask (255 = foreground) of the frame's size in the input's
 * memory kind: CUDA memory when the input is CUDA memory and downstream accepts GRAY8 there,
 * otherwise system memory (the element downloads it; `cudadownload` has no GRAY8). A GRAY8 mask in
 * CUDA memory is allocated as NV12 of the same size (GStreamer's CUDA allocator has no GRAY8,
 * 1.22 to 1.26) whose video meta describes plane 0 only. `output=frame` passes the frames through with a
 * GstCvisForegroundMeta (the mask in the frame's memory kind, the foreground fraction; the extra
 * structure field "warming-up") . In both modes each connected foreground blob of at least
 * `min-blob-area` pixels (at most `max-blobs`, the largest) becomes a GstVideoRegionOfInterestMeta
 * of roi_type "foreground", ids 0..n-1 in raster order, with a "foreground" param holding "area".
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball num-buffers=300 ! video/x-raw,format=RGBA ! \
 *     cudabgsub ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudabgsub output=frame kernel=cpwl-texture ! cudadownload ! fakesink
 * ]|
 * The second line keeps the decoded NV12 frames and the masks in CUDA memory.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string>

#include "gstcudabgsub_priv.h"
#include "gstcvisutils.h"

GST_DEBUG_CATEGORY (gst_cuda_bg_sub_debug);
#define GST_CAT_DEFAULT gst_cuda_bg_sub_debug

namespace bg = cvis::bgsub;


G_DEFINE_TYPE (GstCudaBgSub, gst_cuda_bg_sub, GST_TYPE_CVIS_FILTER);

/* --------------------------------------------------------------------------------------------- */
/* Caps. output=frame: identity (the parent's). output=mask: GRAY8 out, any input; CUDA input may
 * also give a system-memory mask (for downstream elements without GRAY8 in CUDA memory). */

static GstCudaBgSubOutput
current_output (GstCudaBgSub * self)
{
  std::lock_guard < std::mutex > lk (*self->lock);
  return self->settings->output;
}

static GstCaps *
gst_cuda_bg_sub_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  GstCudaBgSub *self = GST_CUDA_BG_SUB (trans);
  if (current_output (self) == GST_CUDA_BG_SUB_OUTPUT_MASK)
    return gst_cvis_mask_transform_caps (GST_CVIS_FILTER (self), direction, caps, filter, TRUE);
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_bg_sub_parent_class)->transform_caps (trans,
      direction, caps, filter);
}

/* --------------------------------------------------------------------------------------------- */
/* GstCvisFilter vfuncs (called with the CUDA context pushed) */

cvis::Status
gst_cuda_bg_sub_apply_settings (GstCudaBgSub * self)
{
  GstCudaBgSubState & st = *self->state;
  bg::Params p;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    if (!self->settings->dirty && st.sub)
      return cvis::Status::Ok ();
    p = self->settings->params;
    st.max_blobs = self->settings->max_blobs;
    const guint area = self->settings->min_blob_area ? self->settings->min_blob_area :
        cvis::ccl::auto_min_area (st.width, st.height);
    p.min_blob_area = (int) MIN (area, (guint) G_MAXINT);
    self->settings->dirty = false;
  }
  if (!st.sub) {
    cvis::Status status;
    st.sub = bg::make_subtractor (st.backend, &status);
    CVIS_RETURN_IF_ERROR (status);
  }
  GST_DEBUG_OBJECT (self, "kernel %s, %d samples, r=%d, threshold %g",
      bg::kernel_name (p.kernel), p.num_samples, p.neighborhood, p.threshold);
  return st.sub->configure (p);
}

static cvis::Status
gst_cuda_bg_sub_configure (GstCvisFilter * filter, const GstVideoInfo * in_info,
    const GstVideoInfo *, cvis::Backend backend)
{
  GstCudaBgSub *self = GST_CUDA_BG_SUB (filter);
  GstCudaBgSubState & st = *self->state;
  if (st.sub && st.backend != backend)
    st.sub.reset ();
  st.backend = backend;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    st.output = self->settings->output;
    self->settings->dirty = true;
  }
  st.width = GST_VIDEO_INFO_WIDTH (in_info);
  st.height = GST_VIDEO_INFO_HEIGHT (in_info);
  CVIS_RETURN_IF_ERROR (gst_cuda_bg_sub_apply_settings (self));
  st.sub->reset ();
  st.frames = 0;
  const gint w = st.width, h = st.height;
  /* output=frame analyses in place: the frames pass without a copy. */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self),
      st.output == GST_CUDA_BG_SUB_OUTPUT_FRAME);
  CVIS_RETURN_IF_ERROR (gst_cvis_masks_configure (&st.masks, filter, w, h,
          st.output == GST_CUDA_BG_SUB_OUTPUT_FRAME));
  GST_INFO_OBJECT (self, "%dx%d, backend %s, output %s", w, h, cvis::backend_name (backend),
      st.output == GST_CUDA_BG_SUB_OUTPUT_FRAME ? "frame" : "mask");
  return cvis::Status::Ok ();
}

static void
gst_cuda_bg_sub_reset (GstCvisFilter * filter)
{
  GstCudaBgSubState & st = *GST_CUDA_BG_SUB (filter)->state;
  if (st.sub)
    st.sub->reset ();
  st.frames = 0;
}

static void
gst_cuda_bg_sub_release (GstCvisFilter * filter)
{
  GstCudaBgSubState & st = *GST_CUDA_BG_SUB (filter)->state;
  gst_cvis_masks_clear (&st.masks);
  st.sub.reset ();  /* device memory freed with the context pushed */
}

/* --------------------------------------------------------------------------------------------- */
/* output=mask in CUDA memory: GRAY8 buffers from the mask helper's pool (gstcvismask.h). */

static gboolean
gst_cuda_bg_sub_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstCudaBgSub *self = GST_CUDA_BG_SUB (trans);
  GstCudaBgSubState & st = *self->state;
  gboolean handled = FALSE;
  if (st.output == GST_CUDA_BG_SUB_OUTPUT_MASK) {
    const gboolean ok = gst_cvis_masks_decide_allocation (&st.masks, GST_CVIS_FILTER (self),
        query, &handled);
    if (handled)
      return ok;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_bg_sub_parent_class)->decide_allocation (trans,
      query);
}

static GstFlowReturn
gst_cuda_bg_sub_prepare_output_buffer (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer ** outbuf)
{
  GstCudaBgSubState & st = *GST_CUDA_BG_SUB (trans)->state;
  if (st.output == GST_CUDA_BG_SUB_OUTPUT_MASK && st.masks.out_pool)
    return gst_cvis_masks_prepare_output_buffer (&st.masks, trans, inbuf, outbuf);
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_bg_sub_parent_class)->prepare_output_buffer (trans,
      inbuf, outbuf);
}

/* --------------------------------------------------------------------------------------------- */

static void
gst_cuda_bg_sub_finalize (GObject * object)
{
  GstCudaBgSub *self = GST_CUDA_BG_SUB (object);
  gst_cvis_masks_clear (&self->state->masks);
  delete self->state;
  delete self->settings;
  delete self->lock;
  G_OBJECT_CLASS (gst_cuda_bg_sub_parent_class)->finalize (object);
}


static void
gst_cuda_bg_sub_class_init (GstCudaBgSubClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCvisFilterClass *filter_class = GST_CVIS_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_bg_sub_set_property;
  gobject_class->get_property = gst_cuda_bg_sub_get_property;
  gobject_class->finalize = gst_cuda_bg_sub_finalize;
  gst_cuda_bg_sub_install_properties (gobject_class);

  gst_element_class_set_static_metadata (element_class, "CUDA KDE background subtraction",
      "Filter/Analyzer/Video",
      "Nonparametric spatio-temporal background subtraction with CPWL-approximated Gaussian "
      "kernels (Berjon et al., IEEE Trans. Cybernetics 2016)", "gst-cuda-vision");
  /* Output: the input's formats, and GRAY8 masks (CUDA memory: see gstcvismask.h). */
  gst_cvis_filter_class_add_pad_templates_full (element_class, "{ " GST_CVIS_CUDA_FORMATS " }",
      "{ " GST_CVIS_SYS_FORMATS " }", "{ " GST_CVIS_CUDA_FORMATS ", GRAY8 }",
      "{ " GST_CVIS_SYS_FORMATS " }");

  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cuda_bg_sub_transform_caps);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_cuda_bg_sub_decide_allocation);
  trans_class->prepare_output_buffer = GST_DEBUG_FUNCPTR (gst_cuda_bg_sub_prepare_output_buffer);

  filter_class->in_place = FALSE;  /* output=mask; output=frame switches to in place */
  filter_class->configure = gst_cuda_bg_sub_configure;
  filter_class->analyse = gst_cuda_bg_sub_analyse;
  filter_class->process = gst_cuda_bg_sub_process;
  filter_class->reset = gst_cuda_bg_sub_reset;
  filter_class->release = gst_cuda_bg_sub_release;
  filter_class->check_settings = gst_cuda_bg_sub_check_settings;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_bg_sub_debug, "cudabgsub", 0, "CUDA KDE background subtraction");
  gst_type_mark_as_plugin_api (gst_cuda_bg_sub_output_get_type (), (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (gst_cuda_bg_sub_kernel_get_type (), (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (gst_cuda_bg_sub_fit_get_type (), (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (gst_cuda_bg_sub_color_space_get_type (), (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (gst_cuda_bg_sub_cleanup_get_type (), (GstPluginAPIFlags) 0);
}


static void
gst_cuda_bg_sub_init (GstCudaBgSub * self)
{
  self->lock = new std::mutex ();
  self->settings = new GstCudaBgSubSettings ();
  self->state = new GstCudaBgSubState ();
}

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
 * Warm-up: the first `num-samples` frames after start, a flush, a caps change or a change of
 * `num-samples` / `color-space` only fill the model; their masks are all background. Only
 * background pixels refresh their samples, so after a shot change the whole frame stays
 * foreground: reset the model at cuts (a flush, or a change of `num-samples`).
 *
 * Outputs: `output=mask` gives a GRAY8 mask (255 = foreground) of the frame's size in the input's
 * memory kind: CUDA memory when the input is CUDA memory and downstream accepts GRAY8 there,
 * otherwise system memory (the element downloads it; `cudadownload` has no GRAY8). A GRAY8 mask in
 * CUDA memory is allocated as NV12 of the same size (GStreamer 1.22's CUDA allocator has no GRAY8)
 * whose video meta describes plane 0 only. `output=frame` passes the frames through with a
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

GST_DEBUG_CATEGORY (gst_cuda_bg_sub_debug);
#define GST_CAT_DEFAULT gst_cuda_bg_sub_debug

namespace bg = cvis::bgsub;


/* Input: what GStreamer 1.22's CUDA allocator can hold (no GRAY8, xRGB, xBGR) and, in system
 * memory, every format the algorithm reads. Output adds GRAY8 (the mask). */
#define IN_CUDA "RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, BGR, NV12, I420"
#define IN_SYS "RGBA, BGRA, RGBx, BGRx, xRGB, xBGR, ARGB, ABGR, RGB, BGR, GRAY8, NV12, I420"
#define RAW_CAPS(feature, formats) "video/x-raw" feature ", format=(string){ " formats " }, " \
    "width=(int)[1,max], height=(int)[1,max], framerate=(fraction)[0/1,max]"
#ifdef CVIS_HAVE_CUDA
#define CUDA_CAPS(formats) RAW_CAPS ("(memory:CUDAMemory)", formats) "; "
#else
#define CUDA_CAPS(formats) ""
#endif

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK,
    GST_PAD_ALWAYS, GST_STATIC_CAPS (CUDA_CAPS (IN_CUDA) RAW_CAPS ("", IN_SYS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC,
    GST_PAD_ALWAYS, GST_STATIC_CAPS (CUDA_CAPS (IN_CUDA ", GRAY8") RAW_CAPS ("", IN_SYS)));

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

static gboolean
is_cuda_features (GstCapsFeatures * f)
{
  return f && !gst_caps_features_is_any (f) &&
      gst_caps_features_contains (f, "memory:CUDAMemory");
}

static GstCaps *
gst_cuda_bg_sub_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  GstCudaBgSub *self = GST_CUDA_BG_SUB (trans);
  GstBaseTransformClass *parent = GST_BASE_TRANSFORM_CLASS (gst_cuda_bg_sub_parent_class);
  if (current_output (self) != GST_CUDA_BG_SUB_OUTPUT_MASK)
    return parent->transform_caps (trans, direction, caps, filter);

  GstCaps *res = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
    const gboolean cuda = is_cuda_features (gst_caps_get_features (caps, i));
    gst_structure_remove_fields (s, "colorimetry", "chroma-site", NULL);
    if (direction == GST_PAD_SINK) {
      gst_structure_set (s, "format", G_TYPE_STRING, "GRAY8", NULL);
      if (cuda)
        res = gst_caps_merge_structure_full (res, gst_structure_copy (s),
            gst_caps_features_new ("memory:CUDAMemory", NULL));
      res = gst_caps_merge_structure (res, s);  /* system memory (downloaded when CUDA in) */
    } else {
      gst_structure_remove_field (s, "format");
      res = gst_caps_merge_structure_full (res, gst_structure_copy (s),
          gst_caps_features_new ("memory:CUDAMemory", NULL));
      if (!cuda)
        res = gst_caps_merge_structure (res, s);
      else
        gst_structure_free (s);
    }
  }
  /* The parent keeps features as they are, but drops CUDA memory with the CPU backend. */
  GstCaps *tmp = parent->transform_caps (trans, direction, res, NULL);
  gst_caps_unref (res);
  GstCaps *tmpl = gst_pad_get_pad_template_caps (direction == GST_PAD_SINK ?
      GST_BASE_TRANSFORM_SRC_PAD (trans) : GST_BASE_TRANSFORM_SINK_PAD (trans));
  res = gst_caps_intersect_full (tmp, tmpl, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (tmpl);
  gst_caps_unref (tmp);
  if (filter) {
    GstCaps *f = gst_caps_intersect_full (filter, res, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    res = f;
  }
  GST_DEBUG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, res);
  return res;
}

/* --------------------------------------------------------------------------------------------- */
/* GstCvisFilter vfuncs (called with the CUDA context pushed) */

static void
clear_pools (GstCudaBgSubState & st)
{
  for (GstBufferPool ** p : {&st.mask_pool, &st.out_pool}) {
    if (*p) {
      gst_buffer_pool_set_active (*p, FALSE);
      gst_clear_object (p);
    }
  }
}

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
  CVIS_RETURN_IF_ERROR (gst_cuda_bg_sub_apply_settings (self));
  st.sub->reset ();
  clear_pools (st);
  const gint w = GST_VIDEO_INFO_WIDTH (in_info), h = GST_VIDEO_INFO_HEIGHT (in_info);
  gst_video_info_set_format (&st.mask_info, GST_VIDEO_FORMAT_GRAY8, w, h);
  /* output=frame analyses in place: the frames pass without a copy. */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self),
      st.output == GST_CUDA_BG_SUB_OUTPUT_FRAME);
  if (st.output == GST_CUDA_BG_SUB_OUTPUT_FRAME) {
    st.mask_cuda = backend == cvis::Backend::kCuda && gst_cvis_filter_input_is_cuda (filter);
    st.mask_pool = gst_cvis_filter_new_gray8_pool (filter, w, h, st.mask_cuda);
    if (!st.mask_pool)
      return cvis::Status (cvis::StatusCode::kOutOfMemory, "could not create the mask pool");
  }
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
}

static void
gst_cuda_bg_sub_release (GstCvisFilter * filter)
{
  GstCudaBgSubState & st = *GST_CUDA_BG_SUB (filter)->state;
  clear_pools (st);
  st.sub.reset ();  /* device memory freed with the context pushed */
}

/* --------------------------------------------------------------------------------------------- */
/* Allocation of GRAY8 masks in CUDA memory: GstCudaBufferPool cannot be configured with GRAY8 in
 * 1.22 (the allocator aborts), so output=mask in CUDA memory uses the base class's GRAY8 pool. */

static gboolean
gst_cuda_bg_sub_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstCudaBgSub *self = GST_CUDA_BG_SUB (trans);
  GstCudaBgSubState & st = *self->state;
  GstCaps *caps = NULL;
  gst_query_parse_allocation (query, &caps, NULL);
  if (st.output == GST_CUDA_BG_SUB_OUTPUT_MASK && caps &&
      is_cuda_features (gst_caps_get_features (caps, 0))) {
    if (st.out_pool) {
      gst_buffer_pool_set_active (st.out_pool, FALSE);
      gst_clear_object (&st.out_pool);
    }
    st.out_pool = gst_cvis_filter_new_gray8_pool (GST_CVIS_FILTER (self),
        GST_VIDEO_INFO_WIDTH (&st.mask_info), GST_VIDEO_INFO_HEIGHT (&st.mask_info), TRUE);
    if (!st.out_pool) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Could not allocate GRAY8 masks in CUDA "
              "memory"), (NULL));
      return FALSE;
    }
    while (gst_query_get_n_allocation_pools (query) > 0)
      gst_query_remove_nth_allocation_pool (query, 0);
    GstStructure *config = gst_buffer_pool_get_config (st.out_pool);
    guint size = 0;
    gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
    gst_structure_free (config);
    gst_query_add_allocation_pool (query, st.out_pool, size, 0, 0);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_bg_sub_parent_class)->decide_allocation (trans,
      query);
}

static GstFlowReturn
gst_cuda_bg_sub_prepare_output_buffer (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer ** outbuf)
{
  GstCudaBgSub *self = GST_CUDA_BG_SUB (trans);
  GstCudaBgSubState & st = *self->state;
  if (st.output != GST_CUDA_BG_SUB_OUTPUT_MASK || !st.out_pool)
    return GST_BASE_TRANSFORM_CLASS (gst_cuda_bg_sub_parent_class)->prepare_output_buffer (trans,
        inbuf, outbuf);
  GstFlowReturn ret = gst_cvis_gray8_pool_acquire (st.out_pool, outbuf);
  if (ret != GST_FLOW_OK)
    return ret;
  GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS (trans);
  if (klass->copy_metadata && !klass->copy_metadata (trans, inbuf, *outbuf)) {
    GST_ELEMENT_WARNING (self, STREAM, NOT_IMPLEMENTED, ("Could not copy metadata"), (NULL));
  }
  return GST_FLOW_OK;
}

/* --------------------------------------------------------------------------------------------- */

static void
gst_cuda_bg_sub_finalize (GObject * object)
{
  GstCudaBgSub *self = GST_CUDA_BG_SUB (object);
  clear_pools (*self->state);
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
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cuda_bg_sub_transform_caps);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_cuda_bg_sub_decide_allocation);
  trans_class->prepare_output_buffer = GST_DEBUG_FUNCPTR (gst_cuda_bg_sub_prepare_output_buffer);

  filter_class->in_place = FALSE;  /* output=mask; output=frame switches to in place */
  filter_class->configure = gst_cuda_bg_sub_configure;
  filter_class->analyse = gst_cuda_bg_sub_analyse;
  filter_class->process = gst_cuda_bg_sub_process;
  filter_class->reset = gst_cuda_bg_sub_reset;
  filter_class->release = gst_cuda_bg_sub_release;

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

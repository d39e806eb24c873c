/**
 * SECTION:element-cudamedian3d
 * @title: cudamedian3d
 *
 * Estimates the background of a video as the spatio-temporal median of every pixel's
 * m x n x (T+1) neighbourhood [1] and segments motion against it: a pixel is foreground when
 * |I - median| > tau, with tau chosen per frame by Otsu's method (as in [1]) or fixed by
 * `threshold`. Values are quantised into `bins` bins (256: the exact 8-bit median; the paper's
 * timings use 16); windows are clipped at the image borders and at the ends of the stream.
 *
 * [1] M. Poostchi, K. Palaniappan, F. Bunyak, M. Becchi, G. Seetharaman, "Realtime motion
 *     detection based on the spatio-temporal median filter using GPU integral histogram",
 *     ICVGIP 2012.
 *
 * Methods: `integral-histogram` is the paper's (a joint integral histogram of the window, updated
 * with the head and tail frames); `sliding-histogram` (default) keeps a temporal histogram per
 * pixel and sums them over each box, with identical results and less memory traffic;
 * `separable` is the paper's M2D+t approximation (2-D medians, then their temporal median).
 *
 * Timing: with `window=centered` (the paper's) frame k's median uses frames k-T/2..k+T/2, so the
 * output lags T/2 frames: the element reports that latency, gives each output the timestamps of
 * the frame the median belongs to, and pushes the remaining outputs at EOS (and before a caps
 * change). `window=causal` uses the past T+1 frames and adds no latency (live sources).
 *
 * Outputs: `output=background` (the median image in the input's format: R = G = B, or Y with
 * neutral chroma, in luma mode), `output=mask` (GRAY8 in system memory, 255 = foreground, with
 * the blob boxes; with CUDA input the mask is downloaded), `output=frame` (frames pass through,
 * delayed like the others, with a GstCvisForegroundMeta referencing a GRAY8 mask in the frame's
 * memory kind). Blob boxes: one GstVideoRegionOfInterestMeta of roi_type "foreground" per
 * 8-connected blob of at least `min-blob-area` pixels (as cudabgsub), computed by the estimator
 * where the mask is (CUDA input: on the GPU, no host copy of the mask). A GRAY8 mask in CUDA
 * memory is allocated as NV12 of the frame's size (GStreamer 1.22's CUDA allocator has no GRAY8)
 * whose video meta describes plane 0 only.
 *
 * Device memory per stream (logged at INFO): 1920x1080 luma, 3x3x15, 16 bins: about 80 MiB with
 * `sliding-histogram`, 240 MiB with `integral-histogram`.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball num-buffers=300 ! video/x-raw,format=RGBA ! \
 *     cudamedian3d output=mask ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudamedian3d output=frame temporal-size=31 ! cudadownload ! fakesink
 * ]|
 * The second line keeps the decoded NV12 frames and the masks in CUDA memory.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string>

#include "gstcudamedian3d_priv.h"
#include "gstcvisutils.h"

GST_DEBUG_CATEGORY (gst_cuda_median3d_debug);
#define GST_CAT_DEFAULT gst_cuda_median3d_debug

namespace m3d = cvis::median3d;


/* CUDA memory: the formats GStreamer 1.22's CUDA allocator can hold (no GRAY8, xRGB, xBGR). */
#define CUDA_FORMATS "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, BGR, NV12, I420 }"
#define SYS_FORMATS \
    "{ RGBA, BGRA, RGBx, BGRx, xRGB, xBGR, ARGB, ABGR, RGB, BGR, GRAY8, NV12, I420 }"

G_DEFINE_TYPE (GstCudaMedian3d, gst_cuda_median3d, GST_TYPE_CVIS_FILTER);

/* --------------------------------------------------------------------------------------------- */
/* Caps: output=mask gives GRAY8 in system memory; the other outputs keep the input's caps. */

static GstCudaMedian3dOutput
current_output (GstCudaMedian3d * self)
{
  std::lock_guard < std::mutex > lk (*self->lock);
  return self->settings->output;
}

static GstCaps *
gst_cuda_median3d_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  GstCudaMedian3d *self = GST_CUDA_MEDIAN3D (trans);
  GstBaseTransformClass *parent = GST_BASE_TRANSFORM_CLASS (gst_cuda_median3d_parent_class);
  if (current_output (self) != GST_CUDA_MEDIAN3D_OUTPUT_MASK)
    return parent->transform_caps (trans, direction, caps, filter);

  GstCaps *res = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
    gst_structure_remove_fields (s, "colorimetry", "chroma-site", NULL);
    if (direction == GST_PAD_SINK) {
      gst_structure_set (s, "format", G_TYPE_STRING, "GRAY8", NULL);
      res = gst_caps_merge_structure (res, s);
    } else {
      /* Any input format and memory the sink template allows (intersected below). */
      gst_structure_remove_field (s, "format");
      res = gst_caps_merge_structure_full (res, gst_structure_copy (s),
          gst_caps_features_new ("memory:CUDAMemory", NULL));
      res = gst_caps_merge_structure (res, s);
    }
  }
  if (direction == GST_PAD_SRC) {
    /* The parent drops CUDA memory when the backend is the CPU. */
    res = parent->transform_caps (trans, direction, res, NULL);
    GstCaps *tmpl = gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (trans));
    GstCaps *both = gst_caps_intersect_full (res, tmpl, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (tmpl);
    gst_caps_unref (res);
    res = both;
  }
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

static cvis::Status
gst_cuda_median3d_configure (GstCvisFilter * filter, const GstVideoInfo * in_info,
    const GstVideoInfo *, cvis::Backend backend)
{
  GstCudaMedian3d *self = GST_CUDA_MEDIAN3D (filter);
  GstCudaMedian3dState & st = *self->state;
  GstCudaMedian3dWindow window;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    const GstCudaMedian3dSettings & s = *self->settings;
    st.params = s.params;
    st.params.spatial_w = s.spatial_size;
    st.params.spatial_h = s.spatial_height ? s.spatial_height : s.spatial_size;
    st.output = s.output;
    window = s.window;
  }
  st.configured = false;
  gst_cuda_median3d_clear_pending (&st);
  cvis::PixelFormat pf;
  if (!gst_cvis_pixel_format_from_video (GST_VIDEO_INFO_FORMAT (in_info), &pf))
    return cvis::unsupported_format ("input format");
  const gint w = GST_VIDEO_INFO_WIDTH (in_info), h = GST_VIDEO_INFO_HEIGHT (in_info);
  if (!st.est || st.backend != backend) {
    cvis::Status s;
    st.est = m3d::make_estimator (backend, &s);
    CVIS_RETURN_IF_ERROR (s);
    st.backend = backend;
  }
  CVIS_RETURN_IF_ERROR (st.est->configure (st.params, w, h, pf));
  st.tracker = m3d::WindowTracker (st.params.temporal, window == GST_CUDA_MEDIAN3D_WINDOW_CAUSAL ?
      m3d::Timing::kCausal : m3d::Timing::kCentered);
  st.frame_duration = GST_VIDEO_INFO_FPS_N (in_info) > 0 ?
      gst_util_uint64_scale_int (GST_SECOND, GST_VIDEO_INFO_FPS_D (in_info),
      GST_VIDEO_INFO_FPS_N (in_info)) : GST_CLOCK_TIME_NONE;
  if (st.mask_pool) {
    gst_buffer_pool_set_active (st.mask_pool, FALSE);
    gst_clear_object (&st.mask_pool);
  }
  if (st.output == GST_CUDA_MEDIAN3D_OUTPUT_FRAME) {
    st.mask_cuda = backend == cvis::Backend::kCuda && gst_cvis_filter_input_is_cuda (filter);
    st.mask_pool = gst_cvis_filter_new_gray8_pool (filter, w, h, st.mask_cuda);
    if (!st.mask_pool)
      return cvis::Status (cvis::StatusCode::kOutOfMemory, "could not create the mask pool");
  }
  const m3d::MemoryUse mu = st.est->memory ();
  GST_INFO_OBJECT (self, "%s %dx%d %s, window %dx%dx%d (%s, lag %d), %d bins, %s, output %d: "
      "%.1f MiB device, %.1f MiB host memory", cvis::backend_name (backend), w, h,
      cvis::pixel_format_name (pf), st.params.spatial_w, st.params.spatial_h,
      st.params.temporal, window == GST_CUDA_MEDIAN3D_WINDOW_CAUSAL ? "causal" : "centered",
      st.tracker.lag (), st.params.bins, m3d::method_name (st.params.method), st.output,
      mu.device_bytes / 1048576.0, mu.host_bytes / 1048576.0);
  st.configured = true;
  return cvis::Status::Ok ();
}

static void
gst_cuda_median3d_reset (GstCvisFilter * filter)
{
  GstCudaMedian3dState & st = *GST_CUDA_MEDIAN3D (filter)->state;
  if (st.est)
    st.est->reset ();
  st.tracker.reset ();
  gst_cuda_median3d_clear_pending (&st);
}

static void
gst_cuda_median3d_release (GstCvisFilter * filter)
{
  GstCudaMedian3dState & st = *GST_CUDA_MEDIAN3D (filter)->state;
  gst_cuda_median3d_clear_pending (&st);
  st.est.reset ();
  st.configured = false;
  if (st.mask_pool) {
    gst_buffer_pool_set_active (st.mask_pool, FALSE);
    gst_clear_object (&st.mask_pool);
  }
}

/* --------------------------------------------------------------------------------------------- */
/* GstBaseTransform vfuncs */

static GstFlowReturn
gst_cuda_median3d_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstBuffer *inbuf = trans->queued_buf;
  trans->queued_buf = NULL;
  *outbuf = NULL;
  if (!inbuf)
    return GST_FLOW_OK;  /* GstBaseTransform asks again after each output: none is owed */
  GstFlowReturn ret = gst_cuda_median3d_arrive (GST_CUDA_MEDIAN3D (trans), inbuf, outbuf);
  gst_buffer_unref (inbuf);
  return ret;
}

static gboolean
gst_cuda_median3d_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaMedian3d *self = GST_CUDA_MEDIAN3D (trans);
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
    gst_cuda_median3d_drain (self);
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS && self->state->configured) {
    /* The owed outputs belong to the old caps: push them before the new caps apply. (Equal caps
     * do not reach set_caps, so the window survives them and downstream reconfigures.) */
    GstCaps *caps = NULL, *current = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD (trans));
    gst_event_parse_caps (event, &caps);
    if (current && !gst_caps_is_equal (caps, current))
      gst_cuda_median3d_drain (self);
    gst_clear_caps (&current);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_median3d_parent_class)->sink_event (trans, event);
}

/* Centered window: outputs lag (temporal - 1) / 2 frames. */
static gboolean
gst_cuda_median3d_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
  GstCudaMedian3d *self = GST_CUDA_MEDIAN3D (trans);
  if (!GST_BASE_TRANSFORM_CLASS (gst_cuda_median3d_parent_class)->query (trans, direction, query))
    return FALSE;
  if (GST_QUERY_TYPE (query) != GST_QUERY_LATENCY || direction != GST_PAD_SRC)
    return TRUE;
  gint lag;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    lag = self->settings->window == GST_CUDA_MEDIAN3D_WINDOW_CENTERED ?
        (self->settings->params.temporal - 1) / 2 : 0;
  }
  if (lag == 0)
    return TRUE;
  GstClockTime duration = self->state->frame_duration;
  if (!GST_CLOCK_TIME_IS_VALID (duration)) {
    GstCaps *caps = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD (trans));
    GstVideoInfo info;
    if (caps && gst_video_info_from_caps (&info, caps) && GST_VIDEO_INFO_FPS_N (&info) > 0)
      duration = gst_util_uint64_scale_int (GST_SECOND, GST_VIDEO_INFO_FPS_D (&info),
          GST_VIDEO_INFO_FPS_N (&info));
    if (caps)
      gst_caps_unref (caps);
  }
  if (!GST_CLOCK_TIME_IS_VALID (duration)) {
    GST_WARNING_OBJECT (self, "latency of %d frames unknown: no framerate yet", lag);
    return TRUE;
  }
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency (query, &live, &min, &max);
  const GstClockTime ours = lag * duration;
  GST_DEBUG_OBJECT (self, "adding %d frames = %" GST_TIME_FORMAT " of latency", lag,
      GST_TIME_ARGS (ours));
  gst_query_set_latency (query, live, min + ours,
      GST_CLOCK_TIME_IS_VALID (max) ? max + ours : GST_CLOCK_TIME_NONE);
  return TRUE;
}

/* --------------------------------------------------------------------------------------------- */

static void
gst_cuda_median3d_finalize (GObject * object)
{
  GstCudaMedian3d *self = GST_CUDA_MEDIAN3D (object);
  gst_cuda_median3d_clear_pending (self->state);
  delete self->state;
  delete self->settings;
  delete self->lock;
  G_OBJECT_CLASS (gst_cuda_median3d_parent_class)->finalize (object);
}

static void
gst_cuda_median3d_class_init (GstCudaMedian3dClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCvisFilterClass *filter_class = GST_CVIS_FILTER_CLASS (klass);

  gobject_class->finalize = gst_cuda_median3d_finalize;
  gst_cuda_median3d_install_properties (gobject_class);

  gst_element_class_set_static_metadata (element_class, "CUDA spatio-temporal median",
      "Filter/Analyzer/Video",
      "Background as the 3-D (x, y, t) median via integral histograms, and motion masks against "
      "it (Poostchi et al., ICVGIP 2012)", "gst-cuda-vision");
  gst_cvis_filter_class_add_pad_templates (element_class, CUDA_FORMATS, SYS_FORMATS);

  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cuda_median3d_transform_caps);
  trans_class->generate_output = GST_DEBUG_FUNCPTR (gst_cuda_median3d_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_median3d_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_median3d_query);

  filter_class->in_place = FALSE;
  filter_class->configure = gst_cuda_median3d_configure;
  filter_class->reset = gst_cuda_median3d_reset;
  filter_class->release = gst_cuda_median3d_release;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_median3d_debug, "cudamedian3d", 0,
      "CUDA spatio-temporal median");
}

static void
gst_cuda_median3d_init (GstCudaMedian3d * self)
{
  self->lock = new std::mutex ();
  self->settings = new GstCudaMedian3dSettings ();
  self->state = new GstCudaMedian3dState ();
}

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
 * memory is allocated as NV12 of the frame's size (GStreamer's CUDA allocator has no GRAY8, 1.22
 * to 1.26) whose video meta describes plane 0 only.
 *
 * Device memory per stream (logged at INFO): 1920x1080 luma, 3x3x15, 16 bins: about 80 MiB with
 * `sliding-histogram`, 240 MiB with `integral-histogram`.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball num-buffers=300 ! video/x-raw,format=RGBA ! \
 *     cudamedian3d output=mask ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudamedian3d mode=paper output=frame temporal-size=31 ! cudadownload ! fakesink
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


G_DEFINE_TYPE (GstCudaMedian3d, gst_cuda_median3d, GST_TYPE_CVIS_TEMPORAL_FILTER);

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
  if (current_output (self) == GST_CUDA_MEDIAN3D_OUTPUT_MASK)
    return gst_cvis_mask_transform_caps (GST_CVIS_FILTER (self), direction, caps, filter, FALSE);
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_median3d_parent_class)->transform_caps (trans,
      direction, caps, filter);
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
    st.motion_mode = s.mode == GST_CUDA_MEDIAN3D_MODE_MOTION;
    st.params = s.params;
    st.params.spatial_w = s.spatial_size;
    st.params.spatial_h = s.spatial_height ? s.spatial_height : s.spatial_size;
    st.output = s.output;
    window = s.window;
  }
  st.configured = false;
  cvis::PixelFormat pf;
  if (!gst_cvis_pixel_format_from_video (GST_VIDEO_INFO_FORMAT (in_info), &pf))
    return cvis::unsupported_format ("input format");
  const gint w = GST_VIDEO_INFO_WIDTH (in_info), h = GST_VIDEO_INFO_HEIGHT (in_info);
  st.width = w;
  st.height = h;
  const bool frames = st.output == GST_CUDA_MEDIAN3D_OUTPUT_FRAME;
  if (st.motion_mode) {
    st.est.reset ();
    CVIS_RETURN_IF_ERROR (gst_cuda_median3d_motion_configure (self, backend));
    CVIS_RETURN_IF_ERROR (gst_cvis_masks_configure (&st.masks, filter, w, h, frames));
    gst_cvis_temporal_filter_set_frame_output (GST_CVIS_TEMPORAL_FILTER (self), frames);
    st.backend = backend;
    st.configured = true;
    return cvis::Status::Ok ();
  }
  st.motion.reset ();
  if (!st.est || st.backend != backend) {
    cvis::Status s;
    st.est = m3d::make_estimator (backend, &s);
    CVIS_RETURN_IF_ERROR (s);
    st.backend = backend;
  }
  CVIS_RETURN_IF_ERROR (st.est->configure (st.params, w, h, pf));
  st.tracker = m3d::WindowTracker (st.params.temporal, window == GST_CUDA_MEDIAN3D_WINDOW_CAUSAL ?
      m3d::Timing::kCausal : m3d::Timing::kCentered);
  st.pops = st.index = 0;
  CVIS_RETURN_IF_ERROR (gst_cvis_masks_configure (&st.masks, filter, w, h, frames));
  gst_cvis_temporal_filter_set_frame_output (GST_CVIS_TEMPORAL_FILTER (self), frames);
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
  if (st.motion)
    st.motion->reset ();
  gst_cuda_median3d_motion_clear (&st);
  st.tracker.reset ();
  st.pops = st.index = 0;
}

static void
gst_cuda_median3d_release (GstCvisFilter * filter)
{
  GstCudaMedian3dState & st = *GST_CUDA_MEDIAN3D (filter)->state;
  st.est.reset ();
  st.motion.reset ();
  gst_cuda_median3d_motion_clear (&st);
  st.configured = false;
  gst_cvis_masks_clear (&st.masks);
}

/* Centered window: outputs lag (temporal - 1) / 2 frames; mode=motion: no lag. */
static guint
gst_cuda_median3d_get_lag (GstCvisTemporalFilter * filter)
{
  GstCudaMedian3d *self = GST_CUDA_MEDIAN3D (filter);
  std::lock_guard < std::mutex > lk (*self->lock);
  if (self->settings->mode == GST_CUDA_MEDIAN3D_MODE_MOTION)
    return 0;
  return self->settings->window == GST_CUDA_MEDIAN3D_WINDOW_CENTERED ?
      (guint) (self->settings->params.temporal - 1) / 2 : 0;
}

/* --------------------------------------------------------------------------------------------- */

static void
gst_cuda_median3d_finalize (GObject * object)
{
  GstCudaMedian3d *self = GST_CUDA_MEDIAN3D (object);
  gst_cuda_median3d_motion_clear (self->state);
  gst_cvis_masks_clear (&self->state->masks);
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
  GstCvisTemporalFilterClass *temporal_class = GST_CVIS_TEMPORAL_FILTER_CLASS (klass);

  gobject_class->finalize = gst_cuda_median3d_finalize;
  gst_cuda_median3d_install_properties (gobject_class);

  gst_element_class_set_static_metadata (element_class, "CUDA spatio-temporal median",
      "Filter/Analyzer/Video",
      "Background as the 3-D (x, y, t) median via integral histograms, and motion masks against "
      "it (Poostchi et al., ICVGIP 2012)", "gst-cuda-vision");
  gst_cvis_filter_class_add_pad_templates (element_class, "{ " GST_CVIS_CUDA_FORMATS " }",
      "{ " GST_CVIS_SYS_FORMATS " }");

  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cuda_median3d_transform_caps);

  filter_class->configure = gst_cuda_median3d_configure;
  filter_class->reset = gst_cuda_median3d_reset;
  filter_class->release = gst_cuda_median3d_release;
  temporal_class->get_lag = gst_cuda_median3d_get_lag;
  temporal_class->push = gst_cuda_median3d_push;
  temporal_class->ready = gst_cuda_median3d_ready;
  temporal_class->produce = gst_cuda_median3d_produce;

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

/* cudamedian3d, mode=motion: the motion detector (cvis::median3d::MotionDetector) behind the
 * GstCvisTemporalFilter vfuncs. One output per frame and no lag: the frame is processed when its
 * output is produced (new outputs: the base class keeps the input mapped until then), or at push
 * (output=frame: the input is released after push, the mask buffer is kept until produce). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "ccl/ccl.hpp"
#include "gstcudamedian3d_priv.h"
#include "gstcvisutils.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_median3d_debug);
#define GST_CAT_DEFAULT gst_cuda_median3d_debug

namespace m3d = cvis::median3d;

guint
gst_cuda_median3d_min_blob_area (const GstCudaMedian3dSettings & s,
    const GstCudaMedian3dState & st)
{
  return s.min_blob_area ? s.min_blob_area : cvis::ccl::auto_min_area (st.width, st.height);
}

cvis::Status
gst_cuda_median3d_motion_configure (GstCudaMedian3d * self, cvis::Backend backend)
{
  GstCudaMedian3dState & st = *self->state;
  m3d::MotionParams p;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    p = self->settings->motion;
    p.min_blob_area =
        (int) MIN (gst_cuda_median3d_min_blob_area (*self->settings, st), (guint) G_MAXINT);
    p.max_blobs = self->settings->max_blobs;
  }
  p.blobs = st.output != GST_CUDA_MEDIAN3D_OUTPUT_BACKGROUND;
  gst_cuda_median3d_motion_clear (&st);
  if (!st.motion || st.motion->backend () != backend) {
    cvis::Status s;
    st.motion = m3d::make_motion_detector (backend, &s);
    CVIS_RETURN_IF_ERROR (s);
  }
  CVIS_RETURN_IF_ERROR (st.motion->configure (p));
  GST_INFO_OBJECT (self, "motion detector (%s): %d samples every %d frames, noise factor %.2f, "
      "tau %d..%d, %s, shadows %d, shot changes %d, output %d", cvis::backend_name (backend),
      p.history, p.sample_period, p.noise_factor, p.tau_min, p.tau_max,
      p.color ? "Y, U, V" : "luma", p.shadows, p.shot_change, st.output);
  return cvis::Status::Ok ();
}

void
gst_cuda_median3d_motion_clear (GstCudaMedian3dState * st)
{
  gst_clear_buffer (&st->motion_mask);
  st->motion_pending = false;
  st->motion_in = cvis::ImageView ();
}

/* The element message of a shot change (the model restarted at this frame). */
static void
post_shot_change (GstCudaMedian3d * self, GstBuffer * buf)
{
  const guint64 frame = self->state->outputs;
  gst_cvis_post_shot_change (GST_ELEMENT (self), buf, frame);
  GST_INFO_OBJECT (self, "shot change at frame %" G_GUINT64_FORMAT " pts %" GST_TIME_FORMAT
      ": the model restarts", frame, GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
}

cvis::Status
gst_cuda_median3d_motion_push (GstCudaMedian3d * self, GstBuffer *, const cvis::ImageView & in,
    cvis::StreamHandle stream)
{
  GstCudaMedian3dState & st = *self->state;
  if (!st.motion)
    return cvis::internal_error ("buffer before caps were configured");
  if (st.motion_pending)
    return cvis::internal_error ("motion: a frame arrived before the previous one was produced");
  st.motion_pending = true;
  if (st.output != GST_CUDA_MEDIAN3D_OUTPUT_FRAME) {
    st.motion_in = in;
    return cvis::Status::Ok ();
  }
  GstBuffer *mask = NULL;
  GstFlowReturn flow;
  CVIS_RETURN_IF_ERROR (gst_cvis_masks_acquire (&st.masks, &mask, &flow));
  if (!mask)  /* flushing: the model still sees the frame; the frame leaves without a mask */
    return st.motion->process (in, nullptr, nullptr, &st.motion_result, stream);
  cvis::Status s;
  {
    GstCvisFrame m;
    s = m.map (GST_CVIS_FILTER (self), mask, &st.masks.info, GST_MAP_WRITE);
    if (s.ok ()) {
      st.motion_stride = (gint) m.view ().pitch[0];
      s = st.motion->process (in, &m.view (), nullptr, &st.motion_result, stream);
    }
  }
  if (!s.ok ()) {
    gst_buffer_unref (mask);
    return s;
  }
  st.motion_mask = mask;
  return cvis::Status::Ok ();
}

cvis::Status
gst_cuda_median3d_motion_produce (GstCudaMedian3d * self, GstBuffer * outbuf,
    const cvis::ImageView * out, cvis::StreamHandle stream)
{
  GstCudaMedian3dState & st = *self->state;
  st.motion_pending = false;
  st.outputs++;
  m3d::MotionResult & r = st.motion_result;
  if (st.output != GST_CUDA_MEDIAN3D_OUTPUT_FRAME) {
    if (!out)
      return cvis::internal_error ("no output view");
    const bool mask = st.output == GST_CUDA_MEDIAN3D_OUTPUT_MASK;
    const cvis::ImageView in = st.motion_in;
    st.motion_in = cvis::ImageView ();
    CVIS_RETURN_IF_ERROR (st.motion->process (in, mask ? out : nullptr, mask ? nullptr : out, &r,
            stream));
    if (mask)
      gst_cvis_add_foreground_boxes (outbuf, r.blobs);
  } else if (st.motion_mask) {
    const guint boxes = gst_cvis_add_foreground_boxes (outbuf, r.blobs);
    const gdouble fraction = r.pixels ? (gdouble) r.foreground / (gdouble) r.pixels : 0.0;
    GstBuffer *mask = st.motion_mask;
    st.motion_mask = NULL;
    const bool ok = gst_cvis_masks_attach (&st.masks, outbuf, mask, st.motion_stride, fraction,
        boxes) != NULL;
    gst_buffer_unref (mask);  /* the meta holds its own reference */
    if (!ok)
      return cvis::internal_error ("could not attach the foreground meta");
  }
  if (r.shot_change)
    post_shot_change (self, outbuf);
  GST_LOG_OBJECT (self, "frame %" GST_TIME_FORMAT ": gain %.3f, foreground %" G_GINT64_FORMAT
      " px, shadow %" G_GINT64_FORMAT " px, %zu blobs%s", GST_TIME_ARGS (GST_BUFFER_PTS (outbuf)),
      r.gain, r.foreground, r.shadow, r.blobs.size (), r.warming_up ? " (warming up)" : "");
  return cvis::Status::Ok ();
}

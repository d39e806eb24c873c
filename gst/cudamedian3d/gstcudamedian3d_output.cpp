/* cudamedian3d: frames entering the window and outputs leaving it (GstCvisTemporalFilter vfuncs,
 * called with the CUDA context pushed; the base class schedules and pushes the outputs). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string>

#include "gstcudamedian3d_priv.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_median3d_debug);
#define GST_CAT_DEFAULT gst_cuda_median3d_debug

cvis::Status
gst_cuda_median3d_push (GstCvisTemporalFilter * filter, GstBuffer * inbuf, const cvis::ImageView & in,
    cvis::StreamHandle stream)
{
  GstCudaMedian3dState & st = *GST_CUDA_MEDIAN3D (filter)->state;
  if (st.configured && st.motion_mode)
    return gst_cuda_median3d_motion_push (GST_CUDA_MEDIAN3D (filter), inbuf, in, stream);
  if (!st.configured || !st.est)
    return cvis::internal_error ("buffer before caps were configured");
  const bool drop = st.tracker.arrive ();
  return st.est->push (in, drop, stream);
}

cvis::Status
gst_cuda_median3d_ready (GstCvisTemporalFilter * filter, gboolean draining, gboolean * ready)
{
  GstCudaMedian3dState & st = *GST_CUDA_MEDIAN3D (filter)->state;
  if (st.motion_mode) {
    *ready = st.configured && st.motion_pending;
    return cvis::Status::Ok ();
  }
  *ready = st.configured && st.est && st.tracker.next_output (draining, &st.pops, &st.index);
  return cvis::Status::Ok ();
}

/* The output of the window's frame st.index (the oldest owed frame): the background or the mask
 * in `out`, or (output=frame, `out` NULL) a mask referenced by the foreground meta of the frame
 * `outbuf`. Masks come with their blob boxes, computed by the estimator (CUDA backend: on the
 * device, from the mask it writes: no host copy of the mask). */
cvis::Status
gst_cuda_median3d_produce (GstCvisTemporalFilter * filter, GstBuffer * outbuf,
    const cvis::ImageView * out, cvis::StreamHandle stream)
{
  GstCudaMedian3d *self = GST_CUDA_MEDIAN3D (filter);
  GstCudaMedian3dState & st = *self->state;
  if (st.motion_mode)
    return gst_cuda_median3d_motion_produce (self, outbuf, out, stream);
  cvis::median3d::Request rq;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    rq.threshold = self->settings->threshold;
    rq.blobs.min_area = gst_cuda_median3d_min_blob_area (*self->settings, st);
    rq.blobs.max_blobs = self->settings->max_blobs;
  }
  rq.blobs.enabled = st.output != GST_CUDA_MEDIAN3D_OUTPUT_BACKGROUND;
  for (int i = 0; i < st.pops; ++i)
    CVIS_RETURN_IF_ERROR (st.est->pop (stream));
  st.pops = 0;
  cvis::median3d::FrameResult fr;
  st.outputs++;

  if (st.output != GST_CUDA_MEDIAN3D_OUTPUT_FRAME) {
    if (!out)
      return cvis::internal_error ("no output view");
    if (st.output == GST_CUDA_MEDIAN3D_OUTPUT_BACKGROUND)
      rq.background = out;
    else
      rq.mask = out;
    CVIS_RETURN_IF_ERROR (st.est->compute (st.index, rq, stream));
    if (rq.blobs.enabled) {
      CVIS_RETURN_IF_ERROR (gst_cvis_filter_sync (GST_CVIS_FILTER (self)));
      CVIS_RETURN_IF_ERROR (st.est->result (&fr));
      st.blobs = std::move (fr.blobs);
      gst_cvis_add_foreground_boxes (outbuf, st.blobs);
    }
    return cvis::Status::Ok ();
  }

  GstBuffer *mask = NULL;
  GstFlowReturn flow;
  CVIS_RETURN_IF_ERROR (gst_cvis_masks_acquire (&st.masks, &mask, &flow));
  if (!mask)
    return cvis::Status::Ok ();  /* flushing: the frame leaves without its mask */
  gint stride = 0;
  cvis::Status s;
  {
    GstCvisFrame m;
    s = m.map (GST_CVIS_FILTER (self), mask, &st.masks.info, GST_MAP_WRITE);
    rq.mask = &m.view ();
    stride = (gint) m.view ().pitch[0];
    if (s.ok ())
      s = st.est->compute (st.index, rq, stream);
    if (s.ok ())
      s = gst_cvis_filter_sync (GST_CVIS_FILTER (self));
    if (s.ok ())
      s = st.est->result (&fr);
  }
  if (s.ok ()) {
    st.blobs = std::move (fr.blobs);
    const guint boxes = gst_cvis_add_foreground_boxes (outbuf, st.blobs);
    const gdouble fraction = fr.pixels ? (gdouble) fr.foreground / (gdouble) fr.pixels : 0.0;
    if (!gst_cvis_masks_attach (&st.masks, outbuf, mask, stride, fraction, boxes))
      s = cvis::internal_error ("could not attach the foreground meta");
  }
  gst_buffer_unref (mask);  /* the meta holds its own reference */
  CVIS_RETURN_IF_ERROR (s);
  GST_LOG_OBJECT (self, "frame %" GST_TIME_FORMAT ": tau %d, foreground %" G_GUINT64_FORMAT
      " px, %zu blobs", GST_TIME_ARGS (GST_BUFFER_PTS (outbuf)), fr.threshold, fr.foreground,
      st.blobs.size ());
  return cvis::Status::Ok ();
}

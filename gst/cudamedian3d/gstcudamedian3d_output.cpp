/* cudamedian3d: frames entering the window and outputs leaving it (the element's own schedule,
 * on top of GstBaseTransform's submit_input_buffer / generate_output). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cvis/cvisforegroundmeta.h>

#include <algorithm>
#include <string>

#include "gstcudamedian3d_priv.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_median3d_debug);
#define GST_CAT_DEFAULT gst_cuda_median3d_debug

namespace {

/* One call made with the CUDA context pushed (gst_cvis_filter_with_context). */
struct Job {
  GstCudaMedian3d *self;
  GstBuffer *inbuf;     /* arriving frame, or NULL when draining */
  GstBuffer *outbuf;    /* output produced, if any */
  GstFlowReturn flow;   /* non-error flow stops (e.g. FLUSHING from a pool) */
  bool produced;
};

cvis::Status
sync (GstCudaMedian3d * self)
{
  GstCvisFilter *f = GST_CVIS_FILTER (self);
  if (gst_cvis_filter_get_backend (f) != cvis::Backend::kCuda)
    return cvis::Status::Ok ();
  return cvis::stream_synchronize (gst_cvis_filter_get_stream (f));
}

/* Unmaps on scope exit. */
struct FrameMap {
  GstVideoFrame frame;
  bool mapped = false;
  cvis::ImageView view;
  ~FrameMap () {
    if (mapped)
      gst_video_frame_unmap (&frame);
  }
  cvis::Status map (GstCudaMedian3d * self, GstBuffer * buf, const GstVideoInfo * info,
      GstMapFlags flags) {
    CVIS_RETURN_IF_ERROR (gst_cvis_filter_map_frame (GST_CVIS_FILTER (self), buf, info, flags,
            &frame, &view));
    mapped = true;
    return cvis::Status::Ok ();
  }
};

/* Boxes of the foreground blobs, id = blob index (gst_buffer_add_cvis_foreground_box). */
void
add_blob_rois (GstBuffer * buf, const std::vector < cvis::median3d::Blob > &blobs)
{
  gint id = 0;
  for (const cvis::median3d::Blob & b : blobs)
    gst_buffer_add_cvis_foreground_box (buf, b.x, b.y, b.width, b.height, id++, (guint) b.area);
}

/* The blob boxes and the foreground meta referencing `mask`. */
void
attach_foreground (GstCudaMedian3d * self, GstBuffer * frame, GstBuffer * mask, gint stride,
    const cvis::median3d::FrameResult & fr)
{
  GstCudaMedian3dState & st = *self->state;
  add_blob_rois (frame, st.blobs);
  const GstVideoInfo *info = gst_cvis_filter_get_in_info (GST_CVIS_FILTER (self));
  const gdouble fraction = fr.pixels ? (gdouble) fr.foreground / (gdouble) fr.pixels : 0.0;
  gst_buffer_add_cvis_foreground_meta (frame, mask, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), stride, fraction, st.mask_cuda, (guint) st.blobs.size ());
}

/* Output for the window's frame `index`, which is the oldest pending frame. */
cvis::Status
produce (Job * job, int pops, int index)
{
  GstCudaMedian3d *self = job->self;
  GstCudaMedian3dState & st = *self->state;
  GstCvisFilter *filter = GST_CVIS_FILTER (self);
  cvis::StreamHandle stream = gst_cvis_filter_get_stream (filter);
  gint threshold, min_area, max_blobs;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    threshold = self->settings->threshold;
    min_area = self->settings->min_blob_area;
    max_blobs = self->settings->max_blobs;
  }
  for (int i = 0; i < pops; ++i)
    CVIS_RETURN_IF_ERROR (st.est->pop (stream));
  if (st.pending.empty ())
    return cvis::internal_error ("an output is due but no frame is pending");
  GstBuffer *src = st.pending.front ();
  st.pending.pop_front ();

  cvis::median3d::Request rq;
  rq.threshold = threshold;
  /* Masks (output=mask and frame) come with their blob boxes, computed by the estimator (CUDA
   * backend: on the device, from the mask it writes). */
  rq.blobs.enabled = st.output != GST_CUDA_MEDIAN3D_OUTPUT_BACKGROUND;
  rq.blobs.min_area = (uint32_t) MAX (min_area, 0);
  rq.blobs.max_blobs = (size_t) MAX (max_blobs, 0);
  cvis::median3d::FrameResult fr;
  if (st.output != GST_CUDA_MEDIAN3D_OUTPUT_FRAME) {
    /* Pool buffer with the timestamps, flags and metadata of frame `src`. */
    GstBuffer *out = NULL;
    GstFlowReturn ret =
        GST_BASE_TRANSFORM_GET_CLASS (self)->prepare_output_buffer (GST_BASE_TRANSFORM (self), src,
        &out);
    gst_buffer_unref (src);
    if (ret != GST_FLOW_OK || !out) {
      job->flow = ret != GST_FLOW_OK ? ret : GST_FLOW_ERROR;
      return job->flow == GST_FLOW_ERROR ? cvis::Status (cvis::StatusCode::kOutOfMemory,
          "no output buffer") : cvis::Status::Ok ();
    }
    job->outbuf = out;
    FrameMap om;
    CVIS_RETURN_IF_ERROR (om.map (self, out, gst_cvis_filter_get_out_info (filter),
            GST_MAP_WRITE));
    if (st.output == GST_CUDA_MEDIAN3D_OUTPUT_BACKGROUND)
      rq.background = &om.view;
    else
      rq.mask = &om.view;
    CVIS_RETURN_IF_ERROR (st.est->compute (index, rq, stream));
    CVIS_RETURN_IF_ERROR (sync (self));
    if (rq.blobs.enabled) {
      /* output=mask, system or CUDA memory: the estimator's blobs of this mask. */
      CVIS_RETURN_IF_ERROR (st.est->result (&fr));
      st.blobs = std::move (fr.blobs);
      add_blob_rois (out, st.blobs);
    }
    job->produced = true;
    return cvis::Status::Ok ();
  }

  /* output=frame: the frame itself leaves, with its mask and blobs. */
  GstBuffer *frame = gst_buffer_make_writable (src);
  job->outbuf = frame;
  GstBuffer *mask = NULL;
  GstFlowReturn ret = gst_cvis_gray8_pool_acquire (st.mask_pool, &mask);
  if (ret != GST_FLOW_OK) {
    job->flow = ret;
    return ret == GST_FLOW_FLUSHING ? cvis::Status::Ok () :
        cvis::Status (cvis::StatusCode::kOutOfMemory, "no mask buffer");
  }
  const GstVideoInfo *in_info = gst_cvis_filter_get_in_info (filter);
  GstVideoInfo gray;
  gst_video_info_set_format (&gray, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_INFO_WIDTH (in_info),
      GST_VIDEO_INFO_HEIGHT (in_info));
  gint stride = 0;
  cvis::Status s;
  {
    /* The mask stays where the pool put it (CUDA memory with CUDA input); the blobs come from the
     * estimator (no host copy of the mask). */
    FrameMap mm;
    s = mm.map (self, mask, &gray, GST_MAP_WRITE);
    rq.mask = &mm.view;
    if (s.ok ())
      s = st.est->compute (index, rq, stream);
    if (s.ok ())
      s = sync (self);
    if (s.ok ())
      s = st.est->result (&fr);
    if (s.ok ())
      st.blobs = std::move (fr.blobs);
    stride = (gint) mm.view.pitch[0];
  }
  if (s.ok ()) {
    GST_BUFFER_PTS (mask) = GST_BUFFER_PTS (frame);
    GST_BUFFER_DTS (mask) = GST_BUFFER_DTS (frame);
    GST_BUFFER_DURATION (mask) = GST_BUFFER_DURATION (frame);
    attach_foreground (self, frame, mask, stride, fr);
  }
  gst_buffer_unref (mask);  /* the meta holds its own reference */
  CVIS_RETURN_IF_ERROR (s);
  GST_LOG_OBJECT (self, "frame %" GST_TIME_FORMAT ": tau %d, foreground %" G_GUINT64_FORMAT
      " px, %zu blobs", GST_TIME_ARGS (GST_BUFFER_PTS (frame)), fr.threshold, fr.foreground,
      st.blobs.size ());
  job->produced = true;
  return cvis::Status::Ok ();
}

cvis::Status
arrive_cb (gpointer data)
{
  Job *job = static_cast < Job * >(data);
  GstCudaMedian3d *self = job->self;
  GstCudaMedian3dState & st = *self->state;
  GstCvisFilter *filter = GST_CVIS_FILTER (self);
  if (!st.configured || !st.est)
    return cvis::internal_error ("buffer before caps were configured");
  GstBuffer *keep;
  if (st.output == GST_CUDA_MEDIAN3D_OUTPUT_FRAME) {
    keep = gst_buffer_ref (job->inbuf);
  } else {
    /* No memory: holding input buffers could starve an upstream pool. */
    keep = gst_buffer_new ();
    gst_buffer_copy_into (keep, job->inbuf, GST_BUFFER_COPY_METADATA, 0, -1);
  }
  st.pending.push_back (keep);
  FrameMap in;
  CVIS_RETURN_IF_ERROR (in.map (self, job->inbuf, gst_cvis_filter_get_in_info (filter),
          GST_MAP_READ));
  const bool drop = st.tracker.arrive ();
  CVIS_RETURN_IF_ERROR (st.est->push (in.view, drop, gst_cvis_filter_get_stream (filter)));
  int pops = 0, index = 0;
  if (st.tracker.next_output (false, &pops, &index))
    return produce (job, pops, index);
  /* The kernels read the input asynchronously: finish before it is unmapped and released. */
  return sync (self);
}

cvis::Status
drain_cb (gpointer data)
{
  Job *job = static_cast < Job * >(data);
  GstCudaMedian3dState & st = *job->self->state;
  int pops = 0, index = 0;
  if (!st.tracker.next_output (true, &pops, &index))
    return cvis::Status::Ok ();
  return produce (job, pops, index);
}

cvis::Status
reset_cb (gpointer data)
{
  GstCudaMedian3dState *st = static_cast < GstCudaMedian3dState * >(data);
  st->est->reset ();
  st->tracker.reset ();
  gst_cuda_median3d_clear_pending (st);
  return cvis::Status::Ok ();
}

GstFlowReturn
finish_job (GstCudaMedian3d * self, Job * job, const cvis::Status & s)
{
  if (s.ok ())
    return job->flow;
  gst_clear_buffer (&job->outbuf);
  GST_CVIS_FILTER_ERROR (self, s);
  return GST_FLOW_ERROR;
}

}  // namespace

void
gst_cuda_median3d_clear_pending (GstCudaMedian3dState * st)
{
  for (GstBuffer *b : st->pending)
    gst_buffer_unref (b);
  st->pending.clear ();
}

GstFlowReturn
gst_cuda_median3d_arrive (GstCudaMedian3d * self, GstBuffer * inbuf, GstBuffer ** outbuf)
{
  Job job = { self, inbuf, NULL, GST_FLOW_OK, false };
  cvis::Status s = gst_cvis_filter_with_context (GST_CVIS_FILTER (self), arrive_cb, &job);
  GstFlowReturn ret = finish_job (self, &job, s);
  if (ret == GST_FLOW_OK && job.produced) {
    *outbuf = job.outbuf;
    self->state->outputs++;
  } else {
    gst_clear_buffer (&job.outbuf);
  }
  return ret;
}

GstFlowReturn
gst_cuda_median3d_drain (GstCudaMedian3d * self)
{
  GstCudaMedian3dState & st = *self->state;
  GstFlowReturn ret = GST_FLOW_OK;
  if (!st.configured || !st.est)
    return GST_FLOW_OK;
  GST_DEBUG_OBJECT (self, "draining %d owed outputs", st.tracker.pending ());
  while (ret == GST_FLOW_OK) {
    Job job = { self, NULL, NULL, GST_FLOW_OK, false };
    cvis::Status s = gst_cvis_filter_with_context (GST_CVIS_FILTER (self), drain_cb, &job);
    ret = finish_job (self, &job, s);
    if (ret != GST_FLOW_OK || !job.produced) {
      gst_clear_buffer (&job.outbuf);
      break;
    }
    st.outputs++;
    /* Pushed with the context popped: downstream runs in this thread. */
    ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), job.outbuf);
  }
  /* Whatever happened, the old window is done with. */
  cvis::Status s = gst_cvis_filter_with_context (GST_CVIS_FILTER (self), reset_cb, &st);
  if (!s.ok ())
    GST_WARNING_OBJECT (self, "reset after drain failed: %s", s.to_string ().c_str ());
  return ret;
}

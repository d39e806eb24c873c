/* cudabgsub: per-buffer work (called by GstCvisFilter with the CUDA context pushed). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cvis/cvisforegroundmeta.h>

#include <algorithm>
#include <vector>

#include "gstcudabgsub_priv.h"
#include "gstcvisutils.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_bg_sub_debug);
#define GST_CAT_DEFAULT gst_cuda_bg_sub_debug

namespace bg = cvis::bgsub;

/* One GstVideoRegionOfInterestMeta per blob: the largest `max_blobs`, ids 0..n-1 in raster order
 * of their first pixel. Returns the count. */
static guint
add_blob_metas (GstBuffer * buf, std::vector < bg::Blob > blobs, guint max_blobs)
{
  cvis::ccl::keep_largest (&blobs, max_blobs);
  return gst_cvis_add_foreground_boxes (buf, blobs);
}

/* A cut restarted the model at this frame: the message every segmentation element posts. */
static void
post_shot_change (GstCudaBgSub * self, GstBuffer * buf, const bg::FrameResult & r)
{
  if (!r.shot_change)
    return;
  const guint64 frame = self->state->frames;
  gst_cvis_post_shot_change (GST_ELEMENT (self), buf, frame);
  GST_INFO_OBJECT (self, "shot change at frame %" G_GUINT64_FORMAT " pts %" GST_TIME_FORMAT
      ": the model restarts", frame, GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
}

/* output=mask: the mask is the output buffer; its boxes go on it. */
cvis::Status
gst_cuda_bg_sub_process (GstCvisFilter * filter, GstBuffer *, const cvis::ImageView & in,
    GstBuffer * outbuf, const cvis::ImageView & out, cvis::StreamHandle stream)
{
  GstCudaBgSub *self = GST_CUDA_BG_SUB (filter);
  GstCudaBgSubState & st = *self->state;
  CVIS_RETURN_IF_ERROR (gst_cuda_bg_sub_apply_settings (self));
  bg::FrameResult r;
  CVIS_RETURN_IF_ERROR (st.sub->process (in, out, &r, stream));
  ++st.frames;
  post_shot_change (self, outbuf, r);
  add_blob_metas (outbuf, r.blobs, st.max_blobs);
  GST_LOG_OBJECT (self, "frame %" G_GINT64_FORMAT ": %.4f foreground, %zu blobs%s", r.frame,
      r.foreground_fraction, r.blobs.size (), r.warming_up ? " (warming up)" : "");
  return cvis::Status::Ok ();
}

/* output=frame: the frame passes; a mask from the pool is referenced by the foreground meta. */
cvis::Status
gst_cuda_bg_sub_analyse (GstCvisFilter * filter, GstBuffer * buf, const cvis::ImageView & frame,
    cvis::StreamHandle stream)
{
  GstCudaBgSub *self = GST_CUDA_BG_SUB (filter);
  GstCudaBgSubState & st = *self->state;
  CVIS_RETURN_IF_ERROR (gst_cuda_bg_sub_apply_settings (self));
  GstBuffer *mask = NULL;
  GstFlowReturn flow;
  CVIS_RETURN_IF_ERROR (gst_cvis_masks_acquire (&st.masks, &mask, &flow));
  if (!mask)
    return cvis::Status::Ok ();  /* flushing */
  bg::FrameResult r;
  gint stride = 0;
  cvis::Status st_process;
  {
    GstCvisFrame m;
    st_process = m.map (filter, mask, &st.masks.info, GST_MAP_WRITE);
    if (st_process.ok ()) {
      stride = (gint) m.view ().pitch[0];
      st_process = st.sub->process (frame, m.view (), &r, stream);
    }
  }
  if (!st_process.ok ()) {
    gst_buffer_unref (mask);
    return st_process;
  }
  ++st.frames;
  post_shot_change (self, buf, r);
  const guint boxes = add_blob_metas (buf, r.blobs, st.max_blobs);
  GstCustomMeta *meta = gst_cvis_masks_attach (&st.masks, buf, mask, stride,
      r.foreground_fraction, boxes);
  gst_buffer_unref (mask);  /* the meta holds its own reference */
  if (!meta)
    return cvis::internal_error ("could not attach the foreground meta");
  gst_structure_set (gst_custom_meta_get_structure (meta), "warming-up", G_TYPE_BOOLEAN,
      (gboolean) r.warming_up, NULL);
  GST_LOG_OBJECT (self, "frame %" G_GINT64_FORMAT ": %.4f foreground, %u boxes%s", r.frame,
      r.foreground_fraction, boxes, r.warming_up ? " (warming up)" : "");
  return cvis::Status::Ok ();
}

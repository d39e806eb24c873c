/* cudabgsub: per-buffer work (called by GstCvisFilter with the CUDA context pushed). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cvis/cvisforegroundmeta.h>

#include <algorithm>
#include <vector>

#include "gstcudabgsub_priv.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_bg_sub_debug);
#define GST_CAT_DEFAULT gst_cuda_bg_sub_debug

namespace bg = cvis::bgsub;

namespace {

/* A mapped buffer (device view for CUDA memory with the CUDA backend); unmaps on scope exit. */
struct FrameMap {
  GstVideoFrame frame;
  bool mapped = false;
  cvis::ImageView view;
  ~FrameMap () {
    if (mapped)
      gst_video_frame_unmap (&frame);
  }
  cvis::Status map (GstCvisFilter * f, GstBuffer * buf, const GstVideoInfo * info,
      GstMapFlags flags) {
    CVIS_RETURN_IF_ERROR (gst_cvis_filter_map_frame (f, buf, info, flags, &frame, &view));
    mapped = true;
    return cvis::Status::Ok ();
  }
};

/* One GstVideoRegionOfInterestMeta per blob: the largest `max_blobs`, ids 0..n-1 in raster order
 * of their first pixel, param "foreground" with the pixel count "area". Returns the count. */
guint
add_blob_metas (GstBuffer * buf, std::vector < bg::Blob > blobs, guint max_blobs)
{
  cvis::ccl::keep_largest (&blobs, max_blobs);
  guint id = 0;
  for (const bg::Blob & b : blobs) {
    gst_buffer_add_cvis_foreground_box (buf, b.x, b.y, b.width, b.height, (gint) id++,
        (guint) b.area);
  }
  return id;
}

}  // namespace

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
  if (!st.mask_pool)
    return cvis::internal_error ("output=frame without a mask pool");
  GstBuffer *mask = NULL;
  const GstFlowReturn fr = st.mask_cuda ? gst_cvis_gray8_pool_acquire (st.mask_pool, &mask) :
      gst_buffer_pool_acquire_buffer (st.mask_pool, &mask, NULL);
  if (fr != GST_FLOW_OK || !mask)
    return cvis::Status (cvis::StatusCode::kOutOfMemory, std::string ("no mask buffer: ") +
        gst_flow_get_name (fr));
  bg::FrameResult r;
  gint stride = 0;
  cvis::Status st_process;
  {
    FrameMap m;
    st_process = m.map (filter, mask, &st.mask_info, GST_MAP_WRITE);
    if (st_process.ok ()) {
      stride = (gint) m.view.pitch[0];
      st_process = st.sub->process (frame, m.view, &r, stream);
    }
  }
  if (!st_process.ok ()) {
    gst_buffer_unref (mask);
    return st_process;
  }
  GST_BUFFER_PTS (mask) = GST_BUFFER_PTS (buf);
  GST_BUFFER_DTS (mask) = GST_BUFFER_DTS (buf);
  GST_BUFFER_DURATION (mask) = GST_BUFFER_DURATION (buf);
  const guint boxes = add_blob_metas (buf, r.blobs, st.max_blobs);
  GstCustomMeta *meta = gst_buffer_add_cvis_foreground_meta (buf, mask,
      GST_VIDEO_INFO_WIDTH (&st.mask_info), GST_VIDEO_INFO_HEIGHT (&st.mask_info), stride,
      std::min (1.0, std::max (0.0, r.foreground_fraction)), st.mask_cuda, boxes);
  gst_buffer_unref (mask);  /* the meta holds its own reference */
  if (!meta)
    return cvis::internal_error ("could not attach the foreground meta");
  gst_structure_set (gst_custom_meta_get_structure (meta), "warming-up", G_TYPE_BOOLEAN,
      (gboolean) r.warming_up, NULL);
  GST_LOG_OBJECT (self, "frame %" G_GINT64_FORMAT ": %.4f foreground, %u boxes%s", r.frame,
      r.foreground_fraction, boxes, r.warming_up ? " (warming up)" : "");
  return cvis::Status::Ok ();
}

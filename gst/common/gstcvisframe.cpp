/* GstCvisFilter: the one frame mapper (input, output and side buffers of every element). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string>

#include "gstcvisfilter_priv.h"
#include "gstcvisutils.h"

#ifdef CVIS_HAVE_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
/* From 1.24 CUDA memory may carry a stream with pending work (nvh264dec, cudaupload,
 * cudaconvertscale write on their own streams): wait for it before our stream touches the memory. */
#if GST_CHECK_VERSION (1, 24, 0)
#define CVIS_CUDA_MEMORY_HAS_STREAM 1
#endif
#endif

GST_DEBUG_CATEGORY_EXTERN (gst_cvis_filter_debug);
#define GST_CAT_DEFAULT gst_cvis_filter_debug

#ifdef CVIS_CUDA_MEMORY_HAS_STREAM
static void
sync_cuda_memories (GstBuffer * buf)
{
  for (guint i = 0; i < gst_buffer_n_memory (buf); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);
    if (gst_is_cuda_memory (mem))
      gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (mem));
  }
}
#endif

/* Maps `buf` for the resolved backend: a device view of CUDA memory with the CUDA backend (ours,
 * or another context the device can reach), else a host view (CUDA memory of an unreachable device
 * is downloaded by the map). *mapped says whether `frame` must be unmapped, also on error. */
static cvis::Status
map_for_backend (GstCvisFilter * self, GstBuffer * buf, const GstVideoInfo * info,
    GstMapFlags flags, GstVideoFrame * frame, cvis::ImageView * view, bool *mapped,
    bool allow_device = true)
{
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  gboolean cuda = FALSE;
  *mapped = false;
#ifdef CVIS_HAVE_CUDA
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  cuda = allow_device && priv->dev.backend == cvis::Backend::kCuda &&
      gst_buffer_n_memory (buf) == 1 && gst_is_cuda_memory (mem);
  if (cuda) {
    const GstCvisForeign foreign = gst_cvis_device_classify (&priv->dev, mem,
        gst_cvis_filter_device_id (self));
    if (foreign == GstCvisForeign::kHost) {
      cuda = FALSE;
      if (!priv->warned_foreign)
        GST_WARNING_OBJECT (self, "CUDA memory of a device our context %" GST_PTR_FORMAT
            " cannot access (%" GST_PTR_FORMAT "): copied through system memory",
            priv->dev.ctx, GST_CUDA_MEMORY_CAST (mem)->context);
      priv->warned_foreign = TRUE;
    } else if (foreign != GstCvisForeign::kNone && !priv->warned_foreign) {
      GST_INFO_OBJECT (self, "CUDA memory of another context %" GST_PTR_FORMAT " (ours %"
          GST_PTR_FORMAT ") read in place", GST_CUDA_MEMORY_CAST (mem)->context, priv->dev.ctx);
      priv->warned_foreign = TRUE;
    }
  }
  if (cuda)
    flags = (GstMapFlags) (flags | GST_MAP_CUDA);
#ifdef CVIS_CUDA_MEMORY_HAS_STREAM
  if (cuda)
    sync_cuda_memories (buf);
#endif
#else
  (void) priv;
#endif
  /* NO_REF: an extra ref would make the buffer non-writable while the subclass attaches
   * metadata; the buffer outlives the mapping anyway. */
  flags = (GstMapFlags) (flags | GST_VIDEO_FRAME_MAP_FLAG_NO_REF);
  if (!gst_video_frame_map (frame, info, buf, flags))
    return cvis::Status (cvis::StatusCode::kInvalidArgument,
        "could not map the buffer (size or layout does not match the caps)");
  *mapped = true;
  if (!gst_cvis_view_from_frame (frame, cuda ? cvis::MemorySpace::kDevice :
          cvis::MemorySpace::kHost, view))
    return cvis::unsupported_format (std::string ("format ") +
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)));
  return cvis::Status::Ok ();
}

cvis::Status
gst_cvis_filter_map_frame (GstCvisFilter * self, GstBuffer * buf, const GstVideoInfo * info,
    GstMapFlags flags, GstVideoFrame * frame, cvis::ImageView * view)
{
  bool mapped = false;
  cvis::Status st = map_for_backend (self, buf, info, flags, frame, view, &mapped);
  if (!st.ok () && mapped)
    gst_video_frame_unmap (frame);
  return st;
}

GstCvisFrame::~GstCvisFrame ()
{
  unmap ();
}

cvis::Status
GstCvisFrame::map (GstCvisFilter * self, GstBuffer * buf, const GstVideoInfo * info,
    GstMapFlags flags)
{
  unmap ();
  return map_for_backend (self, buf, info, flags, &frame_, &view_, &mapped_);
}

cvis::Status
GstCvisFrame::map_host (GstCvisFilter * self, GstBuffer * buf, const GstVideoInfo * info,
    GstMapFlags flags)
{
  unmap ();
  return map_for_backend (self, buf, info, flags, &frame_, &view_, &mapped_, false);
}

void
GstCvisFrame::unmap ()
{
  if (mapped_)
    gst_video_frame_unmap (&frame_);
  mapped_ = false;
  view_ = cvis::ImageView ();
}

#include "cuda_frame_io.hpp"

#include <gtest/gtest.h>

#ifdef CVIS_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#else
using GstCudaContext = void; // builds without CUDA see system memory only
#define GST_MAP_CUDA 0
#endif

#include <cstring>

namespace cvis_test {
namespace {

struct PlaneShape {
  size_t row_bytes;
  size_t rows;
};

PlaneShape plane_shape(const GstVideoInfo& info, guint plane) {
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component(info.finfo, plane, comp);
  return {static_cast<size_t>(GST_VIDEO_INFO_COMP_WIDTH(&info, comp[0])) *
              static_cast<size_t>(GST_VIDEO_INFO_COMP_PSTRIDE(&info, comp[0])),
          static_cast<size_t>(GST_VIDEO_INFO_COMP_HEIGHT(&info, comp[0]))};
}

GstCudaContext* cuda_context_of(GstBuffer* buf) {
#ifdef CVIS_HAVE_CUDA
  GstMemory* m = gst_buffer_peek_memory(buf, 0);
  return gst_is_cuda_memory(m) ? GST_CUDA_MEMORY_CAST(m)->context : nullptr;
#else
  (void)buf;
  return nullptr;
#endif
}

// A frame mapped for copies: device pointers for CUDA memory (no host staging, so no transfer of
// the whole allocation), host pointers otherwise.
class Mapped {
public:
  Mapped(GstBuffer* buf, const GstVideoInfo& info, GstMapFlags access)
      : ctx_(cuda_context_of(buf)) {
    const int flags = access | (ctx_ ? GST_MAP_CUDA : 0);
    GstVideoInfo layout = info;
#ifdef CVIS_HAVE_CUDA
    // Without a video meta the map would assume the default strides: CUDA memory has its own.
    if (ctx_ && !gst_buffer_get_video_meta(buf)) {
      const GstVideoInfo& ci = GST_CUDA_MEMORY_CAST(gst_buffer_peek_memory(buf, 0))->info;
      for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&layout); ++p) {
        layout.offset[p] = ci.offset[p];
        layout.stride[p] = ci.stride[p];
      }
      layout.size = gst_buffer_get_size(buf);
    }
#endif
    ok_ = gst_video_frame_map(&vf_, &layout, buf, static_cast<GstMapFlags>(flags));
  }
  ~Mapped() {
    if (ok_)
      gst_video_frame_unmap(&vf_);
  }
  Mapped(const Mapped&) = delete;
  Mapped& operator=(const Mapped&) = delete;

  bool ok() const { return ok_; }
  GstCudaContext* context() const { return ctx_; }
  guint8* data(guint plane) const { return static_cast<guint8*>(vf_.data[plane]); }
  size_t pitch(guint plane) const { return static_cast<size_t>(vf_.info.stride[plane]); }

private:
  GstVideoFrame vf_{};
  GstCudaContext* ctx_;
  bool ok_ = false;
};

// Rows of `row_bytes` between any two memories; `ctx` is the CUDA context of either side (null
// when both are host memory). cudaMemcpyDefault: the pointers say where they live (UVA).
bool copy_rows(guint8* dst, size_t dst_pitch, const guint8* src, size_t src_pitch,
               PlaneShape sh, GstCudaContext* ctx) {
  if (!ctx) {
    for (size_t y = 0; y < sh.rows; ++y)
      std::memcpy(dst + y * dst_pitch, src + y * src_pitch, sh.row_bytes);
    return true;
  }
#ifndef CVIS_HAVE_CUDA
  return false;
#else
  if (!gst_cuda_context_push(ctx))
    return false;
  cudaError_t e = cudaMemcpy2D(dst, dst_pitch, src, src_pitch, sh.row_bytes, sh.rows,
                               cudaMemcpyDefault);
  // From pageable memory the copy may return before its DMA ends, and the elements read on
  // non-blocking streams that do not wait for the legacy one.
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(cudaStreamLegacy);
  gst_cuda_context_pop(nullptr);
  return e == cudaSuccess;
#endif
}

} // namespace

bool copy_visible(GstBuffer* dst, GstBuffer* src, const GstVideoInfo& info) {
  const Mapped s(src, info, GST_MAP_READ);
  const Mapped d(dst, info, GST_MAP_WRITE);
  if (!s.ok() || !d.ok())
    return false;
  GstCudaContext* ctx = d.context() ? d.context() : s.context();
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
    if (!copy_rows(d.data(p), d.pitch(p), s.data(p), s.pitch(p), plane_shape(info, p), ctx))
      return false;
  }
  return true;
}

GstBuffer* cuda_copy_of(GstBufferPool* pool, GstBuffer* src, const GstVideoInfo& info) {
  GstBuffer* buf = nullptr;
  if (gst_buffer_pool_acquire_buffer(pool, &buf, nullptr) != GST_FLOW_OK || !buf) {
    ADD_FAILURE() << "no buffer from the CUDA pool";
    return nullptr;
  }
  if (!copy_visible(buf, src, info)) {
    ADD_FAILURE() << "copy into CUDA memory failed";
    gst_buffer_unref(buf);
    return nullptr;
  }
  gst_buffer_copy_into(buf, src,
                       static_cast<GstBufferCopyFlags>(GST_BUFFER_COPY_FLAGS |
                                                       GST_BUFFER_COPY_TIMESTAMPS),
                       0, static_cast<gsize>(-1));
  return buf;
}

std::vector<uint8_t> visible_bytes(GstBuffer* buf, const GstVideoInfo& info) {
  const Mapped s(buf, info, GST_MAP_READ);
  if (!s.ok())
    return {};
  size_t total = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
    const PlaneShape sh = plane_shape(info, p);
    total += sh.row_bytes * sh.rows;
  }
  std::vector<uint8_t> out(total);
  size_t at = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
    const PlaneShape sh = plane_shape(info, p);
    if (!copy_rows(out.data() + at, sh.row_bytes, s.data(p), s.pitch(p), sh, s.context()))
      return {};
    at += sh.row_bytes * sh.rows;
  }
  return out;
}

} // namespace cvis_test

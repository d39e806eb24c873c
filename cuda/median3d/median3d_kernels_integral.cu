// Integral-histogram method (the paper's Sect. 3): the joint integral histogram of the window is a
// running sum, JIH += IH(head) - IH(tail) (Algorithm 4), and since the integral histogram is
// linear the two are combined into one signed indicator per bin before scanning. The 2-D scan is
// a row scan (warp ballots) followed by a column scan split into kScanSegment-row segments (so
// that there are enough threads), instead of the paper's scan-transpose-scan (Algorithm 3): the
// column pass reads rows in coalesced order, so no transpose is needed.
#include "common/cuda/check.hpp"
#include "common/cuda/tiles.hpp"
#include "common/cuda/preload.hpp"
#include "median3d_internal.hpp"
#include "median3d_kernels.hpp"

namespace cvis::median3d::kernels {

namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kRowWarps = 8; // rows (warps) per block of the row scan

// One warp per row of one channel. For each 32-pixel step and each bin b, the ballots of
// "head bin == b" and "tail bin == b" give every lane its inclusive prefix within the step; the
// running carry of bin 32g + i lives in lane i's register carry[g] and is broadcast by shuffle.
__global__ void integral_rows_kernel(const uint8_t* head, const uint8_t* tail, size_t pitch,
                                     size_t plane_bytes, int bins, int w, int h, int nc,
                                     int16_t* rows) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kRowWarps + (threadIdx.x >> 5);
  if (row >= nc * h)
    return; // the whole warp leaves together
  const int c = row / h, y = row % h;
  const unsigned le = lane == 31 ? kFull : ((1u << (lane + 1)) - 1u);
  const size_t off = static_cast<size_t>(c) * plane_bytes + static_cast<size_t>(y) * pitch;
  const uint8_t* hrow = head ? head + off : nullptr;
  const uint8_t* trow = tail ? tail + off : nullptr;
  const size_t bin_stride = static_cast<size_t>(h) * w;
  int16_t* out = rows + static_cast<size_t>(c) * bins * bin_stride + static_cast<size_t>(y) * w;
  int carry[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int xb = 0; xb < w; xb += 32) {
    const int x = xb + lane;
    const int qh = (hrow && x < w) ? quantize(hrow[x], bins) : -1;
    const int qt = (trow && x < w) ? quantize(trow[x], bins) : -1;
#pragma unroll
    for (int g = 0; g < 8; ++g) {
      if (g * 32 < bins) {
        const int nb = bins - g * 32 < 32 ? bins - g * 32 : 32;
        for (int i = 0; i < nb; ++i) {
          const int b = g * 32 + i;
          const unsigned mh = __ballot_sync(kFull, qh == b);
          const unsigned mt = __ballot_sync(kFull, qt == b);
          const int base = __shfl_sync(kFull, carry[g], i);
          if (x < w) {
            out[b * bin_stride + x] =
                static_cast<int16_t>(base + __popc(mh & le) - __popc(mt & le));
          }
          if (lane == i)
            carry[g] += __popc(mh) - __popc(mt);
        }
      }
    }
  }
}

// Column totals of the row scans over each segment: thread per (x, segment, channel*bin plane).
__global__ void integral_segments_kernel(const int16_t* rows, int w, int h, int segs,
                                         int32_t* seg) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int s = blockIdx.y;
  const size_t plane = blockIdx.z;
  if (x >= w)
    return;
  const int16_t* r = rows + plane * h * w;
  const int yend = min(h, (s + 1) * kScanSegment);
  int32_t t = 0;
  for (int y = s * kScanSegment; y < yend; ++y)
    t += r[static_cast<size_t>(y) * w + x];
  seg[(plane * segs + s) * w + x] = t;
}

// Exclusive prefix of the segment totals down each column, in place: thread per (x, plane).
__global__ void integral_carry_kernel(int w, int segs, int planes, int32_t* seg) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const size_t plane = blockIdx.y;
  if (x >= w || plane >= static_cast<size_t>(planes))
    return;
  int32_t* t = seg + plane * segs * w + x;
  int32_t acc = 0;
  for (int s = 0; s < segs; ++s) {
    const int32_t v = t[static_cast<size_t>(s) * w];
    t[static_cast<size_t>(s) * w] = acc;
    acc += v;
  }
}

// Column scan: the carry of the segments above, then the running sum down this segment, added
// to the joint integral histogram (uint32 wraps; the true counts are never negative).
__global__ void integral_apply_kernel(const int16_t* rows, const int32_t* carry, int w, int h,
                                      int segs, uint32_t* jih) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int s = blockIdx.y;
  const size_t plane = blockIdx.z;
  if (x >= w)
    return;
  int32_t acc = carry[(plane * segs + s) * w + x];
  const int16_t* r = rows + plane * h * w;
  uint32_t* j = jih + plane * h * w;
  const int yend = min(h, (s + 1) * kScanSegment);
  for (int y = s * kScanSegment; y < yend; ++y) {
    const size_t i = static_cast<size_t>(y) * w + x;
    acc += r[i];
    j[i] += static_cast<uint32_t>(acc);
  }
}

// Eq. (5) per bin (four corners, the ones outside the image are 0) and Algorithm 1 with its
// early exit: one thread per pixel.
__global__ void integral_median_kernel(const uint32_t* jih, int bins, int w, int h, int rx, int ry,
                                       uint32_t frames, Planes med) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int c = blockIdx.z;
  if (x >= w || y >= h)
    return;
  const Box b = clip_box(x, y, rx, ry, w, h);
  const uint32_t n = box_area(b) * frames;
  const bool top = b.y0 > 0, left = b.x0 > 0;
  const size_t o11 = static_cast<size_t>(b.y1) * w + b.x1;
  const size_t o01 = top ? static_cast<size_t>(b.y0 - 1) * w + b.x1 : 0;
  const size_t o10 = left ? static_cast<size_t>(b.y1) * w + b.x0 - 1 : 0;
  const size_t o00 = top && left ? static_cast<size_t>(b.y0 - 1) * w + b.x0 - 1 : 0;
  const size_t bin_stride = static_cast<size_t>(h) * w;
  const uint32_t* p = jih + static_cast<size_t>(c) * bins * bin_stride;
  uint32_t cum = 0;
  int k = 0;
  for (; k < bins - 1; ++k, p += bin_stride) {
    uint32_t cnt = p[o11];
    if (top)
      cnt -= p[o01];
    if (left)
      cnt -= p[o10];
    if (top && left)
      cnt += p[o00];
    cum += cnt;
    if (2u * cum > n)
      break;
  }
  med.data[static_cast<size_t>(c) * med.plane_bytes + static_cast<size_t>(y) * med.pitch + x] =
      static_cast<uint8_t>(k);
}

CVIS_PRELOAD_MODULE(integral_carry_kernel);

} // namespace

Status launch_integral_update(const uint8_t* head, const uint8_t* tail, size_t pitch,
                              size_t plane_bytes, int bins, int w, int h, int nc, int16_t* rows,
                              int32_t* seg, uint32_t* jih, cudaStream_t s) {
  const int nrows = nc * h;
  integral_rows_kernel<<<cuda::div_up(nrows, kRowWarps), 32 * kRowWarps, 0, s>>>(
      head, tail, pitch, plane_bytes, bins, w, h, nc, rows);
  CVIS_CUDA_CHECK_LAUNCH(s, "integral_rows_kernel");
  const int segs = cuda::div_up(h, kScanSegment);
  const dim3 block(128); // one thread per column
  const dim3 grid(cuda::div_up(w, 128), segs, nc * bins);
  integral_segments_kernel<<<grid, block, 0, s>>>(rows, w, h, segs, seg);
  CVIS_CUDA_CHECK_LAUNCH(s, "integral_segments_kernel");
  const dim3 cgrid(cuda::div_up(w, 128), nc * bins);
  integral_carry_kernel<<<cgrid, block, 0, s>>>(w, segs, nc * bins, seg);
  CVIS_CUDA_CHECK_LAUNCH(s, "integral_carry_kernel");
  integral_apply_kernel<<<grid, block, 0, s>>>(rows, seg, w, h, segs, jih);
  CVIS_CUDA_CHECK_LAUNCH(s, "integral_apply_kernel");
  return Status::Ok();
}

Status launch_integral_median(const uint32_t* jih, int bins, int w, int h, int nc, int rx, int ry,
                              uint32_t frames, Planes med, cudaStream_t s) {
  const dim3 grid = cuda::tile_grid(w, h, nc);
  integral_median_kernel<<<grid, cuda::tile_block(), 0, s>>>(jih, bins, w, h, rx, ry, frames, med);
  CVIS_CUDA_CHECK_LAUNCH(s, "integral_median_kernel");
  return Status::Ok();
}

} // namespace cvis::median3d::kernels

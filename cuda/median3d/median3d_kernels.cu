// Kernels of the median3d methods (see median3d_kernels.hpp for layouts). Each kernel's comment
// says which part of the paper it is; launch shapes are chosen in the launchers below them.
#include "common/cuda/check.hpp"
#include "common/cuda/tiles.hpp"
#include "common/cuda/preload.hpp"
#include "median3d_internal.hpp"
#include "median3d_kernels.hpp"

namespace cvis::median3d::kernels {

namespace {

__device__ __forceinline__ size_t plane_off(const Planes& p, int c, int x, int y) {
  return static_cast<size_t>(c) * p.plane_bytes + static_cast<size_t>(y) * p.pitch + x;
}

// --- ingest ----------------------------------------------------------------------------------

__global__ void ingest_kernel(PixelSource src, bool luma, int nc, Planes dst) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= src.width || y >= src.height)
    return;
  uint8_t v[3];
  fetch_channels(src, x, y, luma, v);
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    if (c < nc)
      dst.data[plane_off(dst, c, x, y)] = v[c];
  }
}

// --- per-pixel temporal histograms (sliding and separable methods) ---------------------------

// One thread per pixel and channel: each owns its pixel's 16-byte cells, so the byte updates need
// no atomics. uint8 arithmetic wraps, so +1 before -1 is right even when a count is briefly 256.
__global__ void hist_update_kernel(const uint8_t* head, const uint8_t* tail, size_t pitch,
                                   size_t plane_bytes, bool quantized, int bins, int w, int h,
                                   uint8_t* hist) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int c = blockIdx.z;
  if (x >= w || y >= h)
    return;
  const size_t px = static_cast<size_t>(w) * h;
  const size_t p = static_cast<size_t>(y) * w + x;
  const size_t off = static_cast<size_t>(c) * plane_bytes + static_cast<size_t>(y) * pitch + x;
  const int chunks = (bins + 15) >> 4;
  if (head) {
    const int b = quantized ? head[off] : quantize(head[off], bins);
    hist[((static_cast<size_t>(c) * chunks + (b >> 4)) * px + p) * 16 + (b & 15)] += 1;
  }
  if (tail) {
    const int b = quantized ? tail[off] : quantize(tail[off], bins);
    hist[((static_cast<size_t>(c) * chunks + (b >> 4)) * px + p) * 16 + (b & 15)] -= 1;
  }
}

constexpr int kBoxTileW = 32; // output tile: 32 x 16 pixels, 256 threads (32 x 8)
constexpr int kBoxTileH = 16;
constexpr int kBoxSeg = 4; // rows per vertical-sum work item

// Box sums of the per-pixel histograms and Algorithm 1, one 16-bin chunk at a time.
// Counts are packed two per uint32 (16-bit lanes; the window holds at most 65535 values, so no
// lane carries into its neighbour). A 16-byte cell (bins 4k..4k+3 in byte k of word k) unpacks
// into word 2k = bins (4k, 4k+2) and word 2k+1 = bins (4k+1, 4k+3).
// Phase 1: work item (column j of the tile plus halo, segment of 4 rows) slides a vertical sum of
// 2ry+1 rows down its 4 rows into shared memory V[word][row][column].
// Phase 2: each thread adds 2rx+1 columns of V for its 2 outputs and advances the median search.
// The block stops after the first chunk in which every one of its pixels has found its median.
__global__ void box_median_kernel(const uint8_t* hist, int bins, int w, int h, int rx, int ry,
                                  uint32_t frames, Planes med) {
  extern __shared__ uint32_t v_sh[]; // [8][kBoxTileH][ncols]
  const int ncols = kBoxTileW + 2 * rx;
  const int c = blockIdx.z;
  const int x0 = blockIdx.x * kBoxTileW, y0 = blockIdx.y * kBoxTileH;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const size_t px = static_cast<size_t>(w) * h;
  const int chunks = (bins + 15) >> 4;

  int gx = x0 + threadIdx.x;
  int gy[2] = {y0 + static_cast<int>(threadIdx.y), y0 + static_cast<int>(threadIdx.y) + 8};
  uint32_t n[2], cum[2] = {0, 0};
  int m[2] = {0, 0};
  bool inside[2];
  for (int k = 0; k < 2; ++k) {
    inside[k] = gx < w && gy[k] < h;
    n[k] = inside[k] ? box_area(clip_box(gx, gy[k], rx, ry, w, h)) * frames : 0;
  }

  for (int chunk = 0; chunk < chunks; ++chunk) {
    const uint4* cells =
        reinterpret_cast<const uint4*>(hist) + (static_cast<size_t>(c) * chunks + chunk) * px;
    const int items = ncols * (kBoxTileH / kBoxSeg);
    for (int it = tid; it < items; it += blockDim.x * blockDim.y) {
      const int j = it % ncols, seg = it / ncols;
      const int ix = x0 - rx + j;
      const int r0 = seg * kBoxSeg;
      uint32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      auto add_row = [&](int iy, bool sub) {
        if (iy < 0 || iy >= h)
          return;
        const uint4 q = cells[static_cast<size_t>(iy) * w + ix];
        const uint32_t wd[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          const uint32_t e = wd[k] & 0x00FF00FFu, o = (wd[k] >> 8) & 0x00FF00FFu;
          acc[2 * k] = sub ? acc[2 * k] - e : acc[2 * k] + e;
          acc[2 * k + 1] = sub ? acc[2 * k + 1] - o : acc[2 * k + 1] + o;
        }
      };
      const bool col_ok = ix >= 0 && ix < w;
      if (col_ok) {
        for (int iy = y0 + r0 - ry; iy <= y0 + r0 + ry; ++iy)
          add_row(iy, false);
      }
      for (int r = r0; r < r0 + kBoxSeg; ++r) {
        if (col_ok && r > r0) {
          add_row(y0 + r + ry, false);
          add_row(y0 + r - ry - 1, true);
        }
#pragma unroll
        for (int k = 0; k < 8; ++k)
          v_sh[(k * kBoxTileH + r) * ncols + j] = acc[k];
      }
    }
    __syncthreads();

    bool done = true;
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const int r = threadIdx.y + 8 * k;
      uint32_t box[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int d = 0; d <= 2 * rx; ++d) {
#pragma unroll
        for (int q = 0; q < 8; ++q)
          box[q] += v_sh[(q * kBoxTileH + r) * ncols + threadIdx.x + d];
      }
      // Bins of the chunk in order: 4i -> lo(2i), 4i+1 -> lo(2i+1), 4i+2 -> hi(2i), 4i+3 ->
      // hi(2i+1). m counts the bins whose cumulative count is <= n/2: the first bin past them is
      // the median.
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        cum[k] += box[2 * i] & 0xFFFFu;
        m[k] += 2u * cum[k] <= n[k];
        cum[k] += box[2 * i + 1] & 0xFFFFu;
        m[k] += 2u * cum[k] <= n[k];
        cum[k] += box[2 * i] >> 16;
        m[k] += 2u * cum[k] <= n[k];
        cum[k] += box[2 * i + 1] >> 16;
        m[k] += 2u * cum[k] <= n[k];
      }
      done = done && (!inside[k] || 2u * cum[k] > n[k]);
    }
    // Also the barrier before the next chunk overwrites V.
    if (__syncthreads_and(done))
      break;
  }
  for (int k = 0; k < 2; ++k) {
    if (inside[k])
      med.data[plane_off(med, c, gx, gy[k])] = static_cast<uint8_t>(m[k]);
  }
}

// --- separable method: per-frame 2-D median ----------------------------------------------------

constexpr int kSpTileW = 32, kSpTileH = 8;

// Eq. (3), inner median: binary search over bins for the first bin k with 2 * #{q <= k} > area,
// counting over the clipped box in a shared tile of bins (the same definition as Algorithm 1).
__global__ void spatial_median_kernel(Planes src, int bins, int w, int h, int rx, int ry,
                                      Planes dst) {
  extern __shared__ uint8_t tile[]; // (kSpTileH + 2ry) x (kSpTileW + 2rx) bins
  const int c = blockIdx.z;
  const int tw = kSpTileW + 2 * rx, th = kSpTileH + 2 * ry;
  const int x0 = blockIdx.x * kSpTileW - rx, y0 = blockIdx.y * kSpTileH - ry;
  for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < tw * th; i += blockDim.x * blockDim.y) {
    const int ix = x0 + i % tw, iy = y0 + i / tw;
    tile[i] = (ix >= 0 && ix < w && iy >= 0 && iy < h)
                  ? static_cast<uint8_t>(quantize(src.data[plane_off(src, c, ix, iy)], bins))
                  : 0; // never counted: the loops below stay inside the clipped box
  }
  __syncthreads();
  const int x = blockIdx.x * kSpTileW + threadIdx.x, y = blockIdx.y * kSpTileH + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const Box b = clip_box(x, y, rx, ry, w, h);
  const uint32_t n = box_area(b);
  int lo = 0, hi = bins - 1;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    uint32_t le = 0;
    for (int iy = b.y0; iy <= b.y1; ++iy) {
      const uint8_t* row = tile + (iy - y0) * tw;
      for (int ix = b.x0; ix <= b.x1; ++ix)
        le += row[ix - x0] <= mid;
    }
    if (2 * le > n) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  dst.data[plane_off(dst, c, x, y)] = static_cast<uint8_t>(lo);
}

CVIS_PRELOAD_MODULE(ingest_kernel);

} // namespace

// --- launchers -----------------------------------------------------------------------------------

Status launch_ingest(const PixelSource& src, bool luma, int nc, Planes dst, cudaStream_t s) {
  const dim3 grid = cuda::tile_grid(src.width, src.height);
  ingest_kernel<<<grid, cuda::tile_block(), 0, s>>>(src, luma, nc, dst);
  CVIS_CUDA_CHECK_LAUNCH(s, "ingest_kernel");
  return Status::Ok();
}

Status launch_hist_update(const uint8_t* head, const uint8_t* tail, size_t pitch,
                          size_t plane_bytes, bool quantized, int bins, int w, int h, int nc,
                          uint8_t* hist, cudaStream_t s) {
  const dim3 grid = cuda::tile_grid(w, h, nc);
  hist_update_kernel<<<grid, cuda::tile_block(), 0, s>>>(head, tail, pitch, plane_bytes, quantized,
                                                         bins, w, h, hist);
  CVIS_CUDA_CHECK_LAUNCH(s, "hist_update_kernel");
  return Status::Ok();
}

Status launch_box_median(const uint8_t* hist, int bins, int w, int h, int nc, int rx, int ry,
                         uint32_t frames, Planes med, cudaStream_t s) {
  const dim3 block = cuda::tile_block(); // two outputs per thread: a 32 x 16 tile
  const dim3 grid = cuda::tile_grid(w, h, nc, kBoxTileW, kBoxTileH);
  // 8 words x 16 rows x (32 + 2 rx) columns: at most 31.7 KB (rx <= 15), under the 48 KB default.
  const size_t smem = sizeof(uint32_t) * 8 * kBoxTileH * (kBoxTileW + 2 * rx);
  box_median_kernel<<<grid, block, smem, s>>>(hist, bins, w, h, rx, ry, frames, med);
  CVIS_CUDA_CHECK_LAUNCH(s, "box_median_kernel");
  return Status::Ok();
}

Status launch_spatial_median(Planes src, int bins, int w, int h, int nc, int rx, int ry, Planes dst,
                             cudaStream_t s) {
  const dim3 block(kSpTileW, kSpTileH);
  const dim3 grid = cuda::tile_grid(w, h, nc, kSpTileW, kSpTileH);
  const size_t smem = static_cast<size_t>(kSpTileW + 2 * rx) * (kSpTileH + 2 * ry);
  spatial_median_kernel<<<grid, block, smem, s>>>(src, bins, w, h, rx, ry, dst);
  CVIS_CUDA_CHECK_LAUNCH(s, "spatial_median_kernel");
  return Status::Ok();
}

} // namespace cvis::median3d::kernels

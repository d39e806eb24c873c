// Outputs of a frame: background image, differences |I - median| and their histogram, Otsu's
// threshold (the paper's eq. 1 with tau chosen per frame) and the foreground mask.
#include "common/cuda/check.hpp"
#include "common/cuda/tiles.hpp"
#include "common/cuda/preload.hpp"
#include "median3d_kernels.hpp"

namespace cvis::median3d::kernels {

namespace {

// One thread per pixel, 256 per block; the difference histogram is gathered in shared memory and
// added to the global one once per block.
__global__ void finish_kernel(Planes med, Planes center, int bins, bool luma, int w, int h, int nc,
                              bool has_background, PixelDest background, uint8_t* diff,
                              size_t diff_pitch, uint32_t* dhist) {
  __shared__ uint32_t sh[256];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  if (dhist) {
    sh[tid] = 0;
    __syncthreads();
  }
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    uint8_t m[3] = {0, 0, 0};
    int d = 0;
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      if (c >= nc)
        break;
      const size_t mo =
          static_cast<size_t>(c) * med.plane_bytes + static_cast<size_t>(y) * med.pitch + x;
      const size_t co =
          static_cast<size_t>(c) * center.plane_bytes + static_cast<size_t>(y) * center.pitch + x;
      m[c] = static_cast<uint8_t>(bin_value(med.data[mo], bins));
      const int e = abs(static_cast<int>(center.data[co]) - static_cast<int>(m[c]));
      d = e > d ? e : d;
    }
    if (has_background)
      store_background(background, x, y, luma, m);
    if (diff)
      diff[static_cast<size_t>(y) * diff_pitch + x] = static_cast<uint8_t>(d);
    if (dhist)
      atomicAdd(&sh[d], 1u);
  }
  if (dhist) {
    __syncthreads();
    if (sh[tid])
      atomicAdd(&dhist[tid], sh[tid]);
  }
}

// 256 threads, thread t for value t: inclusive scans of count and value sum (Hillis-Steele), the
// score of every split (otsu_score, the same function as the CPU's), and an arg-max reduction
// that prefers the smaller t on ties, which is what the sequential scan in otsu_threshold picks.
__global__ void threshold_kernel(const uint32_t* dhist, int fixed, DeviceResult* out) {
  __shared__ long long w0[256], s0[256];
  __shared__ double score[256];
  __shared__ int arg[256];
  __shared__ int tau_sh;
  const int t = threadIdx.x;
  const uint32_t hv = dhist[t];
  w0[t] = hv;
  s0[t] = static_cast<long long>(t) * hv;
  __syncthreads();
  for (int off = 1; off < 256; off <<= 1) {
    const long long a = t >= off ? w0[t - off] : 0, b = t >= off ? s0[t - off] : 0;
    __syncthreads();
    w0[t] += a;
    s0[t] += b;
    __syncthreads();
  }
  const long long n = w0[255], s = s0[255];
  if (fixed >= 0) {
    if (t == 0)
      tau_sh = fixed;
  } else {
    score[t] = otsu_score(w0[t], s0[t], n, s);
    arg[t] = t;
    __syncthreads();
    for (int half = 128; half > 0; half >>= 1) {
      if (t < half) {
        const double a = score[t], b = score[t + half];
        const int ia = arg[t], ib = arg[t + half];
        if (b > a || (b == a && ib < ia)) {
          score[t] = b;
          arg[t] = ib;
        }
      }
      __syncthreads();
    }
    if (t == 0)
      tau_sh = score[0] >= 0.0 ? arg[0] : -1;
    __syncthreads();
    // No split: all pixels share one value, held by exactly one bin; that value is tau.
    const bool no_split = tau_sh < 0;
    __syncthreads();
    if (no_split && hv != 0)
      tau_sh = t;
  }
  __syncthreads();
  if (t == 0) {
    const int tau = tau_sh < 0 ? 0 : tau_sh;
    out->threshold = tau;
    out->reserved = 0;
    out->foreground = static_cast<unsigned long long>(n - w0[tau]);
  }
}

__global__ void mask_kernel(const uint8_t* diff, size_t diff_pitch, int w, int h,
                            const DeviceResult* res, uint8_t* mask, size_t mask_pitch) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const int tau = res->threshold;
  mask[static_cast<size_t>(y) * mask_pitch + x] =
      diff[static_cast<size_t>(y) * diff_pitch + x] > tau ? 255 : 0;
}

CVIS_PRELOAD_MODULE(threshold_kernel);

} // namespace

Status launch_finish(Planes med, Planes center, int bins, bool luma, int w, int h, int nc,
                     bool has_background, const PixelDest& background, uint8_t* diff,
                     size_t diff_pitch, uint32_t* dhist, cudaStream_t s) {
  // The 32 x 8 tile: 256 threads, one per histogram bin in finish_kernel.
  finish_kernel<<<cuda::tile_grid(w, h), cuda::tile_block(), 0, s>>>(
      med, center, bins, luma, w, h, nc, has_background, background, diff, diff_pitch, dhist);
  CVIS_CUDA_CHECK_LAUNCH(s, "finish_kernel");
  return Status::Ok();
}

Status launch_threshold(const uint32_t* dhist, int fixed, DeviceResult* out, cudaStream_t s) {
  threshold_kernel<<<1, 256, 0, s>>>(dhist, fixed, out);
  CVIS_CUDA_CHECK_LAUNCH(s, "threshold_kernel");
  return Status::Ok();
}

Status launch_mask(const uint8_t* diff, size_t diff_pitch, int w, int h, const DeviceResult* res,
                   uint8_t* mask, size_t mask_pitch, cudaStream_t s) {
  mask_kernel<<<cuda::tile_grid(w, h), cuda::tile_block(), 0, s>>>(diff, diff_pitch, w, h, res,
                                                                   mask, mask_pitch);
  CVIS_CUDA_CHECK_LAUNCH(s, "mask_kernel");
  return Status::Ok();
}

} // namespace cvis::median3d::kernels

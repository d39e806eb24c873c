// Kernels of the front end's CUDA backend, first part: the per-frame image work (gain, separable
// passes, pyramid, Lucas-Kanade, votes). Each output value is computed by one thread with the
// reference's loop (actionmatch_frontend_ref.cpp) and the fe:: operations, so the bits are the
// CPU's (the library builds with --fmad=false); integer atomics only (the byte sum). Row sums of
// values that are costly to form (the flow's products) go through a shared-memory tile of the
// block's rows; the second part is actionmatch_frontend_kernels_points.cu.
#include "stip_kernels.hpp"

#include <algorithm>

#include "stip.hpp"
#include "stip_ops.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/tiles.hpp"
#include "common/cuda/preload.hpp"

namespace cvis::stip::kernels {

namespace {

using cuda::div_up;
using cuda::kTileH;
using cuda::kTileW;
using cuda::tile_block;
using cuda::tile_grid;
using fe::clampi;

constexpr int kSumThreads = 256;

__global__ void luma_sum_kernel(const uint8_t* luma, size_t pitch, int w, int h, Counters* c) {
  __shared__ unsigned long long part[kSumThreads / 32];
  unsigned long long s = 0;
  const int y = blockIdx.y;
  for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += gridDim.x * blockDim.x)
    s += luma[static_cast<size_t>(y) * pitch + x];
  for (int o = 16; o > 0; o /= 2)
    s += __shfl_down_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0)
    part[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long t = 0;
    for (int i = 0; i < kSumThreads / 32; ++i)
      t += part[i];
    if (t)
      atomicAdd(&c->byte_sum, t);
  }
}

// The luma pixel x of row `row` as the reference loads it (ref::load_luma).
__device__ __forceinline__ float luma_value(const uint8_t* row, int x, float g) {
  return static_cast<float>(row[x]) * (1.0f / 255.0f) * g;
}

// Rows pass of the loaded frame with t0 (z = 0: the Gaussian) and t1 (z = 1: the binomial), the
// frame converted on the fly (the same value for every tap that reads it).
__global__ void load_rows_kernel(const uint8_t* luma, size_t pitch, int w, int h, int normalise,
                                 const Counters* c, Taps t0, Taps t1, float* out0, float* out1) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const float g = normalise ? fe::gain_scale(c->byte_sum, static_cast<int64_t>(w) * h) : 1.0f;
  const uint8_t* row = luma + static_cast<size_t>(y) * pitch;
  const bool second = blockIdx.z == 1;
  const int n = second ? t1.n : t0.n, r = n / 2;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc = acc + (second ? t1.t[k] : t0.t[k]) * luma_value(row, clampi(x + k - r, 0, w - 1), g);
  (second ? out1 : out0)[static_cast<size_t>(y) * w + x] = acc;
}

// Image z of a pass, by constant indices (a dynamic index would copy the pointers to local memory).
__device__ __forceinline__ const float* pass_in(const Pass& p, int z) {
  return z == 0 ? p.in[0] : (z == 1 ? p.in[1] : p.in[2]);
}
__device__ __forceinline__ float* pass_out(const Pass& p, int z) {
  return z == 0 ? p.out[0] : (z == 1 ? p.out[1] : p.out[2]);
}

// Image 0 filtered with t0, the others with t1.
__global__ void rows_kernel(Pass p, Taps t0, Taps t1) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p.w_out || y >= p.h_in)
    return;
  const float* in = pass_in(p, blockIdx.z) + static_cast<size_t>(y) * p.w_in;
  const bool first = blockIdx.z == 0;
  const int n = first ? t0.n : t1.n, r = n / 2, cx = p.step * x;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc = acc + (first ? t0.t[k] : t1.t[k]) * in[clampi(cx + k - r, 0, p.w_in - 1)];
  pass_out(p, blockIdx.z)[static_cast<size_t>(y) * p.w_out + x] = acc;
}

__global__ void cols_kernel(Pass p, Taps t0, Taps t1) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p.w_in || y >= p.h_out)
    return;
  const float* in = pass_in(p, blockIdx.z) + x;
  const bool first = blockIdx.z == 0;
  const int n = first ? t0.n : t1.n, r = n / 2, cy = p.step * y;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc = acc + (first ? t0.t[k] : t1.t[k]) *
                    in[static_cast<size_t>(clampi(cy + k - r, 0, p.h_in - 1)) * p.w_in];
  pass_out(p, blockIdx.z)[static_cast<size_t>(y) * p.w_in + x] = acc;
}

// Central differences as in ref::lk_flow and ref::votes.
__device__ __forceinline__ void gradient(const float* P, int w, int h, int x, int y, float* gx,
                                         float* gy) {
  const size_t row = static_cast<size_t>(y) * w;
  *gx = (P[row + clampi(x + 1, 0, w - 1)] - P[row + clampi(x - 1, 0, w - 1)]) * 0.5f;
  *gy = (P[static_cast<size_t>(clampi(y + 1, 0, h - 1)) * w + x] -
         P[static_cast<size_t>(clampi(y - 1, 0, h - 1)) * w + x]) *
        0.5f;
}

constexpr int kHalo = 2 * kMaxFlowRadius;

// The tile's row sums (ref box(), radius r) of per-pixel values: vals[j] holds the value at column
// clamp(x0 - r + j) of the thread's row, so thread x sums vals[x - x0 .. x - x0 + 2 r].
__device__ __forceinline__ float box_row(const float* vals, int r) {
  float acc = 0.0f;
  for (int k = 0; k <= 2 * r; ++k)
    acc = acc + 1.0f * vals[threadIdx.x + k];
  return acc;
}

// Per level: the initial flow (2 x the coarser level's at (x/2, y/2), or 0 when cu is null) and the
// row sums of the structure tensor's products Ix Ix, Ix Iy, Iy Iy of P.
__global__ void lk_tensor_rows_kernel(const float* P, int w, int h, int r, const float* cu,
                                      const float* cv, int cw, float* u, float* v, float* hxx,
                                      float* hxy, float* hyy) {
  __shared__ float s[3][kTileH][kTileW + kHalo];
  const int x0 = blockIdx.x * kTileW, y = blockIdx.y * kTileH + threadIdx.y, x = x0 + threadIdx.x;
  if (y < h) {
    for (int j = threadIdx.x; j < kTileW + 2 * r; j += kTileW) {
      float ix, iy;
      gradient(P, w, h, clampi(x0 - r + j, 0, w - 1), y, &ix, &iy);
      s[0][threadIdx.y][j] = ix * ix;
      s[1][threadIdx.y][j] = ix * iy;
      s[2][threadIdx.y][j] = iy * iy;
    }
  }
  __syncthreads();
  if (x >= w || y >= h)
    return;
  const size_t i = static_cast<size_t>(y) * w + x;
  hxx[i] = box_row(s[0][threadIdx.y], r);
  hxy[i] = box_row(s[1][threadIdx.y], r);
  hyy[i] = box_row(s[2][threadIdx.y], r);
  if (cu) {
    const size_t j = static_cast<size_t>(y / 2) * cw + x / 2;
    u[i] = 2.0f * cu[j];
    v[i] = 2.0f * cv[j];
  } else {
    u[i] = 0.0f;
    v[i] = 0.0f;
  }
}

// Row sums of the mismatch bx = Ix (C(x + u) - P), by = Iy (C(x + u) - P), each pixel warped by
// its own flow.
__global__ void lk_mismatch_rows_kernel(const float* P, const float* C, const float* u,
                                        const float* v, int w, int h, int r, float* hbx,
                                        float* hby) {
  __shared__ float s[2][kTileH][kTileW + kHalo];
  const int x0 = blockIdx.x * kTileW, y = blockIdx.y * kTileH + threadIdx.y, x = x0 + threadIdx.x;
  if (y < h) {
    for (int j = threadIdx.x; j < kTileW + 2 * r; j += kTileW) {
      const int xs = clampi(x0 - r + j, 0, w - 1);
      const size_t i = static_cast<size_t>(y) * w + xs;
      float ix, iy;
      gradient(P, w, h, xs, y, &ix, &iy);
      const float warped =
          fe::bilinear(C, w, w, h, static_cast<float>(xs) + u[i], static_cast<float>(y) + v[i]);
      const float t = warped - P[i];
      s[0][threadIdx.y][j] = ix * t;
      s[1][threadIdx.y][j] = iy * t;
    }
  }
  __syncthreads();
  if (x >= w || y >= h)
    return;
  const size_t i = static_cast<size_t>(y) * w + x;
  hbx[i] = box_row(s[0][threadIdx.y], r);
  hby[i] = box_row(s[1][threadIdx.y], r);
}

__global__ void lk_update_kernel(const float* g11, const float* g12, const float* g22,
                                 const float* hbx, const float* hby, int w, int h, int r, float* u,
                                 float* v) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float b1 = 0.0f, b2 = 0.0f; // ref box(): a Gaussian pass with taps 1
  for (int k = 0; k <= 2 * r; ++k) {
    const size_t j = static_cast<size_t>(clampi(y + k - r, 0, h - 1)) * w + x;
    b1 = b1 + 1.0f * hbx[j];
    b2 = b2 + 1.0f * hby[j];
  }
  const size_t i = static_cast<size_t>(y) * w + x;
  float uu = u[i], vv = v[i];
  fe::lk_update(g11[i], g12[i], g22[i], b1, b2, &uu, &vv);
  u[i] = uu;
  v[i] = vv;
}

__global__ void votes_kernel(const float* S, const float* u, const float* v, int w, int h,
                             float flow_min, float split, uint8_t* hog_bin, float* hog_w,
                             uint8_t* hof_bin, float* hof_w) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const size_t i = static_cast<size_t>(y) * w + x;
  float gx, gy;
  gradient(S, w, h, x, y, &gx, &gy);
  uint8_t b;
  float wt;
  fe::hog_vote(gx, gy, &b, &wt);
  hog_bin[i] = b;
  hog_w[i] = wt;
  fe::hof_vote(u ? u[i] : 0.0f, u ? v[i] : 0.0f, flow_min, split, &b, &wt);
  hof_bin[i] = b;
  hof_w[i] = wt;
}

CVIS_PRELOAD_MODULE(luma_sum_kernel);

} // namespace

#define LAUNCH_CHECK(name) CVIS_CUDA_CHECK_LAUNCH(stream, name)

Status launch_luma_sum(const uint8_t* luma, size_t pitch, int w, int h, Counters* c,
                       cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(std::min(div_up(w, kSumThreads), 4)),
                  static_cast<unsigned>(h));
  luma_sum_kernel<<<grid, kSumThreads, 0, stream>>>(luma, pitch, w, h, c);
  LAUNCH_CHECK("luma_sum_kernel");
  return Status::Ok();
}

Status launch_load_rows(const uint8_t* luma, size_t pitch, int w, int h, bool normalise,
                        const Counters* c, const Taps& t0, const Taps& t1, float* out0, float* out1,
                        cudaStream_t stream) {
  load_rows_kernel<<<tile_grid(w, h, 2), tile_block(), 0, stream>>>(
      luma, pitch, w, h, normalise ? 1 : 0, c, t0, t1, out0, out1);
  LAUNCH_CHECK("load_rows_kernel");
  return Status::Ok();
}

Status launch_rows(const Pass& p, const Taps& t0, const Taps& t1, cudaStream_t stream) {
  rows_kernel<<<tile_grid(p.w_out, p.h_in, p.count), tile_block(), 0, stream>>>(p, t0, t1);
  LAUNCH_CHECK("rows_kernel");
  return Status::Ok();
}

Status launch_cols(const Pass& p, const Taps& t0, const Taps& t1, cudaStream_t stream) {
  cols_kernel<<<tile_grid(p.w_in, p.h_out, p.count), tile_block(), 0, stream>>>(p, t0, t1);
  LAUNCH_CHECK("cols_kernel");
  return Status::Ok();
}

Status launch_lk_tensor_rows(const float* P, int w, int h, int r, const float* cu, const float* cv,
                             int cw, float* u, float* v, float* hxx, float* hxy, float* hyy,
                             cudaStream_t stream) {
  lk_tensor_rows_kernel<<<tile_grid(w, h), tile_block(), 0, stream>>>(P, w, h, r, cu, cv, cw, u, v,
                                                                      hxx, hxy, hyy);
  LAUNCH_CHECK("lk_tensor_rows_kernel");
  return Status::Ok();
}

Status launch_lk_mismatch_rows(const float* P, const float* C, const float* u, const float* v,
                               int w, int h, int r, float* hbx, float* hby, cudaStream_t stream) {
  lk_mismatch_rows_kernel<<<tile_grid(w, h), tile_block(), 0, stream>>>(P, C, u, v, w, h, r, hbx,
                                                                        hby);
  LAUNCH_CHECK("lk_mismatch_rows_kernel");
  return Status::Ok();
}

Status launch_lk_update(const float* g11, const float* g12, const float* g22, const float* hbx,
                        const float* hby, int w, int h, int r, float* u, float* v,
                        cudaStream_t stream) {
  lk_update_kernel<<<tile_grid(w, h), tile_block(), 0, stream>>>(g11, g12, g22, hbx, hby, w, h, r,
                                                                 u, v);
  LAUNCH_CHECK("lk_update_kernel");
  return Status::Ok();
}

Status launch_votes(const float* S, const float* u, const float* v, int w, int h, float flow_min,
                    float split, uint8_t* hog_bin, float* hog_w, uint8_t* hof_bin, float* hof_w,
                    cudaStream_t stream) {
  votes_kernel<<<tile_grid(w, h), tile_block(), 0, stream>>>(S, u, v, w, h, flow_min, split,
                                                             hog_bin, hog_w, hof_bin, hof_w);
  LAUNCH_CHECK("votes_kernel");
  return Status::Ok();
}

} // namespace cvis::stip::kernels

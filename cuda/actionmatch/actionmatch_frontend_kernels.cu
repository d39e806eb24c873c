// Kernels of the front end's CUDA backend. Each output value is computed by one thread with the
// reference's loop (actionmatch_frontend_ref.cpp) and the fe:: operations, so the bits are the
// CPU's (the library builds with --fmad=false); integer atomics only (byte sum, candidate count).
#include "actionmatch_frontend_kernels.hpp"

#include <algorithm>

#include "actionmatch_frontend.hpp"
#include "actionmatch_frontend_ops.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/tiles.hpp"

namespace cvis::actionmatch::kernels {

namespace {

using fe::clampi;
using cuda::div_up;
using cuda::tile_block;
using cuda::tile_grid;

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

__global__ void load_kernel(const uint8_t* luma, size_t pitch, int w, int h, int normalise,
                            const Counters* c, float* out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const float g =
      normalise ? fe::gain_scale(c->byte_sum, static_cast<int64_t>(w) * h) : 1.0f;
  out[static_cast<size_t>(y) * w + x] =
      static_cast<float>(luma[static_cast<size_t>(y) * pitch + x]) * (1.0f / 255.0f) * g;
}

// Image z of a pass, by constant indices (a dynamic index would copy the pointers to local memory).
__device__ __forceinline__ const float* pass_in(const Pass& p, int z) {
  return z == 0 ? p.in[0] : (z == 1 ? p.in[1] : p.in[2]);
}
__device__ __forceinline__ float* pass_out(const Pass& p, int z) {
  return z == 0 ? p.out[0] : (z == 1 ? p.out[1] : p.out[2]);
}

__global__ void rows_kernel(Pass p, Taps t) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p.w_out || y >= p.h_in)
    return;
  const float* in = pass_in(p, blockIdx.z) + static_cast<size_t>(y) * p.w_in;
  const int r = t.n / 2, cx = p.step * x;
  float acc = 0.0f;
  for (int k = 0; k < t.n; ++k)
    acc = acc + t.t[k] * in[clampi(cx + k - r, 0, p.w_in - 1)];
  pass_out(p, blockIdx.z)[static_cast<size_t>(y) * p.w_out + x] = acc;
}

__global__ void cols_kernel(Pass p, Taps t) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p.w_in || y >= p.h_out)
    return;
  const float* in = pass_in(p, blockIdx.z) + x;
  const int r = t.n / 2, cy = p.step * y;
  float acc = 0.0f;
  for (int k = 0; k < t.n; ++k)
    acc = acc + t.t[k] * in[static_cast<size_t>(clampi(cy + k - r, 0, p.h_in - 1)) * p.w_in];
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

__global__ void lk_gradient_kernel(const float* P, int w, int h, float* ixx, float* ixy,
                                   float* iyy) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float ix, iy;
  gradient(P, w, h, x, y, &ix, &iy);
  const size_t i = static_cast<size_t>(y) * w + x;
  ixx[i] = ix * ix;
  ixy[i] = ix * iy;
  iyy[i] = iy * iy;
}

__global__ void lk_prolong_kernel(const float* cu, const float* cv, int cw, float* u, float* v,
                                  int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const size_t i = static_cast<size_t>(y) * w + x;
  if (!cu) {
    u[i] = 0.0f;
    v[i] = 0.0f;
    return;
  }
  const size_t j = static_cast<size_t>(y / 2) * cw + x / 2;
  u[i] = 2.0f * cu[j];
  v[i] = 2.0f * cv[j];
}

__global__ void lk_mismatch_kernel(const float* P, const float* C, const float* u, const float* v,
                                   int w, int h, float* bx, float* by) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const size_t i = static_cast<size_t>(y) * w + x;
  float ix, iy;
  gradient(P, w, h, x, y, &ix, &iy);
  const float warped =
      fe::bilinear(C, w, w, h, static_cast<float>(x) + u[i], static_cast<float>(y) + v[i]);
  const float t = warped - P[i];
  bx[i] = ix * t;
  by[i] = iy * t;
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
                             float flow_min, uint8_t* hog_bin, float* hog_w, uint8_t* hof_bin,
                             float* hof_w) {
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
  fe::hof_vote(u ? u[i] : 0.0f, u ? v[i] : 0.0f, flow_min, &b, &wt);
  hof_bin[i] = b;
  hof_w[i] = wt;
}

__global__ void response_kernel(Gabor g, int n, float* R) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float e = 0.0f, o = 0.0f;
  for (int k = 0; k < g.n; ++k) {
    const float sv = g.frames[k][i];
    e = e + g.even[k] * sv;
    o = o + g.odd[k] * sv;
  }
  R[i] = e * e + o * o;
}

__global__ void nms_kernel(const float* prev, const float* cur, const float* next, int w, int h,
                           int rs, float thr, Candidate* cand, Counters* c) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const float r = cur[static_cast<size_t>(y) * w + x];
  if (!(r > thr))
    return;
  const float* frames[3] = {prev, cur, next};
  for (int t = 0; t < 3; ++t) {
    if (!frames[t])
      continue;
    for (int yy = max(0, y - rs); yy <= min(h - 1, y + rs); ++yy)
      for (int xx = max(0, x - rs); xx <= min(w - 1, x + rs); ++xx) {
        if (t == 1 && yy == y && xx == x)
          continue;
        if (!fe::beats(r, frames[t][static_cast<size_t>(yy) * w + xx], 1, y, x, t, yy, xx))
          return;
      }
  }
  const int k = atomicAdd(&c->candidates, 1);
  cand[k] = Candidate{r, y, x};
}

constexpr int kRankThreads = 256;

// Rank of a candidate = the candidates before it (a total order: positions differ), so every kept
// point lands in its own slot whatever order the NMS appended them in.
__global__ void rank_kernel(const Candidate* cand, const Counters* c, int max_points,
                            FrameResult* out) {
  __shared__ Candidate tile[kRankThreads];
  const int count = c->candidates;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    out->candidates = count;
    out->pad = 0;
  }
  if (i >= min(count, max_points) && i < max_points)
    out->points[i] = Candidate{0.0f, 0, 0}; // slots without a point go back to the host too
  if (blockIdx.x * blockDim.x >= count)
    return; // the whole block is past the candidates
  const bool mine = i < count;
  Candidate me = mine ? cand[i] : Candidate{0.0f, 0, 0};
  int rank = 0;
  for (int base = 0; base < count; base += kRankThreads) {
    __syncthreads();
    if (base + static_cast<int>(threadIdx.x) < count)
      tile[threadIdx.x] = cand[base + threadIdx.x];
    __syncthreads();
    const int n = min(kRankThreads, count - base);
    if (mine && rank < max_points)
      for (int j = 0; j < n; ++j)
        rank += fe::point_before(tile[j].r, tile[j].y, tile[j].x, me.r, me.y, me.x) ? 1 : 0;
  }
  if (mine && rank < max_points)
    out->points[rank] = me;
}

// One block per kept point; thread `cell` < 18 sums its cell's votes in the reference's order,
// then thread 0 normalises the two parts.
__global__ void descriptor_kernel(DescArgs a, FrameResult* out) {
  __shared__ float d[kDescDim];
  const int kept = min(out->candidates, a.max_points);
  const int pt = blockIdx.x;
  if (pt >= kept) {
    for (int i = threadIdx.x; i < kDescDim; i += blockDim.x)
      out->desc[pt * kDescDim + i] = 0.0f; // copied back with the others
    return;
  }
  const int x = out->points[pt].x, y = out->points[pt].y;
  const int c = a.cell, ct = a.cell_frames;
  const int x0 = x - (3 * c) / 2, y0 = y - (3 * c) / 2;
  const int cell = threadIdx.x;
  if (cell < kCellsT * kCellsY * kCellsX) {
    const int t = cell / (kCellsY * kCellsX), cy = cell / kCellsX % kCellsY, cx = cell % kCellsX;
    float hog[kHogBins] = {0.0f, 0.0f, 0.0f, 0.0f};
    float hof[kHofBins] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (int64_t fr = a.f - ct + t * ct; fr < a.f + t * ct; ++fr) {
      if (fr < a.first || fr > a.last)
        continue;
      const size_t base = static_cast<size_t>(fr % a.ring) * a.w * a.h;
      for (int py = y0 + cy * c; py < y0 + (cy + 1) * c; ++py) {
        if (py < 0 || py >= a.h)
          continue;
        for (int px = x0 + cx * c; px < x0 + (cx + 1) * c; ++px) {
          if (px < 0 || px >= a.w)
            continue;
          const size_t i = base + static_cast<size_t>(py) * a.w + px;
          const int hb = a.hog_bin[i], fb = a.hof_bin[i];
          const float hw = a.hog_w[i], fw = a.hof_w[i];
          // Constant indices keep the bins in registers; each bin sees the reference's additions.
#pragma unroll
          for (int b = 0; b < kHogBins; ++b)
            if (hb == b)
              hog[b] = hog[b] + hw;
#pragma unroll
          for (int b = 0; b < kHofBins; ++b)
            if (fb == b)
              hof[b] = hof[b] + fw;
        }
      }
    }
    for (int b = 0; b < kHogBins; ++b)
      d[cell * kHogBins + b] = hog[b];
    for (int b = 0; b < kHofBins; ++b)
      d[kHogDim + cell * kHofBins + b] = hof[b];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const int parts[2][2] = {{0, kHogDim}, {kHogDim, kHogDim + kHofDim}};
    for (int p = 0; p < 2; ++p) {
      float ss = 0.0f;
      for (int i = parts[p][0]; i < parts[p][1]; ++i)
        ss = ss + d[i] * d[i];
      if (ss > 0.0f) {
        const float s = 0.70710678f / sqrtf(ss);
        for (int i = parts[p][0]; i < parts[p][1]; ++i)
          d[i] = d[i] * s;
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kDescDim; i += blockDim.x)
    out->desc[pt * kDescDim + i] = d[i];
}

} // namespace

#define LAUNCH_CHECK(name) CVIS_CUDA_CHECK_LAUNCH(stream, name)

Status launch_luma_sum(const uint8_t* luma, size_t pitch, int w, int h, Counters* c,
                       cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(std::min(div_up(w, kSumThreads), 4)), static_cast<unsigned>(h));
  luma_sum_kernel<<<grid, kSumThreads, 0, stream>>>(luma, pitch, w, h, c);
  LAUNCH_CHECK("luma_sum_kernel");
  return Status::Ok();
}

Status launch_load(const uint8_t* luma, size_t pitch, int w, int h, bool normalise,
                   const Counters* c, float* out, cudaStream_t stream) {
  load_kernel<<<tile_grid(w, h), tile_block(), 0, stream>>>(luma, pitch, w, h, normalise ? 1 : 0,
                                                            c, out);
  LAUNCH_CHECK("load_kernel");
  return Status::Ok();
}

Status launch_rows(const Pass& p, const Taps& taps, cudaStream_t stream) {
  rows_kernel<<<tile_grid(p.w_out, p.h_in, p.count), tile_block(), 0, stream>>>(p, taps);
  LAUNCH_CHECK("rows_kernel");
  return Status::Ok();
}

Status launch_cols(const Pass& p, const Taps& taps, cudaStream_t stream) {
  cols_kernel<<<tile_grid(p.w_in, p.h_out, p.count), tile_block(), 0, stream>>>(p, taps);
  LAUNCH_CHECK("cols_kernel");
  return Status::Ok();
}

Status launch_lk_gradient(const float* P, int w, int h, float* ixx, float* ixy, float* iyy,
                          cudaStream_t stream) {
  lk_gradient_kernel<<<tile_grid(w, h), tile_block(), 0, stream>>>(P, w, h, ixx, ixy, iyy);
  LAUNCH_CHECK("lk_gradient_kernel");
  return Status::Ok();
}

Status launch_lk_prolong(const float* cu, const float* cv, int cw, float* u, float* v, int w,
                         int h, cudaStream_t stream) {
  lk_prolong_kernel<<<tile_grid(w, h), tile_block(), 0, stream>>>(cu, cv, cw, u, v, w, h);
  LAUNCH_CHECK("lk_prolong_kernel");
  return Status::Ok();
}

Status launch_lk_mismatch(const float* P, const float* C, const float* u, const float* v, int w,
                          int h, float* bx, float* by, cudaStream_t stream) {
  lk_mismatch_kernel<<<tile_grid(w, h), tile_block(), 0, stream>>>(P, C, u, v, w, h, bx, by);
  LAUNCH_CHECK("lk_mismatch_kernel");
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
                    uint8_t* hog_bin, float* hog_w, uint8_t* hof_bin, float* hof_w,
                    cudaStream_t stream) {
  votes_kernel<<<tile_grid(w, h), tile_block(), 0, stream>>>(S, u, v, w, h, flow_min, hog_bin,
                                                             hog_w, hof_bin, hof_w);
  LAUNCH_CHECK("votes_kernel");
  return Status::Ok();
}

Status launch_response(const Gabor& g, int w, int h, float* R, cudaStream_t stream) {
  const int n = w * h;
  response_kernel<<<div_up(n, 256), 256, 0, stream>>>(g, n, R);
  LAUNCH_CHECK("response_kernel");
  return Status::Ok();
}

Status launch_nms(const float* prev, const float* cur, const float* next, int w, int h,
                  int radius, float threshold, Candidate* cand, Counters* c, cudaStream_t stream) {
  nms_kernel<<<tile_grid(w, h), tile_block(), 0, stream>>>(prev, cur, next, w, h, radius,
                                                           threshold, cand, c);
  LAUNCH_CHECK("nms_kernel");
  return Status::Ok();
}

Status launch_rank(const Candidate* cand, const Counters* c, int capacity, int max_points,
                   FrameResult* out, cudaStream_t stream) {
  rank_kernel<<<div_up(capacity, kRankThreads), kRankThreads, 0, stream>>>(cand, c, max_points,
                                                                           out);
  LAUNCH_CHECK("rank_kernel");
  return Status::Ok();
}

Status launch_descriptors(const DescArgs& a, FrameResult* out, cudaStream_t stream) {
  descriptor_kernel<<<a.max_points, 32, 0, stream>>>(a, out);
  LAUNCH_CHECK("descriptor_kernel");
  return Status::Ok();
}

} // namespace cvis::actionmatch::kernels

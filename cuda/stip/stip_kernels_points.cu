// Kernels of the front end's CUDA backend, second part: the Gabor response over the ring of
// smoothed frames and the selection and description of a final frame's points (NMS, ranking,
// descriptors). Same rules as actionmatch_frontend_kernels.cu: the reference's loops and the fe::
// operations, integer atomics only.
#include <algorithm>

#include "stip.hpp"
#include "stip_kernels.hpp"
#include "stip_ops.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/tiles.hpp"
#include "common/cuda/preload.hpp"

namespace cvis::stip::kernels {

namespace {

using cuda::div_up;
using cuda::tile_block;
using cuda::tile_grid;

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
    // Stop once every candidate of the block has max_points before it (uniform: a barrier).
    if (!__syncthreads_or(mine && rank < max_points))
      break;
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
  __shared__ float d[kMaxDescDim];
  const int kept = min(out->candidates, a.max_points);
  const int pt = blockIdx.x;
  float* dst = out->desc + static_cast<size_t>(pt) * a.dim;
  if (pt >= kept) {
    for (int i = threadIdx.x; i < a.dim; i += blockDim.x)
      dst[i] = 0.0f; // copied back with the others
    return;
  }
  const int x = out->points[pt].x, y = out->points[pt].y;
  const int c = a.cell, ct = a.cell_frames;
  const int x0 = x - (3 * c) / 2, y0 = y - (3 * c) / 2;
  const int cell = threadIdx.x;
  if (cell < kCells) {
    const int t = cell / (kCellsY * kCellsX), cy = cell / kCellsX % kCellsY, cx = cell % kCellsX;
    float hog[kHogBins] = {0.0f, 0.0f, 0.0f, 0.0f};
    float hof[kMaxHofBins];
#pragma unroll
    for (int b = 0; b < kMaxHofBins; ++b)
      hof[b] = 0.0f;
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
          for (int b = 0; b < kMaxHofBins; ++b)
            if (fb == b)
              hof[b] = hof[b] + fw;
        }
      }
    }
    for (int b = 0; b < kHogBins; ++b)
      d[cell * kHogBins + b] = hog[b];
#pragma unroll
    for (int b = 0; b < kMaxHofBins; ++b)
      if (b < a.hof_bins)
        d[kHogDim + cell * a.hof_bins + b] = hof[b];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const int parts[2][2] = {{0, kHogDim}, {kHogDim, a.dim}};
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
  for (int i = threadIdx.x; i < a.dim; i += blockDim.x)
    dst[i] = d[i];
}

CVIS_PRELOAD_MODULE(response_kernel);

} // namespace

#define LAUNCH_CHECK(name) CVIS_CUDA_CHECK_LAUNCH(stream, name)

Status launch_response(const Gabor& g, int w, int h, float* R, cudaStream_t stream) {
  const int n = w * h;
  response_kernel<<<div_up(n, 256), 256, 0, stream>>>(g, n, R);
  LAUNCH_CHECK("response_kernel");
  return Status::Ok();
}

Status launch_nms(const float* prev, const float* cur, const float* next, int w, int h, int radius,
                  float threshold, Candidate* cand, Counters* c, cudaStream_t stream) {
  nms_kernel<<<tile_grid(w, h), tile_block(), 0, stream>>>(prev, cur, next, w, h, radius, threshold,
                                                           cand, c);
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

} // namespace cvis::stip::kernels

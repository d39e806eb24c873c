// The search: the threads of a window (one per part for JBLD, one per window for Foerstner) compute
// its covariances from four corners per plane (thesis Fig. 3.20, Eq. 3), its distance to the
// group's model (Eq. 10 or 5-6) and its score, in registers (the thesis keeps a block per window
// and the matrix in shared memory); each block keeps its best
// windows (thesis Sec. 4.1, "Finding the Best Match on GPU", here with the index order as tie
// break); a second kernel merges them per group, so only the winners leave the device.
#include <cstring>

#include "common/cuda/check.hpp"
#include "common/cuda/preload.hpp"
#include "rcdtrack_kernels.hpp"

namespace cvis::rcdtrack::kernels {

namespace {

constexpr int kReduceThreads = 256;

// Window `w` of group G: its grid and top-left corner.
__device__ void decode_window(const DevGroup& G, const DevGrid* grids, int64_t w, int* grid,
                              int* x0, int* y0) {
  int k = G.first_grid;
  for (int e = G.first_grid + G.grid_count - 1; k < e && grids[k + 1].first <= w;)
    ++k;
  const DevGrid& gr = grids[k];
  const int64_t local = w - gr.first;
  const int iy = static_cast<int>(local / gr.nx),
            ix = static_cast<int>(local - static_cast<int64_t>(iy) * gr.nx);
  *grid = k;
  *x0 = gr.x0 + ix * gr.step;
  *y0 = gr.y0 + iy * gr.step;
}

// Order-preserving key of a double (not NaN): a < b exactly when key(a) < key(b) as unsigned.
__device__ unsigned long long bound_key(double v) {
  unsigned long long b;
  memcpy(&b, &v, sizeof b);
  return (b >> 63) ? ~b : b | 0x8000000000000000ull;
}
__device__ double bound_value(unsigned long long k) {
  const unsigned long long b = (k >> 63) ? k & 0x7fffffffffffffffull : ~k;
  double v;
  memcpy(&v, &b, sizeof v);
  return v;
}

// window_distance's early exit for a pruning group: the score's lower bound from the distance's
// lower bound (the same additions as window_score, then minus the largest context term,
// context_weight: rounding is monotone, so this is <= the score the window would get) above the
// group's best score so far plus a margin (1e-7 relative, far above the rounding differences of
// the bound's and the score's sums).
struct PruneStop {
  static constexpr bool kActive = true;
  double motion, scale, context, limit;
  __device__ bool operator()(double lower) const {
    return lower + motion + scale - context > limit;
  }
};

// Block-wide argmin of (score, index) in shared arrays of n entries (destroyed; n a power of two
// up to blockDim.x; every thread of the block calls it).
__device__ void block_argmin(double* s, int64_t* idx, double* ds, int n) {
  for (int half = n / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      const int o = threadIdx.x + half;
      if (hit_before(s[o], idx[o], s[threadIdx.x], idx[threadIdx.x])) {
        s[threadIdx.x] = s[o];
        idx[threadIdx.x] = idx[o];
        ds[threadIdx.x] = ds[o];
      }
    }
    __syncthreads();
  }
}

// A window under the group's threshold goes to the group's candidate list (when it collects).
__device__ void collect_below(const DevGroup& G, double score, double dist, int64_t w,
                              DevHit* below, int* below_count) {
  if (G.below_group >= 0 && dist < G.threshold) {
    const int slot = atomicAdd(&below_count[G.below_group], 1);
    if (slot < kMaxCandidates) {
      DevHit h;
      h.score = score;
      h.distance = dist;
      h.index = w;
      below[G.below_base + slot] = h;
    }
  }
}

// The block's top-k of its kWindowThreads windows: k argmin steps, each excluding the windows
// already taken. Thread t < kWindowThreads holds window t's score, distance and index (-1: none);
// every thread of the block calls it (the others only take part in the barriers). The first
// step's winner lowers the group's bound for the later blocks (pruning groups).
__device__ void block_top_k(const DevGroup& G, int gi, int chunk, double score, double dist,
                            int64_t index, DevHit* cand, unsigned long long* bounds) {
  __shared__ double s_score[kWindowThreads], s_dist[kWindowThreads];
  __shared__ int64_t s_idx[kWindowThreads];
  __shared__ int64_t taken_index;
  const bool holder = threadIdx.x < kWindowThreads;
  bool taken = index < 0;
  for (int r = 0; r < G.top_k; ++r) {
    if (holder) {
      s_score[threadIdx.x] = taken ? HUGE_VAL : score;
      s_dist[threadIdx.x] = taken ? HUGE_VAL : dist;
      s_idx[threadIdx.x] = taken ? (int64_t(1) << 62) : index;
    }
    __syncthreads();
    block_argmin(s_score, s_idx, s_dist, kWindowThreads);
    if (threadIdx.x == 0) {
      DevHit h;
      h.score = s_score[0];
      h.distance = s_dist[0];
      h.index = s_idx[0] == (int64_t(1) << 62) ? -1 : s_idx[0];
      cand[static_cast<int64_t>(G.first_block + chunk) * kMaxTopK + r] = h;
      taken_index = h.index;
      if (r == 0 && G.prune && h.index >= 0 && h.score < HUGE_VAL)
        atomicMin(&bounds[gi], bound_key(h.score)); // the later blocks' bound
    }
    __syncthreads();
    if (!taken && index == taken_index)
      taken = true;
    __syncthreads();
  }
}

// The Foerstner distance's search: one thread per window (window_distance with the early exit,
// then search_score), the compiler's register choice (Jacobi sweeps over N x N arrays). The JBLD
// distance takes windows_parts_kernel below (faster than this kernel's form for it: README.md,
// "Measured and not kept").
template <int N>
__global__ void __launch_bounds__(kWindowThreads, 1)
    windows_kernel(Layout L, const DevGroup* groups, const DevGrid* grids,
                   const DevIntegral* integrals, const ModelData* models, const int* block_work,
                   const int64_t* base, DevHit* cand, DevHit* below, int* below_count,
                   unsigned long long* bounds) {
  __shared__ ModelData model;

  const int gi = block_work[2 * blockIdx.x], chunk = block_work[2 * blockIdx.x + 1];
  const DevGroup G = groups[gi];
  if (G.model >= 0) { // the group's model, once per block
    const double* src = reinterpret_cast<const double*>(&models[G.model]);
    double* dst = reinterpret_cast<double*>(&model);
    for (int t = threadIdx.x; t < static_cast<int>(sizeof(ModelData) / sizeof(double));
         t += kWindowThreads)
      dst[t] = src[t];
  }
  __syncthreads();

  const int64_t w = static_cast<int64_t>(chunk) * kWindowThreads + threadIdx.x;
  double score = HUGE_VAL, dist = HUGE_VAL;
  int64_t index = -1;
  if (w < G.windows) {
    int grid, x0, y0;
    decode_window(G, grids, w, &grid, &x0, &y0);
    const DevGrid& gr = grids[grid];
    const DevIntegral R = integrals[G.integral];
    const IntegralRef I{base + R.offset, R.plane_stride, R.cols + 1};
    const int c = R.cell;
    const int cx0 = (x0 - R.x) / c, cy0 = (y0 - R.y) / c;
    const double bound =
        G.prune ? bound_value(*static_cast<volatile unsigned long long*>(&bounds[gi])) : HUGE_VAL;
    if (G.model >= 0) {
      // A window whose score is provably above a score already found is not the group's best
      // (ties are kept: the margin is positive): its remaining parts and context are skipped, its
      // score and distance become HUGE_VAL. The top-1 window, its score and distance are those of
      // the full evaluation. Without a bound (limit HUGE_VAL) nothing stops early, except a
      // window with two infinite parts, whose distance and score are HUGE_VAL either way.
      PruneStop stop;
      prior_terms(G.prior, x0, y0, gr.ww, gr.wh, gr.ln_factor, &stop.motion, &stop.scale);
      stop.context = G.prior.context_weight > 0.0 ? G.prior.context_weight : 0.0;
      stop.limit = bound < HUGE_VAL ? bound + 1e-7 * (1.0 + fabs(bound)) : HUGE_VAL;
      dist = window_distance<N>(L, Distance::kFoerstner, I, c, cx0, cy0, gr.ww / c, gr.wh / c,
                                model, stop);
      if (dist < HUGE_VAL && !stop(dist))
        score = search_score<N>(L, Distance::kFoerstner, I, R.x, R.y, R.cols, R.rows, c, G.prior,
                                x0, y0, gr.ww, gr.wh, gr.ln_factor, dist, model);
      else
        dist = HUGE_VAL; // score stays HUGE_VAL
    } else {
      dist = score = 0.0;
    }
    index = w;
    collect_below(G, score, dist, w, below, below_count);
  }
  block_top_k(G, gi, chunk, score, dist, index, cand, bounds);
}

// The JBLD distance's search: one thread per part of a window. A window's five part
// covariances and distances (and the context ring's) are independent until their sum, so they run
// on different threads: thread t of the block's kPartThreads works for window t % kWindowThreads,
// half h = t / kWindowThreads (warp-uniform) on the window's tasks h, h + 2, h + 4 (tasks: parts
// 0..P-1, then the ring), one per step, each with the shared functions of rcdtrack_math.hpp;
// the part distances meet in shared memory and one thread per window adds them in the order of
// window_distance and forms the score as search_score does: the same bits as the CPU reference.
// A thread's chain is a third of a window's (~4 k dependent FP64 instructions) and holds one
// part's registers, with twice as many threads per window resident: the small passes (a few blocks
// per SM) and the loads of the corners get more in flight. The early exit is a test at the start of
// each step against the parts of the steps before (any subset of the parts gives the same kind of
// lower bound: the sum of a subset's distances minus their largest is at most the sum of all minus
// the largest, distances being >= 0); both threads of a window make the same decisions (same shared
// values, same bound), the ring is computed when four parts did not rule the window out (its own
// test then follows the sum).
inline constexpr int kPartThreads = 2 * kWindowThreads;

// The ring's distance as a call, not inlined: inlined, its 2 x n(n+3)/2 box sums took the part
// kernel's register demand from ~120 to ~250 (ptxas, n = 2..5, unbounded) and its spills at 128
// registers from 40 B to 122 B (n = 5); one call per window costs little. L in shared memory: a
// kernel parameter passed by reference would be copied to each thread's stack (280 B).
template <int N, int NS>
__device__ __noinline__ double ring_distance(const Layout& L, IntegralRef I, int cols, int rows,
                                             int cell, int cx0, int cy0, int cw, int ch,
                                             const ModelData& m) {
  return context_distance<N, NS>(L, Distance::kJbld, I, cols, rows, cell, cx0, cy0, cw, ch, m);
}

// window_distance's terms over parts 0 .. n - 1 of a window (its column `slot` of s_part, in part
// order): the sum of the finite ones, their largest, and the number of infinite ones (returned).
__device__ __forceinline__ int part_terms(const double (*s_part)[kWindowThreads], int slot, int n,
                                          double* sum_out, double* worst_out) {
  double sum = 0.0, worst = 0.0;
  int infinite = 0;
  for (int p = 0; p < n; ++p) {
    const double d = s_part[p][slot];
    if (!(d < HUGE_VAL)) {
      ++infinite;
    } else {
      sum = sum + d;
      worst = d > worst ? d : worst;
    }
  }
  *sum_out = sum;
  *worst_out = worst;
  return infinite;
}

// 2 blocks per SM (128 registers) up to 5 features, 1 above.
template <int N, int NS>
__global__ void __launch_bounds__(kPartThreads, N <= 5 ? 2 : 1)
    windows_parts_kernel(Layout L, const DevGroup* groups, const DevGrid* grids,
                         const DevIntegral* integrals, const ModelData* models,
                         const int* block_work, const int64_t* base, DevHit* cand, DevHit* below,
                         int* below_count, unsigned long long* bounds) {
  __shared__ ModelData model;
  __shared__ double s_part[kMaxParts + 1][kWindowThreads]; // part distances, then the ring's
  __shared__ double s_bound;
  __shared__ Layout s_layout; // for ring_distance

  const int gi = block_work[2 * blockIdx.x], chunk = block_work[2 * blockIdx.x + 1];
  const DevGroup G = groups[gi];
  if (G.model >= 0) { // the group's model, once per block
    const double* src = reinterpret_cast<const double*>(&models[G.model]);
    double* dst = reinterpret_cast<double*>(&model);
    for (int t = threadIdx.x; t < static_cast<int>(sizeof(ModelData) / sizeof(double));
         t += kPartThreads)
      dst[t] = src[t];
  }
  if (threadIdx.x == 1)
    s_layout = L;
  if (threadIdx.x == 0) // one reading for the block: a window's two threads decide alike
    s_bound =
        G.prune ? bound_value(*static_cast<volatile unsigned long long*>(&bounds[gi])) : HUGE_VAL;
  __syncthreads();

  const int slot = threadIdx.x % kWindowThreads, half = threadIdx.x / kWindowThreads;
  const int64_t w = static_cast<int64_t>(chunk) * kWindowThreads + slot;
  const bool valid = w < G.windows;
  const int P = L.parts;
  const bool ring = G.model >= 0 && G.prior.context_weight > 0.0;
  const int tasks = P + (ring ? 1 : 0);
  int grid = G.first_grid, x0 = 0, y0 = 0;
  if (valid)
    decode_window(G, grids, w, &grid, &x0, &y0);
  const DevGrid& gr = grids[grid];
  const DevIntegral R = integrals[G.integral];
  const IntegralRef I{base + R.offset, R.plane_stride, R.cols + 1};
  const int c = R.cell;
  const int cx0 = (x0 - R.x) / c, cy0 = (y0 - R.y) / c, cw = gr.ww / c, ch = gr.wh / c;
  // See windows_kernel: a window whose score is provably above a score already found is dropped.
  PruneStop stop;
  stop.motion = stop.scale = 0.0;
  if (valid)
    prior_terms(G.prior, x0, y0, gr.ww, gr.wh, gr.ln_factor, &stop.motion, &stop.scale);
  stop.context = G.prior.context_weight > 0.0 ? G.prior.context_weight : 0.0;
  const double bound = s_bound;
  stop.limit = bound < HUGE_VAL ? bound + 1e-7 * (1.0 + fabs(bound)) : HUGE_VAL;

  bool alive = valid && G.model >= 0;
  for (int r = 0; 2 * r < tasks; ++r) {
    if (r > 0)
      __syncthreads(); // the parts of the steps before are in s_part
    if (alive) {
      // window_distance's test over parts 0 .. 2r - 1 (parts 0..3 before the last part and the
      // ring): two infinite parts, or the lower bound above the limit.
      const int done = 2 * r < P ? 2 * r : P;
      double sum, worst;
      const int infinite = part_terms(s_part, slot, done, &sum, &worst);
      if (infinite > 1 || stop(infinite ? sum : sum - worst))
        alive = false;
    }
    const int task = 2 * r + half;
    if (alive && task < tasks) {
      double d;
      if (task < P) {
        int px, py, pw, ph;
        part_box(task, cx0, cy0, cw, ch, &px, &py, &pw, &ph);
        constexpr int T = N * (N + 1) / 2;
        double C[T];
        window_covariance<N, NS>(L, I, c, px, py, pw, ph, true, C);
        d = jbld<N>(model.a[task], model.logdet[task], C);
      } else {
        d = ring_distance<N, NS>(s_layout, I, R.cols, R.rows, c, cx0, cy0, cw, ch, model);
      }
      s_part[task][slot] = d;
    }
  }
  __syncthreads();

  double score = HUGE_VAL, dist = HUGE_VAL;
  int64_t index = -1;
  if (valid && half == 0) {
    if (G.model < 0) {
      dist = score = 0.0;
    } else if (alive) {
      // window_distance's sum (same order), then search_score's terms.
      double sum, worst;
      const int infinite = part_terms(s_part, slot, P, &sum, &worst);
      if (P == 1)
        dist = infinite ? HUGE_VAL : sum;
      else if (infinite == 0)
        dist = sum - worst;
      else
        dist = infinite == 1 ? sum : HUGE_VAL;
      if (dist < HUGE_VAL && !stop(dist)) {
        score = window_score(dist, G.prior, x0, y0, gr.ww, gr.wh, gr.ln_factor);
        if (G.prior.context_weight > 0.0)
          score = score - G.prior.context_weight * s_part[P][slot];
      } else {
        dist = HUGE_VAL; // score stays HUGE_VAL
      }
    }
    index = w;
    collect_below(G, score, dist, w, below, below_count);
  }
  block_top_k(G, gi, chunk, score, dist, index, cand, bounds);
}

// One block per group: the group's top-k from its blocks' candidates, then the best window's
// unridged covariances (one thread per part) and plane sums.
template <int N>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_kernel(Layout L, const DevGroup* groups, const DevGrid* grids,
                  const DevIntegral* integrals, const int64_t* base, const DevHit* cand,
                  DevResult* results) {
  __shared__ double s_score[kReduceThreads], s_dist[kReduceThreads];
  __shared__ int64_t s_idx[kReduceThreads];
  __shared__ int64_t chosen[kMaxTopK];
  const DevGroup G = groups[blockIdx.x];
  DevResult* res = &results[blockIdx.x];
  const int64_t n = static_cast<int64_t>(G.blocks) * kMaxTopK;
  const DevHit* c = cand + static_cast<int64_t>(G.first_block) * kMaxTopK;
  // The whole result is copied back: the parts, features and planes this pass leaves out are
  // written too (zeros; ordered before the real values by the barriers of the loop below).
  for (int i = threadIdx.x; i < kMaxParts * kMaxFeatures * kMaxFeatures; i += kReduceThreads)
    (&res->cov[0][0])[i] = 0.0;
  for (int p = threadIdx.x; p <= kMaxPlanes; p += kReduceThreads)
    res->sums[p] = 0;
  // Only top_k rounds (one, by default): the slots after them are "none" without a block-wide
  // minimum each (eight barriers a round).
  const int top_k = min(G.top_k, kMaxTopK);
  for (int r = top_k + static_cast<int>(threadIdx.x); r < kMaxTopK; r += kReduceThreads) {
    res->top[r].score = HUGE_VAL;
    res->top[r].distance = HUGE_VAL;
    res->top[r].index = -1;
  }
  for (int r = 0; r < top_k; ++r) {
    double bs = HUGE_VAL, bd = HUGE_VAL;
    int64_t bi = int64_t(1) << 62;
    for (int64_t e = threadIdx.x; e < n; e += kReduceThreads) {
      if (e % kMaxTopK >= top_k)
        continue; // slots the search kernel does not write for this top_k
      const DevHit h = c[e];
      if (h.index < 0)
        continue;
      bool dup = false;
      for (int q = 0; q < r; ++q)
        dup = dup || chosen[q] == h.index;
      if (!dup && hit_before(h.score, h.index, bs, bi)) {
        bs = h.score;
        bd = h.distance;
        bi = h.index;
      }
    }
    s_score[threadIdx.x] = bs;
    s_dist[threadIdx.x] = bd;
    s_idx[threadIdx.x] = bi;
    __syncthreads();
    block_argmin(s_score, s_idx, s_dist, blockDim.x);
    if (threadIdx.x == 0) {
      const bool none = s_idx[0] == (int64_t(1) << 62);
      res->top[r].score = s_score[0];
      res->top[r].distance = s_dist[0];
      res->top[r].index = none ? -1 : s_idx[0];
      chosen[r] = none ? -2 : s_idx[0];
    }
    __syncthreads();
  }
  const int64_t best = res->top[0].index;
  if (best < 0)
    return;
  int grid, x0, y0;
  decode_window(G, grids, best, &grid, &x0, &y0);
  const DevGrid& gr = grids[grid];
  const DevIntegral R = integrals[G.integral];
  const IntegralRef I{base + R.offset, R.plane_stride, R.cols + 1};
  const int cell = R.cell;
  const int cx0 = (x0 - R.x) / cell, cy0 = (y0 - R.y) / cell, cw = gr.ww / cell, ch = gr.wh / cell;
  if (threadIdx.x < L.parts) {
    int px, py, pw, ph;
    part_box(threadIdx.x, cx0, cy0, cw, ch, &px, &py, &pw, &ph);
    constexpr int T = N * (N + 1) / 2;
    double C[T];
    window_covariance<N>(L, I, cell, px, py, pw, ph, false, C);
    double* out = res->cov[threadIdx.x];
    for (int i = 0; i < N; ++i)
      for (int j = 0; j <= i; ++j)
        out[i * N + j] = out[j * N + i] = C[packed(i, j)];
  }
  for (int p = threadIdx.x; p <= L.planes; p += kReduceThreads)
    res->sums[p] =
        p < L.planes ? box_sum(I, p, cx0, cy0, cw, ch) : static_cast<int64_t>(gr.ww) * gr.wh;
}

template <int N, int NS>
void launch_parts(const Layout& layout, const DevGroup* groups, const DevGrid* grids,
                  const DevIntegral* integrals, const ModelData* models, const int* block_work,
                  int n_blocks, const int64_t* base, DevHit* cand, DevHit* below, int* below_count,
                  unsigned long long* bounds, cudaStream_t stream) {
  windows_parts_kernel<N, NS><<<n_blocks, kPartThreads, 0, stream>>>(
      layout, groups, grids, integrals, models, block_work, base, cand, below, below_count, bounds);
}

template <int N>
Status launch_n(const Layout& layout, Distance distance, const DevGroup* groups, int n_groups,
                const DevGrid* grids, const DevIntegral* integrals, const ModelData* models,
                const int* block_work, int n_blocks, const int64_t* base, DevHit* cand,
                DevHit* below, int* below_count, unsigned long long* bounds, DevResult* results,
                cudaStream_t stream) {
  if (n_blocks > 0 && distance == Distance::kJbld) {
    if (layout.ns == 0) // the thesis's features
      launch_parts<N, 0>(layout, groups, grids, integrals, models, block_work, n_blocks, base, cand,
                         below, below_count, bounds, stream);
    else
      launch_parts<N, -1>(layout, groups, grids, integrals, models, block_work, n_blocks, base,
                          cand, below, below_count, bounds, stream);
    CVIS_CUDA_CHECK_LAUNCH(stream, "windows_parts_kernel");
  } else if (n_blocks > 0) {
    windows_kernel<N><<<n_blocks, kWindowThreads, 0, stream>>>(layout, groups, grids, integrals,
                                                               models, block_work, base, cand,
                                                               below, below_count, bounds);
    CVIS_CUDA_CHECK_LAUNCH(stream, "windows_kernel<foerstner>");
  }
  reduce_kernel<N><<<n_groups, kReduceThreads, 0, stream>>>(layout, groups, grids, integrals, base,
                                                            cand, results);
  CVIS_CUDA_CHECK_LAUNCH(stream, "reduce_kernel");
  return Status::Ok();
}

CVIS_PRELOAD_MODULE(reduce_kernel<5>);

} // namespace

Status launch_search(const Layout& layout, Distance distance, const DevGroup* groups, int n_groups,
                     const DevGrid* grids, const DevIntegral* integrals, const ModelData* models,
                     const int* block_work, int n_blocks, const int64_t* base, DevHit* cand,
                     DevHit* below, int* below_count, unsigned long long* bounds,
                     DevResult* results, cudaStream_t stream) {
  if (n_groups <= 0)
    return Status::Ok();
#define RCD_LAUNCH(n)                                                                              \
  case n:                                                                                          \
    return launch_n<n>(layout, distance, groups, n_groups, grids, integrals, models, block_work,   \
                       n_blocks, base, cand, below, below_count, bounds, results, stream)
  switch (layout.n) {
    RCD_LAUNCH(2);
    RCD_LAUNCH(3);
    RCD_LAUNCH(4);
    RCD_LAUNCH(5);
    RCD_LAUNCH(6);
    RCD_LAUNCH(7);
    RCD_LAUNCH(8);
    RCD_LAUNCH(9);
  default:
    return internal_error("feature count out of range");
  }
#undef RCD_LAUNCH
}

} // namespace cvis::rcdtrack::kernels

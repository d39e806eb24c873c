// Kernels of the CUDA backend: the prologue (ray directions, angle tables, unary terms), and the
// trellis (one block or cluster per (scene block, model) pair, all rows in one launch with a
// barrier between them).
#include "actionmatch_kernels.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

#include "actionmatch.hpp"
#include "actionmatch_terms.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/preload.hpp"

// Thread-block clusters (sm_90): the kernels below use them only where compiled for compute_90 or
// later, and the launcher asks for them only then (ptxVersion); the CPU emulation has none.
// cooperative_groups is included only for that device code: it needs the CCCL headers
// (cuda/std/...), which some toolkits package apart (Debian trixie's CUDA 12.4: libcu++-dev), and
// builds for older architectures only (the Jetson and GStreamer 1.26 CI parts: sm_72, sm_87) do
// without them.
#if !defined(CVIS_EMU)
#define CVIS_AM_CLUSTERS 1
#endif
#if defined(CVIS_AM_CLUSTERS) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CVIS_AM_CLUSTER_CODE 1
#include <cooperative_groups.h>

#include "actionmatch_cluster_ptx.cuh"
#endif

namespace cvis::actionmatch::kernels {

namespace {

using terms::kInf;
static_assert(kTrellisThreads >= kMaxModelNodes, "the backtracking stores z in red_k");

// The prologue's shape: blocks of 32 x 8 threads; the first ceil(scene_nodes / 8) blocks take
// 8 scene nodes each (a lane per ray of the node's window), the next (with the angle table) 32
// trellis cells each, the others unary tiles of 32 columns x 16 model nodes (kUnaryNodes), the
// descriptors read kUnaryChunk values at a time.
constexpr int kPrologueX = 32, kPrologueY = 8, kUnaryChunk = 32;

// Programmatic dependent launch (sm_90, launches in clusters only, launch_trellis): the prologue
// lets the trellis launch early, and the trellis waits for the whole prologue (its completion and
// its memory) before it reads anything the prologue wrote, so that the trellis's launch and the
// part of its set-up that reads only the uploaded input overlap the prologue's tail. Both are
// no-ops in a launch without the attribute, and absent where there is no cluster code.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(CVIS_AM_CLUSTER_CODE)
  cudaTriggerProgrammaticLaunchCompletion(); // griddepcontrol.launch_dependents
#endif
}
__device__ __forceinline__ void wait_for_prologue() {
#if defined(CVIS_AM_CLUSTER_CODE)
  cudaGridDependencySynchronize(); // griddepcontrol.wait
#endif
}

__device__ void directions_block(const Problem& p, int dblock) {
  const int x = dblock * kPrologueY + threadIdx.y;
  if (x >= p.scene_nodes)
    return;
  const BlockInfo B = p.blocks[p.node_block[x]];
  double* out = p.dir + B.dir0 + p.dir_rel[x];
  const int first = B.node0 + p.win_lo[x], n = p.win_cnt[x];
  const float x0 = p.x[x], y0 = p.y[x];
  for (int k = threadIdx.x; k < n; k += kPrologueX)
    out[k] = terms::ray(x0, y0, p.x[first + k], p.y[first + k]);
}

// The scene block of cell `cell` (an index into the cells of all blocks): the last block with
// cell0 <= cell (blocks without cells share their successor's cell0), by binary search.
__device__ int block_of(const Problem& p, int cell) {
  int lo = 0, hi = p.nblocks - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (p.blocks[mid].cell0 <= cell)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// Angle table of 32 cells (8 lanes per cell, a lane per 8th candidate): the angles d_term would
// compute from the direction table, by the same terms::ray and terms::angle_at, hence the same
// bits (the rays are recomputed here: the direction table is made by this same launch).
__device__ void angles_block(const Problem& p, int tblock) {
  const int tid = threadIdx.y * kPrologueX + threadIdx.x;
  const int cg = tblock * (kPrologueX * kPrologueY / 8) + tid / 8, lane = tid % 8;
  if (cg >= p.total_cells)
    return;
  const BlockInfo B = p.blocks[block_of(p, cg)];
  const int S = B.S, cell = cg - B.cell0;
  const int b = p.cell_b[cg];
  if (b == S || cell >= p.seg_end[B.seg0 + b])
    return; // a dummy member: no distortion term
  const int c = cell - p.seg_base[B.seg0 + b];
  const int32_t* frame = p.frame + B.node0;
  int flo, fhi, first, end;
  terms::candidate_frames(true, frame[b], true, frame[c], p.T, p.causality, &flo, &fhi);
  terms::nodes_of_frames(flo, fhi, p.minnode + B.minnode0, B.frame0, B.frames, S, &first, &end);
  const float* x = p.x + B.node0;
  const float* y = p.y + B.node0;
  SceneAngles* out = p.tri + B.tri0 + p.tri_off[cg];
  const double b_to_c = terms::ray(x[b], y[b], x[c], y[c]);
  for (int a = first + lane; a < end; a += 8) {
    SceneAngles v;
    v.mid = terms::angle_at(terms::ray(x[b], y[b], x[a], y[a]), b_to_c);
    v.last =
        terms::angle_at(terms::ray(x[a], y[a], x[b], y[b]), terms::ray(x[a], y[a], x[c], y[c]));
    out[a - first] = v;
  }
}

// The plans of 256 cells (a thread per cell, in each block's work order; CellPlan): the interval
// of candidates from the same terms::candidate_frames / nodes_of_frames the trellis used per row.
__device__ void plans_block(const Problem& p, int pblock) {
  const int gi = pblock * (kPrologueX * kPrologueY) + threadIdx.y * kPrologueX + threadIdx.x;
  if (gi >= p.total_cells)
    return;
  const BlockInfo B = p.blocks[block_of(p, gi)];
  const int S = B.S;
  const int cell = p.cell_order[gi];
  const int b = p.cell_b[B.cell0 + cell];
  const int c = cell < p.seg_end[B.seg0 + b] ? cell - p.seg_base[B.seg0 + b] : S;
  const int32_t* frame = p.frame + B.node0;
  int flo, fhi, first, end;
  terms::candidate_frames(b < S, b < S ? frame[b] : 0, c < S, c < S ? frame[c] : 0, p.T,
                          p.causality, &flo, &fhi);
  terms::nodes_of_frames(flo, fhi, p.minnode + B.minnode0, B.frame0, B.frames, S, &first, &end);
  const int gap = b < S && c < S ? frame[b] - frame[c] : -1;
  const int code = gap >= 0 && gap < kNoGapCode ? gap : kNoGapCode;
  CellPlan pl;
  pl.cell = static_cast<uint32_t>(cell) | static_cast<uint32_t>(code) << kPlanCellBits;
  pl.bc = static_cast<uint32_t>(b) | static_cast<uint32_t>(c) << 16;
  pl.range = static_cast<uint32_t>(first) | static_cast<uint32_t>(end) << 16;
  pl.tri = p.tri_off[B.cell0 + cell];
  p.plan[gi] = pl;
}

// Model nodes of a unary tile: two per thread (rows ty and ty + kPrologueY), so that each scene
// value read from shared memory serves two sums and a thread has two independent addition chains.
constexpr int kUnaryNodes = 2 * kPrologueY;

// Tile `tile`: columns (unary slots) [32 tx0, + 32) x model nodes [16 ty0, + 16). Thread (tx, ty)
// sums its two (model node, column) values term by term in index order, reading both descriptors
// from shared memory (the scene's transposed, so that the 32 lanes of a warp read 32 banks, the
// model's broadcast): the same operations as terms::unary_q, hence the same bits. The descriptors
// are staged as doubles (the double of a float is exact, so the terms are unchanged): each value
// is converted once when staged instead of once per product (float -> double conversions run at a
// quarter of the FP64 rate on sm_90). The next chunk's values are loaded into registers while the
// current one is summed, so that the L2 latency of the staging is not paid once per chunk.
__device__ void unary_tile(const Problem& p, int tile) {
  __shared__ double sc[kUnaryChunk][kPrologueX + 1];
  __shared__ double md[kUnaryNodes][kUnaryChunk];
  __shared__ int node_of[kPrologueX]; // scene node of each column of the tile, -1: dummy or none
  constexpr int kScenePerThread = kPrologueX / kPrologueY;
  const int tiles_x = (p.slots + kPrologueX - 1) / kPrologueX;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int slot0 = (tile % tiles_x) * kPrologueX, g0 = (tile / tiles_x) * kUnaryNodes;
  const int slot = slot0 + tx;
  int s = 0, a = 0;
  BlockInfo B;
  if (slot < p.slots) {
    s = p.slot_block[slot];
    B = p.blocks[s];
    a = slot - B.slot0;
  }
  if (ty == 0)
    node_of[tx] = slot < p.slots && a < B.S ? B.node0 + a : -1;
  __syncthreads(); // node_of written (and the previous tile's reads of sc, md done)
  // This thread's share of a chunk's staging: value tx of the descriptors of columns ty + 8 i and
  // of model nodes g0 + ty + 8 i (0 beyond the descriptor or for the dummy / missing columns).
  float sv[kScenePerThread], mv[2];
  const auto fetch = [&](int k0) {
    const int kn = p.dim - k0 < kUnaryChunk ? p.dim - k0 : kUnaryChunk;
#pragma unroll
    for (int i = 0; i < kScenePerThread; ++i) {
      const int n = node_of[ty + kPrologueY * i];
      sv[i] = n >= 0 && tx < kn ? p.scene_desc[static_cast<int64_t>(n) * p.dim + k0 + tx] : 0.f;
    }
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int g = g0 + ty + kPrologueY * i;
      mv[i] = g < p.model_nodes && tx < kn ? p.model_desc[static_cast<int64_t>(g) * p.dim + k0 + tx]
                                           : 0.f;
    }
  };
  fetch(0);
  double sum0 = 0.0, sum1 = 0.0;
  for (int k0 = 0; k0 < p.dim; k0 += kUnaryChunk) {
    const int kn = p.dim - k0 < kUnaryChunk ? p.dim - k0 : kUnaryChunk;
    __syncthreads(); // the previous chunk read
#pragma unroll
    for (int i = 0; i < kScenePerThread; ++i)
      sc[tx][ty + kPrologueY * i] = static_cast<double>(sv[i]);
    md[ty][tx] = static_cast<double>(mv[0]);
    md[ty + kPrologueY][tx] = static_cast<double>(mv[1]);
    __syncthreads();
    if (k0 + kUnaryChunk < p.dim)
      fetch(k0 + kUnaryChunk); // in flight during the sums below
    if (kn == kUnaryChunk) {
#pragma unroll 8
      for (int k = 0; k < kUnaryChunk; ++k) {
        const double v = sc[k][tx];
        sum0 = terms::unary_add(sum0, md[ty][k], v);
        sum1 = terms::unary_add(sum1, md[ty + kPrologueY][k], v);
      }
    } else {
      for (int k = 0; k < kn; ++k) {
        const double v = sc[k][tx];
        sum0 = terms::unary_add(sum0, md[ty][k], v);
        sum1 = terms::unary_add(sum1, md[ty + kPrologueY][k], v);
      }
    }
  }
  if (slot >= p.slots)
    return;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int g = g0 + ty + kPrologueY * i;
    if (g >= p.model_nodes)
      continue;
    const int m = p.node_model[g], r = g - p.model_node0[m];
    const PairInfo& pi = p.pairs[s * p.nmodels + m];
    int64_t* out = p.unary + pi.unary0 + static_cast<int64_t>(r) * (B.S + 1) + a;
    *out = a == B.S ? p.dummy_q : terms::unary_finish(i == 0 ? sum0 : sum1, p.lambda1);
  }
}

// Blocks [0, dir_blocks): directions; [dir_blocks, tri_blocks): angle tables; [tri_blocks,
// plan_blocks): cell plans; the rest stride over the unary tiles (block-uniform, so the tiles'
// barriers are reached by every thread of a block).
__global__ void __launch_bounds__(kPrologueX* kPrologueY)
    prologue_kernel(Problem p, int dir_blocks, int tri_blocks, int plan_blocks, int unary_tiles) {
  allow_dependent_launch(); // the trellis may launch; it waits for this grid (wait_for_prologue)
  const int bx = blockIdx.x;
  if (bx < dir_blocks) {
    directions_block(p, bx);
    return;
  }
  if (bx < tri_blocks) {
    angles_block(p, bx - dir_blocks);
    return;
  }
  if (bx < plan_blocks) {
    plans_block(p, bx - tri_blocks);
    return;
  }
  const int stride = gridDim.x - plan_blocks;
  for (int tile = bx - plan_blocks; tile < unary_tiles; tile += stride)
    unary_tile(p, tile);
}

// The tables of one scene block the trellis reads per candidate.
struct Tables {
  const int32_t* seg_base;
  const int32_t* seg_end;
  const int32_t* frame;
  const int32_t* win_lo;
  const int32_t* dir_rel;
  const int32_t* minnode;
  const double* dir;
  int S;

  __device__ int cell(int b, int c) const { return c == S ? seg_end[b] : seg_base[b] + c; }
  // Directions from node x, indexed by the target node.
  __device__ const double* rays(int x) const { return dir + dir_rel[x] - win_lo[x]; }
};

// lambda2 D(a, b, c) for three scene nodes at model row `row`, ray(b -> c) given.
__device__ __forceinline__ int64_t d_term(const ModelRow& row, const Tables& t, int a, int b, int c,
                                          int fb, int fc, double b_to_c, const double* from_b,
                                          double lambda2, double lambda3) {
  const double* from_a = t.rays(a);
  const int fa = t.frame[a];
  const double smid = terms::angle_at(from_b[a], b_to_c);
  const double slast = terms::angle_at(from_a[b], from_a[c]);
  return terms::distortion_q(row.gap1, row.gap2, row.mid, row.last, fa - fb, fb - fc, smid, slast,
                             lambda2, lambda3);
}

// Minimum of (v, key) over a warp, smaller key first among equal v; every lane gets it.
__device__ void warp_argmin(int64_t* v, int32_t* key) {
  const int lane = threadIdx.x & 31;
  for (int m = 16; m > 0; m >>= 1) {
    const int src = lane ^ m;
    const int lo =
        __shfl_sync(0xFFFFFFFFu, static_cast<int>(static_cast<uint64_t>(*v) & 0xFFFFFFFFu), src);
    const int hi = __shfl_sync(0xFFFFFFFFu, static_cast<int>(static_cast<uint64_t>(*v) >> 32), src);
    const int32_t ok = __shfl_sync(0xFFFFFFFFu, *key, src);
    const int64_t ov = static_cast<int64_t>(
        (static_cast<uint64_t>(static_cast<uint32_t>(hi)) << 32) | static_cast<uint32_t>(lo));
    if (ov < *v || (ov == *v && ok < *key)) {
      *v = ov;
      *key = ok;
    }
  }
}

// Minimum of (v, key) over each aligned group of G lanes (G a power of two <= 32), smaller key
// first among equal v; every lane of the group gets it. Every lane of the warp calls it.
__device__ void group_argmin(int64_t* v, int32_t* key, int G) {
  const int lane = threadIdx.x & 31;
  for (int m = G / 2; m > 0; m >>= 1) {
    const int src = lane ^ m;
    const int lo =
        __shfl_sync(0xFFFFFFFFu, static_cast<int>(static_cast<uint64_t>(*v) & 0xFFFFFFFFu), src);
    const int hi = __shfl_sync(0xFFFFFFFFu, static_cast<int>(static_cast<uint64_t>(*v) >> 32), src);
    const int32_t ok = __shfl_sync(0xFFFFFFFFu, *key, src);
    const int64_t ov = static_cast<int64_t>(
        (static_cast<uint64_t>(static_cast<uint32_t>(hi)) << 32) | static_cast<uint32_t>(lo));
    if (ov < *v || (ov == *v && ok < *key)) {
      *v = ov;
      *key = ok;
    }
  }
}

// Sum over a warp; every lane gets it.
__device__ int64_t warp_sum(int64_t v) {
  const int lane = threadIdx.x & 31;
  for (int m = 16; m > 0; m >>= 1) {
    const uint64_t u = static_cast<uint64_t>(v);
    const int lo = __shfl_sync(0xFFFFFFFFu, static_cast<int>(u & 0xFFFFFFFFu), lane ^ m);
    const int hi = __shfl_sync(0xFFFFFFFFu, static_cast<int>(u >> 32), lane ^ m);
    v += static_cast<int64_t>((static_cast<uint64_t>(static_cast<uint32_t>(hi)) << 32) |
                              static_cast<uint32_t>(lo));
  }
  return v;
}

// The block's rank in its cluster of K blocks (0 without clusters).
__device__ __forceinline__ int cluster_rank(int K) {
#if defined(CVIS_AM_CLUSTER_CODE)
  if (K > 1)
    return static_cast<int>(cooperative_groups::this_cluster().block_rank());
#elif defined(__CUDA_ARCH__)
  if (K > 1)
    __trap(); // never asked for (trellis_cluster checks ptxVersion): fail loudly, not wrongly
#endif
  return 0;
}

// The barrier between trellis rows: the whole cluster (release/acquire at cluster scope, so the
// alpha values written into the other blocks' shared memory and the beta tables are visible
// after it), or the block.
__device__ __forceinline__ void row_barrier(int K) {
#if defined(CVIS_AM_CLUSTER_CODE)
  if (K > 1) {
    cooperative_groups::this_cluster().sync();
    return;
  }
#endif
  __syncthreads();
}

// alpha_r(cell) = v: with a cluster and shared-memory rows, into the copy of every block of the
// cluster (each reads the previous row locally); otherwise into the one row.
__device__ __forceinline__ void store_alpha(int64_t* cur, int cell, int64_t v, int K,
                                            bool shared_rows) {
#if defined(CVIS_AM_CLUSTER_CODE)
  if (K > 1 && shared_rows) {
    cooperative_groups::cluster_group cl = cooperative_groups::this_cluster();
    for (int j = 0; j < K; ++j)
      *cl.map_shared_rank(cur + cell, j) = v;
    return;
  }
#endif
  cur[cell] = v;
}

// beta_r(cell) = v: into the argmin tables of the pair's first block, which backtracks (its shared
// memory `srow`, through distributed shared memory from the other blocks of a cluster), or the
// global ones `grow`. Two pointers rather than one chosen at run time, so that the shared store is
// a shared-memory instruction and not a generic one.
__device__ __forceinline__ void store_beta(uint16_t* srow, uint16_t* grow, int cell, uint16_t v,
                                           int K, bool shared_beta) {
  if (shared_beta) {
#if defined(CVIS_AM_CLUSTER_CODE)
    if (K > 1) {
      *cooperative_groups::this_cluster().map_shared_rank(srow + cell, 0) = v;
      return;
    }
#endif
    srow[cell] = v;
    return;
  }
  grow[cell] = v;
}

// The folded trellis's per-b minima are kept as 32-bit lower bounds of the int64 values (which are
// >= 0): v >> shift, at most 0xFFFFFFFF (also for kInf), so that (key << shift) <= v. A lower bound
// is all the test needs (it then settles no cell it should not), and 32-bit atomic minima are
// native in shared memory, where 64-bit ones are compare-and-swap loops.
__device__ __forceinline__ uint32_t q_key(int64_t v, int shift) {
  const uint64_t k = static_cast<uint64_t>(v) >> shift;
  return k > 0xFFFFFFFFull ? 0xFFFFFFFFu : static_cast<uint32_t>(k);
}

// The folded trellis's stores into the cluster's copies take 32-bit shared::cluster addresses
// (actionmatch_cluster_ptx.cuh) instead of cooperative_groups' generic 64-bit pointers (mapa then a
// generic store), which kept a 64-bit base pointer live across the row loop (a spill).
// q[i] = min(q[i], key) in the per-b minimum row of every block of the cluster.
__device__ __forceinline__ void min_all(uint32_t* q, int i, uint32_t key, int K) {
#if defined(CVIS_AM_CLUSTER_CODE)
  if (K > 1) {
    for (int j = 0; j < K; ++j)
      cluster_ptx::min_u32(cluster_ptx::addr(q + i, j), key);
    return;
  }
#endif
  (void)K;
  atomicMin(q + i, key);
}

// store_alpha of the folded trellis (the same stores, by 32-bit shared::cluster addresses).
__device__ __forceinline__ void store_alpha_fold(int64_t* cur, int cell, int64_t v, int K) {
#if defined(CVIS_AM_CLUSTER_CODE)
  if (K > 1) {
    for (int j = 0; j < K; ++j)
      cluster_ptx::store_u64(cluster_ptx::addr(cur + cell, j), v);
    return;
  }
#endif
  (void)K;
  cur[cell] = v;
}

// The frame-gap term lambda2 |model_gap - (t(b) - t(c))| of a cell with gap code `code`
// (CellPlan), or 0 without a known gap: either way a lower bound of that part of a distortion term
// (terms::gap_q; README.md, "Tenth round").
__device__ __forceinline__ int64_t gap_term(double lambda2, int model_gap, int code) {
  return code < kNoGapCode ? terms::gap_q(lambda2, model_gap - code) : 0;
}

// Block-wide minimum of (v, key), smaller key first among equal v; every thread gets it. The
// smallest (v, key) pair is unique whatever the order of the comparisons (the keys differ), so the
// warps' shuffle reductions, then one warp over the warps' minima, give the same pair as a tree
// over all threads, with two barriers instead of log2(blockDim.x). blockDim.x: a multiple of 32.
__device__ void block_argmin(int64_t* v, int32_t* key, int64_t* red_v, int32_t* red_k) {
  const int t = threadIdx.x, warps = blockDim.x / 32;
  warp_argmin(v, key);
  if ((t & 31) == 0) {
    red_v[t / 32] = *v;
    red_k[t / 32] = *key;
  }
  __syncthreads();
  if (t < 32) {
    int64_t wv = t < warps ? red_v[t] : kInf;
    int32_t wk = t < warps ? red_k[t] : INT32_MAX;
    warp_argmin(&wv, &wk);
    if (t == 0) {
      red_v[warps] = wv;
      red_k[warps] = wk;
    }
  }
  __syncthreads();
  *v = red_v[warps];
  *key = red_k[warps];
  __syncthreads(); // red_* may be reused right after
}

// dst[i] = src[i] for i = tid, tid + nt, ... < n, four loads in flight per thread before their
// stores (the staging at the start of the trellis is a few rounds of L2 latency, not bandwidth).
template <typename T>
__device__ __forceinline__ void stage(T* dst, const T* src, int64_t n, int tid, int nt) {
  int64_t i = tid;
  for (; i + 3 * static_cast<int64_t>(nt) < n; i += 4 * static_cast<int64_t>(nt)) {
    const T v0 = src[i], v1 = src[i + nt], v2 = src[i + 2 * nt], v3 = src[i + 3 * nt];
    dst[i] = v0;
    dst[i + nt] = v1;
    dst[i + 2 * nt] = v2;
    dst[i + 3 * nt] = v3;
  }
  for (; i < n; i += nt)
    dst[i] = src[i];
}

// kTri: the distortion terms take the scene angles from the block's angle table (computed once
// per call) instead of from three ray directions per candidate (d_term); the same bits.
// kShared: everything the rows read per candidate is in shared memory (scene tables, alpha rows,
// the angle table or the ray directions, the unary table, the cell plans: trellis_all_shared(),
// e.g. 60-node blocks). The pointers are then known at compile time to point into shared memory,
// so the candidate loop uses shared loads with 32-bit addresses instead of generic loads with
// 64-bit address arithmetic (the other instantiation chooses per launch, so its pointers may
// point to either space); the same computation, the same bits.
// kFold (with kTri and kShared only; README.md, "Seventh round"): the alpha rows hold
// alpha'_r(b, c) = alpha_r(b, c) + lambda1 U_{r-1}(b) (kInf stays kInf), with a row M of
// alpha'_M(a, b) = U_{M-1}(a) before the first, so that a candidate's total is alpha'_{r+1}(a, b) +
// D, the dummy's alpha'_{r+1}(dummy, b), and the final minimisation's U_0(c) + alpha'_2(b, c): the
// same integers as before, summed in another order (int64, exact). With p.row_bound, row r + 1 also
// keeps q_{r+1}[b] = the smallest alpha'_{r+1}(a, b) over its states with a real (atomic minima at
// the stores), a lower bound of every real candidate's total in row r's cells (b, c); a cell with
// q_{r+1}[b] > alpha'_{r+1}(dummy, b) is then the dummy's (the fifth round's bound skips every one
// of its candidates), without its candidate loop.
// kSolo (with kFold only; Problem::solo, README.md "Tenth round"): one block per pair, the model
// rows in the reduction scratch, the argmin tables in shared memory, the per-b minima on and no
// settle counts, all known at compile time: the same computation without the per-row and per-cell
// tests of the general folded kernel.
template <bool kTri, bool kShared, bool kFold = false, bool kSolo = false>
__global__ void __launch_bounds__(kTrellisThreads) trellis_kernel(Problem p) {
  static_assert(!kFold || (kTri && kShared), "the folded trellis is the all-shared angle one");
  static_assert(!kSolo || kFold, "the solo kernel is a folded one");
  extern __shared__ int64_t smem[];
  // A pair is one block, or a cluster of K = p.cluster blocks that share its rows (README.md).
  const int K = kSolo ? 1 : p.cluster, rank = cluster_rank(K), pair = blockIdx.x / K;
  const PairInfo pi = p.pairs[pair];
  const BlockInfo B = p.blocks[pi.block];
  const int S = B.S, C = B.cells, tid = threadIdx.x, nt = blockDim.x;
  const int g0 = p.model_node0[pi.model], M = p.model_node0[pi.model + 1] - g0;

  // Shared memory (shared_layout): reduction scratch, then what the host chose to stage there.
  const SharedLayout sl = shared_layout(p, nt);
  uint8_t* base = reinterpret_cast<uint8_t*>(smem);
  int64_t* red_v = smem;
  int32_t* red_k = reinterpret_cast<int32_t*>(red_v + nt);
  Tables t;
  t.S = S;
  t.minnode = p.minnode + B.minnode0;
  t.seg_base = p.seg_base + B.seg0;
  t.seg_end = p.seg_end + B.seg0;
  t.frame = p.frame + B.node0;
  t.win_lo = p.win_lo + B.node0;
  t.dir_rel = p.dir_rel + B.node0;
  t.dir = p.dir + B.dir0;
  const int64_t* U = p.unary + pi.unary0;
  if (kShared || p.shared_tables) {
    int32_t* sb = reinterpret_cast<int32_t*>(base + sl.tables);
    int32_t* se = sb + p.max_segments;
    int32_t* fr = se + p.max_segments;
    int32_t* wl = fr + p.max_nodes;
    int32_t* dr = wl + p.max_nodes;
    for (int i = tid; i < B.segments; i += nt) {
      sb[i] = t.seg_base[i];
      se[i] = t.seg_end[i];
    }
    for (int i = tid; i < S; i += nt) {
      fr[i] = t.frame[i];
      wl[i] = t.win_lo[i];
      dr[i] = t.dir_rel[i];
    }
    t.seg_base = sb;
    t.seg_end = se;
    t.frame = fr;
    t.win_lo = wl;
    t.dir_rel = dr;
  }
  // Everything above read the uploaded input only; what follows reads the prologue's tables.
  wait_for_prologue();
  const SceneAngles* tri = kTri ? p.tri + B.tri0 : nullptr;
  if (kTri && (kShared || p.shared_tri)) {
    const int64_t end = pi.block + 1 < p.nblocks ? p.blocks[pi.block + 1].tri0 : p.total_tri;
    SceneAngles* d = reinterpret_cast<SceneAngles*>(base + sl.tri);
    stage(d, tri, end - B.tri0, tid, nt);
    tri = d;
  }
  if ((!kTri && kShared) || p.shared_dir) {
    // The block's table ends where the next block's starts (or at the end of all).
    const int64_t end = pi.block + 1 < p.nblocks ? p.blocks[pi.block + 1].dir0 : p.total_dirs;
    double* d = reinterpret_cast<double*>(base + sl.dir);
    stage(d, t.dir, end - B.dir0, tid, nt);
    t.dir = d;
  }
  if (kShared || p.shared_unary) {
    int64_t* u = reinterpret_cast<int64_t*>(base + sl.unary);
    stage(u, U, static_cast<int64_t>(M) * (S + 1), tid, nt);
    U = u;
  }
  int64_t* alpha_rows =
      kShared || p.shared_alpha ? reinterpret_cast<int64_t*>(base + sl.alpha) : p.alpha + pi.alpha0;
  const uint16_t* cell_b = p.cell_b + B.cell0;
  // The cell plans (CellPlan, in work order): a row's set-up of a cell is one load of them.
  const CellPlan* plan = p.plan + B.cell0;
  if (kShared || p.shared_plan) {
    CellPlan* d = reinterpret_cast<CellPlan*>(base + sl.plan);
    stage(d, plan, C, tid, nt);
    plan = d;
  }
  // The model's hyperedge rows, read at the top of every row: in the reduction scratch (free until
  // the final minimisation, which comes after the last row barrier) when they fit, so that a row
  // does not start with an L2 round trip.
  const ModelRow* mrows = p.rows + g0;
  ModelRow* srows = reinterpret_cast<ModelRow*>(base);
  const bool rows_in_scratch =
      kSolo || rows_fit_scratch(M, nt);
  if (rows_in_scratch)
    for (int i = tid; i < M; i += nt)
      srows[i] = mrows[i];
  const bool dummies = kSolo || p.dummies != 0;
  // Work order (README.md, speed section): round k of the cell loop takes order[k NG .. + NG) (NG
  // lane groups, below), forwards in even rounds and backwards in odd ones, so that every warp gets
  // cells of one kind and of nearly equal candidate counts and the totals stay balanced; the state
  // (dummy, dummy), last in the order, is left to one warp after the loop. With a cluster, "thread"
  // gt = rank nt + tid of NT = K nt, and the barrier makes sure that every block has started before
  // any writes into another's shared memory.
  const int NT = K * nt, gt = rank * nt + tid;
  // G lanes per cell (README.md): the largest power of two <= 32 with G cells <= NT, so that a
  // row shorter than the threads still uses them all; the work order is over the NG groups.
  int G = 1;
  while (G < 32 && 2 * G * static_cast<int64_t>(C) <= NT)
    G *= 2;
  const int NG = NT / G;
  // Wide groups (README.md): when a row fits one round, the threads left over give the first X
  // cells of the work order (the geometry cells with the most candidates, which make a row's
  // longest warp) 2G lanes instead of G; X is a multiple of 16 / G, so that every warp holds
  // groups of one width (the shuffle reduction is warp-wide), and the last warp stays free for
  // the state (dummy, dummy) below. Thread gt takes cell index grp of the round with lane `lane`
  // of a group of Gt lanes; X = 0 is the plain mapping.
  int X = 0;
  if (C <= NG && G < 32 && NT - 32 > G * C) {
    X = (NT - 32 - G * C) / G; // < C, since 2 G C > NT
    X -= X % (16 / G);
  }
  const bool wide = gt < 2 * G * X;
  const int Gt = wide ? 2 * G : G;
  const int grp = wide ? gt / Gt : X + (gt - 2 * G * X) / G;
  const int lane = (wide ? gt : gt - 2 * G * X) & (Gt - 1);
  const bool shared_rows = kShared || p.shared_alpha != 0;
  // The argmin tables: in shared memory (when they fit) the backtracking's chain of M - 2
  // dependent reads stays on the SM instead of going to L2.
  const bool shared_beta = kSolo || p.shared_beta != 0;
  // (Both kept: see store_beta.)
  uint16_t* beta_srows = reinterpret_cast<uint16_t*>(base + sl.beta);
  uint16_t* beta_grows = p.beta + pi.beta0;
  // The folded trellis: row M (alpha'_M(a, b) = U_{M-1}(a)) and its per-b minima, by every block
  // into its own copy; the other two minimum rows start at kInf. The barrier below orders them
  // before any other block's stores. A minimum row holds the plain minima at [0, QH) and, at
  // [QH, 2 QH), those with the next row's frame-gap term (README.md, "Tenth round"): q1[b] = the
  // smallest alpha'_{r+1}(a, b) + lambda2 |gap1_r - (t(a) - t(b))| over its states with a real,
  // a lower bound of every real candidate's total in row r's cells (b, c) with c real, together
  // with the cell's own lambda2 |gap2_r - (t(b) - t(c))| (minus one grid step: the two terms are
  // rounded separately).
  const bool row_bound = kFold && (kSolo || p.dummies != 0);
  uint32_t* q = kFold ? reinterpret_cast<uint32_t*>(base + sl.q) : nullptr;
  const int QS = kFold ? static_cast<int>(fold_q_entries(p)) : 0, QH = QS / 2, qshift = p.q_shift;
  if (kFold) {
    for (int i = tid; i < 3 * QS; i += nt)
      q[i] = 0xFFFFFFFFu;
    __syncthreads();
    int64_t* row_m = alpha_rows + (M & 1) * static_cast<int64_t>(C);
    const int64_t* u_last = U + static_cast<int64_t>(M - 1) * (S + 1);
    uint32_t* q_m = q + (M % 3) * QS;
    const int gap1_m = (rows_in_scratch ? srows[M - 1] : mrows[M - 1]).gap1;
    for (int i = tid; i < C; i += nt) {
      const CellPlan pl = plan[i];
      const int x = static_cast<int>(pl.bc & 0xFFFFu), y = static_cast<int>(pl.bc >> 16);
      const int64_t v = u_last[x];
      row_m[plan_cell(pl)] = v;
      if (row_bound && x < S) {
        min_all(q_m, y, q_key(v, qshift), 1);
        if (y < S)
          min_all(q_m + QH, y, q_key(v + gap_term(p.lambda2, gap1_m, plan_gap(pl)), qshift), 1);
      }
    }
  }
  row_barrier(K);

  // The warp of the state (dummy, dummy), below: the one with the least work in the last round.
  const int dd0 = (((C + NG - 1) / NG) & 1) ? NT - 32 : 0;
  // The three rows of per-b minima rotate (read: row r + 1's, written: row r's, reset: the one
  // row r - 1 writes), as offsets rather than (r + k) % 3 per row.
  int q_nx = (M % 3) * QS, q_cu = ((M - 1) % 3) * QS, q_ol = ((M + 1) % 3) * QS;

  // Eq. (11) for r = M - 1, eq. (10) down to r = 2: row r reads row r + 1.
  for (int r = M - 1; r >= 2; --r) {
    const ModelRow row = rows_in_scratch ? srows[r] : mrows[r];
    const int64_t* Ur = U + static_cast<int64_t>(r) * (S + 1);
    // Row r + 1 (none for the last model node: alpha_{M+1} = 0). A flag rather than a null
    // pointer, so that the pointer stays a shared-memory one with kShared.
    const bool has_next = kFold || r != M - 1;
    const int64_t* nxt = alpha_rows + ((r + 1) & 1) * (kFold ? C : static_cast<int64_t>(C));
    int64_t* cur = alpha_rows + (r & 1) * (kFold ? C : static_cast<int64_t>(C));
    uint16_t* beta_s = beta_srows + static_cast<int64_t>(r - 2) * C;
    uint16_t* beta_g = beta_grows + static_cast<int64_t>(r - 2) * C;
    // The folded trellis: lambda1 U_{r-1}, added to this row's values at the stores; the per-b
    // minima of row r + 1 (read), of this row (written by the stores; none needed in row 2), and
    // the third, reset for row r - 1 (row r + 1 read it before the last barrier).
    const int64_t* u_prev = kFold ? U + static_cast<int64_t>(r - 1) * (S + 1) : nullptr;
    const uint32_t* q_next = kFold ? q + q_nx : nullptr;
    uint32_t* q_cur = kFold ? q + q_cu : nullptr;
    if (kFold && row_bound) {
      uint32_t* q_old = q + q_ol;
      for (int i = tid; i <= S; i += nt) {
        q_old[i] = 0xFFFFFFFFu;
        q_old[QH + i] = 0xFFFFFFFFu;
      }
    }
    {
      const int t0 = q_nx;
      q_nx = q_cu;
      q_cu = q_ol;
      q_ol = t0;
    }
    for (int base = 0, k_round = 0; base < C; base += NG, ++k_round) {
      // Every lane of a warp runs every round (the group reduction below is warp-synchronous).
      const int i = base + ((k_round & 1) ? NG - 1 - grp : grp);
      CellPlan pl;
      if (i < C) {
        pl = plan[i];
      } else {
        pl.cell = static_cast<uint32_t>(kNoGapCode) << kPlanCellBits;
        pl.bc = static_cast<uint32_t>(S) | static_cast<uint32_t>(S) << 16;
        pl.range = 0;
        pl.tri = 0;
      }
      const int cell = plan_cell(pl);
      const int b = static_cast<int>(pl.bc & 0xFFFFu), c = static_cast<int>(pl.bc >> 16);
      // The dummy-dummy state is left to one warp below.
      const bool active = i < C && !(b == S && c == S);
      int64_t best = kInf;
      int32_t arg = INT32_MAX;
      // Folded: the dummy's total alpha'_{r+1}(dummy, b) (below) first, and with the per-b minima
      // a cell none of whose real candidates can beat the dummy (each one's total is at least
      // q_next[b] << qshift > fdval; that is below 2^63 - 1 = kInf, so fdval < kInf there) is
      // settled at once.
      int64_t fdval = kInf;
      if (kFold && active && dummies)
        fdval = nxt[t.cell(S, b)];
      // A cell of three scene nodes compares with its frame-gap bound instead (above): every real
      // candidate's total is at least (q1[b] << qshift) + lambda2 |gap2_r - (t(b) - t(c))| - 1.
      // (Unsigned: kInf + 1 does not wrap, and no bound reaches 2^63.)
      bool settled = false;
      if (kFold && row_bound && active) {
        if (b < S && c < S) {
          settled = (static_cast<uint64_t>(q_next[QH + b]) << qshift) +
                        static_cast<uint64_t>(gap_term(p.lambda2, row.gap2, plan_gap(pl))) >
                    static_cast<uint64_t>(fdval) + 1;
        } else {
          settled = (static_cast<uint64_t>(q_next[b]) << qshift) > static_cast<uint64_t>(fdval);
        }
      }
      if (settled && lane == 0) {
        best = fdval;
        arg = S;
      }
      if (active && !settled) {
        const int fb = b < S ? t.frame[b] : 0, fc = c < S ? t.frame[c] : 0;
        const int first = static_cast<int>(pl.range & 0xFFFFu),
                  end = static_cast<int>(pl.range >> 16);
        const bool geometry = b < S && c < S;
        const double* from_b = !kTri && geometry ? t.rays(b) : nullptr;
        const double b_to_c = !kTri && geometry ? from_b[c] : 0.0;
        // This cell's angles, indexed by the candidate.
        const SceneAngles* ang = kTri && geometry ? tri + pl.tri - first : nullptr;
        // The cell (a, b) of row r + 1 is next_of[a] + next_add (Tables::cell with b fixed).
        const int32_t* next_of = b < S ? t.seg_base : t.seg_end;
        const int next_add = b < S ? b : 0;
        // lambda2 D(a, b, c) for three scene nodes; with the angle table, from the candidate's
        // two angles and frame.
        const auto dist_tri = [&](const SceneAngles& g, int fa) -> int64_t {
          return terms::distortion_q(row.gap1, row.gap2, row.mid, row.last, fa - fb, fb - fc, g.mid,
                                     g.last, p.lambda2, p.lambda3);
        };
        const auto dist = [&](int a) -> int64_t {
          if (kTri)
            return dist_tri(ang[a], t.frame[a]);
          return d_term(row, t, a, b, c, fb, fc, b_to_c, from_b, p.lambda2, p.lambda3);
        };
        // The dummy's total U(dummy) + alpha_{r+1}(dummy, b) (kInf when infeasible or without
        // dummies), read by every lane first: it bounds the candidates below.
        int64_t dval = fdval;
        if (!kFold && dummies) {
          const int64_t nx = has_next ? nxt[t.cell(S, b)] : 0;
          if (nx != kInf)
            dval = Ur[S] + nx;
        }
        // The bound (README.md, "Fifth round"): the total of candidate a is lb + D with
        // lb = U(a) + alpha_{r+1}(a, b) and D >= 0 (lambda2, lambda3 >= 0). If lb > dval, the
        // dummy (in this group) beats a; if lb >= best, this lane's earlier candidate (a smaller
        // key) does. Either way a is not the group's minimum, and dropping a candidate that is not
        // the minimum of the group's set leaves the minimum, value and key, unchanged: the same
        // results. Only D is skipped (U and alpha_{r+1} are needed for lb), and only where no lane
        // of the warp needs it (one branch per iteration for both candidates, which stay two
        // independent chains). lb of an infeasible a is kInf: never needed, as before never taken.
        // (Folded, alpha'_{r+1}(a, b) is lb itself, kInf included.)
        const auto lower = [&](int64_t nx, int64_t u) -> int64_t {
          return kFold ? nx : nx == kInf ? kInf : u + nx;
        };
        const auto need = [&](int64_t lb) -> bool {
          if (kSolo) // (the bound is on; best <= kInf, so lb < best also excludes lb = kInf)
            return lb < best && lb <= dval;
          return lb != kInf && lb < best && lb <= dval;
        };
        // This lane's candidates first + lane, + Gt, ...: two per iteration, their alpha_{r+1} and
        // U loads issued first, compared in increasing order so that the lane keeps its first
        // minimum.
        int a = first + lane;
        // Solo, a cell with a dummy member has no distortion term: a candidate's total is the
        // one load alpha'_{r+1}(a, b), and the bound, which only skips D, has nothing to skip. Its
        // own loop (README.md, "Tenth round"), without the bound and distortion tests, for the
        // cells that kept the other warps waiting at the row barrier when a block shows an action
        // (their per-b test compares one minimum over all states (a, b)). The same first minimum.
        if (kSolo && !geometry) {
          for (; a + Gt < end; a += 2 * Gt) {
            const int64_t v0 = nxt[next_of[a] + next_add], v1 = nxt[next_of[a + Gt] + next_add];
            if (v0 < best) {
              best = v0;
              arg = a;
            }
            if (v1 < best) {
              best = v1;
              arg = a + Gt;
            }
          }
          if (a < end) {
            const int64_t v = nxt[next_of[a] + next_add];
            if (v < best) {
              best = v;
              arg = a;
            }
          }
          a = end;
        }
        for (; a + Gt < end; a += 2 * Gt) {
          const int a1 = a + Gt;
          int64_t nx0 = 0, nx1 = 0;
          if (has_next) {
            nx0 = nxt[next_of[a] + next_add];
            nx1 = nxt[next_of[a1] + next_add];
          }
          const int64_t lb0 = lower(nx0, kFold ? 0 : Ur[a]), lb1 = lower(nx1, kFold ? 0 : Ur[a1]);
          const bool n0 = need(lb0), n1 = need(lb1);
          int64_t d0 = 0, d1 = 0;
          if (geometry && (n0 || n1)) {
            d0 = dist(a);
            d1 = dist(a1);
          }
          if (n0 && lb0 + d0 < best) {
            best = lb0 + d0;
            arg = a;
          }
          if (n1 && lb1 + d1 < best) {
            best = lb1 + d1;
            arg = a1;
          }
        }
        if (a < end) {
          const int64_t nx = has_next ? nxt[next_of[a] + next_add] : 0;
          const int64_t lb = lower(nx, kFold ? 0 : Ur[a]);
          if (need(lb)) {
            const int64_t v = lb + (geometry ? dist(a) : 0);
            if (v < best) {
              best = v;
              arg = a;
            }
          }
        }
        if (lane == 0 && dval < best) { // the dummy, last (its key S is above every node's)
          best = dval;
          arg = S;
        }
      }
      // The group's minimum of (value, candidate): the first minimum over all its candidates
      // (folded: not needed when every lane of the warp is settled or idle, lane 0 of a group
      // holding its cell's result then; the vote is warp-uniform, as the shuffles need).
      if (Gt > 1 && (!kFold || !__all_sync(0xFFFFFFFFu, settled || !active)))
        group_argmin(&best, &arg, Gt);
      if (active && lane == 0) {
        if (kFold) {
          const int64_t v = best == kInf ? kInf : best + u_prev[b];
          store_alpha_fold(cur, cell, v, K);
          // Row r's minimum per c over its states (b, c) with b real: read by row r - 1's cells
          // whose first member is c.
          if (row_bound && b < S && r > 2) {
            min_all(q_cur, c, q_key(v, qshift), K);
            if (c < S && v != kInf) { // (row r - 1's gap1)
              const int g1 = (rows_in_scratch ? srows[r - 1] : mrows[r - 1]).gap1;
              min_all(q_cur + QH, c, q_key(v + gap_term(p.lambda2, g1, plan_gap(pl)), qshift), K);
            }
          }
        } else {
          store_alpha(cur, cell, best, K, shared_rows);
        }
        // 0 for an infeasible cell: as the one-lane loop.
        store_beta(beta_s, beta_g, cell, static_cast<uint16_t>(best == kInf ? 0 : arg), K,
                   shared_beta);
      }
    }
    if (dummies && gt >= dd0 && gt < dd0 + 32) {
      // State (dummy, dummy): every scene node and the dummy are candidates, D = 0; one warp
      // reduces them without a block barrier.
      int64_t best = kInf;
      int32_t arg = S;
      for (int a = gt - dd0; a <= S; a += 32) {
        const int64_t nx = has_next ? nxt[t.cell(a, S)] : 0;
        if (nx == kInf)
          continue;
        const int64_t v = kFold ? nx : Ur[a] + nx;
        if (v < best) { // a increases within a lane: the first minimum is kept
          best = v;
          arg = a;
        }
      }
      warp_argmin(&best, &arg);
      if (gt == dd0) {
        if (kFold)
          store_alpha_fold(cur, C - 1, best != kInf ? best + u_prev[S] : best, K);
        else
          store_alpha(cur, C - 1, best, K, shared_rows);
        store_beta(beta_s, beta_g, C - 1, static_cast<uint16_t>(arg), K, shared_beta);
      }
    }
    row_barrier(K);
  }
  // The last remote access was before the barrier: the other blocks of a cluster may leave, the
  // first finishes the pair from its own copy of row 2 and the beta tables.
  if (rank != 0)
    return;

  // Eq. (13): the best (z_1, z_2) over the cells of row 2, the smallest (z_1, z_2) among equals.
  const int64_t* a2 = alpha_rows + (2 & 1) * static_cast<int64_t>(C);
  int64_t best = kInf;
  int32_t key = INT32_MAX;
  for (int cell = tid; cell < C; cell += nt) {
    if (a2[cell] == kInf)
      continue;
    const int b = cell_b[cell];
    const int c = cell < t.seg_end[b] ? cell - t.seg_base[b] : S;
    // (Folded: a2 holds alpha_2(b, c) + U_1(b).)
    const int64_t v = kFold ? U[c] + a2[cell] : U[c] + U[(S + 1) + b] + a2[cell];
    const int32_t kk = c * 65536 + b;
    if (v < best || (v == best && kk < key)) {
      best = v;
      key = kk;
    }
  }
  block_argmin(&best, &key, red_v, red_k);
  if (best == kInf) { // the same in every thread
    if (tid == 0)
      p.results[pair] = PairResult{};
    // The slots are read back with the rest (one copy): written, though nobody reads them.
    for (int r = tid; r < M; r += nt)
      p.assignment[pi.assign0 + r] = -1;
    return;
  }

  // Eq. (12): backtracking by one thread, into shared memory (the reduction scratch is free now;
  // M <= kMaxModelNodes = blockDim.x)...
  int32_t* z = red_k;
  if (tid == 0) {
    int zc = key >> 16, zb = key & 0xFFFF;
    z[0] = zc;
    z[1] = zb;
    for (int r = 2; r < M; ++r) {
      const int64_t at = static_cast<int64_t>(r - 2) * C + t.cell(zb, zc);
      const int za = shared_beta ? beta_srows[at] : beta_grows[at];
      z[r] = za;
      zc = zb;
      zb = za;
    }
  }
  __syncthreads();
  // ... then the two parts of the energy along the optimum, one warp in parallel.
  if (tid >= 32)
    return;
  int64_t appearance = 0, distortion = 0;
  int64_t dummy_nodes = 0;
  for (int r = tid; r < M; r += 32) {
    const int a = z[r];
    appearance += U[static_cast<int64_t>(r) * (S + 1) + a];
    dummy_nodes += a == S;
    if (r >= 2) {
      const int b = z[r - 1], c = z[r - 2];
      if (a < S && b < S && c < S) {
        const double* from_b = t.rays(b);
        distortion += d_term(p.rows[g0 + r], t, a, b, c, t.frame[b], t.frame[c], from_b[c], from_b,
                             p.lambda2, p.lambda3);
      }
    }
    p.assignment[pi.assign0 + r] = a == S ? -1 : a;
  }
  appearance = warp_sum(appearance);
  distortion = warp_sum(distortion);
  dummy_nodes = warp_sum(dummy_nodes);
  if (tid == 0) {
    PairResult res;
    res.energy = best;
    res.appearance = appearance;
    res.distortion = distortion;
    res.dummies = static_cast<int32_t>(dummy_nodes);
    res.feasible = 1;
    p.results[pair] = res;
  }
}

CVIS_PRELOAD_MODULE(prologue_kernel);

} // namespace

Status allow_trellis_shared(size_t bytes) {
  const int b = static_cast<int>(bytes);
  const auto attr = cudaFuncAttributeMaxDynamicSharedMemorySize;
  CVIS_CUDA_CHECK(cudaFuncSetAttribute(trellis_kernel<true, true, true, true>, attr, b));
  CVIS_CUDA_CHECK(cudaFuncSetAttribute(trellis_kernel<true, true, true>, attr, b));
  CVIS_CUDA_CHECK(cudaFuncSetAttribute(trellis_kernel<true, true>, attr, b));
  CVIS_CUDA_CHECK(cudaFuncSetAttribute(trellis_kernel<true, false>, attr, b));
  CVIS_CUDA_CHECK(cudaFuncSetAttribute(trellis_kernel<false, true>, attr, b));
  CVIS_CUDA_CHECK(cudaFuncSetAttribute(trellis_kernel<false, false>, attr, b));
  return Status::Ok();
}

Status launch_prologue(const Problem& p, cudaStream_t stream) {
  const int dir_blocks = (p.scene_nodes + kPrologueY - 1) / kPrologueY;
  const int cells_per_block = kPrologueX * kPrologueY / 8;
  const int tri_blocks =
      dir_blocks + (p.use_tri ? (p.total_cells + cells_per_block - 1) / cells_per_block : 0);
  const int64_t tiles = static_cast<int64_t>((p.slots + kPrologueX - 1) / kPrologueX) *
                        ((p.model_nodes + kUnaryNodes - 1) / kUnaryNodes);
  if (tiles > INT32_MAX)
    return Status(StatusCode::kInvalidArgument, "actionmatch: too many unary tiles in one call");
  const int plan_blocks =
      tri_blocks + (p.total_cells + kPrologueX * kPrologueY - 1) / (kPrologueX * kPrologueY);
  const int unary_blocks = static_cast<int>(std::min<int64_t>(tiles, 1 << 20));
  prologue_kernel<<<plan_blocks + unary_blocks, dim3(kPrologueX, kPrologueY), 0, stream>>>(
      p, dir_blocks, tri_blocks, plan_blocks, static_cast<int>(tiles));
  CVIS_CUDA_CHECK_LAUNCH(stream, "prologue_kernel");
  return Status::Ok();
}

#if defined(CVIS_AM_CLUSTERS)
namespace {

using TrellisKernel = void (*)(Problem);

// The instantiation a launch of p runs (kTri: the angle table; kShared: use_shared_trellis()).
TrellisKernel trellis_for(const Problem& p) {
  if (p.fold && p.solo)
    return trellis_kernel<true, true, true, true>;
  if (p.fold)
    return trellis_kernel<true, true, true>;
  if (p.use_tri)
    return trellis_all_shared(p) ? trellis_kernel<true, true> : trellis_kernel<true, false>;
  return trellis_all_shared(p) ? trellis_kernel<false, true> : trellis_kernel<false, false>;
}

// The launch configuration of a trellis launch in clusters of K blocks (cfg keeps a pointer to
// attr; a caller may add attributes after it in an array and raise cfg->numAttrs).
void cluster_config(int K, int pairs, int threads, size_t shared_bytes, cudaStream_t stream,
                    cudaLaunchConfig_t* cfg, cudaLaunchAttribute* attr) {
  *attr = cudaLaunchAttribute{};
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = K;
  attr->val.clusterDim.y = 1;
  attr->val.clusterDim.z = 1;
  *cfg = cudaLaunchConfig_t{};
  cfg->gridDim = dim3(K * pairs);
  cfg->blockDim = dim3(threads);
  cfg->dynamicSmemBytes = shared_bytes;
  cfg->stream = stream;
  cfg->attrs = attr;
  cfg->numAttrs = 1;
}

// What trellis_cluster asks the runtime, once per device and per (shared bytes, K): the queries
// (the occupancy one in particular) cost more than a small match() call may take.
struct DeviceInfo {
  int sms = 0;       // SMs
  bool sm90 = false; // clusters launch and the kernels carry compute_90 code (PDL too)
};
struct ClusterCache {
  std::mutex mu;
  std::map<int, DeviceInfo> device;
  std::map<std::tuple<int, size_t, int, int>, bool> fits; // (device, bytes, K, threads) -> fits
};
ClusterCache g_cluster_cache;

// g_cluster_cache's entry of the current device (made on first use); nullptr when the device query
// fails. The caller holds the cache's mutex.
const DeviceInfo* device_info(int* dev_out) {
  ClusterCache& cache = g_cluster_cache;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  *dev_out = dev;
  auto d = cache.device.find(dev);
  if (d == cache.device.end()) {
    int clusters = 0, sms = 0;
    cudaFuncAttributes fa{};
    if (cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaFuncGetAttributes(&fa, trellis_kernel<true, false>) != cudaSuccess) {
      cudaGetLastError(); // a query failed: no clusters
      clusters = 0;
    }
    // Cluster code (and the PDL calls) exists only in kernels compiled for compute_90 or later
    // (CVIS_AM_CLUSTER_CODE).
    DeviceInfo info;
    info.sm90 = clusters && fa.ptxVersion >= 90;
    info.sms = sms;
    d = cache.device.emplace(dev, info).first;
  }
  return &d->second;
}

} // namespace
#endif

#if defined(CVIS_AM_CLUSTERS)
namespace {

// Whether one cluster of K blocks of `threads` threads and `shared_bytes` fits on the device
// (cached: the occupancy query costs more than a small call). The caller holds the cache's mutex.
bool cluster_fits(int dev, size_t shared_bytes, int K, int threads) {
  ClusterCache& cache = g_cluster_cache;
  const auto key = std::make_tuple(dev, shared_bytes, K, threads);
  auto f = cache.fits.find(key);
  if (f == cache.fits.end()) {
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cluster_config(K, 1, threads, shared_bytes, nullptr, &cfg, &attr);
    int active = 0;
    const bool ok = cudaOccupancyMaxActiveClusters(&active, trellis_kernel<true, false>, &cfg) ==
                        cudaSuccess &&
                    active > 0;
    if (!ok)
      cudaGetLastError();
    f = cache.fits.emplace(key, ok).first;
  }
  return f->second;
}

} // namespace
#endif

int trellis_cluster(int pairs, size_t shared_bytes, int max_cells, int max_blocks) {
#if defined(CVIS_AM_CLUSTERS)
  ClusterCache& cache = g_cluster_cache;
  if (pairs <= 0)
    return 1;
  std::lock_guard<std::mutex> lock(cache.mu);
  int dev = 0;
  const DeviceInfo* d = device_info(&dev);
  if (!d || !d->sm90)
    return 1;
  const int cap = max_blocks, sms = d->sms;
  // A row of at most kTrellisThreads cells is one round of one block, every cell with at least
  // one lane; more blocks then only shorten each cell's candidate loop (G lanes instead of 1),
  // and each row pays the cluster barrier and K remote stores per cell.
  if (max_cells <= kTrellisThreads)
    return 1;
  int K = 1;
  while (2 * K <= cap && 2 * K * pairs <= sms)
    K *= 2;
  // Fewer when the device cannot hold one cluster of K such blocks.
  for (; K > 1; K /= 2)
    if (cluster_fits(dev, shared_bytes, K, kTrellisThreads))
      break;
  return K;
#else
  (void)pairs;
  (void)shared_bytes;
  (void)max_cells;
  (void)max_blocks;
  return 1;
#endif
}

Status launch_trellis(const Problem& p, size_t shared_bytes, cudaStream_t stream) {
#if defined(CVIS_AM_CLUSTERS)
  // Programmatic dependent launch (allow_dependent_launch / wait_for_prologue in the kernels):
  // the trellis launches while the prologue ends. A device or driver that refuses the attribute
  // gets the plain launch (and keeps it).
  static std::atomic<bool> pdl{true};
  // One block per pair: the same dependent launch (a launch without the cluster attribute), where
  // the kernels carry the compute_90 code that waits for the prologue (DeviceInfo::sm90; without
  // it the trellis would not wait, so it gets the plain launch).
  if (p.cluster == 1 && pdl.load()) {
    bool sm90 = false;
    {
      std::lock_guard<std::mutex> lock(g_cluster_cache.mu);
      int dev = 0;
      const DeviceInfo* d = device_info(&dev);
      sm90 = d && d->sm90;
    }
    if (sm90) {
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attr.val.programmaticStreamSerializationAllowed = 1;
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(p.npairs);
      cfg.blockDim = dim3(kTrellisThreads);
      cfg.dynamicSmemBytes = shared_bytes;
      cfg.stream = stream;
      cfg.attrs = &attr;
      cfg.numAttrs = 1;
      if (cudaLaunchKernelEx(&cfg, trellis_for(p), p) == cudaSuccess) {
        CVIS_CUDA_CHECK_LAUNCH(stream, "trellis_kernel (dependent launch)");
        return Status::Ok();
      }
      cudaGetLastError(); // refused at the launch: the plain launch below, from now on
      pdl.store(false);
    }
  }
  if (p.cluster > 1) {
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr[2];
    cluster_config(p.cluster, p.npairs, kTrellisThreads, shared_bytes, stream, &cfg, &attr[0]);
    if (pdl.load()) {
      attr[1] = cudaLaunchAttribute{};
      attr[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attr[1].val.programmaticStreamSerializationAllowed = 1;
      cfg.numAttrs = 2;
      if (cudaLaunchKernelEx(&cfg, trellis_for(p), p) == cudaSuccess) {
        CVIS_CUDA_CHECK_LAUNCH(stream, "trellis_kernel (clusters, dependent launch)");
        return Status::Ok();
      }
      cudaGetLastError(); // refused at the launch (not a sticky error): without the attribute
      pdl.store(false);
      cfg.numAttrs = 1;
    }
    CVIS_CUDA_CHECK(cudaLaunchKernelEx(&cfg, trellis_for(p), p));
    CVIS_CUDA_CHECK_LAUNCH(stream, "trellis_kernel (clusters)");
    return Status::Ok();
  }
#endif
  // (Each instantiation named: the CPU emulation rewrites launches of a kernel by its name.)
  const bool all_shared = trellis_all_shared(p);
  if (p.fold && p.solo)
    trellis_kernel<true, true, true, true><<<p.npairs, kTrellisThreads, shared_bytes, stream>>>(p);
  else if (p.fold)
    trellis_kernel<true, true, true><<<p.npairs, kTrellisThreads, shared_bytes, stream>>>(p);
  else if (p.use_tri && all_shared)
    trellis_kernel<true, true><<<p.npairs, kTrellisThreads, shared_bytes, stream>>>(p);
  else if (p.use_tri)
    trellis_kernel<true, false><<<p.npairs, kTrellisThreads, shared_bytes, stream>>>(p);
  else if (all_shared)
    trellis_kernel<false, true><<<p.npairs, kTrellisThreads, shared_bytes, stream>>>(p);
  else
    trellis_kernel<false, false><<<p.npairs, kTrellisThreads, shared_bytes, stream>>>(p);
  CVIS_CUDA_CHECK_LAUNCH(stream, "trellis_kernel");
  return Status::Ok();
}

} // namespace cvis::actionmatch::kernels

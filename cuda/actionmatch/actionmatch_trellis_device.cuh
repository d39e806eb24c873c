// Device building blocks of the actionmatch kernels (actionmatch_prologue.cu,
// actionmatch_trellis.cu): the dependent launch, warp and block reductions, the cluster's barrier
// and remote stores, the staging of tables into shared memory.
#pragma once

#include <cstdint>

#include "actionmatch_terms.hpp"

// Thread-block clusters (sm_90): the kernels use them only where compiled for compute_90 or
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

// Programmatic dependent launch (sm_90, launch_trellis): the prologue lets the trellis launch
// early, and the trellis waits for the whole prologue (its completion and its memory) before it
// reads anything the prologue wrote, so that the trellis's launch and the part of its set-up that
// reads only the uploaded input overlap the prologue's tail. Both are no-ops in a launch without
// the attribute, and absent where there is no cluster code.
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

// Minimum of (v, key) over a warp, smaller key first among equal v; every lane gets it.
inline __device__ void warp_argmin(int64_t* v, int32_t* key) {
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

// Minimum of (v, key) over each aligned group of `lanes` lanes (a power of two <= 32), smaller key
// first among equal v; every lane of the group gets it. Every lane of the warp calls it.
inline __device__ void group_argmin(int64_t* v, int32_t* key, int lanes) {
  const int lane = threadIdx.x & 31;
  for (int m = lanes / 2; m > 0; m >>= 1) {
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
inline __device__ int64_t warp_sum(int64_t v) {
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

// Block-wide minimum of (v, key), smaller key first among equal v; every thread gets it. The
// smallest (v, key) pair is unique whatever the order of the comparisons (the keys differ), so the
// warps' shuffle reductions, then one warp over the warps' minima, give the same pair as a tree
// over all threads, with two barriers instead of log2(blockDim.x). blockDim.x: a multiple of 32.
inline __device__ void block_argmin(int64_t* v, int32_t* key, int64_t* red_v, int32_t* red_k) {
  const int t = threadIdx.x, warps = blockDim.x / 32;
  warp_argmin(v, key);
  if ((t & 31) == 0) {
    red_v[t / 32] = *v;
    red_k[t / 32] = *key;
  }
  __syncthreads();
  if (t < 32) {
    int64_t wv = t < warps ? red_v[t] : terms::kInf;
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

// The block's rank in its cluster of `blocks` blocks (0 without clusters).
__device__ __forceinline__ int cluster_rank(int blocks) {
#if defined(CVIS_AM_CLUSTER_CODE)
  if (blocks > 1)
    return static_cast<int>(cooperative_groups::this_cluster().block_rank());
#elif defined(__CUDA_ARCH__)
  if (blocks > 1)
    __trap(); // never asked for (trellis_cluster checks ptxVersion): fail loudly, not wrongly
#endif
  return 0;
}

// The barrier between trellis rows: the whole cluster (release/acquire at cluster scope, so the
// alpha values written into the other blocks' shared memory and the argmin tables are visible
// after it), or the block.
__device__ __forceinline__ void row_barrier(int blocks) {
#if defined(CVIS_AM_CLUSTER_CODE)
  if (blocks > 1) {
    cooperative_groups::this_cluster().sync();
    return;
  }
#endif
  __syncthreads();
}

// alpha_r(cell) = v: with a cluster and staged rows, into the copy of every block of the cluster
// (each reads the previous row locally); otherwise into the one row.
__device__ __forceinline__ void store_alpha(int64_t* cur, int cell, int64_t v, int blocks,
                                            bool staged_rows) {
#if defined(CVIS_AM_CLUSTER_CODE)
  if (blocks > 1 && staged_rows) {
    cooperative_groups::cluster_group cl = cooperative_groups::this_cluster();
    for (int j = 0; j < blocks; ++j)
      *cl.map_shared_rank(cur + cell, j) = v;
    return;
  }
#endif
  cur[cell] = v;
}

// store_alpha of the folded trellis (whose rows are always staged). Its stores into the cluster's
// copies take 32-bit shared::cluster addresses (actionmatch_cluster_ptx.cuh) instead of
// cooperative_groups' generic 64-bit pointers (mapa then a generic store), which kept a 64-bit
// base pointer live across the row loop (a spill).
__device__ __forceinline__ void store_alpha_folded(int64_t* cur, int cell, int64_t v, int blocks) {
#if defined(CVIS_AM_CLUSTER_CODE)
  if (blocks > 1) {
    for (int j = 0; j < blocks; ++j)
      cluster_ptx::store_u64(cluster_ptx::addr(cur + cell, j), v);
    return;
  }
#endif
  (void)blocks;
  cur[cell] = v;
}

// beta_r(cell) = v: into the argmin tables of the pair's first block, which backtracks (its shared
// memory `staged`, through distributed shared memory from the other blocks of a cluster), or the
// global ones `global`. Two pointers rather than one chosen at run time, so that the shared store
// is a shared-memory instruction and not a generic one.
__device__ __forceinline__ void store_argmin(uint16_t* staged, uint16_t* global, int cell,
                                             uint16_t v, int blocks, bool in_shared) {
  if (in_shared) {
#if defined(CVIS_AM_CLUSTER_CODE)
    if (blocks > 1) {
      *cooperative_groups::this_cluster().map_shared_rank(staged + cell, 0) = v;
      return;
    }
#endif
    staged[cell] = v;
    return;
  }
  global[cell] = v;
}

// The folded trellis's per-b minima are kept as 32-bit lower bounds of the int64 values (which are
// >= 0): v >> shift, at most 0xFFFFFFFF (also for kInf), so that (key << shift) <= v. A lower bound
// is all the settle test needs (it then settles no cell it should not), and 32-bit atomic minima
// are native in shared memory, where 64-bit ones are compare-and-swap loops.
__device__ __forceinline__ uint32_t minimum_key(int64_t v, int shift) {
  const uint64_t k = static_cast<uint64_t>(v) >> shift;
  return k > 0xFFFFFFFFull ? 0xFFFFFFFFu : static_cast<uint32_t>(k);
}

// minima[i] = min(minima[i], key) in the per-b minimum row of every block of the cluster.
__device__ __forceinline__ void min_all(uint32_t* minima, int i, uint32_t key, int blocks) {
#if defined(CVIS_AM_CLUSTER_CODE)
  if (blocks > 1) {
    for (int j = 0; j < blocks; ++j)
      cluster_ptx::min_u32(cluster_ptx::addr(minima + i, j), key);
    return;
  }
#endif
  (void)blocks;
  atomicMin(minima + i, key);
}

} // namespace cvis::actionmatch::kernels

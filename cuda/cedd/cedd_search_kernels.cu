// CEDD search kernels (cedd_search_kernels.hpp).
//
// Selection: each block keeps its k best rows sorted in shared memory, with the k-th as a
// threshold. It looks at kTile rows at a time (kRowsPerThread per thread, coalesced); a row that
// ranks before the threshold (or any row while fewer than k are kept) is appended to a candidate
// list; after the tile, if there are candidates, every candidate and every kept row finds its rank
// in the union (a count over the candidates plus a binary search over the kept rows: ranks are
// unique since ids are) and the first k are the new list. Once the list is full, few rows pass
// the threshold, so the scan runs at the speed of its loads. Pass 2 merges the blocks' lists the
// same way in one block.
#include "cedd/cedd_search_kernels.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/preload.hpp"

namespace cvis::cedd::search::kernels {
namespace {

constexpr int kTile = kBlock * kRowsPerThread;

// The block's lists in dynamic shared memory: doubles first, then ids.
struct Lists {
  double *top_sim, *new_sim, *cand_sim;
  int64_t *top_id, *new_id, *cand_id;
};

__device__ Lists carve(uint8_t* smem, int k) {
  Lists l;
  double* d = reinterpret_cast<double*>(smem);
  l.top_sim = d;
  l.new_sim = d + k;
  l.cand_sim = d + 2 * k;
  int64_t* i = reinterpret_cast<int64_t*>(d + 2 * k + kTile);
  l.top_id = i;
  l.new_id = i + k;
  l.cand_id = i + 2 * k;
  return l;
}

// Block state in static shared memory.
struct State {
  int top_n, cand_n;
  double thr_sim;
  int64_t thr_id;
};

// Merges the n_c candidates into the kept list (every thread of the block calls it).
__device__ void merge(const Lists& l, int k, int n_c, State* st) {
  const int n_t = st->top_n;
  for (int i = threadIdx.x; i < n_c; i += blockDim.x) {
    const double s = l.cand_sim[i];
    const int64_t id = l.cand_id[i];
    int r = 0;
    for (int j = 0; j < n_c; ++j)
      r += before(l.cand_sim[j], l.cand_id[j], s, id) ? 1 : 0;
    int lo = 0, hi = n_t; // kept rows that rank before (s, id): a prefix of the sorted list
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (before(l.top_sim[mid], l.top_id[mid], s, id))
        lo = mid + 1;
      else
        hi = mid;
    }
    r += lo;
    if (r < k) {
      l.new_sim[r] = s;
      l.new_id[r] = id;
    }
  }
  for (int i = threadIdx.x; i < n_t; i += blockDim.x) {
    const double s = l.top_sim[i];
    const int64_t id = l.top_id[i];
    int r = i;
    for (int j = 0; j < n_c; ++j)
      r += before(l.cand_sim[j], l.cand_id[j], s, id) ? 1 : 0;
    if (r < k) {
      l.new_sim[r] = s;
      l.new_id[r] = id;
    }
  }
  __syncthreads();
  const int n = min(k, n_t + n_c);
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    l.top_sim[i] = l.new_sim[i];
    l.top_id[i] = l.new_id[i];
  }
  if (threadIdx.x == 0) {
    st->top_n = n;
    st->cand_n = 0;
    if (n == k) {
      st->thr_sim = l.new_sim[k - 1];
      st->thr_id = l.new_id[k - 1];
    }
  }
  __syncthreads();
}

// Appends (s, id) to the candidates when it may belong to the k best.
__device__ void offer(const Lists& l, State* st, bool full, double thr_sim, int64_t thr_id,
                      double s, int64_t id) {
  if (full && !before(s, id, thr_sim, thr_id))
    return;
  const int slot = atomicAdd(&st->cand_n, 1);
  l.cand_sim[slot] = s;
  l.cand_id[slot] = id;
}

// The tile loop shared by both passes: `visit(e, full, thr_sim, thr_id)` offers entry e.
template <typename Visit>
__device__ void select(const Lists& l, State* st, int k, uint64_t n, Visit visit) {
  if (threadIdx.x == 0) {
    st->top_n = 0;
    st->cand_n = 0;
    st->thr_sim = 0.0;
    st->thr_id = 0;
  }
  __syncthreads();
  const uint64_t tiles = (n + kTile - 1) / kTile;
  for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const bool full = st->top_n == k;
    const double thr_sim = st->thr_sim;
    const int64_t thr_id = st->thr_id;
#pragma unroll
    for (int j = 0; j < kRowsPerThread; ++j) {
      const uint64_t e = t * kTile + static_cast<uint64_t>(j) * kBlock + threadIdx.x;
      if (e < n)
        visit(e, full, thr_sim, thr_id);
    }
    __syncthreads();
    const int n_c = st->cand_n;
    __syncthreads(); // every thread has read n_c before merge() resets it
    if (n_c > 0)
      merge(l, k, n_c, st);
  }
}

__global__ void __launch_bounds__(kBlock)
    scan_kernel(const Chunk* chunks, int shift, uint64_t n, Query q, int k, double* part_sim,
                int64_t* part_id, int* part_n) {
  extern __shared__ __align__(16) uint8_t smem[];
  __shared__ State st;
  const Lists l = carve(smem, k);
  const uint64_t mask = (uint64_t{1} << shift) - 1;
  select(l, &st, k, n, [&](uint64_t row, bool full, double thr_sim, int64_t thr_id) {
    const Chunk c = chunks[row >> shift];
    const uint64_t off = row & mask;
    uint16_t h[kHalfwords];
#pragma unroll
    for (int i = 0; i < kHalfwords; ++i)
      h[i] = c.planes[(static_cast<uint64_t>(i) << shift) + off];
    Planes a;
    words_of(h, &a);
    const double s = similarity(dot(a, q.planes), c.norms[off], q.tb, q.bb);
    // The id is loaded only for rows that may enter the list.
    if (full && s < thr_sim)
      return;
    offer(l, &st, full, thr_sim, thr_id, s, c.ids[off]);
  });
  for (int i = threadIdx.x; i < st.top_n; i += blockDim.x) {
    part_sim[static_cast<size_t>(blockIdx.x) * k + i] = l.top_sim[i];
    part_id[static_cast<size_t>(blockIdx.x) * k + i] = l.top_id[i];
  }
  if (threadIdx.x == 0)
    part_n[blockIdx.x] = st.top_n;
}

__global__ void __launch_bounds__(kBlock)
    merge_kernel(const double* part_sim, const int64_t* part_id, const int* part_n, int blocks,
                 int k, double* out_sim, int64_t* out_id, int* out_n) {
  extern __shared__ __align__(16) uint8_t smem[];
  __shared__ State st;
  const Lists l = carve(smem, k);
  const uint64_t n = static_cast<uint64_t>(blocks) * k;
  select(l, &st, k, n, [&](uint64_t e, bool full, double thr_sim, int64_t thr_id) {
    if (static_cast<int>(e % k) >= part_n[e / k])
      return;
    offer(l, &st, full, thr_sim, thr_id, part_sim[e], part_id[e]);
  });
  for (int i = threadIdx.x; i < st.top_n; i += blockDim.x) {
    out_sim[i] = l.top_sim[i];
    out_id[i] = l.top_id[i];
  }
  if (threadIdx.x == 0)
    *out_n = st.top_n;
}

__global__ void append_kernel(const uint8_t* packed, const int64_t* ids, uint32_t n, uint64_t first,
                              const Chunk* chunks, int shift) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const uint64_t row = first + i;
  const Chunk c = chunks[row >> shift];
  const uint64_t off = row & ((uint64_t{1} << shift) - 1);
  uint16_t h[kHalfwords];
  uint32_t norms = 0;
  planes_from_packed(packed + static_cast<size_t>(i) * 54, h, &norms);
  for (int j = 0; j < kHalfwords; ++j)
    c.planes[(static_cast<uint64_t>(j) << shift) + off] = h[j];
  c.norms[off] = norms;
  c.ids[off] = ids[i];
}

CVIS_PRELOAD_MODULE(scan_kernel);

} // namespace

size_t select_smem_bytes(int k) {
  return static_cast<size_t>(2 * k + kTile) * (sizeof(double) + sizeof(int64_t));
}

Status launch_append(const uint8_t* packed, const int64_t* ids, uint32_t n, uint64_t first,
                     const Chunk* chunks, int shift, cudaStream_t stream) {
  if (n == 0)
    return Status::Ok();
  const unsigned blocks = (n + 255) / 256;
  append_kernel<<<blocks, 256, 0, stream>>>(packed, ids, n, first, chunks, shift);
  CVIS_CUDA_CHECK_LAUNCH(stream, "append_kernel");
  return Status::Ok();
}

Status launch_scan(const Chunk* chunks, int shift, uint64_t n, const Query& q, int k, int blocks,
                   double* part_sim, int64_t* part_id, int* part_n, cudaStream_t stream) {
  scan_kernel<<<blocks, kBlock, select_smem_bytes(k), stream>>>(chunks, shift, n, q, k, part_sim,
                                                                part_id, part_n);
  CVIS_CUDA_CHECK_LAUNCH(stream, "scan_kernel");
  return Status::Ok();
}

Status launch_merge(const double* part_sim, const int64_t* part_id, const int* part_n, int blocks,
                    int k, double* out_sim, int64_t* out_id, int* out_n, cudaStream_t stream) {
  merge_kernel<<<1, kBlock, select_smem_bytes(k), stream>>>(part_sim, part_id, part_n, blocks, k,
                                                            out_sim, out_id, out_n);
  CVIS_CUDA_CHECK_LAUNCH(stream, "merge_kernel");
  return Status::Ok();
}

Status scan_blocks_per_device(int k, int* blocks) {
  int dev = 0, sms = 0, per_sm = 0;
  CVIS_CUDA_CHECK(cudaGetDevice(&dev));
  CVIS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CVIS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scan_kernel, kBlock,
                                                                select_smem_bytes(k)));
  *blocks = std::max(1, sms * std::max(1, per_sm));
  return Status::Ok();
}

} // namespace cvis::cedd::search::kernels

// Block-wide helpers for the medians of vote histograms (the illumination gains of cudabgsub and
// of cudamedian3d's motion detector): a block prefix sum, and seg::gain_median() evaluated with one
// thread per bin. CUDA translation units only.
#pragma once

#include <cstdint>

#include "common/segmentation.hpp"

namespace cvis::cuda {

// Inclusive prefix sum over the block (blockDim.x threads, a multiple of 32, at most 1024;
// blockDim.y = blockDim.z = 1) of one value per thread; *total gets the sum. `warp_sums`: 32 words
// of shared memory. Every thread of the block calls it.
__device__ inline uint32_t block_inclusive_scan(uint32_t v, uint32_t* warp_sums, uint32_t* total) {
  constexpr unsigned kAll = 0xffffffffu;
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
  for (int off = 1; off < 32; off <<= 1) {
    const uint32_t n = __shfl_up_sync(kAll, v, off);
    if (lane >= off)
      v += n;
  }
  if (lane == 31)
    warp_sums[wid] = v;
  __syncthreads();
  if (wid == 0) {
    uint32_t s = lane < nw ? warp_sums[lane] : 0u;
    for (int off = 1; off < 32; off <<= 1) {
      const uint32_t n = __shfl_up_sync(kAll, s, off);
      if (lane >= off)
        s += n;
    }
    warp_sums[lane] = s;
  }
  __syncthreads();
  const uint32_t r = v + (wid > 0 ? warp_sums[wid - 1] : 0u);
  *total = warp_sums[nw - 1];
  __syncthreads(); // warp_sums may be reused by the caller's next scan
  return r;
}

// seg::gain_median() of a histogram of seg::kGainBins counts, in parallel: thread k (blockDim.x =
// kGainBins) holds `count` of bin k. The serial walk stops at the first bin with count > 0 and
// (votes before it) + count >= half; that bin is the one whose inclusive prefix reaches half while
// its exclusive one does not (count > 0 follows: half > 0), and its thread evaluates the same
// expression in the same double arithmetic. Every thread gets the gain (1 below
// seg::kGainMinVotes votes or when the votes disagree) and *votes the histogram's total. `warp_sums` (32 words) and `gain`:
// shared memory. Every thread of the block calls it.
__device__ inline float block_gain_median(uint32_t count, uint32_t* warp_sums, float* gain,
                                          uint32_t* votes) {
  uint32_t n = 0;
  const uint32_t incl = block_inclusive_scan(count, warp_sums, &n);
  const uint32_t cum = incl - count;
  if (threadIdx.x == 0)
    *gain = 1.0f;
  // The quartile bins (the scan is done with warp_sums): the first bins whose inclusive prefix
  // reaches n / 4 and 3 n / 4, as the serial walk finds them.
  const uint64_t n64 = n, in4 = 4ull * incl, cum4 = 4ull * cum;
  if (in4 >= n64 && cum4 < n64)
    warp_sums[0] = threadIdx.x;
  if (in4 >= 3 * n64 && cum4 < 3 * n64)
    warp_sums[1] = threadIdx.x;
  __syncthreads();
  if (n >= seg::kGainMinVotes &&
      seg::gain_votes_agree(static_cast<int>(warp_sums[0]), static_cast<int>(warp_sums[1]))) {
    const double half = 0.5 * static_cast<double>(n);
    if (count > 0 && static_cast<double>(incl) >= half && static_cast<double>(cum) < half) {
      const double frac = (half - static_cast<double>(cum)) / static_cast<double>(count);
      *gain = seg::gain_in_bin(static_cast<int>(threadIdx.x), frac);
    }
  }
  __syncthreads();
  const float g = *gain;
  __syncthreads(); // *gain and warp_sums may be reused by the caller's next call
  *votes = n;
  return g;
}

} // namespace cvis::cuda

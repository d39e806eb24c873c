// Kernels of the CUDA engine (rcdtrack_kernels_integral.cu, rcdtrack_kernels_search.cu): the
// device form of a pass and the launchers. Plain data only; rcdtrack_cuda.cpp owns the memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/color.hpp"
#include "common/status.hpp"
#include "rcdtrack_engine.hpp"
#include "rcdtrack_math.hpp"

namespace cvis::rcdtrack::kernels {

// An integral image of the pass: `planes` planes of (rows + 1) x (cols + 1) int64 at `offset`
// elements into the integral buffer. row_first / col_first: prefix sums over the pass's integrals
// of `rows` and of planes * (cols + 1) (the block and thread numbering of the two integral
// kernels).
struct DevIntegral {
  int x, y, cols, rows, cell;
  int row_first;
  int64_t col_first;
  int64_t offset;
  int64_t plane_stride;
};

struct DevGrid {
  int x0, y0, nx, ny, step, ww, wh;
  double ln_factor;
  int64_t first; // index of its first window within the group
};

struct DevGroup {
  int integral, model, first_grid, grid_count;
  int64_t windows;
  int first_block, blocks;
  Prior prior;
  int top_k;
  double threshold;   // < 0: no collection
  int64_t below_base; // first slot in the candidate buffer (kMaxCandidates per collecting group)
  int below_group;    // index of its candidate counter, -1 without collection
  int prune;          // 1: only the best window matters (top_k 1, no threshold): windows that
                      // cannot beat the best score found so far (bounds) are not finished
};

struct DevHit {
  double score, distance;
  int64_t index; // -1: none
};

// Per group: the best windows, and the first one's covariances and plane sums.
struct DevResult {
  DevHit top[kMaxTopK];
  double cov[kMaxParts][kMaxFeatures * kMaxFeatures];
  int64_t sums[kMaxPlanes + 1];
};

inline constexpr int kWindowThreads = 128; // windows per block of the search kernel
inline constexpr int kRowChunk = 64;       // pixels per chunk of the row kernel

// Integral images of every plane of every integral of the pass (thesis Sec. 4, "Integral Image
// Calculation", all planes at once): cell sums and row prefix sums (one block per cell row), then
// column prefix sums in place (one thread per plane column). `total_rows` = sum of rows,
// `total_cols` = sum of planes * (cols + 1).
Status launch_integrals(const PixelSource& src, const Layout& layout, const DevIntegral* integrals,
                        int n_integrals, int total_rows, int64_t total_cols, int64_t* base,
                        cudaStream_t stream);

// Every window of every group: distance, score, per-block top-k (cand: blocks * kMaxTopK, in the
// groups' chunk order), the
// windows under a group's threshold (below, counters below_count); then per group the merged
// top-k with the best window's covariances and sums (results). n = layout.n (2..9).
// block_work: per block its group and chunk (windows chunk * kWindowThreads ..), any order.
// bounds: one per group, all bits set before the launch (no bound yet): the order key
// (bound_key) of the best score a block of that group has found; a pruning group's window whose
// score is provably above it is dropped after as few parts as show that (same top-1 result).
Status launch_search(const Layout& layout, Distance distance, const DevGroup* groups, int n_groups,
                     const DevGrid* grids, const DevIntegral* integrals, const ModelData* models,
                     const int* block_work, int n_blocks, const int64_t* base, DevHit* cand,
                     DevHit* below, int* below_count, unsigned long long* bounds,
                     DevResult* results, cudaStream_t stream);

// A template job's result on the device: no padding, so that every byte copied back is written.
struct DevTemplateHit {
  double score;
  int64_t index;
};

// Template matching (rcdtrack_kernels_ncc.cu): every job's best offset into out[job]. jobs and
// samples in device memory; shared_bytes = the largest (nx - 1 + tw) * (ny - 1 + th) + tw * th.
Status launch_templates(const PixelSource& src, const TemplateJob* jobs, int n_jobs,
                        const uint8_t* samples, int shared_bytes, DevTemplateHit* out,
                        cudaStream_t stream);
// Luma blocks of every region, region k's from out + first[k] (row-major).
Status launch_luma(const PixelSource& src, const LumaRegion* regions, const int64_t* first,
                   int n_regions, uint8_t* out, cudaStream_t stream);

} // namespace cvis::rcdtrack::kernels

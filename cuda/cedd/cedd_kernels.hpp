// CEDD CUDA kernels: launch geometry and launchers. Allocation, validation and the launch sequence
// live in cedd_cuda.cpp. Every launcher enqueues on `stream`, checks the launch and returns.
//
// Data layout shared by the kernels (all in device memory):
// - jobs[]: core::Job, one per descriptor (source pixels, rectangle, block grid, block_offset).
// - stats[]: core::BlockStats of every block of every job, job-major, blocks in raster order.
// - f24[j * ld + g], classes[g]: the 24-bin colour vector (structure of arrays, leading dimension
//   ld = number of blocks of the call) and the texture class mask of global block g.
// - norm[k * 144 + i], levels[k * 144 + i]: descriptor of job k.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "cedd/cedd_core.hpp"
#include "common/status.hpp"

namespace cvis::cedd::kernels {

// Stage-1 work unit: blocks bx0 .. bx0 + nb - 1 of block row `by` of job `job`, staged through
// shared memory `rows` pixel rows at a time.
struct Tile {
  int job;
  int by;
  int bx0;
  int nb;
  int rows;
};

// Appends the tiles of `job` (index `job_index` in the job table) to *tiles.
void append_tiles(const core::Job& job, int job_index, std::vector<Tile>* tiles);

// Stage 1 (§3-§5): quadrant values and mean colours of the blocks of tiles
// [tile_begin, tile_begin + tile_count). Reads the pixels of the tiles' jobs (device memory).
Status launch_block_stats(const core::Job* jobs, const Tile* tiles, int tile_begin, int tile_count,
                          core::BlockStats* stats, cudaStream_t stream);

// Stages §4 (masks, classes), §6, §7, §8 for blocks [block_begin, block_begin + block_count).
Status launch_block_features(const core::BlockStats* stats, int block_begin, int block_count,
                             int ld, double* f24, uint8_t* classes, cudaStream_t stream);

// Stages §9 (histogram in LIRE's order, normalisation) and §10 (quantisation) for jobs
// [job_begin, job_begin + job_count).
Status launch_histogram(const core::Job* jobs, int job_begin, int job_count, int ld,
                        const double* f24, const uint8_t* classes, double* norm, uint8_t* levels,
                        cudaStream_t stream);

} // namespace cvis::cedd::kernels

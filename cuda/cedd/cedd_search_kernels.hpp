// CEDD search kernels: launch geometry and launchers. Memory and the call sequence live in
// cedd_search_cuda.cpp; every launcher enqueues on `stream`, checks the launch and returns.
//
// Device layout of a set: chunks of 2^shift rows, each one allocation holding
//   planes[h * rows + r]  (uint16, h < 27: halfword h of row r's bit planes, column-major, so a
//                          warp's loads of one halfword are contiguous),
//   norms[r]              (uint32: ta | AA << 16),
//   ids[r]                (int64).
// A table of Chunk records (device memory) lists the chunks in row order.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cedd/cedd_search_core.hpp"
#include "common/status.hpp"

namespace cvis::cedd::search::kernels {

struct Chunk {
  uint16_t* planes;
  uint32_t* norms;
  int64_t* ids;
};

// The query, passed by value (kernel parameters are broadcast from the constant bank).
struct Query {
  Planes planes;
  uint32_t tb, bb;
};

// Threads per block of the selection kernels, and rows each thread looks at per step.
inline constexpr int kBlock = 256;
inline constexpr int kRowsPerThread = 2;

// Dynamic shared memory of a selection block for `k`.
size_t select_smem_bytes(int k);

// Converts n packed rows (staging: packed[i * 54], ids[i], device memory) into rows
// first .. first + n - 1 of the set.
Status launch_append(const uint8_t* packed, const int64_t* ids, uint32_t n, uint64_t first,
                     const Chunk* chunks, int shift, cudaStream_t stream);

// Pass 1: `blocks` blocks each rank a share of the n rows and write their k best (sorted) to
// part_sim / part_id[b * k ..] and how many to part_n[b].
Status launch_scan(const Chunk* chunks, int shift, uint64_t n, const Query& q, int k, int blocks,
                   double* part_sim, int64_t* part_id, int* part_n, cudaStream_t stream);

// Pass 2: one block merges the `blocks` partial lists into the k best: out_sim / out_id[0 ..
// *out_n).
Status launch_merge(const double* part_sim, const int64_t* part_id, const int* part_n, int blocks,
                    int k, double* out_sim, int64_t* out_id, int* out_n, cudaStream_t stream);

// How many blocks of the scan kernel fit on the device at once (for `k`'s shared memory).
Status scan_blocks_per_device(int k, int* blocks);

} // namespace cvis::cedd::search::kernels

// Table I benchmark kernels (cpwl_bench_kernels.cu) and their launchers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "common/status.hpp"
#include "cpwl/cpwl_eval.hpp"

namespace cvis::cpwl::bench {

// Block size of every variant (the library's evaluator block, cpwl::kernels::kBlock).
inline constexpr int kBlock = 256;
// Resident blocks per SM the kernels are compiled for (__launch_bounds__): 8 x 256 = 2048 threads,
// the sm_80/sm_90 maximum, so register use cannot differ between evaluators (fewer on
// architectures with fewer threads per SM, see cpwl_bench_kernels.cu); the grid is sized with it.
inline constexpr int kMinBlocks = 8;

// `blocks` x kBlock threads, each evaluating `iters` quasi-random abscissas in [a, a + span) and
// writing its sum to out[thread]. evaluator -1: the same loop, no evaluation. Every variant
// reserves the same dynamic shared memory (shared_bytes()).
Status launch(int evaluator, const TableView& table, float a, float span, int iters, int blocks,
              float* out, cudaStream_t stream);
size_t shared_bytes();
// Resident blocks per SM of the kernel for `evaluator` and search size `pow2`.
Status occupancy(int evaluator, int pow2, int* blocks_per_sm);

} // namespace cvis::cpwl::bench

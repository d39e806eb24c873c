// CPWL evaluator kernels and their launchers (CUDA builds only).
#pragma once

#include <cuda_runtime_api.h>

#include "common/status.hpp"
#include "cpwl_eval.hpp"

namespace cvis::cpwl::kernels {

// Block size of every evaluator kernel (the benchmark keeps it fixed for equal occupancy).
inline constexpr int kBlock = 256;
// Resident blocks per SM the benchmark kernels are compiled for (__launch_bounds__): 8 x 256 =
// 2048 threads, the sm_80/sm_90 maximum, so register use cannot differ between evaluators (fewer
// on architectures with fewer threads per SM, see cpwl_kernels.cu); the grid is sized with it.
inline constexpr int kBenchMinBlocks = 8;

// out[i] = evaluator(x[i]) for i < count; `table` holds device pointers (and the texture).
Status launch_evaluate(int evaluator, const TableView& table, const float* x, int count, float* out,
                       cudaStream_t stream);

// Table I kernel: `blocks` x kBlock threads, each evaluating `iters` quasi-random abscissas in
// [a, a + span) and writing its sum to out[thread]. evaluator -1: the same loop, no evaluation.
// Every variant reserves the same dynamic shared memory (bench_shared_bytes()).
Status launch_bench(int evaluator, const TableView& table, float a, float span, int iters,
                    int blocks, float* out, cudaStream_t stream);
size_t bench_shared_bytes();
// Resident blocks per SM of the benchmark kernel for `evaluator` and search size `pow2`.
Status bench_occupancy(int evaluator, int pow2, int* blocks_per_sm);

} // namespace cvis::cpwl::kernels

// The paper's Table I timing on the GPU (bench_cpwl only): the benchmark kernels and their timing
// live here, beside the benchmark, not in the library.
#pragma once

#include "common/status.hpp"
#include "cpwl/cpwl.hpp"

namespace cvis::cpwl::bench {

struct GpuTiming {
  double ps_per_eval = 0.0; // mean kernel time / evaluations
  double evaluations = 0.0;
  int blocks_per_sm = 0; // occupancy (resident blocks of 256 threads per SM)
  int sms = 0;
  double checksum = 0.0; // sum of all results (keeps the work alive, and comparable)
};

// Times `evals_per_thread` evaluations per thread of evaluator `e` over quasi-random abscissas in
// [a, b], with the same block size, grid and shared-memory footprint for every evaluator. `e` may
// also be -1 for a baseline kernel doing the same loop without evaluating anything. kNoDevice in
// builds without CUDA or without a device.
Status benchmark_gpu(int e, const Table& table, int evals_per_thread, int repeats, GpuTiming* out);

} // namespace cvis::cpwl::bench

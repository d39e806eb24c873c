// bench_cpwl in builds without CUDA: the GPU rows report that there is no device.
#include "cpwl_bench.hpp"

namespace cvis::cpwl::bench {

Status benchmark_gpu(int, const Table&, int, int, GpuTiming*) {
  return Status(StatusCode::kNoDevice, "this build has no CUDA support");
}

} // namespace cvis::cpwl::bench

// The Table I timing of bench_cpwl on the GPU (CUDA builds): every variant over the same grid,
// CUDA events around repeated launches after a warm-up launch.
#include <cuda_runtime_api.h>

#include <vector>

#include "common/backend.hpp"
#include "common/cuda/device_buffer.hpp"
#include "cpwl/cpwl_cuda.hpp"
#include "cpwl_bench.hpp"
#include "cpwl_bench_kernels.hpp"

namespace cvis::cpwl::bench {

Status benchmark_gpu(int e, const Table& table, int evals_per_thread, int repeats, GpuTiming* out) {
  if (cuda_device_count() <= 0)
    return Status(StatusCode::kNoDevice, cuda_device_description(0));
  if (e >= 0 && evaluator_uses_table(static_cast<Evaluator>(e)) &&
      evaluator_partition(static_cast<Evaluator>(e)) != table.partition) {
    return invalid_argument("benchmark_gpu: table partition does not match the evaluator");
  }
  if (evals_per_thread < 1 || repeats < 1)
    return invalid_argument("benchmark_gpu: bad sizes");
  int dev = 0;
  CVIS_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CVIS_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  int per_sm = 0;
  CVIS_RETURN_IF_ERROR(occupancy(e, table.pow2 ? table.pow2 : 16, &per_sm));
  // Four full waves at the occupancy every variant is compiled for.
  const int blocks = prop.multiProcessorCount * kMinBlocks * 4;
  const size_t threads = static_cast<size_t>(blocks) * kBlock;

  DeviceTable dt;
  TableView view = table.view(); // the analytic evaluators read no table
  view.values = view.slope = view.knots = view.inv_h = nullptr;
  if (table.n > 0) {
    CVIS_RETURN_IF_ERROR(dt.upload(table, nullptr));
    view = dt.view();
  }
  cuda::DeviceArray<float> dout;
  CVIS_RETURN_IF_ERROR(dout.reserve(threads));
  cuda::Event start, stop;
  CVIS_RETURN_IF_ERROR(start.create(true));
  CVIS_RETURN_IF_ERROR(stop.create(true));
  const float a = table.a, span = table.b - table.a;
  // Warm-up launch (module load, clocks).
  CVIS_RETURN_IF_ERROR(launch(e, view, a, span, evals_per_thread, blocks, dout.get(), nullptr));
  CVIS_CUDA_CHECK(cudaEventRecord(start.get(), nullptr));
  for (int r = 0; r < repeats; ++r) {
    CVIS_RETURN_IF_ERROR(launch(e, view, a, span, evals_per_thread, blocks, dout.get(), nullptr));
  }
  CVIS_CUDA_CHECK(cudaEventRecord(stop.get(), nullptr));
  CVIS_CUDA_CHECK(cudaEventSynchronize(stop.get()));
  float ms = 0.f;
  CVIS_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  std::vector<float> host(threads);
  CVIS_CUDA_CHECK(
      cudaMemcpy(host.data(), dout.get(), sizeof(float) * threads, cudaMemcpyDeviceToHost));
  double sum = 0.0;
  for (float v : host)
    sum += v;
  out->evaluations = static_cast<double>(threads) * evals_per_thread * repeats;
  out->ps_per_eval = ms * 1e9 / out->evaluations;
  out->blocks_per_sm = per_sm;
  out->sms = prop.multiProcessorCount;
  out->checksum = sum;
  return Status::Ok();
}

} // namespace cvis::cpwl::bench

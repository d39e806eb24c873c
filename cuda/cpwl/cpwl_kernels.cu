#include "cpwl_kernels.hpp"

#include <algorithm>

#include "common/cuda/check.hpp"
#include "common/cuda/tiles.hpp"
#include "common/cuda/preload.hpp"
#include "cpwl_device.cuh"

namespace cvis::cpwl::kernels {

namespace {

template <int E, int P>
__global__ void __launch_bounds__(kBlock)
    evaluate_kernel(TableView t, const float* __restrict__ x, int count, float* __restrict__ out) {
  extern __shared__ float2 smem2[];
  const dev::SharedTable s = dev::load_shared<E>(t, reinterpret_cast<float*>(smem2));
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    out[i] = dev::evaluate<E, P>(s, x[i]);
  }
}

size_t table_shared_bytes(const TableView& t) {
  return sizeof(float) * static_cast<size_t>(dev::shared_floats(t.n, t.pow2));
}

CVIS_PRELOAD_MODULE(evaluate_kernel<dev::kExact, 16>);

} // namespace

#define CVIS_EVAL_CASE(E)                                                                          \
  case E:                                                                                          \
    evaluate_kernel<E, 16><<<blocks, kBlock, smem, stream>>>(table, x, count, out);                \
    break;
#define CVIS_EVAL_OPT(P)                                                                           \
  evaluate_kernel<E_, P><<<blocks, kBlock, smem, stream>>>(table, x, count, out)

Status launch_evaluate(int evaluator, const TableView& table, const float* x, int count, float* out,
                       cudaStream_t stream) {
  if (count <= 0)
    return Status::Ok();
  const int blocks = std::min(cuda::div_up(count, kBlock), 1024);
  const size_t smem = table_shared_bytes(table);
  switch (evaluator) {
    CVIS_EVAL_CASE(dev::kExact)
    CVIS_EVAL_CASE(dev::kFast)
    CVIS_EVAL_CASE(dev::kTextureUniform)
    CVIS_EVAL_CASE(dev::kManualUniform)
    CVIS_EVAL_CASE(dev::kSlopeUniform)
  case dev::kTextureOptimized: {
    constexpr int E_ = dev::kTextureOptimized;
    CVIS_CPWL_DISPATCH_POW2(table.pow2, CVIS_EVAL_OPT,
                            return invalid_argument("cpwl: unsupported search size"));
    break;
  }
  case dev::kManualOptimized: {
    constexpr int E_ = dev::kManualOptimized;
    CVIS_CPWL_DISPATCH_POW2(table.pow2, CVIS_EVAL_OPT,
                            return invalid_argument("cpwl: unsupported search size"));
    break;
  }
  default:
    return invalid_argument("cpwl: unknown evaluator");
  }
  CVIS_CUDA_CHECK_LAUNCH(stream, "cpwl evaluate_kernel");
  return Status::Ok();
}

} // namespace cvis::cpwl::kernels

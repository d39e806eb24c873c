#include "cpwl_kernels.hpp"

#include "common/cuda/check.hpp"
#include "cpwl_device.cuh"

namespace cvis::cpwl::kernels {

namespace {

// Resident blocks the benchmark kernels are compiled for: 2048 threads per SM where the
// architecture has them (sm_80, sm_90, sm_100), 1536 (sm_86/87/89, sm_110+) or 1024 (sm_75).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define CVIS_BENCH_MIN_BLOCKS 4
#elif defined(__CUDA_ARCH__) &&                                                                    \
    ((__CUDA_ARCH__ >= 860 && __CUDA_ARCH__ < 900) || __CUDA_ARCH__ >= 1100)
#define CVIS_BENCH_MIN_BLOCKS 6
#else
#define CVIS_BENCH_MIN_BLOCKS kBenchMinBlocks
#endif

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

// E = -1: the loop alone (the benchmark's baseline).
template <int E, int P>
__global__ void __launch_bounds__(kBlock, CVIS_BENCH_MIN_BLOCKS)
    bench_kernel(TableView t, float a, float span, int iters, float* __restrict__ out) {
  extern __shared__ float2 smem2[];
  dev::SharedTable s{};
  if constexpr (E >= 0)
    s = dev::load_shared<E>(t, reinterpret_cast<float*>(smem2));
  __syncthreads();
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  // Weyl sequences: starts scattered over [a, b) even inside a warp, so table lookups diverge the
  // way independent evaluations do.
  const unsigned start = (tid * 2654435761u) >> 8; // 24 bits
  float x = a + span * (static_cast<float>(start) * (1.0f / 16777216.0f));
  const float step = span * 0.75487766f;
  const float b = a + span;
  float acc = 0.0f;
#pragma unroll 4
  for (int i = 0; i < iters; ++i) {
    if constexpr (E >= 0) {
      acc += dev::evaluate<E, P>(s, x);
    } else {
      acc += x;
    }
    x += step;
    x = (x >= b) ? x - span : x;
  }
  out[tid] = acc;
}

size_t table_shared_bytes(const TableView& t) {
  return sizeof(float) * static_cast<size_t>(dev::shared_floats(t.n, t.pow2));
}

} // namespace

size_t bench_shared_bytes() {
  return sizeof(float) * dev::shared_floats(1024, 1024);
}

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
  const int blocks = (count + kBlock - 1) / kBlock < 1024 ? (count + kBlock - 1) / kBlock : 1024;
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

namespace {

// The kernel symbol of a benchmark variant (for launches and occupancy queries).
using BenchFn = void (*)(TableView, float, float, int, float*);

#define CVIS_BENCH_OPT(P) fn = bench_kernel<E_, P>
BenchFn bench_function(int evaluator, int pow2) {
  BenchFn fn = nullptr;
  switch (evaluator) {
  case -1:
    fn = bench_kernel<-1, 16>;
    break;
  case dev::kExact:
    fn = bench_kernel<dev::kExact, 16>;
    break;
  case dev::kFast:
    fn = bench_kernel<dev::kFast, 16>;
    break;
  case dev::kTextureUniform:
    fn = bench_kernel<dev::kTextureUniform, 16>;
    break;
  case dev::kManualUniform:
    fn = bench_kernel<dev::kManualUniform, 16>;
    break;
  case dev::kSlopeUniform:
    fn = bench_kernel<dev::kSlopeUniform, 16>;
    break;
  case dev::kTextureOptimized: {
    constexpr int E_ = dev::kTextureOptimized;
    CVIS_CPWL_DISPATCH_POW2(pow2, CVIS_BENCH_OPT, fn = nullptr);
    break;
  }
  case dev::kManualOptimized: {
    constexpr int E_ = dev::kManualOptimized;
    CVIS_CPWL_DISPATCH_POW2(pow2, CVIS_BENCH_OPT, fn = nullptr);
    break;
  }
  default:
    break;
  }
  return fn;
}

} // namespace

Status launch_bench(int evaluator, const TableView& table, float a, float span, int iters,
                    int blocks, float* out, cudaStream_t stream) {
  BenchFn fn = bench_function(evaluator, table.pow2);
  if (!fn)
    return invalid_argument("cpwl bench: unknown evaluator or search size");
  fn<<<blocks, kBlock, bench_shared_bytes(), stream>>>(table, a, span, iters, out);
  CVIS_CUDA_CHECK_LAUNCH(stream, "cpwl bench_kernel");
  return Status::Ok();
}

Status bench_occupancy(int evaluator, int pow2, int* blocks_per_sm) {
  BenchFn fn = bench_function(evaluator, pow2);
  if (!fn)
    return invalid_argument("cpwl bench: unknown evaluator or search size");
  CVIS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      blocks_per_sm, reinterpret_cast<const void*>(fn), kBlock, bench_shared_bytes()));
  return Status::Ok();
}

} // namespace cvis::cpwl::kernels

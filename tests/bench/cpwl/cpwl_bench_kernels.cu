// Table I benchmark kernels: the same loop for every evaluator (and a baseline without
// evaluation), the same block size, grid and shared-memory reservation, compiled for the same
// resident blocks per SM, so that the evaluators differ only in their evaluation.
#include "cpwl_bench_kernels.hpp"

#include "common/cuda/check.hpp"
#include "cpwl/cpwl.hpp"
#include "cpwl/cpwl_device.cuh"

namespace cvis::cpwl::bench {

namespace {

// Resident blocks the benchmark kernels are compiled for: 2048 threads per SM where the
// architecture has them (sm_80, sm_90, sm_100), 1536 (sm_86/87/89, sm_110+) or 1024 (sm_75).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define CVIS_BENCH_MIN_BLOCKS 4
#elif defined(__CUDA_ARCH__) &&                                                                    \
    ((__CUDA_ARCH__ >= 860 && __CUDA_ARCH__ < 900) || __CUDA_ARCH__ >= 1100)
#define CVIS_BENCH_MIN_BLOCKS 6
#else
#define CVIS_BENCH_MIN_BLOCKS kMinBlocks
#endif

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

} // namespace

size_t shared_bytes() {
  return sizeof(float) * dev::shared_floats(kMaxSegments, kMaxSegments);
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

Status launch(int evaluator, const TableView& table, float a, float span, int iters, int blocks,
              float* out, cudaStream_t stream) {
  BenchFn fn = bench_function(evaluator, table.pow2);
  if (!fn)
    return invalid_argument("cpwl bench: unknown evaluator or search size");
  fn<<<blocks, kBlock, shared_bytes(), stream>>>(table, a, span, iters, out);
  CVIS_CUDA_CHECK_LAUNCH(stream, "cpwl bench_kernel");
  return Status::Ok();
}

Status occupancy(int evaluator, int pow2, int* blocks_per_sm) {
  BenchFn fn = bench_function(evaluator, pow2);
  if (!fn)
    return invalid_argument("cpwl bench: unknown evaluator or search size");
  CVIS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      blocks_per_sm, reinterpret_cast<const void*>(fn), kBlock, shared_bytes()));
  return Status::Ok();
}

} // namespace cvis::cpwl::bench

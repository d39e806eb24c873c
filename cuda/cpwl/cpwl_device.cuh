// Device side of the CPWL evaluators (CUDA translation units only): a block-wide copy of a table
// into shared memory and the per-evaluator evaluation, compile-time dispatched so that every
// evaluator is its own kernel path. Used by cpwl_kernels.cu and by the background subtraction
// kernels.
#pragma once

#include <cuda_runtime.h>

#include "cpwl_eval.hpp"

namespace cvis::cpwl::dev {

// Evaluator ids as template arguments (same values as cpwl::Evaluator).
enum : int {
  kExact = 0,
  kFast = 1,
  kTextureUniform = 2,
  kManualUniform = 3,
  kTextureOptimized = 4,
  kManualOptimized = 5,
  kSlopeUniform = 6,
};

// Pointers into shared memory (plus the scalars and the texture handle of the table).
struct SharedTable {
  const float* values;
  const float* slope;
  const float* knots;
  const float* inv_h;
  int n;
  float a, scale;
  cudaTextureObject_t tex;
};

// Floats of shared memory a table of n segments and search size pow2 needs (slope pairs first,
// for their 8-byte alignment).
__host__ __device__ constexpr int shared_floats(int n, int pow2) {
  return 2 * (n + 3) + (n + 4) + 2 * pow2;
}

// Copies what evaluator E reads of `t` (device pointers) into `smem` (shared_floats(n, pow2)
// floats). All threads of the block must call it; the caller synchronises before evaluating.
template <int E> __device__ SharedTable load_shared(const TableView& t, float* smem) {
  SharedTable s;
  float* slope = smem;
  float* values = slope + 2 * (t.n + 3);
  float* knots = values + (t.n + 4);
  float* inv_h = knots + t.pow2;
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int nthreads = blockDim.x * blockDim.y * blockDim.z;
  if (E == kSlopeUniform) {
    for (int i = tid; i < 2 * (t.n + 3); i += nthreads)
      slope[i] = t.slope[i];
  }
  if (E == kManualUniform || E == kManualOptimized) {
    for (int i = tid; i < t.n + 4; i += nthreads)
      values[i] = t.values[i];
  }
  if (E == kManualOptimized || E == kTextureOptimized) {
    for (int i = tid; i < t.pow2; i += nthreads) {
      knots[i] = t.knots[i];
      inv_h[i] = t.inv_h[i];
    }
  }
  s.values = values;
  s.slope = slope;
  s.knots = knots;
  s.inv_h = inv_h;
  s.n = t.n;
  s.a = t.a;
  s.scale = t.scale;
  s.tex = static_cast<cudaTextureObject_t>(t.texture);
  return s;
}

// g(x) with evaluator E; P is the compile-time search size of optimized tables (ignored otherwise).
template <int E, int P> __device__ __forceinline__ float evaluate(const SharedTable& s, float x) {
  if constexpr (E == kExact) {
    return expf(gaussian_exponent(x));
  } else if constexpr (E == kFast) {
    return __expf(gaussian_exponent(x));
  } else if constexpr (E == kTextureUniform) {
    return tex1D<float>(s.tex, uniform_index(s.a, s.scale, x) + 0.5f);
  } else if constexpr (E == kManualUniform) {
    return lookup_manual(s.values, s.n, uniform_index(s.a, s.scale, x));
  } else if constexpr (E == kSlopeUniform) {
    return lookup_slope(s.slope, s.n, uniform_index(s.a, s.scale, x));
  } else if constexpr (E == kTextureOptimized) {
    return tex1D<float>(s.tex, optimized_index<P>(s.knots, s.inv_h, x) + 0.5f);
  } else {
    static_assert(E == kManualOptimized, "unknown evaluator");
    return lookup_manual(s.values, s.n, optimized_index<P>(s.knots, s.inv_h, x));
  }
}

} // namespace cvis::cpwl::dev

// Calls MACRO(P) with the compile-time search size matching runtime `pow2` (16..1024); evaluates
// `fallback` for other values.
#define CVIS_CPWL_DISPATCH_POW2(pow2, MACRO, fallback)                                             \
  switch (pow2) {                                                                                  \
  case 16:                                                                                         \
    MACRO(16);                                                                                     \
    break;                                                                                         \
  case 32:                                                                                         \
    MACRO(32);                                                                                     \
    break;                                                                                         \
  case 64:                                                                                         \
    MACRO(64);                                                                                     \
    break;                                                                                         \
  case 128:                                                                                        \
    MACRO(128);                                                                                    \
    break;                                                                                         \
  case 256:                                                                                        \
    MACRO(256);                                                                                    \
    break;                                                                                         \
  case 512:                                                                                        \
    MACRO(512);                                                                                    \
    break;                                                                                         \
  case 1024:                                                                                       \
    MACRO(1024);                                                                                   \
    break;                                                                                         \
  default:                                                                                         \
    fallback;                                                                                      \
    break;                                                                                         \
  }

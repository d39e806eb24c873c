// CPWL evaluation primitives shared verbatim by the CPU twins and the CUDA kernels (CVIS_HD), so
// that both compute the same bits wherever the hardware allows it.
//
// Every evaluator works in two steps (paper Algorithm 1):
//  1. map the abscissa x to a fractional table index p (uniform partition: an affine map; optimized
//     partition: the branch-free unrolled binary search of Sect. V, then an affine map inside the
//     segment found);
//  2. look the nodal values up at p, either "manually" (two loads and a lerp) or through the
//     texture unit's linear filtering (one tex1D fetch; its 9-bit weight is emulated on the CPU).
//
// Outside [a, b] both lookups behave like a texture with a zero border: the approximant ramps
// linearly to 0 over one segment on each side and is 0 beyond. Inside [a, b] it is the CPWL
// function itself.
//
// Arithmetic: mul_rn/add_rn (common/exact_arith.hpp) keep nvcc from contracting a*b+c into an FMA,
// so the manual paths are bit-identical between CPU and GPU.
#pragma once

#include <cmath>
#include <cstdint>

#include "common/exact_arith.hpp"
#include "common/hd.hpp"

namespace cvis::cpwl {

// floor, max(v, lo) and min(v, hi) with identical results on both sides. On the host they avoid
// libm calls (baseline x86-64 has no single-instruction floor, and fminf's NaN rule blocks minss):
// hd_floor needs |t| < 2^31; a NaN v gives lo in hd_max, as fmaxf does.
CVIS_HD float hd_floor(float t) {
#if defined(__CUDA_ARCH__)
  return floorf(t);
#else
  const int i = static_cast<int>(t);
  return static_cast<float>(i - (t < static_cast<float>(i) ? 1 : 0));
#endif
}
CVIS_HD float hd_max(float v, float lo) {
#if defined(__CUDA_ARCH__)
  return fmaxf(v, lo);
#else
  return v > lo ? v : lo;
#endif
}
CVIS_HD float hd_min(float v, float hi) {
#if defined(__CUDA_ARCH__)
  return fminf(v, hi);
#else
  return v < hi ? v : hi;
#endif
}

// A device-ready table: plain pointers and numbers (valid in the memory space of whoever reads it).
//
// Padded value layout (n + 4 floats): S[0] = 0, S[1 + i] = V_i for i = 0..n, S[n + 2] = S[n + 3] =
// 0; the zeros are the texture border. `slope` holds {S[k], S[k+1] - S[k]} for k = 0..n + 2.
// Optimized partitions: `knots` and `inv_h` have `pow2` entries (a power of two >= n): knots[j] =
// x_j for j < n and +inf after, inv_h[j] = 1 / (x_{j+1} - x_j) (in float, from the float knots).
struct TableView {
  int n = 0;     // segments (N)
  int pow2 = 0;  // search size for optimized partitions (0: uniform)
  float a = 0.f; // uniform: p = (x - a) * scale
  float scale = 0.f;
  const float* values = nullptr; // n + 4 padded values
  const float* slope = nullptr;  // 2 * (n + 3) floats: value, slope pairs (8-byte aligned)
  const float* knots = nullptr;  // pow2 entries
  const float* inv_h = nullptr;  // pow2 entries
  uint64_t texture = 0;          // cudaTextureObject_t over the n + 1 values (border 0, linear)
};

// How the texture unit rounds its 8-bit fractional weight. The CUDA guide only says the weight is
// "stored in 9-bit fixed point format with 8 bits of fractional value"; the GPU parity test reports
// which rule the hardware follows.
enum class TexRounding : int { kNearest = 0, kTruncate = 1 };

// Step 1, uniform partition.
CVIS_HD float uniform_index(float a, float scale, float x) {
  return mul_rn(sub_rn(x, a), scale);
}

// Step 1, optimized partition, branch-free binary search over `pow2` knots (compile-time size on
// the GPU: the loop unrolls into log2(pow2) selects). The result is j + (x - x_j) / h_j.
template <int kPow2>
CVIS_HD float optimized_index(const float* knots, const float* inv_h, float x) {
  int j = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int s = kPow2 / 2; s >= 1; s >>= 1)
    j = (x >= knots[j + s]) ? j + s : j;
  return add_rn(static_cast<float>(j), mul_rn(sub_rn(x, knots[j]), inv_h[j]));
}

// Runtime-size twin of optimized_index (same comparisons in the same order, same result).
CVIS_HD float optimized_index_rt(const float* knots, const float* inv_h, int pow2, float x) {
  int j = 0;
  for (int s = pow2 / 2; s >= 1; s >>= 1)
    j = (x >= knots[j + s]) ? j + s : j;
  return add_rn(static_cast<float>(j), mul_rn(sub_rn(x, knots[j]), inv_h[j]));
}

// Step 2, manual interpolation over the padded values (two loads, one lerp).
CVIS_HD float lookup_manual(const float* padded, int n, float p) {
  const float t = hd_min(hd_max(p, -1.0f), static_cast<float>(n + 1));
  const float fl = hd_floor(t);
  const int k = static_cast<int>(fl) + 1;
  const float f = sub_rn(t, fl);
  const float v0 = padded[k];
  return add_rn(v0, mul_rn(f, sub_rn(padded[k + 1], v0)));
}

// Step 2 with a value+slope table: one 8-byte load. Bit-identical to lookup_manual, because the
// slope is the same float subtraction done ahead of time.
CVIS_HD float lookup_slope(const float* slope_pairs, int n, float p) {
  const float t = hd_min(hd_max(p, -1.0f), static_cast<float>(n + 1));
  const float fl = hd_floor(t);
  const int k = static_cast<int>(fl) + 1;
  const float f = sub_rn(t, fl);
#if defined(__CUDA_ARCH__)
  const float2 q = reinterpret_cast<const float2*>(slope_pairs)[k]; // one 8-byte load
  return add_rn(q.x, mul_rn(f, q.y));
#else
  return add_rn(slope_pairs[2 * k], mul_rn(f, slope_pairs[2 * k + 1]));
#endif
}

// The texture unit's weight for fraction f in [0, 1): a multiple of 1/256 (1.0 is reachable when
// rounding to nearest).
CVIS_HD float texture_weight(float f, TexRounding r) {
  const float scaled = mul_rn(f, 256.0f);
  const float q = (r == TexRounding::kNearest) ? hd_floor(add_rn(scaled, 0.5f)) : hd_floor(scaled);
  return mul_rn(q, 1.0f / 256.0f);
}

// CPU emulation of tex1D<float>(tex, p + 0.5f) with linear filtering, unnormalized coordinates and
// a zero border over the n + 1 values (padded layout as above).
CVIS_HD float lookup_texture_emulated(const float* padded, int n, float p, TexRounding r) {
  // Far outside, every texel read is border; clamping keeps the integer conversion in range.
  const float c = hd_min(hd_max(p, -2.0f), static_cast<float>(n + 2));
  const float xb = sub_rn(add_rn(c, 0.5f), 0.5f);
  const float fl = hd_floor(xb);
  const float w = texture_weight(sub_rn(xb, fl), r);
  const int i = static_cast<int>(fl); // texel index, -2..n+2
  const float t0 = (i >= 0 && i <= n) ? padded[i + 1] : 0.0f;
  const float t1 = (i + 1 >= 0 && i + 1 <= n) ? padded[i + 2] : 0.0f;
  return add_rn(mul_rn(sub_rn(1.0f, w), t0), mul_rn(w, t1));
}

// The Gaussian the paper benchmarks, g(x) = exp(-x^2 / 2): the exponent, shared by the exact and
// the fast evaluators.
CVIS_HD float gaussian_exponent(float x) {
  return mul_rn(-0.5f, mul_rn(x, x));
}

} // namespace cvis::cpwl

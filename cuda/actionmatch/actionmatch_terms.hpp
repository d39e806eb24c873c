// The energy terms and the pruning bounds, shared verbatim by the CPU reference and the CUDA
// kernels (CVIS_HD), so that both compute the same bits. Only IEEE-754 double operations that CUDA
// and the host both round correctly (+, -, *, /, sqrt, comparisons) are used, in a fixed order and
// without contraction into fused multiply-add (the library is compiled with -ffp-contract=off and
// --fmad=false); the arctangent is computed here rather than by the two math libraries, whose last
// bits differ. Every term is then rounded to the fixed-point grid of kEnergyScale.
#pragma once

#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <cmath>
#include <cstring>
#endif

#include "common/hd.hpp"

namespace cvis::actionmatch::terms {

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kTwoPi = 6.28318530717958647693;
inline constexpr double kHalfPi = 1.57079632679489661923;
inline constexpr int64_t kInf = INT64_MAX; // an infeasible trellis cell

// 1.5 x 2^52: every double in [2^52, 2^53) is an integer, so adding this to a value of magnitude
// below 2^51 rounds it to an integer (ties to even, the current rounding mode) and leaves that
// integer in the low bits of the sum.
inline constexpr double kRoundMagic = 6755399441055744.0;
inline constexpr int64_t kRoundMagicBits = 0x4338000000000000;

CVIS_HD int64_t double_bits(double x) {
#if defined(__CUDA_ARCH__)
  return __double_as_longlong(x);
#else
  int64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
#endif
}

CVIS_HD double bits_double(int64_t b) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(b);
#else
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
#endif
}

// Rounds x * kEnergyScale (2^20, exact) to the nearest integer, ties to even: the same integer as
// llrint / __double2ll_rn, by one addition instead of a 64-bit conversion (a quarter of the FP64
// rate on the GPU). Exact while |x * 2^20| < 2^51; validation (README.md) keeps every term below
// 2^49 (the largest, a distortion term, below 100 x (2^22 + 1000 x pi sqrt 2) x 2^20).
CVIS_HD int64_t quantize(double x) {
#if defined(__CUDA_ARCH__)
  const double r = __dadd_rn(__dmul_rn(x, 1048576.0), kRoundMagic);
#else
  const double r = x * 1048576.0 + kRoundMagic;
#endif
  return double_bits(r) - kRoundMagicBits;
}

// The double of an int with |v| < 2^51 (frame differences), exactly, without a conversion
// instruction: v in the low bits of 1.5 x 2^52, minus 1.5 x 2^52.
CVIS_HD double small_int_double(int v) {
  return bits_double(kRoundMagicBits + v) - kRoundMagic;
}

CVIS_HD double dsqrt(double x) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(x);
#else
  return std::sqrt(x);
#endif
}

// arctan(t) for 0 <= t <= 1: t is reduced to |u| <= tan(7.5 deg) around the nearest of 0, 15, 30,
// 45 degrees (atan t = c + atan((t - tan c) / (1 + t tan c))), then the Taylor series of atan u to
// u^19 (truncation below 1e-18 relative). Error against the exact value: a few ulp.
CVIS_HD double atan_unit(double t) {
  double c = 0.0, tc = 0.0;
  if (t > 0.76732698797896034) {
    c = 0.78539816339744831; // pi/4
    tc = 1.0;
  } else if (t > 0.41421356237309505) {
    c = 0.52359877559829887338; // pi/6
    tc = 0.57735026918962576;   // tan(pi/6)
  } else if (t > 0.13165249758739586) {
    c = 0.26179938779914944;  // pi/12
    tc = 0.26794919243112271; // tan(pi/12)
  }
  const double u = c == 0.0 ? t : (t - tc) / (1.0 + t * tc);
  const double u2 = u * u;
  double s = 1.0 / 19.0;
  s = 1.0 / 17.0 - u2 * s;
  s = 1.0 / 15.0 - u2 * s;
  s = 1.0 / 13.0 - u2 * s;
  s = 1.0 / 11.0 - u2 * s;
  s = 1.0 / 9.0 - u2 * s;
  s = 1.0 / 7.0 - u2 * s;
  s = 1.0 / 5.0 - u2 * s;
  s = 1.0 / 3.0 - u2 * s;
  s = 1.0 - u2 * s;
  return c + u * s;
}

// The direction of the vector (dx, dy), atan2(dy, dx) in [-pi, pi]; 0 for the zero vector (two
// coincident points: the angle is undefined and this convention is part of the energy).
CVIS_HD double direction(double dx, double dy) {
  const double ax = dx < 0.0 ? -dx : dx, ay = dy < 0.0 ? -dy : dy;
  if (ax == 0.0 && ay == 0.0)
    return 0.0;
  double r = ay <= ax ? atan_unit(ay / ax) : kHalfPi - atan_unit(ax / ay);
  if (dx < 0.0)
    r = kPi - r;
  return dy < 0.0 ? -r : r;
}

// Direction of the ray from point 0 to point 1 (pixel coordinates as stored: floats).
CVIS_HD double ray(float x0, float y0, float x1, float y1) {
  return direction(static_cast<double>(x1) - static_cast<double>(x0),
                   static_cast<double>(y1) - static_cast<double>(y0));
}

// An angle difference on the circle, into (-pi, pi] (inputs in [-2pi, 2pi]).
CVIS_HD double wrap(double d) {
  if (d > kPi)
    return d - kTwoPi;
  if (d <= -kPi)
    return d + kTwoPi;
  return d;
}

// |wrap(d)| (inputs in [-2pi, 2pi]) as the smaller of |d| and 2pi - |d|, without branches: the same
// bits as the magnitude of wrap(d), since d - 2pi and 2pi - |d| (or d + 2pi) round symmetrically,
// 2pi - pi = pi exactly, and 2pi - |d| < pi exactly when |d| > pi. distortion_q squares it.
CVIS_HD double wrap_abs(double d) {
#if defined(__CUDA_ARCH__)
  const double a = fabs(d);
#else
  const double a = std::fabs(d);
#endif
  const double b = kTwoPi - a;
  return b < a ? b : a;
}

// The oriented angle at a point between its rays to a first and a second point (eq. 6's a(.)),
// given the directions of the two rays.
CVIS_HD double angle_at(double ray_to_first, double ray_to_second) {
  return wrap(ray_to_second - ray_to_first);
}

// One step of eq. 2's sum: s + (f - g)^2 in double (the CUDA unary tiles call it term by term).
template <typename A, typename B> CVIS_HD double unary_add(double s, A f, B g) {
  const double d = static_cast<double>(f) - static_cast<double>(g);
  return s + d * d;
}

// lambda1 times the square root of eq. 2's sum, on the fixed-point grid.
CVIS_HD int64_t unary_finish(double s, double lambda1) {
  return quantize(lambda1 * dsqrt(s));
}

// lambda1 U(z_i) for a scene node (eq. 2): lambda1 times the Euclidean distance of the two
// descriptors, summed in index order. A and B are float or double (the values are the same).
template <typename A, typename B>
CVIS_HD int64_t unary_q(const A* f, const B* g, int dim, double lambda1) {
  double s = 0.0;
  for (int k = 0; k < dim; ++k)
    s = unary_add(s, f[k], g[k]);
  return unary_finish(s, lambda1);
}

// lambda1 U for the dummy (eq. 2).
CVIS_HD int64_t dummy_q(double lambda1, double dummy_cost) {
  return quantize(lambda1 * dummy_cost);
}

// lambda2 D(z_i, z_{i-1}, z_{i-2}) for three scene nodes (eq. 3-6). Model node i = r has the
// frame gaps gap1 = t(r) - t(r-1), gap2 = t(r-1) - t(r-2) and the angles `mid` (at r-1, from its
// ray to r to its ray to r-2) and `last` (at r, from its ray to r-1 to its ray to r-2); the scene
// triple (a, b, c) has the same quantities.
CVIS_HD int64_t distortion_q(int model_gap1, int model_gap2, double model_mid, double model_last,
                             int scene_gap1, int scene_gap2, double scene_mid, double scene_last,
                             double lambda2, double lambda3) {
  const int d1 = model_gap1 - scene_gap1, d2 = model_gap2 - scene_gap2;
  const int dt = (d1 < 0 ? -d1 : d1) + (d2 < 0 ? -d2 : d2); // eq. 4, 5
  const double e1 = wrap_abs(model_mid - scene_mid), e2 = wrap_abs(model_last - scene_last);
  const double dg = dsqrt(e1 * e1 + e2 * e2);                       // eq. 6
  return quantize(lambda2 * (small_int_double(dt) + lambda3 * dg)); // eq. 3
}

// lambda2 |d| on the fixed-point grid for a frame-gap difference d: the distortion term of a
// hyperedge whose only difference is the gap difference d. The CUDA trellis bounds the distortion
// term from below by it (README.md, "Folded trellis and
// settle tests"): with d1 = gap1 - scene_gap1 and d2 = gap2 -
// scene_gap2, distortion_q >= gap_q(lambda2, d1) + gap_q(lambda2, d2) - 1 (lambda2, lambda3 >= 0;
// every step of distortion_q is monotone, and each separately rounded term loses at most half a
// grid step; the test DistortionAtLeastItsGapTerms checks it).
CVIS_HD int64_t gap_q(double lambda2, int d) {
  return quantize(lambda2 * small_int_double(d < 0 ? -d : d));
}

// Pruning (eq. 7, 8, 14): the frames allowed for z_i given its predecessors b = z_{i-1} and
// c = z_{i-2} (each either a scene node with frame fb / fc, or the dummy), as the inclusive range
// [*lo, *hi]; INT32_MIN / INT32_MAX mean unbounded. The constraints of a hyperedge are those of its
// scene-node members: their frames do not decrease (causality 1) or increase (causality 2) along
// the chain, and (T > 0) they span fewer than T frames. Assumes (b, c) itself is allowed
// (state_frames()). causality: 0 none, 1 non-decreasing, 2 increasing (Causality).
CVIS_HD void candidate_frames(bool b_real, int fb, bool c_real, int fc, int T, int causality,
                              int* lo, int* hi) {
  int l = INT32_MIN, h = INT32_MAX;
  if (causality != 0) {
    const int step = causality == 2 ? 1 : 0;
    if (b_real)
      l = fb + step;
    else if (c_real)
      l = fc + step;
    if (T > 0) {
      if (c_real)
        h = fc + (T - 1);
      else if (b_real)
        h = fb + (T - 1);
    }
  } else if (T > 0 && (b_real || c_real)) {
    const int mx = b_real && c_real ? (fb > fc ? fb : fc) : (b_real ? fb : fc);
    const int mn = b_real && c_real ? (fb < fc ? fb : fc) : (b_real ? fb : fc);
    l = mx - (T - 1);
    h = mn + (T - 1);
  }
  *lo = l;
  *hi = h;
}

// The frames allowed for z_{i-2} = c when z_{i-1} = b is a scene node of frame fb (both scene
// nodes): causality fc <= fb (1) or fc < fb (2), closeness |fb - fc| < T.
CVIS_HD void state_frames(int fb, int T, int causality, int* lo, int* hi) {
  *lo = T > 0 ? fb - (T - 1) : INT32_MIN;
  *hi = causality == 2 ? fb - 1 : causality == 1 ? fb : (T > 0 ? fb + (T - 1) : INT32_MAX);
}

// Scene nodes are sorted by frame; minnode[f - frame0] (f in frame0..frame0 + frames) is the first
// node whose frame is >= f (minnode[frames] = S). The nodes of the frame range [lo, hi] are
// [*first, *end).
CVIS_HD void nodes_of_frames(int lo, int hi, const int32_t* minnode, int frame0, int frames, int S,
                             int* first, int* end) {
  const int last = frame0 + frames - 1;
  if (frames <= 0 || lo > hi || lo > last || hi < frame0) {
    *first = *end = 0;
    return;
  }
  *first = lo <= frame0 ? 0 : minnode[lo - frame0];
  *end = hi >= last ? S : minnode[hi + 1 - frame0];
}

} // namespace cvis::actionmatch::terms

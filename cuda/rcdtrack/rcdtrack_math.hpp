// Definitions shared verbatim by the CPU reference and the CUDA kernels (CVIS_HD): features, plane
// layout, exact window sums, covariance assembly, log-determinants and the two distances. Both
// backends evaluate a window with these functions in the same order of operations and without
// contraction into FMA (host: -ffp-contract=off; kernels: --fmad=false), so their distances agree
// to the last bits (README.md, "Parity").
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "common/color.hpp"
#include "common/hd.hpp"
#include "rcdtrack.hpp"

#if defined(__CUDA_ARCH__) // device pass only (the host compiler does not know the pragma)
#define RCD_UNROLL _Pragma("unroll")
#else
#define RCD_UNROLL
#endif

namespace cvis::rcdtrack {

inline constexpr int kMaxPlanes = 54; // 9 non-spatial features: 9 + 45
inline constexpr int kMaxPacked = kMaxFeatures * (kMaxFeatures + 1) / 2;
inline constexpr int kMaxParts = 5;
inline constexpr int kMaxTopK = 8;
inline constexpr int kMaxCandidates = 32768; // windows under a group's threshold kept per pass
inline constexpr int kMaxDimension = 16384;

CVIS_HD bool is_spatial(int kind) {
  return kind == static_cast<int>(Feature::kX) || kind == static_cast<int>(Feature::kY);
}

// Variance a feature gets from unit-variance pixel noise: the ridge is ridge * this (thesis: "a
// small ridge" keeps flat windows regular; scaled so one setting suits every feature).
CVIS_HD double feature_ridge_scale(int kind) {
  switch (static_cast<Feature>(kind)) {
  case Feature::kX:
  case Feature::kY:
    return 1e-4; // normalised coordinates have variance ~1/12 and are never degenerate
  case Feature::kIx:
  case Feature::kIy:
  case Feature::kAbsIx:
  case Feature::kAbsIy:
    return 12.0; // sum of the squared Sobel weights
  case Feature::kAbsIxx:
  case Feature::kAbsIyy:
    return 36.0;
  default:
    return 1.0;
  }
}

// The planes whose integral images are built. Non-spatial features f_0..f_{nf-1} follow the ns
// spatial ones in the feature list. Planes: f_a (first order), f_a * f_b for a <= b (second order),
// c_s * f_a for each spatial coordinate c_s (cross). Sums of the coordinates themselves are
// closed forms (spatial_sums).
enum PlaneKind : uint8_t { kFirst = 0, kSecond = 1, kCross = 2 };
struct PlaneDesc {
  uint8_t kind, a,
      b; // kFirst: f_a; kSecond: f_a f_b; kCross: coordinate a (0 = x, 1 = y) times f_b
};

struct Layout {
  int parts = 1; // covariances per window: 1, or 5 (whole, left, right, top, bottom)
  int n = 0;     // features
  int ns = 0;    // spatial features (first in the list)
  int nf = 0;    // non-spatial features
  int planes = 0;
  uint8_t kind[kMaxFeatures] = {};  // Feature of each matrix row
  uint8_t coord[kMaxFeatures] = {}; // coordinate of spatial row s < ns: 0 = x, 1 = y
  double ridge[kMaxFeatures] = {};  // added to each variance
  PlaneDesc plane[kMaxPlanes] = {};
};

CVIS_HD int second_plane(const Layout& l, int a, int b) { // a <= b, non-spatial indices
  return l.nf + b * (b + 1) / 2 + a;
}
CVIS_HD int cross_plane(const Layout& l, int s, int a) { // s: spatial row 0..ns-1
  return l.nf + l.nf * (l.nf + 1) / 2 + s * l.nf + a;
}

// ------------------------------------------------------------------------------------------------
// Pixel features

// Luma of thesis Eq. 8 with its coefficients, rounded to an integer (exact on both backends).
CVIS_HD int luma_of(Rgb8 c) {
  return (2627 * c.r + 6780 * c.g + 593 * c.b + 5000) / 10000;
}

CVIS_HD int iabs(int v) {
  return v < 0 ? -v : v;
}

// Value of non-spatial feature `kind` at a pixel from the 3x3 luma neighbourhood `l` (row-major,
// centre l[4], neighbours clamped at the frame border) and the pixel's colour.
CVIS_HD int feature_value(int kind, const int* l, Rgb8 c) {
  switch (static_cast<Feature>(kind)) {
  case Feature::kR:
    return c.r;
  case Feature::kG:
    return c.g;
  case Feature::kB:
    return c.b;
  case Feature::kI:
    return l[4];
  case Feature::kIx: // thesis Eq. 9, correlation with [-1 0 1; -2 0 2; -1 0 1]
    return (l[2] + 2 * l[5] + l[8]) - (l[0] + 2 * l[3] + l[6]);
  case Feature::kIy: // [-1 -2 -1; 0 0 0; 1 2 1]
    return (l[6] + 2 * l[7] + l[8]) - (l[0] + 2 * l[1] + l[2]);
  case Feature::kAbsIx:
    return iabs((l[2] + 2 * l[5] + l[8]) - (l[0] + 2 * l[3] + l[6]));
  case Feature::kAbsIy:
    return iabs((l[6] + 2 * l[7] + l[8]) - (l[0] + 2 * l[1] + l[2]));
  case Feature::kAbsIxx: // [1 -2 1] along x, smoothed [1 2 1] along y
    return iabs((l[0] - 2 * l[1] + l[2]) + 2 * (l[3] - 2 * l[4] + l[5]) + (l[6] - 2 * l[7] + l[8]));
  case Feature::kAbsIyy:
    return iabs((l[0] - 2 * l[3] + l[6]) + 2 * (l[1] - 2 * l[4] + l[7]) + (l[2] - 2 * l[5] + l[8]));
  default:
    return 0;
  }
}

// Value of plane `p` at a pixel with non-spatial features f[] and region-relative coordinates.
CVIS_HD int64_t plane_value(const PlaneDesc& p, const int* f, int rel_x, int rel_y) {
  switch (p.kind) {
  case kFirst:
    return f[p.a];
  case kSecond:
    return static_cast<int64_t>(f[p.a]) * f[p.b];
  default:
    return static_cast<int64_t>(p.a == 0 ? rel_x : rel_y) * f[p.b];
  }
}

// Non-spatial features of pixel (x, y): the 3x3 luma neighbourhood with coordinates clamped to the
// frame, then feature_value of each. f gets l.nf values.
CVIS_HD void pixel_features(const PixelSource& src, const Layout& l, int x, int y, int* f) {
  int lum[9];
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = y + dy < 0 ? 0 : (y + dy >= src.height ? src.height - 1 : y + dy);
    for (int dx = -1; dx <= 1; ++dx) {
      const int xx = x + dx < 0 ? 0 : (x + dx >= src.width ? src.width - 1 : x + dx);
      lum[(dy + 1) * 3 + dx + 1] = luma_of(fetch_rgb(src, xx, yy));
    }
  }
  const Rgb8 c = fetch_rgb(src, x, y);
  for (int a = 0; a < l.nf; ++a)
    f[a] = feature_value(l.kind[l.ns + a], lum, c);
}

// ------------------------------------------------------------------------------------------------
// Exact 128-bit numerators

struct I128 {
  uint64_t lo;
  int64_t hi;
};

CVIS_HD uint64_t umul_hi(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

CVIS_HD I128 neg128(I128 v) {
  I128 r;
  r.lo = ~v.lo + 1u;
  r.hi = static_cast<int64_t>(~static_cast<uint64_t>(v.hi) + (r.lo == 0 ? 1u : 0u));
  return r;
}

CVIS_HD I128 mul128(int64_t a, int64_t b) {
  const bool neg = (a < 0) != (b < 0);
  const uint64_t ua = a < 0 ? 0u - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
  const uint64_t ub = b < 0 ? 0u - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
  I128 r;
  r.lo = ua * ub;
  r.hi = static_cast<int64_t>(umul_hi(ua, ub));
  return neg ? neg128(r) : r;
}

CVIS_HD I128 sub128(I128 a, I128 b) {
  I128 r;
  r.lo = a.lo - b.lo;
  r.hi = static_cast<int64_t>(static_cast<uint64_t>(a.hi) - static_cast<uint64_t>(b.hi) -
                              (a.lo < b.lo ? 1u : 0u));
  return r;
}

// Nearest-ish double of v: the magnitude's high word is exact (|v| < 2^116 here), its low word is
// rounded once and the sum once more (relative error < 2^-52); identical on both backends.
CVIS_HD double to_double(I128 v) {
  const bool neg = v.hi < 0;
  if (neg)
    v = neg128(v);
  const double d = static_cast<double>(static_cast<uint64_t>(v.hi)) * 18446744073709551616.0 +
                   static_cast<double>(v.lo);
  return neg ? -d : d;
}

// ------------------------------------------------------------------------------------------------
// Integral images: per plane (rows + 1) x (cols + 1) int64, entry (j, i) = sum over cells
// [0, i) x [0, j) of the region (zero first row and column). Window sums of any rectangle of cells
// are four reads (thesis Fig. 3.20); the values are exact, so wrap-around never matters.

struct IntegralRef {
  const int64_t* base; // plane 0, entry (0, 0)
  int64_t plane_stride;
  int64_t row_stride; // cols + 1
};

CVIS_HD int64_t box_sum(const IntegralRef& I, int p, int cx0, int cy0, int cw, int ch) {
  const int64_t* pl = I.base + p * I.plane_stride;
  const int64_t* r0 = pl + cy0 * I.row_stride;
  const int64_t* r1 = pl + (cy0 + ch) * I.row_stride;
  const uint64_t s = static_cast<uint64_t>(r1[cx0 + cw]) - static_cast<uint64_t>(r1[cx0]) -
                     static_cast<uint64_t>(r0[cx0 + cw]) + static_cast<uint64_t>(r0[cx0]);
  return static_cast<int64_t>(s);
}

// Closed forms of the coordinate sums over a window of w x h pixels whose top-left pixel is at
// region-relative (x0, y0): index 0 = x, 1 = y; sums of c, c^2 and x*y.
struct SpatialSums {
  int64_t s[2];
  int64_t ss[2];
  int64_t xy;
};

CVIS_HD SpatialSums spatial_sums(int64_t x0, int64_t y0, int64_t w, int64_t h) {
  const int64_t sx = w * x0 + w * (w - 1) / 2; // one row
  const int64_t sy = h * y0 + h * (h - 1) / 2; // one column
  const int64_t sxx = w * x0 * x0 + x0 * w * (w - 1) + (w - 1) * w * (2 * w - 1) / 6;
  const int64_t syy = h * y0 * y0 + y0 * h * (h - 1) + (h - 1) * h * (2 * h - 1) / 6;
  SpatialSums r;
  r.s[0] = h * sx;
  r.s[1] = w * sy;
  r.ss[0] = h * sxx;
  r.ss[1] = w * syy;
  r.xy = sx * sy;
  return r;
}

CVIS_HD int packed(int i, int j) {
  return i * (i + 1) / 2 + j;
} // i >= j

// Covariance (thesis Eq. 3) of the window of cw x ch cells at cell (cx0, cy0) of integral I whose
// cells are `cell` pixels wide: C_ij = (N S_ij - S_i S_j) / N / (N - 1), the numerator exact, then
// spatial rows divided by the window's width (x) or height (y) (scale normalisation) and, when
// `ridge`, the layout's ridge added to the variances. Output: packed lower triangle. first[] gets
// the first-order sums of the non-spatial features when not null. NS >= 0: the layout has NS
// spatial features (L.ns == NS; the same operations, with the branches on ns resolved at compile
// time: fewer registers in the kernels), -1: read from L.
template <int N, int NS = -1>
CVIS_HD void window_covariance(const Layout& L, const IntegralRef& I, int cell, int cx0, int cy0,
                               int cw, int ch, bool ridge, double* C, int64_t* first = nullptr) {
  // Arrays are indexed by the matrix row (a compile-time index once unrolled), so that they stay in
  // registers; the spatial count ns is a run-time value unless NS gives it.
  const int ns = NS >= 0 ? NS : L.ns;
  const int64_t w = static_cast<int64_t>(cw) * cell, h = static_cast<int64_t>(ch) * cell;
  const int64_t n = w * h;
  const SpatialSums sp =
      spatial_sums(static_cast<int64_t>(cx0) * cell, static_cast<int64_t>(cy0) * cell, w, h);
  int64_t s1[N]; // first-order sum of row i: a coordinate sum or a plane sum
  RCD_UNROLL
  for (int i = 0; i < N; ++i) {
    if (i < ns) {
      s1[i] = L.coord[i] == 0 ? sp.s[0] : sp.s[1];
    } else {
      s1[i] = box_sum(I, i - ns, cx0, cy0, cw, ch);
      if (first)
        first[i - ns] = s1[i];
    }
  }
  // One division per matrix, not two per entry (divisions are most of a window's FP64 work): the
  // entry then has two roundings more than num / n / (n - 1), far inside the 1e-9 of the tests.
  const double inv = 1.0 / static_cast<double>(n) / static_cast<double>(n - 1);
  const double lw = static_cast<double>(w), lh = static_cast<double>(h);
  RCD_UNROLL
  for (int i = 0; i < N; ++i) {
    RCD_UNROLL
    for (int j = 0; j <= i; ++j) {
      int64_t sij;
      if (i < ns) { // both spatial
        sij = L.coord[i] != L.coord[j] ? sp.xy : (L.coord[i] == 0 ? sp.ss[0] : sp.ss[1]);
      } else if (j < ns) { // feature i against coordinate j
        sij = box_sum(I, cross_plane(L, j, i - ns), cx0, cy0, cw, ch);
      } else {
        sij = box_sum(I, second_plane(L, j - ns, i - ns), cx0, cy0, cw, ch);
      }
      const I128 num = sub128(mul128(n, sij), mul128(s1[i], s1[j]));
      double c = to_double(num) * inv;
      if (j < ns)
        c = c / (L.coord[j] == 0 ? lw : lh);
      if (i < ns)
        c = c / (L.coord[i] == 0 ? lw : lh);
      if (ridge && i == j)
        c = c + L.ridge[i];
      C[packed(i, j)] = c;
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Logarithms and log-determinants

// ln(m * 2^e) for m > 0 with only +, -, *, / and frexp (exact), so both backends get the same bits:
// ln f = 2 atanh((f - 1) / (f + 1)) on f in [1/sqrt 2, sqrt 2), series to s^23 (< 1e-17 relative).
CVIS_HD double hd_log2e(double m, int e) {
  int k = 0;
  double f = frexp(m, &k);
  e += k;
  if (f < 0.70710678118654752440) {
    f = f * 2.0;
    e -= 1;
  }
  const double s = (f - 1.0) / (f + 1.0);
  const double z = s * s;
  double p = 0.043478260869565216;  // 1/23
  p = p * z + 0.047619047619047616; // 1/21
  p = p * z + 0.052631578947368418; // 1/19
  p = p * z + 0.058823529411764705; // 1/17
  p = p * z + 0.066666666666666666; // 1/15
  p = p * z + 0.076923076923076927; // 1/13
  p = p * z + 0.090909090909090912; // 1/11
  p = p * z + 0.1111111111111111;   // 1/9
  p = p * z + 0.14285714285714285;  // 1/7
  p = p * z + 0.20000000000000001;  // 1/5
  p = p * z + 0.33333333333333331;  // 1/3
  p = p * z + 1.0;
  const double de = static_cast<double>(e);
  return de * 0.693147180369123816490 + (de * 1.90821492927058770002e-10 + 2.0 * s * p);
}
CVIS_HD double hd_log(double x) {
  return hd_log2e(x, 0);
}

// LDL^T of the packed symmetric matrix a (destroyed): log det = ln(prod d_i), the product kept as
// mantissa and exponent. False when a pivot is not positive (not positive definite).
template <int N> CVIS_HD bool ldl_logdet(double* a, double* logdet) {
  double d[N], r[N]; // pivots and their reciprocals (one division per pivot, not per entry)
  double m = 1.0;
  int e = 0;
  RCD_UNROLL
  for (int i = 0; i < N; ++i) {
    RCD_UNROLL
    for (int j = 0; j < i; ++j) {
      double s = a[packed(i, j)];
      RCD_UNROLL
      for (int k = 0; k < j; ++k)
        s = s - a[packed(i, k)] * a[packed(j, k)] * d[k];
      a[packed(i, j)] = s * r[j];
    }
    double s = a[packed(i, i)];
    RCD_UNROLL
    for (int k = 0; k < i; ++k)
      s = s - a[packed(i, k)] * a[packed(i, k)] * d[k];
    if (!(s > 0.0))
      return false;
    d[i] = s;
    r[i] = 1.0 / s;
    int k2 = 0;
    m = frexp(m * s, &k2);
    e += k2;
  }
  *logdet = hd_log2e(m, e);
  return true;
}

// Thesis Eq. 10: d(A, B) = ln|(A + B) / 2| - (ln|A| + ln|B|) / 2, with ln|A| cached. B is
// destroyed. +infinity when a matrix is not positive definite.
template <int N> CVIS_HD double jbld(const double* A, double logdet_a, double* B) {
  constexpr int T = N * (N + 1) / 2;
  double M[T];
  RCD_UNROLL
  for (int k = 0; k < T; ++k)
    M[k] = (A[k] + B[k]) * 0.5;
  double lm = 0.0, lb = 0.0;
  if (!ldl_logdet<N>(M, &lm) || !ldl_logdet<N>(B, &lb))
    return HUGE_VAL;
  return lm - 0.5 * (logdet_a + lb);
}

// Eigenvalues of the symmetric N x N matrix a (full, destroyed) by cyclic Jacobi rotations: at most
// 16 sweeps, stopping once the off-diagonal mass is below 1e-30 of the diagonal's.
template <int N> CVIS_HD void jacobi_eigenvalues(double* a, double* lambda) {
  for (int sweep = 0; sweep < 16; ++sweep) {
    double off = 0.0, diag = 0.0;
    for (int p = 0; p < N; ++p) {
      diag = diag + a[p * N + p] * a[p * N + p];
      for (int q = p + 1; q < N; ++q)
        off = off + a[p * N + q] * a[p * N + q];
    }
    if (!(off > 1e-30 * diag))
      break;
    for (int p = 0; p < N - 1; ++p) {
      for (int q = p + 1; q < N; ++q) {
        const double apq = a[p * N + q];
        if (apq == 0.0)
          continue;
        const double theta = (a[q * N + q] - a[p * N + p]) / (2.0 * apq);
        const double t = (theta >= 0.0 ? 1.0 : -1.0) /
                         ((theta >= 0.0 ? theta : -theta) + sqrt(theta * theta + 1.0));
        const double c = 1.0 / sqrt(t * t + 1.0);
        const double s = t * c;
        for (int k = 0; k < N; ++k) { // columns p, q
          const double akp = a[k * N + p], akq = a[k * N + q];
          a[k * N + p] = c * akp - s * akq;
          a[k * N + q] = s * akp + c * akq;
        }
        for (int k = 0; k < N; ++k) { // rows p, q
          const double apk = a[p * N + k], aqk = a[q * N + k];
          a[p * N + k] = c * apk - s * aqk;
          a[q * N + k] = s * apk + c * aqk;
        }
      }
    }
  }
  for (int p = 0; p < N; ++p)
    lambda[p] = a[p * N + p];
}

// Thesis Eq. 5-6: the generalised eigenvalues of (A, B) are those of K B K^T with K = L^-1,
// A = L L^T (K packed lower triangular, cached per model). +infinity for a non-positive eigenvalue.
template <int N> CVIS_HD double foerstner(const double* K, const double* B) {
  double KB[N * N];
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < N; ++j) {
      double s = 0.0;
      for (int k = 0; k <= i; ++k)
        s = s + K[packed(i, k)] * B[k >= j ? packed(k, j) : packed(j, k)];
      KB[i * N + j] = s;
    }
  }
  double M[N * N];
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j <= i; ++j) {
      double s = 0.0;
      for (int k = 0; k <= j; ++k)
        s = s + KB[i * N + k] * K[packed(j, k)];
      M[i * N + j] = s;
      M[j * N + i] = s;
    }
  }
  double lambda[N];
  jacobi_eigenvalues<N>(M, lambda);
  double sum = 0.0;
  for (int i = 0; i < N; ++i) {
    if (!(lambda[i] > 0.0))
      return HUGE_VAL;
    const double l = hd_log(lambda[i]);
    sum = sum + l * l;
  }
  return sqrt(sum);
}

// The distance of the selected kind between the model (packed A with ln|A|, or K for Foerstner)
// and window covariance B (packed, destroyed).
template <int N>
CVIS_HD double model_distance(Distance kind, const double* A, double logdet_a, const double* K,
                              double* B) {
  return kind == Distance::kJbld ? jbld<N>(A, logdet_a, B) : foerstner<N>(K, B);
}

// A model prepared for the kernels, per part: the packed ridged covariance A, ln|A| and, for the
// Foerstner distance, K = L^-1 with A = L L^T (packed lower triangle).
struct ModelData {
  double a[kMaxParts][kMaxPacked] = {};
  double logdet[kMaxParts] = {};
  double k[kMaxParts][kMaxPacked] = {};
  // The context comparison's reference: part 0's non-spatial block (spatial rows replaced by
  // identity rows, which add nothing to either distance), ridged, with its ln det and K.
  double ctx_a[kMaxPacked] = {};
  double ctx_logdet = 0.0;
  double ctx_k[kMaxPacked] = {};
};

// Part p of a window of cw x ch cells at (cx0, cy0): 0 the window, 1 its left half, 2 its right
// half, 3 its top half, 4 its bottom half (odd sizes: the second half is the larger).
CVIS_HD void part_box(int p, int cx0, int cy0, int cw, int ch, int* x, int* y, int* w, int* h) {
  *x = cx0;
  *y = cy0;
  *w = cw;
  *h = ch;
  if (p == 1) {
    *w = cw / 2;
  } else if (p == 2) {
    *x = cx0 + cw / 2;
    *w = cw - cw / 2;
  } else if (p == 3) {
    *h = ch / 2;
  } else if (p == 4) {
    *y = cy0 + ch / 2;
    *h = ch - ch / 2;
  }
}

// window_distance's early exit (`Stop`): after each part but the last, stop(lower) may end the
// evaluation, `lower` being a lower bound of the final distance from the parts so far (distances
// are >= 0: the sum of the four smallest of five is at least the sum of the parts so far minus
// their largest; with one infinite part, the final value is the sum of the finite ones). The
// function then returns HUGE_VAL; the caller must treat that window as not evaluated. NoStop (the
// CPU reference, describing windows) never stops: the loop is the same as without it.
struct NoStop {
  static constexpr bool kActive = false;
  CVIS_HD bool operator()(double) const { return false; }
};

// Distance of a window to the model: the one covariance's distance, or with five parts Tuzel et
// al.'s sum of the five distances minus the largest (robust to one occluded half). A part whose
// matrix is not positive definite counts as infinitely far.
template <int N, class Stop = NoStop>
CVIS_HD double window_distance(const Layout& L, Distance kind, const IntegralRef& I, int cell,
                               int cx0, int cy0, int cw, int ch, const ModelData& m,
                               const Stop& stop = Stop()) {
  constexpr int T = N * (N + 1) / 2;
  double sum = 0.0, worst = 0.0;
  int infinite = 0;
  for (int p = 0; p < L.parts; ++p) {
    int px, py, pw, ph;
    part_box(p, cx0, cy0, cw, ch, &px, &py, &pw, &ph);
    double C[T];
    window_covariance<N>(L, I, cell, px, py, pw, ph, true, C);
    const double d = model_distance<N>(kind, m.a[p], m.logdet[p], m.k[p], C);
    if (!(d < HUGE_VAL)) {
      ++infinite;
    } else {
      sum = sum + d;
      worst = d > worst ? d : worst;
    }
    if (Stop::kActive && L.parts > 1 && p + 1 < L.parts &&
        (infinite > 1 || stop(infinite ? sum : sum - worst)))
      return HUGE_VAL; // two infinite parts: the result is HUGE_VAL anyway
  }
  if (L.parts == 1)
    return infinite ? HUGE_VAL : sum;
  if (infinite == 0)
    return sum - worst;
  return infinite == 1 ? sum : HUGE_VAL;
}

// The context term: the distance between the model's colour/texture statistics (non-spatial
// features) and those of the ring around the window, out to kContextMargin of its size on each
// side (clipped to the integral), capped at kContextCap. A window that cuts through the target has
// target pixels in its ring (a small distance); one that fits it has background there. The ring's
// sums are the outer box's minus the window's, exactly. 0 when the ring has under 16 pixels.
inline constexpr double kContextMargin = 0.2;
inline constexpr double kContextCap = 1.0;

template <int N, int NS = -1> // NS: as in window_covariance
CVIS_HD double context_distance(const Layout& L, Distance kind, const IntegralRef& I, int cols,
                                int rows, int cell, int cx0, int cy0, int cw, int ch,
                                const ModelData& m) {
  const int mx = (cw + 2) / 5 > 0 ? (cw + 2) / 5 : 1, my = (ch + 2) / 5 > 0 ? (ch + 2) / 5 : 1;
  const int ox0 = cx0 - mx > 0 ? cx0 - mx : 0, oy0 = cy0 - my > 0 ? cy0 - my : 0;
  const int ox1 = cx0 + cw + mx < cols ? cx0 + cw + mx : cols;
  const int oy1 = cy0 + ch + my < rows ? cy0 + ch + my : rows;
  const int64_t c2 = static_cast<int64_t>(cell) * cell;
  const int64_t n =
      (static_cast<int64_t>(ox1 - ox0) * (oy1 - oy0) - static_cast<int64_t>(cw) * ch) * c2;
  if (n < 16)
    return 0.0;
  const int ns = NS >= 0 ? NS : L.ns;
  int64_t s1[N];
  RCD_UNROLL
  for (int i = 0; i < N; ++i)
    s1[i] = i < ns ? 0
                   : box_sum(I, i - ns, ox0, oy0, ox1 - ox0, oy1 - oy0) -
                         box_sum(I, i - ns, cx0, cy0, cw, ch);
  constexpr int T = N * (N + 1) / 2;
  double C[T];
  const double inv = 1.0 / static_cast<double>(n) / static_cast<double>(n - 1);
  RCD_UNROLL
  for (int i = 0; i < N; ++i) {
    RCD_UNROLL
    for (int j = 0; j <= i; ++j) {
      double c;
      if (j < ns) {
        c = i == j ? 1.0 : 0.0;
      } else {
        const int p = second_plane(L, j - ns, i - ns);
        const int64_t sij =
            box_sum(I, p, ox0, oy0, ox1 - ox0, oy1 - oy0) - box_sum(I, p, cx0, cy0, cw, ch);
        c = to_double(sub128(mul128(n, sij), mul128(s1[i], s1[j]))) * inv;
        if (i == j)
          c = c + L.ridge[i];
      }
      C[packed(i, j)] = c;
    }
  }
  const double d = model_distance<N>(kind, m.ctx_a, m.ctx_logdet, m.ctx_k, C);
  return d < kContextCap ? d : kContextCap;
}

// Score of a window: distance plus the priors on its offset from the predicted centre (in target
// sizes) and on its size (ln of the size factor, precomputed per grid).
struct Prior {
  double cx = 0.0, cy = 0.0; // predicted centre (pixels)
  double w = 1.0, h = 1.0;   // current target size
  double motion_weight = 0.0, scale_weight = 0.0;
  double context_weight = 0.0; // score -= context_weight * context_distance (0: not computed)
};

// The two prior terms of window_score: motion (offset) and scale.
CVIS_HD void prior_terms(const Prior& p, int x0, int y0, int ww, int wh, double ln_factor,
                         double* motion, double* scale) {
  const double dx = (static_cast<double>(x0) + 0.5 * static_cast<double>(ww) - p.cx) / p.w;
  const double dy = (static_cast<double>(y0) + 0.5 * static_cast<double>(wh) - p.cy) / p.h;
  *motion = p.motion_weight * (dx * dx + dy * dy);
  *scale = p.scale_weight * (ln_factor * ln_factor);
}

CVIS_HD double window_score(double distance, const Prior& p, int x0, int y0, int ww, int wh,
                            double ln_factor) {
  double motion, scale;
  prior_terms(p, x0, y0, ww, wh, ln_factor, &motion, &scale);
  return distance + motion + scale;
}

// The full score of window (x0, y0, ww, wh) of integral I (region origin rx, ry; cols x rows
// cells): window_score minus the context term when the prior asks for it.
template <int N>
CVIS_HD double search_score(const Layout& L, Distance kind, const IntegralRef& I, int rx, int ry,
                            int cols, int rows, int cell, const Prior& p, int x0, int y0, int ww,
                            int wh, double ln_factor, double distance, const ModelData& m) {
  double s = window_score(distance, p, x0, y0, ww, wh, ln_factor);
  if (p.context_weight > 0.0)
    s = s - p.context_weight * context_distance<N>(L, kind, I, cols, rows, cell, (x0 - rx) / cell,
                                                   (y0 - ry) / cell, ww / cell, wh / cell, m);
  return s;
}

// Ordering of hits: lower score first, then lower window index (so both backends break ties alike).
CVIS_HD bool hit_before(double sa, int64_t ia, double sb, int64_t ib) {
  return sa < sb || (sa == sb && ia < ib);
}

} // namespace cvis::rcdtrack

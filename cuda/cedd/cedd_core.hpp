// CEDD per-block arithmetic shared verbatim by the CPU reference (cedd_cpu.cpp) and the CUDA
// kernels (cedd_kernels.cu), so that both compute the same bits. Section numbers (§) refer to the
// specification (shared notes cedd.md); README.md maps them to the functions below.
//
// Every real quantity is an IEEE-754 double and every operation is written as one correctly rounded
// step (mul_rn/add_rn/sub_rn/div_rn of common/exact_arith.hpp: never contracted into an FMA).
// Internal header: not part of the library's public interface.
#pragma once

#include <cstdint>

#include "common/color.hpp"
#include "common/exact_arith.hpp"
#include "common/hd.hpp"

#if defined(__CUDA_ARCH__)
#define CVIS_CEDD_UNROLL _Pragma("unroll")
#else
#define CVIS_CEDD_UNROLL
#endif

namespace cvis::cedd::core {

CVIS_HD double dabs(double a) {
  return a < 0.0 ? -a : a;
}
CVIS_HD double dmax(double a, double b) {
  return a > b ? a : b;
}
CVIS_HD double dmin(double a, double b) {
  return a < b ? a : b;
}

// ---- constants (hexadecimal so that every compiler reads the same bits; decimal in comments)
// ------
inline constexpr double kLumaB = 0x1.d2f1a9fbe76c9p-4; // 0.114
inline constexpr double kLumaG = 0x1.2c8b439581062p-1; // 0.587
inline constexpr double kLumaR = 0x1.322d0e5604189p-2; // 0.299
inline constexpr double kSqrt2 = 0x1.6a09e667f3bcdp+0; // nearest double to sqrt(2)
inline constexpr double kT0 = 14.0;                    // edge threshold on the largest mask
inline constexpr double kT1 = 0x1.5c28f5c28f5c3p-1;    // 0.68 (non-directional)
inline constexpr double kT2 = 0x1.f5c28f5c28f5cp-1;    // 0.98 (horizontal, vertical)
inline constexpr double kT3 = 0x1.f5c28f5c28f5cp-1;    // 0.98 (diagonals)

inline constexpr int kBins = 144;
inline constexpr int kClasses = 6;  // texture classes 0..5 (§4)
inline constexpr int kColours = 24; // bins of the 24-bin colour system (§8.2)

// ---- stage 1 results: what the hybrid mode sends from the CPU to the GPU
// -------------------------- Quadrant values A1..A4 (§4 step 2: 0..255) and the truncated mean
// colour (§5) of one block.
struct BlockStats {
  uint16_t a[4];
  uint8_t r, g, b, pad;
};
static_assert(sizeof(BlockStats) == 12, "BlockStats is copied between host and device as bytes");

// One descriptor to compute: a rectangle of an image (the whole image, or a region of it) with its
// block grid (§2). Plain data: built on the host, read by the CPU reference and copied to the
// device.
struct Job {
  PixelSource src;    // the whole image (planes, pitches, format)
  int x0, y0;         // the rectangle's origin in the image
  int width, height;  // the rectangle's size: the W x H of §2
  int nx, ny, sx, sy; // block grid (§2); nx = ny = 0 when W < 2 or H < 2
  double c;           // quadrant factor (§4 step 2)
  int block_offset;   // index of the job's first block in per-block arrays
  int pad;
};

// §3: per-pixel luma, blue term first, never rounded to an integer.
CVIS_HD double luma(int r, int g, int b) {
  return add_rn(
      add_rn(mul_rn(kLumaB, static_cast<double>(b)), mul_rn(kLumaG, static_cast<double>(g))),
      mul_rn(kLumaR, static_cast<double>(r)));
}

// §4 step 2: the factor c = 4 / (Sx * Sy), computed once per image.
CVIS_HD double quadrant_factor(int sx, int sy) {
  return div_rn(4.0, static_cast<double>(sx * sy));
}

// §4 step 2: A = trunc(S * c) of a quadrant luma sum S >= 0.
CVIS_HD int quadrant_value(double sum, double c) {
  return static_cast<int>(mul_rn(sum, c));
}

// ---- §4 steps 3-5: masks, largest mask, texture classes
// -------------------------------------------- Returns the class set as a bit mask (bit k = class
// k); *max_mask receives Mx.
CVIS_HD uint32_t texture_classes(const uint16_t a[4], double* max_mask) {
  const int a1 = a[0], a2 = a[1], a3 = a[2], a4 = a[3];
  // M1..M3 are small integers, exact in any order.
  const int i1 = 2 * a1 - 2 * a2 - 2 * a3 + 2 * a4;
  const int i2 = a1 + a2 - a3 - a4;
  const int i3 = a1 - a2 + a3 - a4;
  const double m1 = static_cast<double>(i1 < 0 ? -i1 : i1);
  const double m2 = static_cast<double>(i2 < 0 ? -i2 : i2);
  const double m3 = static_cast<double>(i3 < 0 ? -i3 : i3);
  // The diagonals: two separately rounded products, then one subtraction (not (A1 - A4) * s).
  const double m4 = dabs(
      sub_rn(mul_rn(static_cast<double>(a1), kSqrt2), mul_rn(static_cast<double>(a4), kSqrt2)));
  const double m5 = dabs(
      sub_rn(mul_rn(static_cast<double>(a2), kSqrt2), mul_rn(static_cast<double>(a3), kSqrt2)));
  const double mx = dmax(dmax(dmax(dmax(m1, m2), m3), m4), m5);
  *max_mask = mx;
  if (mx < kT0)
    return 1u; // non-edge only
  uint32_t cls = 0;
  if (div_rn(m1, mx) > kT1)
    cls |= 1u << 1;
  if (div_rn(m2, mx) > kT2)
    cls |= 1u << 2;
  if (div_rn(m3, mx) > kT2)
    cls |= 1u << 3;
  if (div_rn(m4, mx) > kT3)
    cls |= 1u << 4;
  if (div_rn(m5, mx) > kT3)
    cls |= 1u << 5;
  return cls;
}

// ---- §6: RGB -> HSV with integer outputs
// --------------------------------------------------------------
struct Hsv {
  int h, s, v;
};

CVIS_HD Hsv rgb_to_hsv(int r, int g, int b) {
  const int mx = r > g ? (r > b ? r : b) : (g > b ? g : b);
  const int mn = r < g ? (r < b ? r : b) : (g < b ? g : b);
  Hsv o;
  o.v = mx;
  o.s = mx == 0 ? 0
                : static_cast<int>(sub_rn(255.0, mul_rn(255.0, div_rn(static_cast<double>(mn),
                                                                      static_cast<double>(mx)))));
  if (mx == mn) {
    o.h = 0;
  } else {
    const double d = static_cast<double>(mx - mn);
    if (mx == r && g >= b) {
      o.h = static_cast<int>(div_rn(static_cast<double>(60 * (g - b)), d));
    } else if (mx == r) {
      o.h = static_cast<int>(add_rn(359.0, div_rn(static_cast<double>(60 * (g - b)), d)));
    } else if (mx == g) {
      o.h = static_cast<int>(add_rn(119.0, div_rn(static_cast<double>(60 * (b - r)), d)));
    } else {
      o.h = static_cast<int>(add_rn(239.0, div_rn(static_cast<double>(60 * (r - g)), d)));
    }
  }
  return o;
}

// ---- §7: trapezoid membership (a <= b <= c <= d)
// ------------------------------------------------------
CVIS_HD double membership(double x, double a, double b, double c, double d) {
  if (x >= b && x <= c)
    return 1.0;
  if (x >= a && x < b)
    return div_rn(sub_rn(x, a), sub_rn(b, a));
  if (x > c && x <= d)
    return add_rn(div_rn(sub_rn(x, c), sub_rn(c, d)), 1.0);
  return 0.0;
}

// §7.1: the 10-bin system's hue (8), saturation (2) and value (3) sets.
CVIS_HD void memberships10(const Hsv& p, double hue[8], double sat[2], double val[3]) {
  const double h = p.h, s = p.s, v = p.v;
  hue[0] = membership(h, 0, 0, 5, 10);        // red (low end)
  hue[1] = membership(h, 5, 10, 35, 50);      // orange
  hue[2] = membership(h, 35, 50, 70, 85);     // yellow
  hue[3] = membership(h, 70, 85, 150, 165);   // green
  hue[4] = membership(h, 150, 165, 195, 205); // cyan
  hue[5] = membership(h, 195, 205, 265, 280); // blue
  hue[6] = membership(h, 265, 280, 315, 330); // magenta
  hue[7] = membership(h, 315, 330, 360, 360); // red (high end)
  sat[0] = membership(s, 0, 0, 10, 75);       // grey
  sat[1] = membership(s, 10, 75, 255, 255);   // colour
  val[0] = membership(v, 0, 0, 10, 75);       // dark
  val[1] = membership(v, 10, 75, 180, 220);   // medium
  val[2] = membership(v, 180, 220, 255, 255); // bright
}

// One rule of §8: fires when all memberships are > 0 and adds their minimum to `bin`.
CVIS_HD void fire(double* bins, int bin, double m1, double m2, double m3) {
  if (m1 > 0.0 && m2 > 0.0 && m3 > 0.0)
    bins[bin] = add_rn(bins[bin], dmin(dmin(m1, m2), m3));
}
CVIS_HD void fire2(double* bins, int bin, double m1, double m2) {
  if (m1 > 0.0 && m2 > 0.0)
    bins[bin] = add_rn(bins[bin], dmin(m1, m2));
}

// §8.1: the 48 rules of the 10-bin system in the reference's order (multi-participate
// defuzzification, no normalisation). Bins: 0 white, 1 grey, 2 black, 3 red .. 9 magenta.
CVIS_HD void fuzzy10(const Hsv& p, double f10[10]) {
  double hue[8], sat[2], val[3];
  memberships10(p, hue, sat, val);
  CVIS_CEDD_UNROLL
  for (int i = 0; i < 10; ++i)
    f10[i] = 0.0;
  CVIS_CEDD_UNROLL
  for (int h = 0; h < 8; ++h) { // rules 4h+0 .. 4h+3
    fire(f10, 2, hue[h], sat[0], val[0]);
    fire(f10, 2, hue[h], sat[1], val[0]);
    fire(f10, 0, hue[h], sat[0], val[2]);
    fire(f10, 1, hue[h], sat[0], val[1]);
  }
  CVIS_CEDD_UNROLL
  for (int h = 0; h < 8; ++h) { // rules 32+2h, 33+2h; both red hue sets map to bin 3
    const int colour = h == 7 ? 3 : 3 + h;
    fire(f10, colour, hue[h], sat[1], val[1]);
    fire(f10, colour, hue[h], sat[1], val[2]);
  }
}

// §8.2: the 24-bin system from the 10-bin result and the block's S and V.
CVIS_HD void fuzzy24(const double f10[10], const Hsv& p, double f24[kColours]) {
  const double s = p.s, v = p.v;
  const double sat[2] = {membership(s, 0, 0, 68, 188), membership(s, 68, 188, 255, 255)};
  const double val[2] = {membership(v, 0, 0, 68, 188), membership(v, 68, 188, 255, 255)};
  double shade[3] = {0.0, 0.0, 0.0}; // light, normal, dark
  double t = 0.0;
  CVIS_CEDD_UNROLL
  for (int i = 3; i < 10; ++i)
    t = add_rn(t, f10[i]);
  if (t > 0.0) {
    fire2(shade, 1, sat[1], val[1]);
    fire2(shade, 2, sat[0], val[0]);
    fire2(shade, 0, sat[0], val[1]);
    fire2(shade, 2, sat[1], val[0]);
  }
  f24[0] = f10[0];
  f24[1] = f10[1];
  f24[2] = f10[2];
  CVIS_CEDD_UNROLL
  for (int i = 3; i < 10; ++i) {
    CVIS_CEDD_UNROLL
    for (int k = 0; k < 3; ++k)
      f24[3 * (i - 2) + k] = mul_rn(f10[i], shade[k]);
  }
}

// Optional intermediate values of block_features(), for debugging against the reference.
struct BlockTrace {
  double max_mask;
  Hsv hsv;
  double f10[10];
};

// Stages §4 (steps 3-5), §6, §7 and §8 of one block: the 24-bin colour vector and the texture class
// set (bit mask) that §9 accumulates.
CVIS_HD uint32_t block_features(const BlockStats& st, double f24[kColours], BlockTrace* trace) {
  double mx;
  const uint32_t classes = texture_classes(st.a, &mx);
  const Hsv hsv = rgb_to_hsv(st.r, st.g, st.b);
  double f10[10];
  fuzzy10(hsv, f10);
  fuzzy24(f10, hsv, f24);
  if (trace != nullptr) {
    trace->max_mask = mx;
    trace->hsv = hsv;
    for (int i = 0; i < 10; ++i)
      trace->f10[i] = f10[i];
  }
  return classes;
}

// ---- §10: quantisation
// --------------------------------------------------------------------------------- Quantisation
// table of histogram bin i: 0 = A (0..23), 1 = B (24..47), 2 = C (48..95), 3 = D.
CVIS_HD int quant_table_of_bin(int bin) {
  return bin < 24 ? 0 : bin < 48 ? 1 : bin < 96 ? 2 : 3;
}

// The reference's table literals (given in the comments), as the doubles they parse to.
CVIS_HD double quant_literal(int table, int j) {
  switch (table * 8 + j) {
  case 0:
    return 0x1.6864cb8b0a2b0p+7; // 180.19686541079636
  case 1:
    return 0x1.72c819164e2f0p+14; // 23730.024499150866
  case 2:
    return 0x1.e0224e4a8d7abp+15; // 61457.152912541605
  case 3:
    return 0x1.bcfe8deb92031p+16; // 113918.55437576842
  case 4:
    return 0x1.5dd93b645d175p+17; // 179122.46400035513
  case 5:
    return 0x1.fdba2a9270fc7p+17; // 260980.3325940354
  case 6:
    return 0x1.4dc8fbb686bf8p+18; // 341795.93301552488
  case 7:
    return 0x1.0edd3f91469bep+19; // 554729.98648386425
  case 8:
    return 0x1.a280e7f3e9504p+7; // 209.25176965926232
  case 9:
    return 0x1.5f6a596190869p+14; // 22490.5872862417345
  case 10:
    return 0x1.d6b5c97ab0f63p+15; // 60250.8935141849988
  case 11:
    return 0x1.d781c9be24400p+16; // 120705.788057580583
  case 12:
    return 0x1.61c40b25c928fp+17; // 181128.08709063051
  case 13:
    return 0x1.c94a0a69e725ap+17; // 234132.081356900555
  case 14:
    return 0x1.3e072788f06fbp+18; // 325660.617733105708
  case 15:
    return 0x1.fc7f8b4144abap+18; // 520702.175858657472
  case 16:
    return 0x1.9576d6f2450acp+8; // 405.4642173212585
  case 17:
    return 0x1.30df9f0e34b3ep+12; // 4877.9763319071481
  case 18:
    return 0x1.54115c58795d1p+13; // 10882.170090625908
  case 19:
    return 0x1.1bdcf4d1b50e1p+14; // 18167.239081219657
  case 20:
    return 0x1.a68d8ad28b2ccp+14; // 27043.385568785292
  case 21:
    return 0x1.29e2d38f1ee3ep+15; // 38129.413201299016
  case 22:
    return 0x1.9b8671505e886p+15; // 52675.221316293857
  case 23:
    return 0x1.36c3671140aedp+16; // 79555.402607004813
  case 24:
    return 0x1.e4713fcef16bbp+9; // 968.88475977695578
  case 25:
    return 0x1.4f2945b3703a6p+13; // 10725.159033657819
  case 26:
    return 0x1.7984d249fd974p+14; // 24161.205360376698
  case 27:
    return 0x1.44a7d5ae29cc4p+15; // 41555.917344385321
  case 28:
    return 0x1.eb5f41c3ba120p+15; // 62895.628446402261
  case 29:
    return 0x1.6b8a457923c25p+16; // 93066.271379694881
  case 30:
    return 0x1.0b88110bfbe33p+17; // 136976.13317822068
  default:
    return 0x1.00bc771373885p+18; // 262897.86056221306 (table D, j = 7)
  }
}

// §10: nearest level centre fl(Q[j] / 1e6); strict "<" so ties go to the smaller j; a NaN stays 0.
CVIS_HD int quantize(double v, int table) {
  double best = 1.0;
  int level = 0;
  CVIS_CEDD_UNROLL
  for (int j = 0; j < 8; ++j) {
    const double d = dabs(sub_rn(v, div_rn(quant_literal(table, j), 1000000.0)));
    if (d < best) {
      best = d;
      level = j;
    }
  }
  return level;
}

// §9: bin / total; an image without blocks has total 0 and gets 0.0 (the reference's 0/0 would be a
// NaN; both quantise to level 0). See README.md, "Deviations".
CVIS_HD double normalize(double bin, double total) {
  return total > 0.0 ? div_rn(bin, total) : 0.0;
}

} // namespace cvis::cedd::core

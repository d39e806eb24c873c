// Definitions shared verbatim by the CPU reference and the CUDA kernels (CVIS_HD): how a value is
// binned, what value a bin stands for, the median of a histogram (the paper's Algorithm 1), Otsu's
// threshold, and how a background pixel is written (pixels are read with cvis::fetch_channels,
// common/color.hpp).
// Everything here is integer arithmetic except Otsu's between-class variance, whose double
// operations are written so that no contraction into FMA is possible (the same bits on both sides).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/color.hpp"
#include "common/hd.hpp"
#include "common/image.hpp"

namespace cvis::median3d {

// Bin of an 8-bit value with `bins` uniform bins (8..256): floor(v * bins / 256).
CVIS_HD int quantize(int v, int bins) {
  return (v * bins) >> 8;
}

// Smallest 8-bit value in bin k (k = bins gives 256): ceil(256 k / bins).
CVIS_HD int bin_low(int k, int bins) {
  return (k * 256 + bins - 1) / bins;
}

// The value a bin stands for in the background image: the midpoint of the bin's values, rounded
// down. With 256 bins it is the value itself, so the median is exact.
CVIS_HD int bin_value(int k, int bins) {
  return (bin_low(k, bins) + bin_low(k + 1, bins) - 1) >> 1;
}

// Algorithm 1: the first bin whose cumulative count exceeds half the window count `n`
// (2 * cum > n, integer; for even n this is the upper median). `count(k)` gives bin k's count.
template <typename CountFn> CVIS_HD int median_bin(CountFn count, int bins, uint32_t n) {
  uint32_t cum = 0;
  for (int k = 0; k < bins; ++k) {
    cum += count(k);
    if (2u * cum > n)
      return k;
  }
  return bins - 1; // unreachable when the counts add up to n >= 1
}

// The channel values of a pixel: cvis::fetch_channels (common/color.hpp), luma with luma_of.

// Where a background image is written (any cvis::PixelFormat).
struct PixelDest {
  PixelFormat format;
  int width, height;
  uint8_t* plane[3];
  size_t pitch[3];
  PackedLayout layout; // packed RGB / GRAY8
};

// Writes the background pixel (x, y) from its channel values (see fetch_channels). Luma mode
// (`luma`): R = G = B = v[0] (alpha 255) for RGB, Y = v[0] with neutral chroma (128) for YUV.
// Per-channel mode: v[0..2] are R, G, B or Y, U, V; YUV chroma comes from the block's top-left
// pixel (the one with even x and y), which is the only pixel of the block that writes it.
CVIS_HD void store_background(const PixelDest& d, int x, int y, bool luma, const uint8_t v[3]) {
  if (d.format == PixelFormat::kNV12 || d.format == PixelFormat::kI420) {
    d.plane[0][static_cast<size_t>(y) * d.pitch[0] + x] = v[0];
    if ((x & 1) || (y & 1))
      return;
    const uint8_t u = luma ? 128 : v[1], w = luma ? 128 : v[2];
    const size_t crow = static_cast<size_t>(y >> 1);
    if (d.format == PixelFormat::kNV12) {
      uint8_t* uv = d.plane[1] + crow * d.pitch[1] + 2 * (x >> 1);
      uv[0] = u;
      uv[1] = w;
    } else {
      d.plane[1][crow * d.pitch[1] + (x >> 1)] = u;
      d.plane[2][crow * d.pitch[2] + (x >> 1)] = w;
    }
    return;
  }
  uint8_t* p = d.plane[0] + static_cast<size_t>(y) * d.pitch[0] +
               static_cast<size_t>(x) * d.layout.bytes_per_pixel;
  if (d.format == PixelFormat::kGRAY8) {
    p[0] = v[0];
    return;
  }
  // Padding bytes (RGBx, xRGB, ...) are set too, so that no stale byte survives.
  for (int i = 0; i < d.layout.bytes_per_pixel; ++i)
    p[i] = 255;
  p[d.layout.r] = v[0];
  p[d.layout.g] = luma ? v[0] : v[1];
  p[d.layout.b] = luma ? v[0] : v[2];
}

// Otsu's between-class variance times N^2 for the split {v <= t} / {v > t}, where w0 and s0 are
// the count and value sum of {v <= t} and n, s those of all pixels: (s0 n - s w0)^2 / (w0 w1).
// int64 sums are exact for n < 2^26 pixels; the double multiply and divide are correctly rounded
// on CPUs and GPUs alike and cannot be contracted into an FMA, so both compute the same bits.
// Negative (-1) when one class is empty.
CVIS_HD double otsu_score(int64_t w0, int64_t s0, int64_t n, int64_t s) {
  const int64_t w1 = n - w0;
  if (w0 == 0 || w1 == 0)
    return -1.0;
  const double num = static_cast<double>(s0 * n - s * w0);
  const double sq = num * num;
  const double den = static_cast<double>(w0) * static_cast<double>(w1);
  return sq / den;
}

// Otsu's threshold of a 256-bin histogram: the t in 0..254 with the largest otsu_score (ties: the
// smallest t). When every pixel has the same value there is no split: the result is that value,
// so that `v > t` selects nothing.
CVIS_HD int otsu_threshold(const uint32_t hist[256]) {
  int64_t n = 0, s = 0;
  int vmax = 0;
  for (int v = 0; v < 256; ++v) {
    n += hist[v];
    s += static_cast<int64_t>(v) * hist[v];
    if (hist[v])
      vmax = v;
  }
  int64_t w0 = 0, s0 = 0;
  double best = -1.0;
  int best_t = vmax;
  for (int t = 0; t < 255; ++t) {
    w0 += hist[t];
    s0 += static_cast<int64_t>(t) * hist[t];
    const double var = otsu_score(w0, s0, n, s);
    if (var > best) {
      best = var;
      best_t = t;
    }
  }
  return best_t;
}

// The clipped box [x - rx, x + rx] x [y - ry, y + ry] inside a w x h image: its first/last
// column and row and its pixel count.
struct Box {
  int x0, x1, y0, y1;
};
CVIS_HD Box clip_box(int x, int y, int rx, int ry, int w, int h) {
  Box b;
  b.x0 = x - rx < 0 ? 0 : x - rx;
  b.x1 = x + rx > w - 1 ? w - 1 : x + rx;
  b.y0 = y - ry < 0 ? 0 : y - ry;
  b.y1 = y + ry > h - 1 ? h - 1 : y + ry;
  return b;
}
CVIS_HD uint32_t box_area(const Box& b) {
  return static_cast<uint32_t>(b.x1 - b.x0 + 1) * static_cast<uint32_t>(b.y1 - b.y0 + 1);
}

} // namespace cvis::median3d

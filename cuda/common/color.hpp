// Pixel access shared by CPU references and CUDA kernels: one definition of "the RGB value of pixel
// (x, y)" for every supported format, so both backends read identical bytes and convert YUV with
// identical integer arithmetic.
//
// Conventions:
// - GRAY8 is replicated to R = G = B.
// - Formats with alpha are composited over black with Java2D's 8-bit multiply (mul8table:
//   (a * c * 65793 + 2^23) >> 24, i.e. a*c/255 rounded), which is what the CEDD reference does when it
//   draws an image onto a fresh RGB buffer.
// - YUV (NV12, I420): nearest chroma sample (x/2, y/2), matrix and range from the colorimetry, fixed
//   point with 14 fractional bits, rounded, clamped to 0..255. This is not bit-exact with any
//   particular external converter.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hd.hpp"
#include "image.hpp"

namespace cvis {

struct Rgb8 {
  uint8_t r, g, b;
};

// YUV -> RGB in Q14: R = (ym*(Y-yo) + rv*(V-128) + 2^13) >> 14, etc.
struct YuvToRgb {
  int32_t y_off;
  int32_t y_mul;
  int32_t rv, gu, gv, bu;
};

// Plain-old-data source description built from an ImageView on the host and passed by value into
// kernels (no pointers to host structures).
struct PixelSource {
  PixelFormat format;
  int width, height;
  const uint8_t* plane[3];
  size_t pitch[3];
  PackedLayout layout;  // packed RGB / GRAY8
  YuvToRgb yuv;         // NV12 / I420
};

YuvToRgb yuv_to_rgb_coeffs(const YuvColorimetry& c);
PixelSource make_pixel_source(const ImageView& v);

CVIS_HD uint8_t clamp_u8(int32_t v) { return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v)); }

CVIS_HD uint8_t alpha_over_black(uint32_t c, uint32_t a) {
  return static_cast<uint8_t>((static_cast<uint64_t>(a) * c * 65793u + (1u << 23)) >> 24);
}

CVIS_HD Rgb8 yuv_pixel_to_rgb(const YuvToRgb& k, int y, int u, int v) {
  const int32_t yy = k.y_mul * (y - k.y_off);
  const int32_t du = u - 128, dv = v - 128;
  Rgb8 o;
  o.r = clamp_u8((yy + k.rv * dv + (1 << 13)) >> 14);
  o.g = clamp_u8((yy - k.gu * du - k.gv * dv + (1 << 13)) >> 14);
  o.b = clamp_u8((yy + k.bu * du + (1 << 13)) >> 14);
  return o;
}

// RGB of pixel (x, y); 0 <= x < width, 0 <= y < height.
CVIS_HD Rgb8 fetch_rgb(const PixelSource& s, int x, int y) {
  if (s.format == PixelFormat::kNV12 || s.format == PixelFormat::kI420) {
    const int Y = s.plane[0][static_cast<size_t>(y) * s.pitch[0] + x];
    const size_t crow = static_cast<size_t>(y >> 1);
    int U, V;
    if (s.format == PixelFormat::kNV12) {
      const uint8_t* uv = s.plane[1] + crow * s.pitch[1] + 2 * (x >> 1);
      U = uv[0];
      V = uv[1];
    } else {
      U = s.plane[1][crow * s.pitch[1] + (x >> 1)];
      V = s.plane[2][crow * s.pitch[2] + (x >> 1)];
    }
    return yuv_pixel_to_rgb(s.yuv, Y, U, V);
  }
  const uint8_t* p = s.plane[0] + static_cast<size_t>(y) * s.pitch[0] +
                     static_cast<size_t>(x) * s.layout.bytes_per_pixel;
  Rgb8 o;
  if (s.layout.a >= 0) {
    const uint32_t a = p[s.layout.a];
    o.r = alpha_over_black(p[s.layout.r], a);
    o.g = alpha_over_black(p[s.layout.g], a);
    o.b = alpha_over_black(p[s.layout.b], a);
  } else {
    o.r = p[s.layout.r];
    o.g = p[s.layout.g];
    o.b = p[s.layout.b];
  }
  return o;
}

}  // namespace cvis

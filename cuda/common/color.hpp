// Pixel access shared by CPU references and CUDA kernels: one definition of "the RGB value of pixel
// (x, y)" for every supported format, so both backends read identical bytes and convert YUV with
// identical integer arithmetic.
//
// Conventions:
// - GRAY8 is replicated to R = G = B.
// - Formats with alpha are composited over black with Java2D's 8-bit multiply (mul8table:
//   (a * c * 65793 + 2^23) >> 24, i.e. a*c/255 rounded), which is what the CEDD reference does when
//   it draws an image onto a fresh RGB buffer.
// - YUV (NV12, I420): nearest chroma sample (x/2, y/2), matrix and range from the colorimetry,
//   fixed point with 14 fractional bits, rounded, clamped to 0..255. This is not bit-exact with
//   any particular external converter.
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
  PackedLayout layout; // packed RGB / GRAY8
  YuvToRgb yuv;        // NV12 / I420
};

YuvToRgb yuv_to_rgb_coeffs(const YuvColorimetry& c);
PixelSource make_pixel_source(const ImageView& v);

CVIS_HD uint8_t clamp_u8(int32_t v) {
  return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

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

// ---- The pixel readers (every method reads pixels through these; 0 <= x < width, 0 <= y <
// height). YUV: Y at (x, y), chroma of the 2x2 block the pixel lies in (x / 2, y / 2).

CVIS_HD bool is_yuv_source(const PixelSource& s) {
  return s.format == PixelFormat::kNV12 || s.format == PixelFormat::kI420;
}

// The first byte of packed pixel (x, y) (packed RGB and GRAY8; layout offsets from there).
CVIS_HD const uint8_t* packed_pixel(const PixelSource& s, int x, int y) {
  return s.plane[0] + static_cast<size_t>(y) * s.pitch[0] +
         static_cast<size_t>(x) * s.layout.bytes_per_pixel;
}

// Y of pixel (x, y) of an NV12 / I420 source.
CVIS_HD uint8_t fetch_y(const PixelSource& s, int x, int y) {
  return s.plane[0][static_cast<size_t>(y) * s.pitch[0] + x];
}

struct Yuv8 {
  uint8_t y, u, v;
};

// Y, U, V of pixel (x, y) of an NV12 / I420 source.
CVIS_HD Yuv8 fetch_yuv(const PixelSource& s, int x, int y) {
  Yuv8 o;
  o.y = fetch_y(s, x, y);
  const size_t crow = static_cast<size_t>(y >> 1);
  if (s.format == PixelFormat::kNV12) {
    const uint8_t* uv = s.plane[1] + crow * s.pitch[1] + 2 * (x >> 1);
    o.u = uv[0];
    o.v = uv[1];
  } else {
    o.u = s.plane[1][crow * s.pitch[1] + (x >> 1)];
    o.v = s.plane[2][crow * s.pitch[2] + (x >> 1)];
  }
  return o;
}

// RGB of pixel (x, y).
CVIS_HD Rgb8 fetch_rgb(const PixelSource& s, int x, int y) {
  if (is_yuv_source(s)) {
    const Yuv8 q = fetch_yuv(s, x, y);
    return yuv_pixel_to_rgb(s.yuv, q.y, q.u, q.v);
  }
  const uint8_t* p = packed_pixel(s, x, y);
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

// BT.601 full-range luma of 8-bit R'G'B' in 8.8 fixed point (weights 77 + 150 + 29 = 256).
CVIS_HD int luma_of(int r, int g, int b) {
  return (77 * r + 150 * g + 29 * b + 128) >> 8;
}

// The channel values of pixel (x, y) as they are stored (no colour conversion). `luma`: one
// channel (GRAY8 value, YUV's Y, or luma_of(R, G, B) for packed RGB; alpha and padding bytes
// ignored). Otherwise three channels: R, G, B for packed RGB, Y, U, V for YUV, the value three
// times for GRAY8.
CVIS_HD void fetch_channels(const PixelSource& s, int x, int y, bool luma, uint8_t out[3]) {
  if (is_yuv_source(s)) {
    if (luma) {
      out[0] = fetch_y(s, x, y);
      return;
    }
    const Yuv8 q = fetch_yuv(s, x, y);
    out[0] = q.y;
    out[1] = q.u;
    out[2] = q.v;
    return;
  }
  const uint8_t* p = packed_pixel(s, x, y);
  const int r = p[s.layout.r], g = p[s.layout.g], b = p[s.layout.b];
  if (luma) {
    out[0] = static_cast<uint8_t>(s.format == PixelFormat::kGRAY8 ? r : luma_of(r, g, b));
    return;
  }
  out[0] = static_cast<uint8_t>(r);
  out[1] = static_cast<uint8_t>(g);
  out[2] = static_cast<uint8_t>(b);
}

} // namespace cvis

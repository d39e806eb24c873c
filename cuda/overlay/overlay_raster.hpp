// The overlay's primitives and per-pixel rules, shared verbatim by the CPU reference, the CUDA
// kernels and the tests (CVIS_HD): which pixels a primitive covers, how a colour is written in each
// format, how the mask tint blends. Everything is integer arithmetic, so the backends agree bit for
// bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/hd.hpp"
#include "common/image.hpp"

namespace cvis::overlay {

enum PrimKind : uint8_t {
  kPrimRect = 0,  // filled rectangle [x0, x1) x [y0, y1)
  kPrimGlyph = 1, // 5x7 glyph `rows` at (x0, y0), each font pixel `size` x `size` pixels
  kPrimLine = 2,  // segment (x0, y0)-(x1, y1), `size` pixels wide
};

// One primitive, 32 bytes, plain data (copied to the device as is).
struct Prim {
  int32_t x0, y0, x1, y1;
  int32_t size;     // line width or glyph scale (>= 1)
  uint8_t kind;     // PrimKind
  uint8_t color[3]; // in the frame's channels: R, G, B (packed RGB), Y, U, V (YUV), Y (GRAY8)
  uint8_t rows[8];  // glyph rows 0..6 (bit 4 = leftmost column), rows[7] unused
};
static_assert(sizeof(Prim) == 32, "Prim is copied to the device as is");

// Where pixels are written: a frame's planes (host or device pointers) and layout.
struct Target {
  PixelFormat format;
  int width, height;
  uint8_t* plane[3];
  size_t pitch[3];
  PackedLayout layout; // packed RGB / GRAY8
};

// Mask tint: channel values (as Prim::color) and strength 0..255.
struct Tint {
  uint8_t color[3];
  int32_t alpha;
};

// Pixels a primitive may touch: [*x0, *x1) x [*y0, *y1) (not clipped to the frame).
CVIS_HD void prim_bounds(const Prim& p, int* x0, int* y0, int* x1, int* y1) {
  if (p.kind == kPrimRect) {
    *x0 = p.x0, *y0 = p.y0, *x1 = p.x1, *y1 = p.y1;
  } else if (p.kind == kPrimGlyph) {
    *x0 = p.x0, *y0 = p.y0, *x1 = p.x0 + 5 * p.size, *y1 = p.y0 + 7 * p.size;
  } else {
    const int r = (p.size + 1) / 2; // a pixel within w/2 of the segment is within ceil(w/2)
    *x0 = (p.x0 < p.x1 ? p.x0 : p.x1) - r;
    *x1 = (p.x0 > p.x1 ? p.x0 : p.x1) + r + 1;
    *y0 = (p.y0 < p.y1 ? p.y0 : p.y1) - r;
    *y1 = (p.y0 > p.y1 ? p.y0 : p.y1) + r + 1;
  }
}

// Does primitive `p` cover pixel (x, y)? Lines: the pixel centre lies within width/2 of the
// segment (4 d^2 <= w^2), which leaves no gap along a 1-pixel line. Exact in 64-bit integers for
// coordinates within +-kMaxCoord (build_primitives drops segments beyond): |cross| < 2^31, so
// cross^2 fits, and 4 c^2 <= w^2 L  <=>  c^2 <= floor(w^2 L / 4) for integers.
inline constexpr int kMaxCoord = 1 << 14;

CVIS_HD bool covers(const Prim& p, int x, int y) {
  if (p.kind == kPrimRect)
    return x >= p.x0 && x < p.x1 && y >= p.y0 && y < p.y1;
  if (p.kind == kPrimGlyph) {
    const int dx = x - p.x0, dy = y - p.y0;
    if (dx < 0 || dy < 0 || dx >= 5 * p.size || dy >= 7 * p.size)
      return false;
    return (p.rows[dy / p.size] >> (4 - dx / p.size)) & 1;
  }
  const int64_t dx = p.x1 - p.x0, dy = p.y1 - p.y0;
  const int64_t vx = x - p.x0, vy = y - p.y0;
  const int64_t quarter_w2 = (static_cast<int64_t>(p.size) * p.size) >> 2; // floor(w^2 / 4)
  const int64_t len2 = dx * dx + dy * dy;
  const int64_t t = vx * dx + vy * dy;
  if (len2 == 0 || t <= 0)
    return vx * vx + vy * vy <= quarter_w2;
  if (t >= len2) {
    const int64_t ex = x - p.x1, ey = y - p.y1;
    return ex * ex + ey * ey <= quarter_w2;
  }
  const uint64_t cross =
      static_cast<uint64_t>(vx * dy - vy * dx >= 0 ? vx * dy - vy * dx : vy * dx - vx * dy);
  const uint64_t limit =
      (static_cast<uint64_t>(p.size) * p.size * static_cast<uint64_t>(len2)) >> 2;
  return cross * cross <= limit; // distance^2 = cross^2 / len2
}

CVIS_HD uint8_t* pixel_ptr(const Target& t, int plane, int x, int y, int bytes_per_pixel) {
  return t.plane[plane] + static_cast<size_t>(y) * t.pitch[plane] +
         static_cast<size_t>(x) * bytes_per_pixel;
}

// Writes colour `c` at pixel (x, y): R, G, B (alpha 255 where there is one), GRAY8 or the Y sample.
CVIS_HD void put_pixel(const Target& t, int x, int y, const uint8_t* c) {
  if (t.format == PixelFormat::kNV12 || t.format == PixelFormat::kI420 ||
      t.format == PixelFormat::kGRAY8) {
    *pixel_ptr(t, 0, x, y, 1) = c[0];
    return;
  }
  uint8_t* p = pixel_ptr(t, 0, x, y, t.layout.bytes_per_pixel);
  p[t.layout.r] = c[0];
  p[t.layout.g] = c[1];
  p[t.layout.b] = c[2];
  if (t.layout.a >= 0)
    p[t.layout.a] = 255;
}

// Writes U, V = c[1], c[2] at chroma sample (cx, cy) of a YUV frame.
CVIS_HD void put_chroma(const Target& t, int cx, int cy, const uint8_t* c) {
  if (t.format == PixelFormat::kNV12) {
    uint8_t* uv = pixel_ptr(t, 1, cx, cy, 2);
    uv[0] = c[1];
    uv[1] = c[2];
  } else if (t.format == PixelFormat::kI420) {
    *pixel_ptr(t, 1, cx, cy, 1) = c[1];
    *pixel_ptr(t, 2, cx, cy, 1) = c[2];
  }
}

CVIS_HD bool target_is_yuv(const Target& t) {
  return t.format == PixelFormat::kNV12 || t.format == PixelFormat::kI420;
}

// value blended towards `tint` with weight a/255, rounded: (v (255 - a) + tint a + 127) / 255.
CVIS_HD uint8_t blend(uint8_t v, uint8_t tint, int32_t a) {
  return static_cast<uint8_t>((v * (255 - a) + tint * a + 127) / 255);
}

// Mask tint of the 2x2 quad whose top-left pixel is (x, y) (x, y even; pixels outside the frame
// skipped). Masked pixels blend towards the tint (R, G, B or the luma). A YUV chroma sample blends
// with weight a n / (255 d), d = the quad's pixels inside the frame, n = the masked ones:
// (c (255 d - a n) + tint a n + 255 d / 2) / (255 d).
CVIS_HD void tint_quad(const Target& t, const uint8_t* mask, size_t mask_pitch, const Tint& k,
                       int x, int y) {
  int d = 0, n = 0;
  for (int j = 0; j < 2; ++j) {
    for (int i = 0; i < 2; ++i) {
      const int px = x + i, py = y + j;
      if (px >= t.width || py >= t.height)
        continue;
      ++d;
      if (mask[static_cast<size_t>(py) * mask_pitch + px] == 0)
        continue;
      ++n;
      if (target_is_yuv(t) || t.format == PixelFormat::kGRAY8) {
        uint8_t* p = pixel_ptr(t, 0, px, py, 1);
        *p = blend(*p, k.color[0], k.alpha);
      } else {
        uint8_t* p = pixel_ptr(t, 0, px, py, t.layout.bytes_per_pixel);
        p[t.layout.r] = blend(p[t.layout.r], k.color[0], k.alpha);
        p[t.layout.g] = blend(p[t.layout.g], k.color[1], k.alpha);
        p[t.layout.b] = blend(p[t.layout.b], k.color[2], k.alpha);
      }
    }
  }
  if (n == 0 || !target_is_yuv(t))
    return;
  const int32_t den = 255 * d, wa = k.alpha * n;
  uint8_t* c[2];
  if (t.format == PixelFormat::kNV12) {
    c[0] = pixel_ptr(t, 1, x >> 1, y >> 1, 2);
    c[1] = c[0] + 1;
  } else {
    c[0] = pixel_ptr(t, 1, x >> 1, y >> 1, 1);
    c[1] = pixel_ptr(t, 2, x >> 1, y >> 1, 1);
  }
  for (int ch = 0; ch < 2; ++ch)
    *c[ch] = static_cast<uint8_t>((*c[ch] * (den - wa) + k.color[1 + ch] * wa + den / 2) / den);
}

// The colours a 2x2 quad ends up with: per pixel the last primitive covering it, and for the
// chroma sample the last primitive covering any of its pixels. An entry is 0 (untouched) or
// 0x1000000 | c0 | c1 << 8 | c2 << 16.
struct QuadColors {
  uint32_t px[4];
  uint32_t chroma;
};

CVIS_HD uint32_t pack_color(const uint8_t* c) {
  return 0x1000000u | c[0] | (static_cast<uint32_t>(c[1]) << 8) |
         (static_cast<uint32_t>(c[2]) << 16);
}

// Applies primitive `p` (later than every primitive applied before) to the quad at (x, y).
CVIS_HD void quad_accumulate(const Prim& p, int x, int y, int width, int height, QuadColors* q) {
  int bx0, by0, bx1, by1;
  prim_bounds(p, &bx0, &by0, &bx1, &by1);
  if (x + 1 < bx0 || x >= bx1 || y + 1 < by0 || y >= by1)
    return;
  bool any = false;
  const uint32_t c = pack_color(p.color);
  for (int k = 0; k < 4; ++k) {
    const int px = x + (k & 1), py = y + (k >> 1);
    if (px < width && py < height && covers(p, px, py)) {
      q->px[k] = c;
      any = true;
    }
  }
  if (any)
    q->chroma = c;
}

// Writes the accumulated colours of the quad at (x, y).
CVIS_HD void quad_write(const Target& t, int x, int y, const QuadColors& q) {
  for (int k = 0; k < 4; ++k) {
    if (!q.px[k])
      continue;
    const uint8_t c[3] = {static_cast<uint8_t>(q.px[k]), static_cast<uint8_t>(q.px[k] >> 8),
                          static_cast<uint8_t>(q.px[k] >> 16)};
    put_pixel(t, x + (k & 1), y + (k >> 1), c);
  }
  if (q.chroma && target_is_yuv(t)) {
    const uint8_t c[3] = {static_cast<uint8_t>(q.chroma), static_cast<uint8_t>(q.chroma >> 8),
                          static_cast<uint8_t>(q.chroma >> 16)};
    put_chroma(t, x >> 1, y >> 1, c);
  }
}

// Tiles of the CUDA backend's binning: kTile x kTile pixels (even, so quads never straddle two).
inline constexpr int kTile = 32;

// One non-empty tile: its position (in tiles) and its primitives ids[begin .. begin + count), in
// drawing order.
struct TileRef {
  int32_t tx, ty, begin, count;
};

} // namespace cvis::overlay

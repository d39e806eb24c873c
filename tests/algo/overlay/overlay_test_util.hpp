// Seeded overlay inputs (frames in every format with padded pitch, random scenes and masks) and
// a host run of the CUDA backend's tiled algorithm, shared by the cpu and gpu tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "overlay/overlay.hpp"
#include "overlay/overlay_internal.hpp"
#include "test_images.hpp"

namespace cvis::overlay::test {

inline const PixelFormat kAllFormats[] = {
    PixelFormat::kRGBA, PixelFormat::kBGRA, PixelFormat::kRGBx,  PixelFormat::kBGRx,
    PixelFormat::kxRGB, PixelFormat::kxBGR, PixelFormat::kARGB,  PixelFormat::kABGR,
    PixelFormat::kRGB,  PixelFormat::kBGR,  PixelFormat::kGRAY8, PixelFormat::kNV12,
    PixelFormat::kI420};

// A frame of random bytes (rows padded by `pad` poisoned bytes).
inline cvis::test::HostImage random_frame(PixelFormat f, int w, int h, size_t pad, uint32_t seed) {
  cvis::test::HostImage img(f, w, h, pad);
  std::mt19937 rng(seed);
  for (int p = 0; p < plane_count(f); ++p)
    for (int y = 0; y < plane_rows(f, p, h); ++y)
      for (size_t x = 0; x < plane_row_bytes(f, p, w); ++x)
        img.plane(p)[y * img.pitch(p) + x] = static_cast<uint8_t>(rng());
  return img;
}

// A GRAY8 mask: a few random rectangles of 255 plus sparse single pixels.
inline cvis::test::HostImage random_mask(int w, int h, size_t pad, uint32_t seed) {
  cvis::test::HostImage m(PixelFormat::kGRAY8, w, h, pad);
  std::mt19937 rng(seed);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      m.plane(0)[y * m.pitch(0) + x] = (rng() % 50 == 0) ? 255 : 0;
  for (int r = 0; r < 4; ++r) {
    const int x0 = static_cast<int>(rng() % w), y0 = static_cast<int>(rng() % h);
    const int x1 = std::min(w, x0 + 1 + static_cast<int>(rng() % (w / 2 + 1)));
    const int y1 = std::min(h, y0 + 1 + static_cast<int>(rng() % (h / 2 + 1)));
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x)
        m.plane(0)[y * m.pitch(0) + x] = 255;
  }
  return m;
}

// Boxes (some partly or wholly outside, some tiny), labels of random printable text (and a few
// bytes outside ASCII), trails (some points outside); `n` scales the number of items.
inline Scene random_scene(int w, int h, int n, uint32_t seed) {
  std::mt19937 rng(seed);
  auto coord = [&](int extent) { return static_cast<int>(rng() % (extent + 40)) - 20; };
  auto color = [&] {
    return Rgb{static_cast<uint8_t>(rng()), static_cast<uint8_t>(rng()),
               static_cast<uint8_t>(rng())};
  };
  Scene s;
  for (int i = 0; i < n; ++i) {
    Box b;
    b.x = coord(w);
    b.y = coord(h);
    b.w = static_cast<int>(rng() % (w / 2 + 2));
    b.h = static_cast<int>(rng() % (h / 2 + 2));
    b.color = color();
    const int len = static_cast<int>(rng() % 14);
    for (int c = 0; c < len; ++c)
      b.label += static_cast<char>(rng() % 16 == 0 ? 128 + rng() % 128 : 32 + rng() % 95);
    s.boxes.push_back(b);
  }
  // Short labels and priorities for the label layout, from their own generator (the boxes above
  // stay those of the seed).
  std::mt19937 lrng(seed ^ 0x9e3779b9u);
  for (Box& b : s.boxes) {
    b.short_label = b.label.substr(0, lrng() % 4);
    b.priority = static_cast<int>(lrng() % 3);
  }
  for (int i = 0; i < (n + 2) / 3; ++i) {
    Polyline p;
    p.color = color();
    const int pts = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < pts; ++k)
      p.points.push_back({coord(w), coord(h)});
    s.trails.push_back(p);
  }
  return s;
}

inline Params random_params(uint32_t seed) {
  std::mt19937 rng(seed);
  Params p;
  p.line_width = 1 + static_cast<int>(rng() % 6);
  p.font_scale = 1 + static_cast<int>(rng() % 3);
  p.labels = rng() % 4 != 0;
  p.mask_color = {static_cast<uint8_t>(rng()), static_cast<uint8_t>(rng()),
                  static_cast<uint8_t>(rng())};
  p.mask_alpha = static_cast<int>(rng() % 256);
  p.label_layout = rng() % 3 != 0;
  p.label_full_area = (rng() % 3) / 50.0; // 0, 2% or 4% of the frame: every label form
  p.label_min_area = p.label_full_area / (1 + rng() % 4);
  return p;
}

// The CUDA backend's algorithm run on the host: tint quad by quad, then per tile of
// bin_primitives() every quad takes the last covering primitive of the tile's list.
inline Status draw_tiled(const Scene& scene, const Params& params, const ImageView& frame) {
  CVIS_RETURN_IF_ERROR(validate(params));
  CVIS_RETURN_IF_ERROR(check_views(scene, frame));
  const Target t = make_target(frame);
  if (scene.mask && params.mask_alpha > 0) {
    const Tint k = make_tint(params, frame);
    for (int y = 0; y < t.height; y += 2)
      for (int x = 0; x < t.width; x += 2)
        tint_quad(t, scene.mask->data[0], scene.mask->pitch[0], k, x, y);
  }
  std::vector<Prim> prims;
  CVIS_RETURN_IF_ERROR(build_primitives(scene, params, frame, &prims));
  std::vector<int32_t> counts, ids;
  std::vector<TileRef> tiles;
  bin_primitives(prims, frame.width, frame.height, &counts, &tiles, &ids);
  for (const TileRef& tile : tiles) {
    for (int qy = 0; qy < kTile / 2; ++qy) {
      for (int qx = 0; qx < kTile / 2; ++qx) {
        const int x = tile.tx * kTile + 2 * qx, y = tile.ty * kTile + 2 * qy;
        QuadColors q = {{0, 0, 0, 0}, 0};
        for (int i = 0; i < tile.count; ++i)
          quad_accumulate(prims[ids[tile.begin + i]], x, y, t.width, t.height, &q);
        if (x < t.width && y < t.height)
          quad_write(t, x, y, q);
      }
    }
  }
  return Status::Ok();
}

// Index of the first differing byte of two images' pixels (padding excluded), or "" when equal.
inline std::string first_difference(const ImageView& a, const ImageView& b) {
  for (int p = 0; p < plane_count(a.format); ++p)
    for (int y = 0; y < plane_rows(a.format, p, a.height); ++y)
      for (size_t x = 0; x < plane_row_bytes(a.format, p, a.width); ++x) {
        const uint8_t va = a.data[p][y * a.pitch[p] + x], vb = b.data[p][y * b.pitch[p] + x];
        if (va != vb)
          return "plane " + std::to_string(p) + " row " + std::to_string(y) + " byte " +
                 std::to_string(x) + ": " + std::to_string(va) + " vs " + std::to_string(vb);
      }
  return "";
}

// Copy of a host image (same format and padding).
inline cvis::test::HostImage clone(const cvis::test::HostImage& src, size_t pad) {
  cvis::test::HostImage out(src.format(), src.width(), src.height(), pad);
  for (int p = 0; p < plane_count(src.format()); ++p)
    for (int y = 0; y < plane_rows(src.format(), p, src.height()); ++y)
      for (size_t x = 0; x < plane_row_bytes(src.format(), p, src.width()); ++x)
        out.plane(p)[y * out.pitch(p) + x] = src.view().data[p][y * src.pitch(p) + x];
  return out;
}

} // namespace cvis::overlay::test

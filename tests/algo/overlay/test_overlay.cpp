// cpu suite: the overlay's CPU reference (box outlines, labels and the font, lines, the YUV chroma
// rule, the mask tint formula) against independent expectations, and the CUDA backend's tiled
// algorithm run on the host (draw_tiled) equal to the reference on seeded scenes in every format,
// odd sizes and padded pitches. All comparisons are exact: the drawing is integer arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "overlay_test_util.hpp"

namespace cvis::overlay {
namespace {

using cvis::test::HostImage;
using test::first_difference;
using test::random_frame;

std::unique_ptr<Drawer> cpu_drawer(const Params& p) {
  Status st;
  auto d = make_drawer(Backend::kCpu, &st);
  EXPECT_TRUE(d) << st.to_string();
  EXPECT_TRUE(d->configure(p).ok());
  return d;
}

uint8_t* rgba_at(HostImage& img, int x, int y) {
  return img.plane(0) + y * img.pitch(0) + 4 * x;
}

HostImage black_rgba(int w, int h, size_t pad) {
  HostImage img(PixelFormat::kRGBA, w, h, pad);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      img.set_rgb(x, y, 0, 0, 0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      rgba_at(img, x, y)[3] = 7; // untouched pixels keep alpha 7
  return img;
}

TEST(OverlayFont, GlyphsDistinctAndInked) {
  std::set<std::vector<uint8_t>> seen;
  for (int c = 32; c <= 126; ++c) {
    uint8_t rows[7];
    glyph_rows(static_cast<char>(c), rows);
    int ink = 0;
    for (uint8_t r : rows) {
      EXPECT_EQ(r & ~0x1f, 0) << "glyph " << c << " wider than 5 columns";
      ink += __builtin_popcount(r);
    }
    EXPECT_EQ(ink == 0, c == ' ') << "glyph '" << static_cast<char>(c) << "': ink " << ink;
    EXPECT_TRUE(seen.insert(std::vector<uint8_t>(rows, rows + 7)).second)
        << "glyph '" << static_cast<char>(c) << "' looks like another one";
  }
  uint8_t q[7], bad[7];
  glyph_rows('?', q);
  glyph_rows(static_cast<char>(200), bad);
  EXPECT_EQ(std::vector<uint8_t>(q, q + 7), std::vector<uint8_t>(bad, bad + 7));
  // 'A' as designed: .###. #...# #...# ##### #...# #...# #...#
  uint8_t a[7];
  glyph_rows('A', a);
  const uint8_t want[7] = {0x0e, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11};
  EXPECT_EQ(std::vector<uint8_t>(a, a + 7), std::vector<uint8_t>(want, want + 7));
}

// Outline band of width lw inside the box, clipped to the frame; every other pixel untouched.
TEST(OverlayCpu, BoxOutlineExact) {
  const int W = 37, H = 23;
  for (int lw : {1, 2, 3}) {
    for (const Box& box :
         {Box{3, 4, 20, 12, {200, 10, 30}, "", "", 0}, Box{-5, -2, 15, 10, {1, 2, 3}, "", "", 0},
          Box{30, 15, 20, 20, {9, 99, 199}, "", "", 0}, Box{10, 10, 4, 3, {5, 5, 5}, "", "", 0}}) {
      HostImage img = black_rgba(W, H, 5);
      Params p;
      p.line_width = lw;
      Scene s;
      s.boxes.push_back(box);
      ASSERT_TRUE(cpu_drawer(p)->draw(s, img.view(), nullptr).ok());
      for (int y = 0; y < H; ++y) {
        for (int x = 0; x < W; ++x) {
          const bool inside = x >= box.x && x < box.x + box.w && y >= box.y && y < box.y + box.h;
          const bool band = inside && (x < box.x + lw || x >= box.x + box.w - lw ||
                                       y < box.y + lw || y >= box.y + box.h - lw);
          const uint8_t* px = rgba_at(img, x, y);
          if (band) {
            ASSERT_EQ(px[0], box.color.r) << x << "," << y << " lw " << lw;
            ASSERT_EQ(px[1], box.color.g);
            ASSERT_EQ(px[2], box.color.b);
            ASSERT_EQ(px[3], 255);
          } else {
            ASSERT_EQ(px[0] | px[1] | px[2], 0) << x << "," << y << " lw " << lw;
            ASSERT_EQ(px[3], 7);
          }
        }
      }
      // Row padding untouched (HostImage poisons it).
      const uint8_t poison = img.plane(0)[4 * W];
      for (int y = 0; y < H; ++y)
        for (size_t b = 4 * W; b < img.pitch(0); ++b)
          ASSERT_EQ(img.plane(0)[y * img.pitch(0) + b], poison);
    }
  }
}

// A label sits above its box on a background of the box's colour; its glyphs are the font's,
// scaled, one blank column apart, `scale` pixels from the background's edges; white ink on dark.
TEST(OverlayCpu, LabelGlyphsAndPlacement) {
  for (int s : {1, 2, 3}) {
    const int W = 120, H = 80;
    HostImage img = black_rgba(W, H, 0);
    Params p;
    p.font_scale = s;
    p.line_width = 1;
    Scene sc;
    sc.boxes.push_back({10, 40, 50, 30, {0, 0, 200}, "Hi 7", "", 0});
    ASSERT_TRUE(cpu_drawer(p)->draw(sc, img.view(), nullptr).ok());
    int lw, lh;
    label_size("Hi 7", s, &lw, &lh);
    EXPECT_EQ(lw, (4 * 6 - 1) * s + 2 * s);
    EXPECT_EQ(lh, 9 * s);
    const int lx = 10, ly = 40 - lh;
    const std::string text = "Hi 7";
    for (int y = ly; y < ly + lh; ++y) {
      for (int x = lx; x < lx + lw; ++x) {
        bool ink = false;
        const int gx = x - lx - s, gy = y - ly - s;
        if (gx >= 0 && gy >= 0 && gy < 7 * s) {
          const int cell = gx / (6 * s), col = (gx % (6 * s)) / s;
          if (cell < 4 && col < 5) {
            uint8_t rows[7];
            glyph_rows(text[cell], rows);
            ink = (rows[gy / s] >> (4 - col)) & 1;
          }
        }
        const uint8_t* px = rgba_at(img, x, y);
        const bool want_ink = px[0] == 255 && px[1] == 255 && px[2] == 255;
        const bool want_bg = px[0] == 0 && px[1] == 0 && px[2] == 200;
        ASSERT_TRUE(ink ? want_ink : want_bg) << x << "," << y << " s " << s << " ink " << ink;
      }
    }
    // Nothing above or left of the label.
    for (int x = 0; x < W; ++x)
      ASSERT_EQ(rgba_at(img, x, ly - 1)[2], 0);
  }
}

TEST(OverlayCpu, LabelInsideWhenNoRoomAboveAndKeptInFrame) {
  const int W = 60, H = 40;
  HostImage img = black_rgba(W, H, 3);
  Params p;
  p.line_width = 1;
  Scene sc;
  sc.boxes.push_back({50, 2, 8, 20, {250, 250, 250}, "AB", "", 0}); // light box: black ink
  ASSERT_TRUE(cpu_drawer(p)->draw(sc, img.view(), nullptr).ok());
  int lw, lh;
  label_size("AB", 1, &lw, &lh);
  const int lx = W - lw, ly = 2;
  // Corners of the background in the box colour, the first glyph's top-left ink ('A' row 0 is
  // .###.: column 1 is ink) black.
  EXPECT_EQ(rgba_at(img, lx, ly)[0], 250);
  EXPECT_EQ(rgba_at(img, lx + lw - 1, ly + lh - 1)[0], 250);
  EXPECT_EQ(rgba_at(img, lx + 1 + 1, ly + 1)[0], 0);
  EXPECT_EQ(rgba_at(img, lx - 1, ly)[0], 0); // left of the label: untouched black
}

// Lines: pixels whose centre lies within w/2 of the segment, checked in double precision where
// the distance is not within 1e-9 of the edge (integer and double agree elsewhere).
TEST(OverlayCpu, LineCoverageMatchesDistance) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 300; ++iter) {
    Prim p{};
    p.kind = kPrimLine;
    p.x0 = static_cast<int>(rng() % 60) - 10, p.y0 = static_cast<int>(rng() % 60) - 10;
    p.x1 = static_cast<int>(rng() % 60) - 10, p.y1 = static_cast<int>(rng() % 60) - 10;
    p.size = 1 + static_cast<int>(rng() % 7);
    int bx0, by0, bx1, by1;
    prim_bounds(p, &bx0, &by0, &bx1, &by1);
    for (int y = -20; y < 70; ++y) {
      for (int x = -20; x < 70; ++x) {
        const double ax = p.x0, ay = p.y0, dx = p.x1 - ax, dy = p.y1 - ay;
        const double len2 = dx * dx + dy * dy;
        const double t =
            len2 > 0 ? std::clamp(((x - ax) * dx + (y - ay) * dy) / len2, 0.0, 1.0) : 0;
        const double d = std::hypot(ax + t * dx - x, ay + t * dy - y);
        const bool got = covers(p, x, y);
        if (std::fabs(d - p.size / 2.0) > 1e-9) {
          ASSERT_EQ(got, d < p.size / 2.0) << x << "," << y;
        }
        if (got) {
          ASSERT_TRUE(x >= bx0 && x < bx1 && y >= by0 && y < by1) << "outside bounds";
        }
      }
    }
  }
}

// A 1-pixel line is 8-connected: every column (or row, for steep lines) between its endpoints has
// a covered pixel.
TEST(OverlayCpu, ThinLinesHaveNoGaps) {
  std::mt19937 rng(5);
  for (int iter = 0; iter < 200; ++iter) {
    Prim p{};
    p.kind = kPrimLine;
    p.size = 1;
    p.x0 = static_cast<int>(rng() % 200), p.y0 = static_cast<int>(rng() % 200);
    p.x1 = static_cast<int>(rng() % 200), p.y1 = static_cast<int>(rng() % 200);
    const bool steep = std::abs(p.y1 - p.y0) > std::abs(p.x1 - p.x0);
    const int a0 = steep ? std::min(p.y0, p.y1) : std::min(p.x0, p.x1);
    const int a1 = steep ? std::max(p.y0, p.y1) : std::max(p.x0, p.x1);
    for (int a = a0; a <= a1; ++a) {
      bool hit = false;
      for (int b = -1; b <= 201 && !hit; ++b)
        hit = steep ? covers(p, b, a) : covers(p, a, b);
      ASSERT_TRUE(hit) << "gap at " << a << " in line " << p.x0 << "," << p.y0 << " - " << p.x1
                       << "," << p.y1;
    }
  }
}

// NV12 / I420: a primitive writes Y at its pixels and U, V at the chroma samples of their quads.
TEST(OverlayCpu, YuvChromaOfAnyCoveredQuadPixel) {
  for (PixelFormat f : {PixelFormat::kNV12, PixelFormat::kI420}) {
    const int W = 9, H = 7;
    HostImage img = random_frame(f, W, H, 3, 1);
    HostImage before = test::clone(img, 3);
    Params p;
    p.line_width = 1;
    p.labels = false;
    Scene sc;
    sc.boxes.push_back({3, 3, 1, 1, {255, 0, 0}, "", "", 0}); // one pixel at (3, 3): quad (2, 2)
    ASSERT_TRUE(cpu_drawer(p)->draw(sc, img.view(), nullptr).ok());
    uint8_t c[3];
    color_channels({255, 0, 0}, f, img.view().yuv, c);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        EXPECT_EQ(img.plane(0)[y * img.pitch(0) + x],
                  (x == 3 && y == 3) ? c[0] : before.plane(0)[y * before.pitch(0) + x]);
    for (int cy = 0; cy < (H + 1) / 2; ++cy) {
      for (int cx = 0; cx < (W + 1) / 2; ++cx) {
        const bool hit = cx == 1 && cy == 1;
        uint8_t u, v, u0, v0;
        if (f == PixelFormat::kNV12) {
          u = img.plane(1)[cy * img.pitch(1) + 2 * cx],
          v = img.plane(1)[cy * img.pitch(1) + 2 * cx + 1];
          u0 = before.plane(1)[cy * before.pitch(1) + 2 * cx];
          v0 = before.plane(1)[cy * before.pitch(1) + 2 * cx + 1];
        } else {
          u = img.plane(1)[cy * img.pitch(1) + cx], v = img.plane(2)[cy * img.pitch(2) + cx];
          u0 = before.plane(1)[cy * before.pitch(1) + cx],
          v0 = before.plane(2)[cy * before.pitch(2) + cx];
        }
        EXPECT_EQ(u, hit ? c[1] : u0) << cx << "," << cy;
        EXPECT_EQ(v, hit ? c[2] : v0) << cx << "," << cy;
      }
    }
  }
}

TEST(OverlayCpu, ColorChannels) {
  uint8_t c[3];
  YuvColorimetry bt601; // limited range
  color_channels({255, 255, 255}, PixelFormat::kNV12, bt601, c);
  EXPECT_EQ(c[0], 235);
  EXPECT_EQ(c[1], 128);
  EXPECT_EQ(c[2], 128);
  color_channels({0, 0, 0}, PixelFormat::kI420, bt601, c);
  EXPECT_EQ(c[0], 16);
  EXPECT_EQ(c[1], 128);
  EXPECT_EQ(c[2], 128);
  color_channels({255, 0, 0}, PixelFormat::kNV12, bt601, c); // BT.601 red: 81, 90, 240
  EXPECT_EQ(c[0], 81);
  EXPECT_EQ(c[1], 90);
  EXPECT_EQ(c[2], 240);
  YuvColorimetry full709{YuvColorimetry::Matrix::kBT709, true};
  color_channels({0, 0, 255}, PixelFormat::kNV12, full709, c); // 0.0722*255, 128+127.5, 128-11.7
  EXPECT_EQ(c[0], 18);
  EXPECT_EQ(c[1], 255);
  EXPECT_EQ(c[2], 116);
  color_channels({10, 20, 30}, PixelFormat::kBGRx, bt601, c);
  EXPECT_EQ(c[0], 10);
  EXPECT_EQ(c[1], 20);
  EXPECT_EQ(c[2], 30);
}

// Tint: masked pixels blend as round((v (255 - a) + t a) / 255); a YUV chroma sample with weight
// a n / (255 d) (n masked of d pixels of its quad inside the frame); unmasked pixels untouched.
TEST(OverlayCpu, MaskTintFormula) {
  for (PixelFormat f : {PixelFormat::kRGBA, PixelFormat::kRGB, PixelFormat::kGRAY8,
                        PixelFormat::kNV12, PixelFormat::kI420}) {
    const int W = 11, H = 9;
    HostImage img = random_frame(f, W, H, 2, 3);
    HostImage before = test::clone(img, 2);
    HostImage mask = test::random_mask(W, H, 1, 4);
    Params p;
    p.mask_alpha = 77;
    p.mask_color = {250, 20, 100};
    p.labels = false;
    Scene sc;
    const ImageView mv = mask.view();
    sc.mask = &mv;
    ASSERT_TRUE(cpu_drawer(p)->draw(sc, img.view(), nullptr).ok());
    uint8_t t[3];
    color_channels(p.mask_color, f, img.view().yuv, t);
    auto rnd = [](double v) { return static_cast<int>(std::floor(v + 0.5)); };
    const int bpp = is_packed_rgb(f) ? packed_layout(f).bytes_per_pixel : 1;
    const PackedLayout l = packed_layout(f);
    for (int y = 0; y < H; ++y) {
      for (int x = 0; x < W; ++x) {
        const bool m = mask.plane(0)[y * mask.pitch(0) + x] != 0;
        for (int b = 0; b < bpp; ++b) {
          const int v0 = before.plane(0)[y * before.pitch(0) + bpp * x + b];
          const int v = img.plane(0)[y * img.pitch(0) + bpp * x + b];
          int ch = -1; // which tint channel this byte takes, -1: none (alpha)
          if (!is_packed_rgb(f))
            ch = 0;
          else if (b == l.r)
            ch = 0;
          else if (b == l.g)
            ch = 1;
          else if (b == l.b)
            ch = 2;
          const int want = (m && ch >= 0) ? rnd((v0 * (255.0 - 77) + t[ch] * 77.0) / 255) : v0;
          ASSERT_EQ(v, want) << pixel_format_name(f) << " " << x << "," << y << " byte " << b;
        }
      }
    }
    if (!is_yuv(f))
      continue;
    for (int cy = 0; cy < (H + 1) / 2; ++cy) {
      for (int cx = 0; cx < (W + 1) / 2; ++cx) {
        int d = 0, n = 0;
        for (int j = 0; j < 2; ++j)
          for (int i = 0; i < 2; ++i) {
            const int x = 2 * cx + i, y = 2 * cy + j;
            if (x >= W || y >= H)
              continue;
            ++d;
            n += mask.plane(0)[y * mask.pitch(0) + x] != 0;
          }
        for (int ch = 0; ch < 2; ++ch) {
          const int pl = f == PixelFormat::kNV12 ? 1 : 1 + ch;
          const size_t off = f == PixelFormat::kNV12 ? 2 * cx + ch : cx;
          const int v0 = before.plane(pl)[cy * before.pitch(pl) + off];
          const int v = img.plane(pl)[cy * img.pitch(pl) + off];
          // round half up of (v0 (255 d - 77 n) + t 77 n) / (255 d), in exact integers
          const int den = 255 * d, num = v0 * (den - 77 * n) + t[1 + ch] * 77 * n;
          ASSERT_EQ(v, (2 * num + den) / (2 * den))
              << pixel_format_name(f) << " chroma " << cx << "," << cy << " n " << n;
        }
      }
    }
  }
}

// The CUDA backend's algorithm (tiles, last covering primitive per pixel, chroma = last primitive
// covering any pixel of its quad) gives the reference's bytes: every format, odd sizes, padding,
// with and without a mask, dense scenes (many overlaps).
TEST(OverlayTiled, EqualsReference) {
  uint32_t seed = 100;
  int frames = 0;
  for (PixelFormat f : test::kAllFormats) {
    for (const auto& [w, h] :
         std::vector<std::pair<int, int>>{{1, 1}, {2, 3}, {33, 17}, {97, 65}, {131, 70}}) {
      for (int items : {0, 3, 25}) {
        ++seed;
        HostImage ref = random_frame(f, w, h, (seed % 3) * 5, seed);
        HostImage tiled = test::clone(ref, 7);
        HostImage mask = test::random_mask(w, h, seed % 2 ? 3 : 0, seed + 1);
        Scene sc = test::random_scene(w, h, items, seed + 2);
        const ImageView mv = mask.view();
        if (seed % 3 != 0)
          sc.mask = &mv;
        const Params p = test::random_params(seed + 3);
        ASSERT_TRUE(cpu_drawer(p)->draw(sc, ref.view(), nullptr).ok());
        ASSERT_TRUE(test::draw_tiled(sc, p, tiled.view()).ok());
        ASSERT_EQ(first_difference(ref.view(), tiled.view()), "")
            << pixel_format_name(f) << " " << w << "x" << h << " items " << items << " seed "
            << seed;
        ++frames;
      }
    }
  }
  EXPECT_EQ(frames, 13 * 5 * 3);
}

TEST(OverlayCpu, Errors) {
  Status st;
  auto d = make_drawer(Backend::kCpu, &st);
  ASSERT_TRUE(d);
  Params p;
  p.line_width = 0;
  EXPECT_EQ(d->configure(p).code(), StatusCode::kInvalidArgument);
  p.line_width = 2;
  p.font_scale = 17;
  EXPECT_EQ(d->configure(p).code(), StatusCode::kInvalidArgument);
  p.font_scale = 1;
  p.mask_alpha = 256;
  EXPECT_EQ(d->configure(p).code(), StatusCode::kInvalidArgument);
  p.mask_alpha = 10;
  ASSERT_TRUE(d->configure(p).ok());
  HostImage img = random_frame(PixelFormat::kRGBA, 8, 8, 0, 1);
  HostImage small = test::random_mask(4, 8, 0, 1);
  Scene sc;
  const ImageView mv = small.view();
  sc.mask = &mv;
  EXPECT_EQ(d->draw(sc, img.view(), nullptr).code(), StatusCode::kInvalidArgument);
  sc.mask = nullptr;
  ImageView dev = img.view();
  dev.space = MemorySpace::kDevice;
  EXPECT_EQ(d->draw(sc, dev, nullptr).code(), StatusCode::kUnsupportedFormat);
  // Far-away trail points are dropped, not drawn wrongly.
  sc.trails.push_back({{{-100000, 3}, {4, 4}}, {1, 2, 3}});
  EXPECT_TRUE(d->draw(sc, img.view(), nullptr).ok());
}

} // namespace
} // namespace cvis::overlay

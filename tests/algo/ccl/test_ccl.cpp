// cpu suite: ccl::connected_blobs against a breadth-first flood fill on seeded masks of many kinds,
// sizes (1xN, Nx1, odd) and pitches; min_area; keep_largest.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "ccl_test_util.hpp"
#include "common/mask_area.hpp"

namespace cvis::ccl {
namespace {

using test::Kind;
using test::Mask;

void expect_equal_to_flood_fill(const Mask& m, int min_area, const std::string& what) {
  int64_t fg_ref = -1, fg = -2;
  const std::vector<Blob> ref = test::flood_fill(m, min_area, &fg_ref);
  std::vector<Blob> got{Blob{9, 9, 9, 9, 9}}; // replaced
  connected_blobs(m.data.data(), m.pitch, m.width, m.height, min_area, &got, &fg);
  EXPECT_EQ(fg, fg_ref) << what;
  ASSERT_EQ(got.size(), ref.size()) << what;
  for (size_t i = 0; i < ref.size(); ++i)
    ASSERT_EQ(got[i], ref[i]) << what << " blob " << i;
}

TEST(CclCpu, HandMadeMask) {
  // ##.......#
  // ..#.......
  // ........##
  // #.......#.
  Mask m(10, 4, 3);
  for (auto [x, y] : {std::pair{0, 0}, {1, 0}, {9, 0}, {2, 1}, {8, 2}, {9, 2}, {0, 3}, {8, 3}})
    m.at(x, y) = 255;
  std::vector<Blob> b;
  int64_t fg = 0;
  connected_blobs(m.data.data(), m.pitch, m.width, m.height, 1, &b, &fg);
  EXPECT_EQ(fg, 8);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0], (Blob{0, 0, 3, 2, 3})); // the diagonal joins (2,1)
  EXPECT_EQ(b[1], (Blob{9, 0, 1, 1, 1}));
  EXPECT_EQ(b[2], (Blob{8, 2, 2, 2, 3}));
  EXPECT_EQ(b[3], (Blob{0, 3, 1, 1, 1}));
  connected_blobs(m.data.data(), m.pitch, m.width, m.height, 2, &b, nullptr);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[1], (Blob{8, 2, 2, 2, 3}));
}

TEST(CclCpu, RandomMasksEqualTheFloodFill) {
  struct Size {
    int w, h;
  };
  const Size sizes[] = {{1, 1}, {1, 37}, {53, 1}, {2, 2}, {7, 5}, {33, 9}, {64, 48}, {97, 131}};
  const Kind kinds[] = {Kind::kNoise, Kind::kBlocks, Kind::kFull,    Kind::kEmpty,
                        Kind::kDots,  Kind::kStripes, Kind::kChecker, Kind::kRings};
  const double densities[] = {0.05, 0.3, 0.5, 0.7, 0.95};
  uint32_t seed = 1;
  for (const Size& s : sizes) {
    for (Kind k : kinds) {
      for (double d : densities) {
        if (k != Kind::kNoise && d != 0.5)
          continue;
        for (size_t pad : {size_t(0), size_t(5)}) {
          const Mask m = test::make_mask(k, s.w, s.h, ++seed, d, pad);
          for (int min_area : {1, 2, 7}) {
            expect_equal_to_flood_fill(m, min_area,
                                       std::to_string(s.w) + "x" + std::to_string(s.h) + " kind " +
                                           std::to_string(int(k)) + " density " +
                                           std::to_string(d) + " seed " + std::to_string(seed) +
                                           " min_area " + std::to_string(min_area));
            if (HasFatalFailure())
              return;
          }
        }
      }
    }
  }
}

TEST(CclCpu, FrameSizedBlobAndManyTinyOnes) {
  expect_equal_to_flood_fill(test::make_mask(Kind::kFull, 641, 363, 1), 1, "full");
  expect_equal_to_flood_fill(test::make_mask(Kind::kDots, 641, 363, 1), 1, "dots");
  const Mask dots = test::make_mask(Kind::kDots, 641, 363, 1);
  std::vector<Blob> b;
  connected_blobs(dots.data.data(), dots.pitch, dots.width, dots.height, 1, &b, nullptr);
  EXPECT_EQ(b.size(), 321u * 182u); // one per 2x2 cell: the capacity bound is reached
}

TEST(CclCpu, KeepLargestKeepsRasterOrder) {
  std::vector<Blob> b = {{0, 0, 1, 1, 5}, {1, 0, 1, 1, 9}, {2, 0, 1, 1, 5},
                         {3, 0, 1, 1, 2}, {4, 0, 1, 1, 9}, {5, 0, 1, 1, 5}};
  std::vector<Blob> k = b;
  keep_largest(&k, 10);
  EXPECT_EQ(k, b);
  keep_largest(&k, 4); // 9, 9, then the first two 5s
  ASSERT_EQ(k.size(), 4u);
  EXPECT_EQ(k[0].x, 0);
  EXPECT_EQ(k[1].x, 1);
  EXPECT_EQ(k[2].x, 2);
  EXPECT_EQ(k[3].x, 4);
  keep_largest(&k, 0);
  EXPECT_TRUE(k.empty());
}

// seg::keep_persistent_components with added light: a mostly lit component (at least half of its
// pixels 15 levels above the background) is kept only when it overlaps both previous masks; the
// others need the previous one. Rectangles of a 24x8 frame, each 4x4 (16 pixels):
//   A lit, in prev only: dropped with light, kept without;  B lit, in prev and prev2: kept;
//   C dark, in prev only: kept;  D half lit (8 of 16), in prev only: dropped (half counts as mostly).
TEST(Persistence, MostlyLitComponentsNeedBothPreviousMasks) {
  const int w = 24, h = 8;
  std::vector<uint8_t> mask(w * h, 0), prev(w * h, 0), prev2(w * h, 0), frame(w * h, 100),
      bg(w * h, 100), out(w * h);
  auto rect = [&](std::vector<uint8_t>& v, int x0, uint8_t value, int rows = 4) {
    for (int y = 2; y < 2 + rows; ++y)
      for (int x = x0; x < x0 + 4; ++x)
        v[y * w + x] = value;
  };
  for (int x0 : {1, 7, 13, 19}) {
    rect(mask, x0, 255);
    rect(prev, x0, 255);
  }
  rect(prev2, 7, 255);              // B
  rect(frame, 1, 115);              // A: exactly 15 above
  rect(frame, 7, 200);              // B
  rect(frame, 13, 114);             // C: 14 above, not lit
  rect(frame, 19, 130, 2);          // D: two of four rows lit
  const seg::AddedLight light{frame.data(), bg.data(), static_cast<size_t>(w)};
  seg::keep_persistent_components(mask.data(), prev.data(), out.data(), w, h, 0.3f, prev2.data(),
                                  &light);
  auto kept = [&](int x0) { return out[3 * w + x0 + 1] == 255; };
  EXPECT_FALSE(kept(1));
  EXPECT_TRUE(kept(7));
  EXPECT_TRUE(kept(13));
  EXPECT_FALSE(kept(19));
  seg::keep_persistent_components(mask.data(), prev.data(), out.data(), w, h, 0.3f);
  for (int x0 : {1, 7, 13, 19})
    EXPECT_TRUE(kept(x0)) << x0 << ": the one-frame rule without light";
}

// Trimming (seg::AddedLight::trim_radius 4) on a 40x16 frame: an object of 10x8 pixels (x 4-13,
// y 4-11) that was 2 pixels to the left in the previous mask, its leading edge (x 12-13) lit; a lit
// glint (x 14-21, y 6-7) and a dark strip (x 14-21, y 12) touching it. The component persists (64
// of its 104 pixels in prev; 32 lit: not mostly lit). Kept: the object with its edge, the glint's
// pixels within 4 of prev (x 14-15), the dark strip (not lit); cleared: the glint from x 16 on.
TEST(Persistence, TrimmingClearsLitPixelsAwayFromThePreviousMask) {
  const int w = 40, h = 16;
  std::vector<uint8_t> mask(w * h, 0), prev(w * h, 0), prev2(w * h, 0), frame(w * h, 60),
      bg(w * h, 60), out(w * h);
  auto fill = [&](std::vector<uint8_t>& v, int x0, int x1, int y0, int y1, uint8_t value) {
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x)
        v[y * w + x] = value;
  };
  fill(mask, 4, 13, 4, 11, 255);
  fill(mask, 14, 21, 6, 7, 255);
  fill(mask, 14, 21, 12, 12, 255);
  fill(prev, 2, 11, 4, 11, 255);
  fill(frame, 12, 13, 4, 11, 120);
  fill(frame, 14, 21, 6, 7, 240);
  seg::AddedLight light{frame.data(), bg.data(), static_cast<size_t>(w)};
  light.trim_radius = 4;
  seg::keep_persistent_components(mask.data(), prev.data(), out.data(), w, h, 0.3f, prev2.data(),
                                  &light);
  std::vector<uint8_t> want = mask;
  fill(want, 16, 21, 6, 7, 0);
  EXPECT_EQ(out, want);
  light.trim_radius = 0;
  seg::keep_persistent_components(mask.data(), prev.data(), out.data(), w, h, 0.3f, prev2.data(),
                                  &light);
  EXPECT_EQ(out, mask) << "no trimming at radius 0";
}

// foreground_near visits rows outwards from y; it must answer as a scan of the whole window on
// seeded sparse masks (edges, corners, radii 0 to past the frame).
TEST(Persistence, ForegroundNearEqualsAWindowScan) {
  uint32_t seed = 4242;
  for (const auto& sz : {std::pair<int, int>{1, 1}, {7, 3}, {40, 23}, {61, 90}}) {
    const int w = sz.first, h = sz.second;
    for (int round = 0; round < 6; ++round) {
      const Mask m = test::make_mask(Kind::kNoise, w, h, ++seed, 0.004 + 0.01 * round);
      for (int r : {0, 1, 4, 12, 95})
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) {
            bool want = false;
            for (int yy = std::max(0, y - r); yy <= std::min(h - 1, y + r); ++yy)
              for (int xx = std::max(0, x - r); xx <= std::min(w - 1, x + r); ++xx)
                want = want || m.at(xx, yy) != 0;
            ASSERT_EQ(seg::foreground_near(m.data.data(), m.pitch, w, h, x, y, r), want)
                << w << "x" << h << " at " << x << "," << y << " r " << r;
          }
    }
  }
}

// The radius is 4 per 240 pixels of the shorter side, never below 4.
TEST(Persistence, TrimRadiusGrowsWithTheFrame) {
  EXPECT_EQ(seg::trim_radius_for(320, 240), 4);
  EXPECT_EQ(seg::trim_radius_for(416, 234), 4);
  EXPECT_EQ(seg::trim_radius_for(33, 9), 4);
  EXPECT_EQ(seg::trim_radius_for(768, 576), 10);
  EXPECT_EQ(seg::trim_radius_for(960, 720), 12);
  EXPECT_EQ(seg::trim_radius_for(1920, 1080), 18);
  EXPECT_EQ(seg::trim_radius_for(1080, 1920), 18);
  EXPECT_EQ(seg::trim_radius_for(3840, 2160), 36);
}

} // namespace
} // namespace cvis::ccl

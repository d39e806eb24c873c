// The persistence filter (Params::persistence), CPU reference: one-frame flickers (water glints,
// ripples) leave the output, objects that stay or move keep it; flickers of added light must last
// three frames (seg::AddedLight). The CUDA path is checked against this backend by
// test_bgsub_gpu.cpp's parity tests, which run the defaults.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "bgsub/bgsub.hpp"
#include "common/mask_area.hpp"
#include "flicker_scene.hpp"
#include "test_images.hpp"

namespace cvis::bgsub::test {
namespace {

using cvis::test::HostImage;

struct Shares {
  double flicker = 0.0;     // share of the flickers' pixels in the output, frames kFirst..kLast
  double square = 0.0;      // share of the square's pixels, frames kFirst + 1..kLast
  double square_first = 0.; // the square's first frame
  double square_third = 0.; // frames kFirst + 2..kLast
};

Shares run(float persistence, uint32_t seed, Look look = {}) {
  const FlickerScene s(seed, look);
  Params p;
  p.persistence = persistence;
  p.cpu_threads = 1;
  Status st;
  auto sub = make_subtractor(Backend::kCpu, &st);
  EXPECT_TRUE(sub && sub->configure(p).ok());
  HostImage mask(PixelFormat::kGRAY8, kW, kH, 3);
  Shares out;
  int64_t fl_in = 0, fl_all = 0, sq_in = 0, sq_all = 0, sq3_in = 0, sq3_all = 0;
  for (int t = 0; t <= kLast; ++t) {
    FrameResult res;
    EXPECT_TRUE(sub->process(s.frame(t).view(), mask.view(), &res, nullptr).ok());
    if (t < kFirst)
      continue;
    auto on = [&](int x, int y) { return mask.plane(0)[y * mask.view().pitch[0] + x] != 0; };
    int64_t first_in = 0;
    for (const Rect& r : s.flickers(t)) {
      for (int y = r.y; y < r.y + r.h; ++y)
        for (int x = r.x; x < r.x + r.w; ++x) {
          fl_in += on(x, y);
          ++fl_all;
        }
    }
    const Rect q = FlickerScene::square(t);
    for (int y = q.y; y < q.y + q.h; ++y)
      for (int x = q.x; x < q.x + q.w; ++x) {
        if (t == kFirst)
          first_in += on(x, y);
        else
          sq_in += on(x, y);
        sq_all += t > kFirst;
        sq3_in += t > kFirst + 1 && on(x, y);
        sq3_all += t > kFirst + 1;
      }
    if (t == kFirst)
      out.square_first = static_cast<double>(first_in) / (kSquare * kSquare);
  }
  out.flicker = static_cast<double>(fl_in) / static_cast<double>(fl_all);
  out.square = static_cast<double>(sq_in) / static_cast<double>(sq_all);
  out.square_third = static_cast<double>(sq3_in) / static_cast<double>(sq3_all);
  return out;
}

TEST(BgsubPersistence, RuleKeepsComponentsSeenBefore) {
  EXPECT_TRUE(seg::persistent(3, 10, 0.3f));
  EXPECT_FALSE(seg::persistent(2, 10, 0.3f));
  EXPECT_TRUE(seg::persistent(0, 10, 0.0f));
  // Two components: the left one overlaps the previous mask in 1 of 4 pixels, the right one in 2.
  const int w = 6, h = 2;
  const std::vector<uint8_t> mask = {255, 255, 0, 0, 255, 255, 255, 255, 0, 0, 255, 255};
  const std::vector<uint8_t> prev = {255, 0, 0, 0, 255, 0, 0, 0, 0, 0, 255, 0};
  std::vector<uint8_t> out(mask.size());
  seg::keep_persistent_components(mask.data(), prev.data(), out.data(), w, h, 0.5f);
  const std::vector<uint8_t> want = {0, 0, 0, 0, 255, 255, 0, 0, 0, 0, 255, 255};
  EXPECT_EQ(out, want);
  seg::keep_persistent_components(mask.data(), prev.data(), out.data(), w, h, 0.25f);
  EXPECT_EQ(out, mask);
}

// Seeds 1-3 (the filter off for seed 1 only: it shows the scene's flickers are detected, so the
// test can fail). Measured with the default 0.3: flickers 0.000 of their pixels in the output
// (0.020-0.026 before the added-light rule: where two frames' flickers overlap), the square 1.000
// after its first frame, 0 in it. With 0 (off): flickers 1.000, the square's first frame 1.000.
// Tolerances: flickers under 0.1 (overlaps of two frames' flickers are allowed), the moving square
// above 0.95 (2 px/frame keeps 12 of its 14 columns in the previous mask), at most 0.05 of it in
// its first frame (by design).
TEST(BgsubPersistence, FlickersLeaveMovingObjectsStay) {
  const Shares off = run(0.0f, 1);
  std::printf("[persistence] seed 1, filter off: flickers %.3f, first frame %.3f\n", off.flicker,
              off.square_first);
  EXPECT_GT(off.flicker, 0.5);
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    const Shares on = run(0.3f, seed);
    std::printf("[persistence] seed %u: flickers %.3f, square %.3f, first frame %.3f\n", seed,
                on.flicker, on.square, on.square_first);
    EXPECT_LT(on.flicker, 0.1);
    EXPECT_GT(on.square, 0.95);
    EXPECT_LE(on.square_first, 0.05);
  }
}

// Added light, seeds 1-2, persistence 0.3 (the default): flickers that live two frames are in the
// output on their second frame unless they are added light, which must be in both previous masks;
// a bright square moving 2 px/frame keeps 10 of its 14 columns in both. Tolerances: bright
// two-frame flickers under 0.1 (overlaps of flickers allowed), dark ones above 0.4 (their second
// frame of two), the bright square above 0.95 from its third frame.
TEST(BgsubPersistence, AddedLightMustLastThreeFrames) {
  for (uint32_t seed = 1; seed <= 2; ++seed) {
    const Shares bright = run(0.3f, seed, Look{2, 240.f, 240.f});
    const Shares dark = run(0.3f, seed, Look{2, 10.f, 10.f});
    std::printf("[persistence, added light] seed %u: two-frame flickers bright %.3f, dark %.3f; "
                "bright square %.3f from its third frame\n",
                seed, bright.flicker, dark.flicker, bright.square_third);
    EXPECT_LT(bright.flicker, 0.1);
    EXPECT_GT(dark.flicker, 0.4);
    EXPECT_GT(bright.square_third, 0.95);
  }
}

} // namespace
} // namespace cvis::bgsub::test

// The persistence filter (Params::persistence), CPU reference: one-frame flickers (water glints,
// ripples) leave the output, objects that stay or move keep it. The CUDA path is checked against
// this backend by test_bgsub_gpu.cpp's parity tests, which run the defaults.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "bgsub/bgsub.hpp"
#include "common/mask_area.hpp"
#include "test_images.hpp"

namespace cvis::bgsub::test {
namespace {

using cvis::test::HostImage;

constexpr int kW = 192, kH = 128;
constexpr int kFirst = 60, kLast = 110; // frames with flickers and the moving square
constexpr int kFlickers = 3, kFlickerSide = 10, kSquare = 14;

struct Rect {
  int x, y, w, h;
  bool contains(int px, int py) const { return px >= x && py >= y && px < x + w && py < y + h; }
};

// A still textured background (2x2 cells, levels 60..160, noise sigma 2). From kFirst, every frame
// has kFlickers bright squares at new random places (each lives one frame) and a dark square that
// moves 2 px/frame to the right.
class FlickerScene {
public:
  explicit FlickerScene(uint32_t seed) : seed_(seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> v(60, 160);
    cells_.resize(static_cast<size_t>(kW / 2) * (kH / 2));
    for (auto& c : cells_)
      c = static_cast<uint8_t>(v(rng));
  }
  std::vector<Rect> flickers(int t) const {
    std::vector<Rect> r;
    if (t < kFirst)
      return r;
    std::mt19937 rng(seed_ * 31u + static_cast<uint32_t>(t));
    std::uniform_int_distribution<int> px(0, kW - kFlickerSide), py(0, kH - 40 - kFlickerSide);
    for (int k = 0; k < kFlickers; ++k)
      r.push_back(Rect{px(rng), py(rng), kFlickerSide, kFlickerSide}); // above the square
    return r;
  }
  // The moving square, below the flickers.
  static Rect square(int t) { return Rect{8 + 2 * (t - kFirst), kH - 24, kSquare, kSquare}; }

  HostImage frame(int t) const {
    HostImage out(PixelFormat::kRGBA, kW, kH, 8);
    std::mt19937 rng(seed_ * 7919u + static_cast<uint32_t>(t));
    std::normal_distribution<float> noise(0.f, 2.f);
    const std::vector<Rect> fl = flickers(t);
    for (int y = 0; y < kH; ++y) {
      for (int x = 0; x < kW; ++x) {
        float base = cells_[(y / 2) * (kW / 2) + x / 2];
        for (const Rect& r : fl)
          base = r.contains(x, y) ? 240.f : base;
        if (t >= kFirst && square(t).contains(x, y))
          base = 10.f;
        const uint8_t v =
            static_cast<uint8_t>(std::clamp(std::round(base + noise(rng)), 0.f, 255.f));
        out.set_rgb(x, y, v, v, v);
      }
    }
    return out;
  }

private:
  uint32_t seed_;
  std::vector<uint8_t> cells_;
};

struct Shares {
  double flicker = 0.0;     // share of the flickers' pixels in the output, frames kFirst..kLast
  double square = 0.0;      // share of the square's pixels, frames kFirst + 1..kLast
  double square_first = 0.; // the square's first frame
};

Shares run(float persistence, uint32_t seed) {
  const FlickerScene s(seed);
  Params p;
  p.persistence = persistence;
  p.cpu_threads = 1;
  Status st;
  auto sub = make_subtractor(Backend::kCpu, &st);
  EXPECT_TRUE(sub && sub->configure(p).ok());
  HostImage mask(PixelFormat::kGRAY8, kW, kH, 3);
  Shares out;
  int64_t fl_in = 0, fl_all = 0, sq_in = 0, sq_all = 0;
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
      }
    if (t == kFirst)
      out.square_first = static_cast<double>(first_in) / (kSquare * kSquare);
  }
  out.flicker = static_cast<double>(fl_in) / static_cast<double>(fl_all);
  out.square = static_cast<double>(sq_in) / static_cast<double>(sq_all);
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

// Seeds 1-3. Measured with the default 0.3: flickers 0.020-0.026 of their pixels in the output
// (where two frames' flickers overlap), the square 1.000 after its first frame, 0 in it. With 0
// (off): flickers 1.000, the square's first frame 1.000. Tolerances: flickers under 0.1 (overlaps
// of two frames' flickers are allowed), the moving square above 0.95 (2 px/frame keeps 12 of its
// 14 columns in the previous mask), at most 0.05 of it in its first frame (by design).
TEST(BgsubPersistence, FlickersLeaveMovingObjectsStay) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    const Shares on = run(0.3f, seed), off = run(0.0f, seed);
    std::printf("[persistence] seed %u: flickers %.3f (off %.3f), square %.3f (off %.3f), first "
                "frame %.3f (off %.3f)\n",
                seed, on.flicker, off.flicker, on.square, off.square, on.square_first,
                off.square_first);
    EXPECT_LT(on.flicker, 0.1);
    EXPECT_GT(off.flicker, 0.5); // the scene's flickers are detected: the test can fail
    EXPECT_GT(on.square, 0.95);
    EXPECT_LE(on.square_first, 0.05);
  }
}

} // namespace
} // namespace cvis::bgsub::test

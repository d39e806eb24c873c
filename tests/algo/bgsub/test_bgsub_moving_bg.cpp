// Slow and stopped flat-coloured objects on a moving background (Params::update_own), CPU
// reference. The background is a coarse random grey texture (2x2 cells, levels 90..130) that
// shifts by a random -1..1 pixel in x and y every frame, with Gaussian noise (sigma 2): every
// pixel sees its neighbours' values, so its bandwidths are wide and its neighbours' samples cover
// much of the texture's range, as on grass or foliage. The object is a flat grey a little above the
// texture's brightest level: detected when it appears, but near enough that the moving background's
// wide kernels explain some of its contour pixels. When those pixels learn the object's colour,
// their samples explain the next layer through the neighbourhood sum, and the object dissolves a
// layer a frame; the own-samples test stops the chain at the first layer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "bgsub/bgsub.hpp"
#include "slow_scene.hpp"
#include "test_images.hpp"

namespace cvis::bgsub::test {
namespace {

using cvis::test::HostImage;

constexpr int kW = 144, kH = 56;

class MovingScene {
public:
  MovingScene(uint32_t seed, int object_level) : seed_(seed), level_(object_level) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> v(90, 130);
    cells_.resize(static_cast<size_t>(kCw) * kCh);
    for (auto& c : cells_)
      c = static_cast<uint8_t>(v(rng));
  }

  HostImage frame(const SlowObject& o, int t) const {
    HostImage out(PixelFormat::kRGBA, kW, kH, 8);
    std::mt19937 rng(seed_ * 7919u + static_cast<uint32_t>(t));
    std::uniform_int_distribution<int> shift(-1, 1);
    const int sx = shift(rng), sy = shift(rng);
    std::normal_distribution<float> noise(0.f, 2.f);
    for (int y = 0; y < kH; ++y) {
      for (int x = 0; x < kW; ++x) {
        const bool in = SlowScene::inside(o, t, x, y);
        const int cx = std::clamp((x + sx + 2) / 2, 0, kCw - 1);
        const int cy = std::clamp((y + sy + 2) / 2, 0, kCh - 1);
        const float base = in ? static_cast<float>(level_) : cells_[cy * kCw + cx];
        uint8_t v[3];
        for (int c = 0; c < 3; ++c)
          v[c] = static_cast<uint8_t>(std::clamp(std::round(base + noise(rng)), 0.f, 255.f));
        out.set_rgb(x, y, v[0], v[1], v[2]);
      }
    }
    return out;
  }

private:
  static constexpr int kCw = kW / 2 + 2, kCh = kH / 2 + 2;
  uint32_t seed_;
  int level_;
  std::vector<uint8_t> cells_;
};

// Per frame t in [from, to): the fraction of the object's interior pixels in the mask. *still:
// frames of the range whose scene was not found moving (FrameResult::moving_background).
std::vector<double> interior_recall(const Params& p, const MovingScene& s, const SlowObject& o,
                                    int from, int to, int* still) {
  Status st;
  auto sub = make_subtractor(Backend::kCpu, &st);
  EXPECT_TRUE(sub && sub->configure(p).ok());
  HostImage mask(PixelFormat::kGRAY8, kW, kH, 3);
  std::vector<double> recall;
  for (int t = 0; t < to; ++t) {
    FrameResult res;
    const HostImage f = s.frame(o, t);
    EXPECT_TRUE(sub->process(f.view(), mask.view(), &res, nullptr).ok());
    if (t < from)
      continue;
    *still += !res.moving_background;
    recall.push_back(SlowScene::interior_recall(o, t, mask));
  }
  return recall;
}

struct MovingCase {
  float speed;    // px/frame
  int stop_after; // frames of motion, then it stays
  int level;      // the object's grey
  uint32_t seed;
  double min_mean; // tolerance on the mean interior recall
};

class BgsubMovingBackground : public ::testing::TestWithParam<MovingCase> {};

// 80 frames from the object's appearance, mean interior recall. Before the own-samples test
// (update_own false): 0.449 (speed 0), 0.316 (0.5), 0.742 (1), 0.805 (2), 0.484 (stops after 20
// frames); with its density half only (own_explained) 1.000, 0.998, 0.961, 0.946, 0.805: a contour
// pixel that its own wide kernels let learn the object's colour held it in half of its samples
// after L / 2 frames and then lent it to the next layer. With a holding sample too (none of the
// contour's samples holds the object's colour, so it is never learnt): 1.000, 1.000, 0.998,
// 0.987, 1.000. Tolerance 0.95 (at 2 px/frame the object leaves the 144-pixel frame at the end and
// its last sliver is under min_mask_area; at 1-2 px/frame the moving texture explains a few
// leading-edge pixels for a frame or two).
TEST_P(BgsubMovingBackground, FlatObjectKeepsItsMask) {
  const MovingCase c = GetParam();
  const MovingScene s(c.seed, c.level);
  const SlowObject o = test_object(c.speed, c.stop_after);
  const int from = o.first + 2, to = o.first + 80;
  Params p; // the element's defaults but 16 samples (the contour's lending comes 3x sooner)
  p.num_samples = 16;
  p.cpu_threads = 1;
  int still = 0;
  const std::vector<double> r = interior_recall(p, s, o, from, to, &still);
  EXPECT_EQ(still, 0) << "the lending of a moving scene (half of the lender's samples)";
  double mean = 0.0, lowest = 1.0;
  for (double v : r) {
    mean += v / static_cast<double>(r.size());
    lowest = std::min(lowest, v);
  }
  std::printf(
      "[moving background] %.1f px/frame, grey %d: interior recall mean %.3f, lowest %.3f\n",
      c.speed, c.level, mean, lowest);
  EXPECT_GE(mean, c.min_mean);
}

INSTANTIATE_TEST_SUITE_P(Speeds, BgsubMovingBackground,
                         ::testing::Values(MovingCase{0.f, 1 << 30, 160, 81, 0.95},
                                           MovingCase{0.5f, 1 << 30, 160, 81, 0.95},
                                           MovingCase{1.f, 1 << 30, 160, 81, 0.95},
                                           MovingCase{2.f, 1 << 30, 160, 81, 0.95},
                                           MovingCase{1.f, 20, 160, 81,
                                                      0.95})); // stops after 20 frames

} // namespace
} // namespace cvis::bgsub::test

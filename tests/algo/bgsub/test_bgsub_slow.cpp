// Slow and stopped flat-coloured objects against the ghost passes (Params::ghost_passes), CPU
// reference, on seeded scenes (slow_scene.hpp): an object that appears after the warm-up keeps its
// mask at 0, 0.5, 1 and 2 px/frame and after it stops (the ghost itself: test_bgsub_scene.cpp,
// GhostPassesTakeInARevealedBackgroundNotAStoppedObject). The background is flat grey with noise
// (sigma 2) and the objects a little brighter (11-12 levels in every channel): too far for the
// density test to take them for background, near enough that some of a background neighbour's
// samples lie within ghost_levels (10) of them, so the ghost passes had a way in at the contour
// and, through the copied samples, across the flat interior.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "bgsub/bgsub.hpp"
#include "slow_scene.hpp"

namespace cvis::bgsub::test {
namespace {

using cvis::test::HostImage;

constexpr int kW = 160, kH = 56;
constexpr float kGrey = 120.f, kNoise = 2.f;

Params slow_params() {
  Params p; // the element's defaults (ghost passes on)
  p.num_samples = 16;
  p.cpu_threads = 1;
  // The 2 px/frame object leaves the 160-pixel frame at the end; its last sliver is under the
  // default 60 pixels, which the area filter clears (not what is tested here).
  p.min_mask_area = 20;
  return p;
}

// Runs frames [0, to); calls `score(t, mask)` for t >= from.
template <typename ScoreFn>
void run(const Params& p, const SlowScene& s, const SlowObject& o, int from, int to,
         ScoreFn score) {
  Status st;
  auto sub = make_subtractor(Backend::kCpu, &st);
  ASSERT_TRUE(sub && sub->configure(p).ok());
  HostImage mask(PixelFormat::kGRAY8, kW, kH, 3);
  for (int t = 0; t < to; ++t) {
    FrameResult res;
    const HostImage f = s.frame(o, t);
    ASSERT_TRUE(sub->process(f.view(), mask.view(), &res, nullptr).ok());
    if (t >= from)
      score(t, mask);
  }
}

// Per frame t in [from, to): the fraction of the object's interior pixels in the mask.
std::vector<double> interior_recall(const Params& p, const SlowScene& s, const SlowObject& o,
                                    int from, int to) {
  std::vector<double> recall;
  run(p, s, o, from, to,
      [&](int t, HostImage& mask) { recall.push_back(SlowScene::interior_recall(o, t, mask)); });
  return recall;
}

struct SlowCase {
  float speed;    // px/frame
  int stop_after; // frames of motion, then it stays
  int contrast;   // levels above the background grey, every channel
  uint32_t seed;
};

class BgsubSlow : public ::testing::TestWithParam<SlowCase> {};

// 80 frames from the object's appearance (a 36x26 object at 1 px/frame covers a pixel for 36
// frames, far more than ghost_still = 8). Without the ghost passes the interior recall is 1.000 on
// every frame of every case; before the passes tested their source (ghost_source) the minimum was
// 0.959 (speed 0), 0.968 (0.5), 0.968 (1), 0.974 (2), 0.949 (stop), 0.188 (1 px/frame, 11 levels),
// with the source test 0.985-1.000. Tolerance 0.98: a take-over at the contour may cost a pixel
// of the interior for a frame; a peeled interior costs whole layers.
TEST_P(BgsubSlow, FlatObjectKeepsItsMask) {
  const SlowCase c = GetParam();
  const SlowScene s(kW, kH, c.seed, kNoise, kGrey, 0.f);
  SlowObject o = test_object(c.speed, c.stop_after);
  for (int k = 0; k < 3; ++k)
    o.rgb[k] = static_cast<uint8_t>(kGrey + c.contrast);
  const int from = o.first + 2, to = o.first + 80;
  const std::vector<double> r = interior_recall(slow_params(), s, o, from, to);
  double lowest = 1.0;
  int at = from;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] < lowest) {
      lowest = r[i];
      at = from + static_cast<int>(i);
    }
  }
  std::printf("[slow object] %.1f px/frame, contrast %d: lowest interior recall %.3f (frame %d)\n",
              c.speed, c.contrast, lowest, at);
  EXPECT_GE(lowest, 0.98) << "frame " << at;
}

INSTANTIATE_TEST_SUITE_P(Speeds, BgsubSlow,
                         ::testing::Values(SlowCase{0.f, 1 << 30, 12, 70},
                                           SlowCase{0.5f, 1 << 30, 12, 70},
                                           SlowCase{1.f, 1 << 30, 12, 70},
                                           SlowCase{2.f, 1 << 30, 12, 70},
                                           SlowCase{1.f, 20, 12, 70}, // stops after 20 frames
                                           SlowCase{1.f, 1 << 30, 11, 71}));

} // namespace
} // namespace cvis::bgsub::test

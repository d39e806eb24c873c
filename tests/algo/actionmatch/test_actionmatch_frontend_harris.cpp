// The space-time Harris detector (Detector::kHarris) on analytic inputs: a blob that appears and
// disappears answers at its centre at those two moments; a static edge, a translating straight
// edge (rank-2 second-moment matrix: det mu = 0) and a static blob give no point; the taps.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "stip.hpp"
#include "frontend_frames.hpp"

using namespace cvis;
using namespace cvis::stip;
using test::Frame;

namespace {

constexpr int kW = 64, kH = 48, kN = 48;

FrontEndParams harris() {
  FrontEndParams p;
  p.detector = Detector::kHarris;
  p.sigma = 2;
  p.tau = 1.5;
  p.normalise_gain = false; // the blob's appearance would change the frame's gain
  p.threshold = 1e-9;       // the blob below peaks at H = 1.6e-8; edges give H <= 0
  p.max_points = 4;
  return p;
}

// Frames of `value(x, y, t)` (0..255).
template <typename F> std::vector<Frame> clip(F value) {
  std::vector<Frame> frames;
  for (int t = 0; t < kN; ++t) {
    Frame f(kW, kH, 3);
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x)
        f.at(x, y) = static_cast<uint8_t>(std::lround(value(x, y, t)));
    frames.push_back(std::move(f));
  }
  return frames;
}

double blob(int x, int y, double cx, double cy) {
  const double d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
  return 140.0 * std::exp(-d2 / (2 * 3.0 * 3.0));
}

int count_points(const std::vector<FramePoints>& out) {
  int n = 0;
  for (const FramePoints& fp : out)
    n += static_cast<int>(fp.points.size());
  return n;
}

} // namespace

TEST(ActionFrontEndHarris, Taps) {
  const FrontEndParams p = harris();
  std::vector<float> s, d, sp, tm;
  harris_taps(p, &s, &d, &sp, &tm);
  ASSERT_EQ(static_cast<int>(s.size()), 2 * p.temporal_radius() + 1);
  ASSERT_EQ(d.size(), s.size());
  ASSERT_EQ(static_cast<int>(tm.size()), 2 * p.integration_radius() + 1);
  double ss = 0, moment = 0, st = 0;
  const int r = p.temporal_radius();
  for (int k = 0; k <= 2 * r; ++k) {
    ss += s[k];
    moment += d[k] * (k - r);
    EXPECT_FLOAT_EQ(d[k], -d[2 * r - k]);
  }
  for (float v : tm)
    st += v;
  EXPECT_NEAR(ss, 1.0, 1e-6);
  EXPECT_NEAR(st, 1.0, 1e-6);
  // The derivative taps give a ramp's slope (1 up to float rounding of the taps).
  EXPECT_NEAR(moment, 1.0, 1e-6);
  EXPECT_EQ(p.detector_radius(), p.temporal_radius() + p.integration_radius());
}

// A Gaussian blob (std 3 px) at (30, 22) on grey, present in frames 16..31: the points lie within
// 2 px of its centre and within 4 frames of its appearance (16) or disappearance (32). 4 frames:
// the spatial gradients exist only while the blob is there, so the peak of det mu sits inside the
// presence interval by up to about 2 tau (measured: frames 18 and 29 at tau 1.5).
TEST(ActionFrontEndHarris, BlobAppearingAndDisappearing) {
  auto frames = clip([](int x, int y, int t) {
    return 60.0 + (t >= 16 && t < 32 ? blob(x, y, 30, 22) : 0.0);
  });
  const auto out = run_cpu(frames, harris());
  ASSERT_EQ(static_cast<int>(out.size()), kN);
  float best = 0;
  int near_onset = 0, near_offset = 0;
  for (const FramePoints& fp : out)
    for (const InterestPoint& ip : fp.points) {
      best = std::max(best, ip.response);
      EXPECT_LE(std::abs(ip.x - 30), 2) << "frame " << fp.frame;
      EXPECT_LE(std::abs(ip.y - 22), 2) << "frame " << fp.frame;
      const bool onset = std::abs(fp.frame - 16) <= 4, offset = std::abs(fp.frame - 32) <= 4;
      EXPECT_TRUE(onset || offset) << "point at frame " << fp.frame;
      near_onset += onset;
      near_offset += offset;
    }
  std::printf("blob: strongest H %.3g, %d points near the onset, %d near the offset\n", best,
              near_onset, near_offset);
  for (const FramePoints& fp : out)
    for (const InterestPoint& ip : fp.points)
      std::printf("  frame %lld (%d, %d) H %.3g\n", static_cast<long long>(fp.frame), ip.x, ip.y,
                  ip.response);
  EXPECT_GE(near_onset, 1);
  EXPECT_GE(near_offset, 1);
}

// No point: a static vertical edge (Lt = 0: det 0, H = -k tr^3 <= 0), a straight edge
// translating at 1 px/frame (Ly = 0: mu has rank 2), a static blob.
TEST(ActionFrontEndHarris, EdgesAndStaticBlobGiveNone) {
  auto edge = clip([](int x, int, int) { return x < 30 ? 50.0 : 180.0; });
  EXPECT_EQ(count_points(run_cpu(edge, harris())), 0);
  auto moving = clip([](int x, int, int t) { return x < 10 + t ? 50.0 : 180.0; });
  EXPECT_EQ(count_points(run_cpu(moving, harris())), 0);
  auto still = clip([](int x, int y, int) { return 60.0 + blob(x, y, 30, 22); });
  EXPECT_EQ(count_points(run_cpu(still, harris())), 0);
}

TEST(ActionFrontEndHarris, Validation) {
  FrontEndParams p = harris();
  EXPECT_TRUE(validate(p).ok());
  p.sigma = 5; // 2 x 5 > 8: beyond the tap tables
  EXPECT_FALSE(validate(p).ok());
  p = harris();
  p.harris_k = 0.5;
  EXPECT_FALSE(validate(p).ok());
  Detector d;
  EXPECT_TRUE(parse_detector("harris", &d) && d == Detector::kHarris);
  EXPECT_FALSE(parse_detector("dollar", &d));
}

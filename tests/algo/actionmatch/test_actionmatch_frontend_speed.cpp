// The speed-split flow histogram (FlowHistogram::kSpeed): two clips that differ only in the speed
// of the same translating texture give nearly the same HoF with the paper's histogram (it keeps
// the direction only) and clearly different ones with the speed split; the HoG part is the
// paper's either way; the recogniser refuses a dictionary made with the other histogram.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "actionlearn_recognise.hpp"
#include "stip.hpp"
#include "stip_internal.hpp"
#include "stip_ops.hpp"
#include "stip_ref.hpp"
#include "frontend_frames.hpp"

using namespace cvis;
using namespace cvis::stip;
using namespace cvis::actionlearn;
using cvis::actionmatch::kPaperDescriptorDim;
using cvis::actionmatch::Model;
namespace ref = cvis::stip::detail::ref;

namespace {

constexpr int kW = 96, kH = 72, kFrames = 12, kFrame = 8;

// A texture (seed) translating right by `speed` pixels per frame over the whole frame.
std::vector<test::Frame> translating(double speed, uint32_t seed) {
  const std::vector<float> tex = test::texture(160, 120, seed);
  std::vector<test::Frame> frames;
  for (int t = 0; t < kFrames; ++t) {
    test::Frame f(kW, kH, 0);
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) {
        const float v = fe::bilinear(tex.data(), 160, 160, 120,
                                     static_cast<float>(x + 50 - speed * t), y + 24.0f);
        f.at(x, y) = static_cast<uint8_t>(std::lround(v));
      }
    frames.push_back(std::move(f));
  }
  return frames;
}

// The descriptor of the frame centre at frame kFrame, through the reference stages chained as the
// CPU backend chains them.
std::vector<float> centre_descriptor(std::vector<test::Frame>& frames, const FrontEndParams& p) {
  const detail::FrontEndGeometry g = detail::frontend_geometry(p);
  std::vector<float> gauss;
  gaussian_taps(p.sigma, &gauss);
  std::vector<ref::Votes> ring(g.vote_ring);
  std::vector<ref::Image> prev;
  for (int n = 0; n < kFrames; ++n) {
    ref::Image in, s, u, v;
    ref::load_luma(frames[n].view(), p.normalise_gain, &in);
    ref::gaussian(in, gauss, &s);
    std::vector<ref::Image> pyr;
    ref::pyramid(in, p.flow_levels, &pyr);
    if (n == 0) {
      u.resize(kW, kH);
      v.resize(kW, kH);
    } else {
      ref::lk_flow(prev, pyr, p, &u, &v);
    }
    prev = std::move(pyr);
    ref::votes(s, u, v, static_cast<float>(p.flow_min), g.speed_split, &ring[n % g.vote_ring]);
  }
  std::vector<float> d(g.dim);
  ref::descriptor(ring, g, kFrame, kW / 2, kH / 2, kFrames - g.vote_ring, kFrames - 1, d.data());
  return d;
}

double distance(const std::vector<float>& a, const std::vector<float>& b, int from, int to) {
  double s = 0;
  for (int i = from; i < to; ++i)
    s += (a[i] - b[i]) * static_cast<double>(a[i] - b[i]);
  return std::sqrt(s);
}

} // namespace

// 1 and 3 pixels per frame, split at 2. Each HoF part has norm 1/sqrt(2), so two HoFs in disjoint
// bins are 1 apart. Tolerances: the paper's HoFs differ only through the magnitude weights of the
// few pixels off the right-hand bin or below flow_min (measured 0.044; 0.1 allowed); the speed
// split moves nearly every vote to the other speed class (measured 0.996; 0.9 asked).
TEST(ActionFrontEndSpeed, SpeedHistogramSeparatesSpeeds) {
  auto slow = translating(1.0, 3), fast = translating(3.0, 3), slow2 = translating(1.0, 8);
  FrontEndParams paper;
  FrontEndParams speed;
  speed.flow_histogram = FlowHistogram::kSpeed;
  speed.speed_split = 2.0;
  ASSERT_EQ(descriptor_dim(paper), kPaperDescriptorDim);
  ASSERT_EQ(descriptor_dim(speed), kSpeedDescriptorDim);
  const auto ps = centre_descriptor(slow, paper), pf = centre_descriptor(fast, paper);
  const auto ss = centre_descriptor(slow, speed), sf = centre_descriptor(fast, speed);
  const auto ss2 = centre_descriptor(slow2, speed);
  const double paper_d = distance(ps, pf, kHogDim, kPaperDescriptorDim);
  const double speed_d = distance(ss, sf, kHogDim, kSpeedDescriptorDim);
  const double texture_d = distance(ss, ss2, kHogDim, kSpeedDescriptorDim);
  std::printf("HoF distance 1 vs 3 pixels/frame: paper %.4f, speed %.4f; speed, other texture "
              "%.4f\n", paper_d, speed_d, texture_d);
  EXPECT_LT(paper_d, 0.1) << "the paper's HoF keeps only the direction";
  EXPECT_GT(speed_d, 0.9) << "the speed split tells 1 from 3 pixels per frame";
  // Another texture at the same speed: the speed HoF stays close (measured 0.05; 0.2 allowed: the
  // texture changes only the magnitude weights within the class).
  EXPECT_LT(texture_d, 0.2);
  // The HoG part does not depend on the flow histogram.
  for (int i = 0; i < kHogDim; ++i) {
    EXPECT_EQ(ps[i], ss[i]) << i;
    EXPECT_EQ(pf[i], sf[i]) << i;
  }
}

TEST(ActionFrontEndSpeed, Validation) {
  FrontEndParams p;
  p.flow_histogram = FlowHistogram::kSpeed;
  p.speed_split = 0.05;
  EXPECT_FALSE(validate(p).ok());
  p.speed_split = 2;
  EXPECT_TRUE(validate(p).ok());
  Dictionary d;
  describe(p, &d);
  EXPECT_EQ(d.dim, kSpeedDescriptorDim);
  EXPECT_EQ(d.flow, FlowHistogram::kSpeed);
  EXPECT_EQ(d.speed_split, 2.0);
  describe(FrontEndParams(), &d);
  EXPECT_EQ(d.dim, kPaperDescriptorDim);
  EXPECT_EQ(d.speed_split, 0.0);
}

// A dictionary made with one flow histogram against a front end set to the other: a clear error.
TEST(ActionFrontEndSpeed, RecogniserRefusesOtherHistogram) {
  FrontEndParams fp;
  fp.flow_histogram = FlowHistogram::kSpeed;
  Dictionary d;
  describe(fp, &d);
  Model m;
  m.label = "run";
  m.graph.dim = d.dim;
  std::vector<float> desc(d.dim, 0.1f);
  for (int i = 0; i < 3; ++i)
    m.graph.add(i, 10.0f, 10.0f, desc.data());
  d.models.push_back(m);
  ASSERT_TRUE(validate(d).ok());
  RecogniserParams rp; // the paper's histogram
  Recogniser r;
  Status s = r.configure(Backend::kCpu, Backend::kCpu, 64, 48, rp, d);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("speed flow histogram"), std::string::npos) << s.message();
  rp.frontend = fp;
  s = r.configure(Backend::kCpu, Backend::kCpu, 64, 48, rp, d);
  EXPECT_TRUE(s.ok()) << s.to_string();
}

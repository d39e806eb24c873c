// Front end (CPU reference): filter taps, the periodic detector on analytic inputs (a blob
// oscillating with period P answers most at the filter period P), static scenes give no points,
// the Lucas-Kanade flow of a translating texture, the descriptor layout, the stream contract
// (every frame once, in order, lag) and padded pitch / odd sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "stip.hpp"
#include "stip_ops.hpp"
#include "stip_ref.hpp"
#include "frontend_frames.hpp"

using namespace cvis;
using namespace cvis::stip;
using cvis::actionmatch::kPaperDescriptorDim;
using cvis::stip::test::Frame;
using cvis::stip::test::texture;

namespace {

constexpr double kPi = 3.14159265358979323846;

// Runs the CPU front end over `frames` and returns every final frame.
std::vector<FramePoints> run(std::vector<Frame>& frames, const FrontEndParams& p) {
  Status st;
  auto fe = make_frontend(Backend::kCpu, &st);
  EXPECT_TRUE(st.ok());
  EXPECT_TRUE(fe->configure(frames[0].w, frames[0].h, p).ok());
  std::vector<FramePoints> out;
  for (Frame& f : frames)
    EXPECT_TRUE(fe->push(f.view(), nullptr, &out).ok());
  EXPECT_TRUE(fe->finish(nullptr, &out).ok());
  return out;
}

} // namespace

TEST(ActionFrontEnd, Taps) {
  std::vector<float> g;
  gaussian_taps(2.0, &g);
  ASSERT_EQ(g.size(), 13u);
  double sum = 0;
  for (float v : g)
    sum += v;
  EXPECT_NEAR(sum, 1.0, 1e-6);
  FrontEndParams p;
  std::vector<float> ev, od;
  gabor_taps(p, &ev, &od);
  ASSERT_EQ(static_cast<int>(ev.size()), 2 * p.temporal_radius() + 1);
  double se = 0;
  for (size_t i = 0; i < ev.size(); ++i) {
    se += ev[i];
    EXPECT_FLOAT_EQ(od[i], -od[ev.size() - 1 - i]); // odd filter antisymmetric
    EXPECT_FLOAT_EQ(ev[i], ev[ev.size() - 1 - i]);  // even filter symmetric
  }
  EXPECT_NEAR(se, 0.0, 1e-6); // zero DC
}

// A blob whose brightness oscillates with period P frames: the mean response at its centre is
// largest when the Gabor period 1/omega equals P (swept over periods 3..12, tau 4).
TEST(ActionFrontEnd, PeriodicBlobPeaksAtItsPeriod) {
  for (int P : {4, 6, 8}) {
    double best = -1;
    int best_period = 0;
    for (int Q = 3; Q <= 12; ++Q) {
      FrontEndParams p;
      p.tau = 4.0;
      p.omega = 1.0 / Q;
      p.threshold = 0;
      const int r = p.temporal_radius();
      std::vector<float> ev, od;
      gabor_taps(p, &ev, &od);
      // The response at the centre pixel: the temporal filter of the intensity there.
      double mean = 0;
      int count = 0;
      for (int t = r; t < 64 - r; ++t) {
        double e = 0, o = 0;
        for (int k = 0; k <= 2 * r; ++k) {
          const double v = 0.5 + 0.4 * std::sin(2 * kPi * (t - r + k) / P);
          e += ev[k] * v;
          o += od[k] * v;
        }
        mean += e * e + o * o;
        ++count;
      }
      mean /= count;
      // Normalised by the filters' energy so that longer filters are not favoured.
      double energy = 0;
      for (size_t k = 0; k < ev.size(); ++k)
        energy += ev[k] * ev[k] + od[k] * od[k];
      mean /= energy;
      if (mean > best) {
        best = mean;
        best_period = Q;
      }
    }
    EXPECT_EQ(best_period, P) << "blob period " << P;
  }
}

// The same through the whole front end: an oscillating blob on a flat background is found at its
// centre (within 1 pixel), and nothing else is.
TEST(ActionFrontEnd, PeriodicBlobDetectedAtItsCentre) {
  std::vector<Frame> frames;
  const int cx = 23, cy = 17;
  for (int t = 0; t < 40; ++t) {
    Frame f(47, 35, 5);
    for (int y = 0; y < f.h; ++y)
      for (int x = 0; x < f.w; ++x) {
        const double d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
        const double a = 0.5 + 0.45 * std::sin(2 * kPi * t / 5.0);
        f.at(x, y) = static_cast<uint8_t>(std::lround(60 + 150 * a * std::exp(-d2 / 18.0)));
      }
    frames.push_back(std::move(f));
  }
  FrontEndParams p;
  p.tau = 2.5;
  p.max_points = 3;
  p.normalise_gain = false; // the blob is a large part of the frame's mean
  const auto out = run(frames, p);
  ASSERT_EQ(out.size(), frames.size());
  int with_points = 0;
  for (const FramePoints& fp : out) {
    for (const InterestPoint& ip : fp.points) {
      EXPECT_LE(std::abs(ip.x - cx), 1) << "frame " << fp.frame;
      EXPECT_LE(std::abs(ip.y - cy), 1) << "frame " << fp.frame;
    }
    with_points += !fp.points.empty();
  }
  EXPECT_GT(with_points, 5);
}

TEST(ActionFrontEnd, StaticTextureGivesNoPoints) {
  const std::vector<float> tex = texture(64, 48, 3);
  std::vector<Frame> frames;
  for (int t = 0; t < 24; ++t) {
    Frame f(64, 48, 0);
    for (int y = 0; y < 48; ++y)
      for (int x = 0; x < 64; ++x)
        f.at(x, y) = static_cast<uint8_t>(tex[static_cast<size_t>(y) * 64 + x]);
    frames.push_back(std::move(f));
  }
  for (const FramePoints& fp : run(frames, FrontEndParams()))
    EXPECT_TRUE(fp.points.empty()) << "frame " << fp.frame;
}

// A static texture under 4% gain flicker at 5 frames per period: points everywhere without gain
// normalisation, none with it.
TEST(ActionFrontEnd, GainFlickerIgnoredWhenNormalised) {
  const std::vector<float> tex = texture(64, 48, 4);
  std::vector<Frame> frames;
  for (int t = 0; t < 24; ++t) {
    Frame f(64, 48, 0);
    const double g = 1 + 0.04 * std::sin(2 * kPi * t / 5.0);
    for (int y = 0; y < 48; ++y)
      for (int x = 0; x < 64; ++x)
        f.at(x, y) = static_cast<uint8_t>(std::lround(tex[static_cast<size_t>(y) * 64 + x] * 0.9 * g));
    frames.push_back(std::move(f));
  }
  FrontEndParams p;
  p.threshold = 2e-5;
  int with = 0, without = 0;
  for (const FramePoints& fp : run(frames, p))
    with += static_cast<int>(fp.points.size());
  p.normalise_gain = false;
  for (const FramePoints& fp : run(frames, p))
    without += static_cast<int>(fp.points.size());
  EXPECT_EQ(with, 0);
  EXPECT_GT(without, 10);
}

// Lucas-Kanade on a texture translating by (1.25, -0.5) pixels per frame: the median flow of the
// interior is within 0.1 pixel of it.
TEST(ActionFrontEnd, FlowOfTranslation) {
  const std::vector<float> tex = texture(160, 120, 9);
  const float dx = 1.25f, dy = -0.5f;
  detail::ref::Image a, b;
  a.resize(96, 72);
  b.resize(96, 72);
  for (int y = 0; y < 72; ++y)
    for (int x = 0; x < 96; ++x) {
      a.p[static_cast<size_t>(y) * 96 + x] =
          fe::bilinear(tex.data(), 160, 160, 120, x + 30.0f, y + 30.0f) / 255.0f;
      b.p[static_cast<size_t>(y) * 96 + x] =
          fe::bilinear(tex.data(), 160, 160, 120, x + 30.0f - dx, y + 30.0f - dy) / 255.0f;
    }
  FrontEndParams p;
  std::vector<detail::ref::Image> pa, pb;
  detail::ref::pyramid(a, p.flow_levels, &pa);
  detail::ref::pyramid(b, p.flow_levels, &pb);
  detail::ref::Image u, v;
  detail::ref::lk_flow(pa, pb, p, &u, &v);
  std::vector<float> us, vs;
  for (int y = 12; y < 60; ++y)
    for (int x = 12; x < 84; ++x) {
      us.push_back(u.at(x, y));
      vs.push_back(v.at(x, y));
    }
  std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
  std::nth_element(vs.begin(), vs.begin() + vs.size() / 2, vs.end());
  EXPECT_NEAR(us[us.size() / 2], dx, 0.1);
  EXPECT_NEAR(vs[vs.size() / 2], dy, 0.1);
}

// Votes by comparisons: the HoG bin of every 45-degree sector (unsigned) and the HoF bins.
TEST(ActionFrontEnd, VoteBins) {
  uint8_t b;
  float w;
  const struct {
    float gx, gy;
    int bin;
  } hog[] = {{1, 0.1f, 0},  {1, 2, 1},  {-0.5f, 2, 2}, {-2, 1, 3},
               {-1, -0.1f, 0}, {-1, -2, 1}, {0.5f, -2, 2}, {2, -1, 3}};
  for (const auto& c : hog) {
    fe::hog_vote(c.gx, c.gy, &b, &w);
    EXPECT_EQ(b, c.bin) << c.gx << "," << c.gy;
    EXPECT_FLOAT_EQ(w, std::sqrt(c.gx * c.gx + c.gy * c.gy));
  }
  const struct {
    float u, v;
    int bin;
  } hof[] = {{1, 0.2f, 0}, {0.2f, 1, 1}, {-1, 0.5f, 2}, {0.1f, -1, 3}, {0.01f, 0.02f, 4}};
  for (const auto& c : hof) {
    fe::hof_vote(c.u, c.v, 0.1f, 0.0f, &b, &w);
    EXPECT_EQ(b, c.bin) << c.u << "," << c.v;
  }
  // Speed split at 2 pixels/frame: at or above it, the direction bins 5..8; "no motion" stays 4.
  const struct {
    float u, v;
    int bin;
  } fast[] = {{1.9f, 0.2f, 0}, {2, 0, 5}, {0.2f, 3, 6}, {-3, 0.5f, 7}, {0.1f, -1.99f, 3},
              {0.5f, -2.5f, 8}, {0.01f, 0.02f, 4}};
  for (const auto& c : fast) {
    fe::hof_vote(c.u, c.v, 0.1f, 2.0f, &b, &w);
    EXPECT_EQ(b, c.bin) << c.u << "," << c.v;
  }
}

// Descriptor layout: votes in one known pixel of one cell land in that cell's bins; each part has
// norm 1/sqrt(2).
TEST(ActionFrontEnd, DescriptorLayout) {
  FrontEndParams p;
  p.cell_size = 4;
  p.cell_frames = 2;
  const detail::FrontEndGeometry g = detail::frontend_geometry(p);
  std::vector<detail::ref::Votes> ring(g.vote_ring);
  for (auto& v : ring) {
    v.w = 40;
    v.h = 30;
    v.hog_bin.assign(1200, 0);
    v.hof_bin.assign(1200, 4);
    v.hog_w.assign(1200, 0.0f);
    v.hof_w.assign(1200, 0.0f);
  }
  // Point at (20, 15), frame 10; cell (t=1, cy=2, cx=0) covers frames 10..11, rows 15-6+8..,
  // columns 20-6..20-6+3.
  const int f = 10, x = 20, y = 15, c = 4;
  const int px = x - (3 * c) / 2 + 1, py = y - (3 * c) / 2 + 2 * c + 1;
  auto& vt = ring[f % g.vote_ring];
  vt.hog_bin[py * 40 + px] = 3;
  vt.hog_w[py * 40 + px] = 2.0f;
  vt.hof_bin[py * 40 + px] = 1;
  vt.hof_w[py * 40 + px] = 5.0f;
  std::vector<float> d(kPaperDescriptorDim, -1.0f);
  detail::ref::descriptor(ring, g, f, x, y, f - 6, f + 4, d.data());
  const int cell = (1 * 3 + 2) * 3 + 0;
  for (int i = 0; i < kPaperDescriptorDim; ++i) {
    const bool hog_hit = i == cell * kHogBins + 3;
    const bool hof_hit = i == kHogDim + cell * kHofBins + 1;
    EXPECT_FLOAT_EQ(d[i], hog_hit || hof_hit ? 0.70710678f : 0.0f) << "index " << i;
  }
}

// Every pushed frame comes out once, in order, `lag` pushes later (the rest at finish); padded
// pitch and an odd size give the same points as packed rows.
TEST(ActionFrontEnd, StreamContractAndPitch) {
  std::mt19937 rng(5);
  std::vector<Frame> packed, padded;
  const std::vector<float> tex = texture(80, 60, 11);
  for (int t = 0; t < 30; ++t) {
    Frame a(53, 41, 0), b(53, 41, 13);
    const int ox = 10 + (t * 3) % 20;
    for (int y = 0; y < 41; ++y)
      for (int x = 0; x < 53; ++x) {
        const bool in = x >= ox && x < ox + 12 && y >= 10 && y < 30;
        const uint8_t v = in ? 230 : static_cast<uint8_t>(tex[static_cast<size_t>(y) * 80 + x] * 0.3f);
        a.at(x, y) = b.at(x, y) = v;
      }
    packed.push_back(std::move(a));
    padded.push_back(std::move(b));
  }
  FrontEndParams p;
  Status st;
  auto fe = make_frontend(Backend::kCpu, &st);
  ASSERT_TRUE(fe->configure(53, 41, p).ok());
  std::vector<FramePoints> out;
  for (int t = 0; t < 30; ++t) {
    const size_t before = out.size();
    ASSERT_TRUE(fe->push(packed[t].view(), nullptr, &out).ok());
    EXPECT_EQ(out.size() - before, t >= fe->lag() ? 1u : 0u);
  }
  ASSERT_TRUE(fe->finish(nullptr, &out).ok());
  ASSERT_EQ(out.size(), 30u);
  int total = 0;
  for (int t = 0; t < 30; ++t) {
    EXPECT_EQ(out[t].frame, t);
    EXPECT_EQ(out[t].desc.size(), out[t].points.size() * kPaperDescriptorDim);
    total += static_cast<int>(out[t].points.size());
  }
  EXPECT_GT(total, 0);
  const auto out2 = run(padded, p);
  ASSERT_EQ(out2.size(), out.size());
  for (size_t t = 0; t < out.size(); ++t) {
    ASSERT_EQ(out2[t].points.size(), out[t].points.size());
    for (size_t i = 0; i < out[t].points.size(); ++i) {
      EXPECT_EQ(out2[t].points[i].x, out[t].points[i].x);
      EXPECT_EQ(out2[t].points[i].y, out[t].points[i].y);
    }
    EXPECT_EQ(out2[t].desc, out[t].desc); // bit-identical
  }
}

// The streamed points equal those of the whole clip held in memory (every response kept), also
// when the descriptor's cells reach further ahead than the Gabor filters (lag > r + 1: tau 1.5,
// cell_frames 8), where a frame's NMS must still read its own neighbours' responses.
TEST(ActionFrontEnd, StreamedPointsEqualWholeClip) {
  const std::vector<float> tex = texture(64, 48, 23);
  std::vector<Frame> frames;
  for (int t = 0; t < 40; ++t) {
    Frame a(64, 48, 0);
    const int ox = 8 + static_cast<int>(16 * (1 + std::sin(2 * kPi * t / 7.0)));
    const int oy = 6 + (t * 2) % 18;
    for (int y = 0; y < 48; ++y)
      for (int x = 0; x < 64; ++x) {
        const bool bar = x >= ox && x < ox + 8 && y >= 12 && y < 36;
        const bool blob = (x - 48) * (x - 48) + (y - oy - 6) * (y - oy - 6) < 20;
        a.at(x, y) = bar || blob ? 220 : static_cast<uint8_t>(tex[static_cast<size_t>(y) * 64 + x] * 0.4f);
      }
    frames.push_back(std::move(a));
  }
  struct Case {
    double tau;
    int cell_frames;
  };
  for (const Case c : {Case{2.5, 4}, Case{1.5, 8}, Case{1.0, 16}, Case{0.5, 6}}) {
    FrontEndParams p;
    p.tau = c.tau;
    p.cell_frames = c.cell_frames;
    p.threshold = 1e-6;
    p.max_points = 16;
    const int n = static_cast<int>(frames.size()), r = p.temporal_radius();
    std::vector<float> gauss, ev, od;
    gaussian_taps(p.sigma, &gauss);
    gabor_taps(p, &ev, &od);
    std::vector<detail::ref::Image> smooth(n), resp(n);
    for (int t = 0; t < n; ++t) {
      detail::ref::Image in;
      detail::ref::load_luma(frames[t].view(), p.normalise_gain, &in);
      detail::ref::gaussian(in, gauss, &smooth[t]);
    }
    for (int f = r; f < n - r; ++f)
      detail::ref::temporal_response(smooth, f + r, r, ev, od, &resp[f]);
    const auto out = run(frames, p);
    ASSERT_EQ(static_cast<int>(out.size()), n);
    int total = 0;
    for (int f = r; f < n - r; ++f) {
      std::vector<InterestPoint> want;
      detail::ref::select_points(f - 1 >= r ? &resp[f - 1] : nullptr, resp[f],
                                 f + 1 < n - r ? &resp[f + 1] : nullptr, p, &want);
      ASSERT_EQ(out[f].points.size(), want.size()) << "tau " << c.tau << " frame " << f;
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(out[f].points[i].x, want[i].x) << "tau " << c.tau << " frame " << f;
        EXPECT_EQ(out[f].points[i].y, want[i].y) << "tau " << c.tau << " frame " << f;
        EXPECT_EQ(out[f].points[i].response, want[i].response);
      }
      total += static_cast<int>(want.size());
    }
    EXPECT_GT(total, n) << "tau " << c.tau; // the clip has points to compare
  }
}

TEST(ActionFrontEnd, Validation) {
  FrontEndParams p;
  p.sigma = 0.1;
  EXPECT_FALSE(validate(p).ok());
  Status st;
  auto fe = make_frontend(Backend::kCpu, &st);
  ASSERT_TRUE(fe->configure(32, 32, FrontEndParams()).ok());
  Frame f(31, 32, 0);
  std::vector<FramePoints> out;
  EXPECT_EQ(fe->push(f.view(), nullptr, &out).code(), StatusCode::kInvalidArgument);
  ImageView rgba = Frame(32, 32, 0).view();
  rgba.format = PixelFormat::kRGBA;
  EXPECT_EQ(fe->push(rgba, nullptr, &out).code(), StatusCode::kUnsupportedFormat);
}

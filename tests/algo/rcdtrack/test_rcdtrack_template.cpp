// cpu suite: the tracker's template refinement (rcdtrack_template.cpp). The CPU engine's template
// matching on seeded random frames (the correlation of a patch with itself is 1 within 1e-12 and
// its offset is found; flat templates score nothing; jobs outside the frame are refused), and the
// tracker with and without the refinement on a seeded sequence of a flat, car-like target, whose
// covariances alone place the box badly (windows inside it match as well as the whole).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "rcdtrack_cpu_tracker.hpp"
#include "rcdtrack_engine.hpp"
#include "rcdtrack_scene.hpp"

namespace cvis::rcdtrack {
namespace {

using test::HostImage;

std::unique_ptr<Engine> engine_on(const HostImage& img) {
  std::unique_ptr<Engine> e = make_cpu_engine();
  const Layout L = make_layout(thesis_features(), 1.0, 1);
  EXPECT_TRUE(e->configure(L, Distance::kJbld, img.width(), img.height(), img.format()).ok());
  EXPECT_TRUE(e->set_frame(img.view(), nullptr).ok());
  return e;
}

// A patch read back from the frame and matched over offsets around where it was taken: the best
// offset is its own, with a correlation of 1, for several strides and formats.
TEST(TemplateMatch, FindsThePatchWhereItWasTaken) {
  std::mt19937 rng(7);
  for (PixelFormat f : {PixelFormat::kRGBA, PixelFormat::kNV12, PixelFormat::kGRAY8}) {
    HostImage img = test::make_random(f, 203, 151, 8, 11u + static_cast<uint32_t>(f));
    auto e = engine_on(img);
    for (int stride : {1, 2, 3, 5}) {
      LumaRegion r;
      r.stride = stride;
      r.cols = 8 + static_cast<int>(rng() % 12);
      r.rows = 6 + static_cast<int>(rng() % 10);
      const int m = 4; // offsets either side
      r.x = m * stride + static_cast<int>(rng() % (203 - (r.cols + 2 * m) * stride));
      r.y = m * stride + static_cast<int>(rng() % (151 - (r.rows + 2 * m) * stride));
      std::vector<uint8_t> luma;
      const Status rs = e->read_luma({r}, &luma, nullptr);
      ASSERT_TRUE(rs.ok()) << rs.to_string();
      ASSERT_EQ(luma.size(), static_cast<size_t>(r.cols) * r.rows);
      TemplatePass pass;
      TemplateJob j;
      j.x0 = r.x - m * stride;
      j.y0 = r.y - m * stride;
      j.nx = j.ny = 2 * m + 1;
      j.tw = r.cols;
      j.th = r.rows;
      j.stride = stride;
      pass.samples = luma;
      pass.jobs.push_back(j);
      std::vector<TemplateHit> hits;
      ASSERT_TRUE(e->match_templates(pass, &hits, nullptr).ok());
      ASSERT_EQ(hits.size(), 1u);
      EXPECT_EQ(hits[0].index, m * j.nx + m) << pixel_format_name(f) << " stride " << stride;
      EXPECT_NEAR(hits[0].score, 1.0, 1e-12);
    }
  }
}

TEST(TemplateMatch, FlatTemplateScoresNothing) {
  HostImage img = test::make_random(PixelFormat::kRGBA, 64, 48, 0, 3);
  auto e = engine_on(img);
  TemplatePass pass;
  TemplateJob j;
  j.nx = j.ny = 5;
  j.tw = j.th = 8;
  pass.samples.assign(64, 90);
  pass.jobs.push_back(j);
  std::vector<TemplateHit> hits;
  ASSERT_TRUE(e->match_templates(pass, &hits, nullptr).ok());
  EXPECT_EQ(hits[0].index, -1);
  EXPECT_EQ(hits[0].score, -2.0);
}

TEST(TemplateMatch, RefusesJobsOutsideTheFrame) {
  HostImage img = test::make_random(PixelFormat::kRGBA, 64, 48, 0, 5);
  auto e = engine_on(img);
  TemplatePass pass;
  TemplateJob j;
  j.x0 = 40;
  j.nx = 5;
  j.tw = 10;
  j.stride = 2; // blocks up to 40 + (4 + 10) * 2 = 68 > 64
  pass.samples.assign(10, 1);
  pass.jobs.push_back(j);
  std::vector<TemplateHit> hits;
  EXPECT_EQ(e->match_templates(pass, &hits, nullptr).code(), StatusCode::kInternal);
  EXPECT_EQ(e->read_luma({{60, 0, 3, 2, 2}}, nullptr, nullptr).code(), StatusCode::kInternal);
}

// A flat car-like texture: body colour with grain, a darker window band, two dark wheels.
HostImage car_texture(int w, int h, uint32_t seed) {
  HostImage tex(PixelFormat::kRGBA, w, h);
  std::mt19937 rng(seed);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      int r = 170, g = 60, b = 50;
      if (y < h / 2 && y > h / 8 && x > w / 5 && x < 4 * w / 5) // windows
        r = g = b = 55;
      const double wx = std::min(std::fabs(x - 0.25 * w), std::fabs(x - 0.75 * w));
      if (y > 3 * h / 4 && wx < h / 5.0) // wheels
        r = g = b = 25;
      const int n = static_cast<int>(rng() % 9) - 4;
      tex.set_rgb(x, y, static_cast<uint8_t>(std::clamp(r + n, 0, 255)),
                  static_cast<uint8_t>(std::clamp(g + n, 0, 255)),
                  static_cast<uint8_t>(std::clamp(b + n, 0, 255)));
    }
  }
  return tex;
}

// The car drives right and nearer (to 1.5 times its size over 60 frames) over a textured
// background; mean IoU from frame 1, and over the last 10 frames in *final_iou.
double car_run(const Params& p, double* final_iou) {
  const int W = 320, H = 160, N = 60;
  HostImage bg = test::make_background(W, H, 71);
  HostImage tex = car_texture(64, 28, 73);
  auto pose = [](int t) { return test::Pose{70 + 2.5 * t, 90 - 0.3 * t, 1.0 + 0.5 * t / 60.0}; };
  auto tr = test::cpu_tracker(p, W, H);
  double sum = 0.0, last = 0.0;
  const Status st = test::run_one_target(tr.get(), bg, tex, N, pose,
                                         [&](int t, const Box& gt, const TargetResult& r) {
                                           const double o = iou(r.box, gt);
                                           sum += t > 0 ? o : 0.0;
                                           last += t >= N - 10 ? o : 0.0;
                                         });
  EXPECT_TRUE(st.ok()) << st.to_string();
  *final_iou = last / 10;
  return sum / (N - 1);
}

TEST(TemplateRefine, FollowsAFlatTarget) {
  Params off;
  off.template_refine = false;
  double a_last = 0, b_last = 0;
  const double a = car_run(off, &a_last);
  const double b = car_run(Params(), &b_last);
  std::printf("flat car coming nearer: off mean IoU %.3f, last 10 frames %.3f; on %.3f, %.3f\n", a,
              a_last, b, b_last);
  // Measured: off 0.647, 0.714 over the last 10 frames (the box slides inside the car); on 0.818,
  // 0.792 (bounds between the two: the scene and the CPU reference are the same bytes on every
  // machine).
  EXPECT_GT(b, 0.75);
  EXPECT_GT(b_last, 0.75);
}

} // namespace
} // namespace cvis::rcdtrack

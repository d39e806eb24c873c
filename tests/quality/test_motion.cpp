// Tests of the issue-12 prototypes (cpu suite, ~2 s): the shared pieces
// (cuda/common/segmentation.hpp, mask_area.hpp), the motion detector's arithmetic against plain
// definitions, and both prototypes on small seeded sequences with exact ground truth (a moving
// square over a noisy textured background; a stop, a removal, an illumination drop, a cut, a cast
// shadow).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "common/mask_area.hpp"
#include "common/segmentation.hpp"
#include "median3d/motion.hpp"
#include "median3d/motion_math.hpp"
#include "test_images.hpp"

namespace cvis {
namespace {

using test::HostImage;

TEST(MotionMath, SelectRankAndMadAreExact) {
  std::mt19937 rng(7);
  for (int count = 3; count <= 63; count += 2) {
    for (int rep = 0; rep < 20; ++rep) {
      std::vector<int> v(count);
      const int spread = 1 + static_cast<int>(rng() % 256);
      for (int& x : v)
        x = static_cast<int>(rng() % spread) + static_cast<int>(rng() % (256 - spread + 1));
      std::vector<int> s = v;
      std::nth_element(s.begin(), s.begin() + (count - 1) / 2, s.end());
      const int med = s[(count - 1) / 2];
      std::vector<int> d(count);
      for (int k = 0; k < count; ++k)
        d[k] = std::abs(v[k] - med);
      std::nth_element(d.begin(), d.begin() + (count - 1) / 2, d.end());
      int b, mad;
      median3d::median_mad([&](int k) { return v[k]; }, count, &b, &mad);
      ASSERT_EQ(b, med) << count;
      ASSERT_EQ(mad, d[(count - 1) / 2]) << count;
      for (int r = 0; r < count; ++r) {
        std::vector<int> t = v;
        std::nth_element(t.begin(), t.begin() + r, t.end());
        ASSERT_EQ(median3d::select_rank([&](int k) { return v[k]; }, count, r), t[r]);
      }
    }
  }
}

TEST(MotionMath, CompensationIsIdentityAtGainOneAndScalesAroundTheCenter) {
  for (int v = 0; v < 256; ++v) {
    EXPECT_EQ(median3d::compensate(v, 16, 0, 65536u), v);
    EXPECT_EQ(median3d::compensate(v, 128, 0, 65536u), v);
    EXPECT_EQ(median3d::uncompensate(v, 16, 65536u), v);
    // g = 0.5: distances from the center double (rounded half away from zero), clamped.
    const int expect = std::min(255, std::max(0, 16 + 2 * (v - 16)));
    EXPECT_EQ(median3d::compensate(v, 16, 0, 32768u), expect);
  }
  EXPECT_EQ(median3d::compensate(140, 128, 4, 65536u), 136); // chroma offset removed
}

TEST(Segmentation, GainMedianRecoversAGlobalGain) {
  std::mt19937 rng(3);
  std::normal_distribution<float> noise(0.f, 2.f);
  for (float g : {0.55f, 0.8f, 1.0f, 1.3f}) {
    std::vector<uint32_t> hist(seg::kGainBins, 0);
    uint32_t n = 0;
    for (int i = 0; i < 20000; ++i) {
      const int b = 30 + static_cast<int>(rng() % 200);
      const int v = std::min(255, std::max(0, static_cast<int>(std::lround(b * g + noise(rng)))));
      ++hist[seg::gain_bin(v, b)];
      ++n;
    }
    EXPECT_NEAR(seg::gain_median([&](int k) { return hist[k]; }, n), g, 0.01f) << g;
  }
  std::vector<uint32_t> few(seg::kGainBins, 0);
  few[100] = seg::kGainMinVotes - 1;
  EXPECT_EQ(seg::gain_median([&](int k) { return few[k]; }, seg::kGainMinVotes - 1), 1.0f);
}

// Black frames put every vote in bin 0, whose lower half would give a gain <= 0.
TEST(Segmentation, GainMedianOfBlackFramesIsBounded) {
  std::vector<uint32_t> hist(seg::kGainBins, 0);
  hist[0] = 1000;
  EXPECT_EQ(seg::gain_median([&](int k) { return hist[k]; }, 1000), seg::kGainMin);
  hist[0] = 0;
  hist[20] = 600; // median in bin 20: (20 - 0.5 + 500 / 600) / 256, above the bound
  hist[21] = 400;
  EXPECT_NEAR(seg::gain_median([&](int k) { return hist[k]; }, 1000), (19.5 + 5.0 / 6) / 256, 1e-6);
  hist[20] = hist[21] = 0;
  hist[2] = 1000; // in bin 2, below the bound
  EXPECT_EQ(seg::gain_median([&](int k) { return hist[k]; }, 1000), seg::kGainMin);
}

// The middle half of the votes must span at most a quarter of its middle ratio: 8 (q3 - q1) <=
// q1 + q3 in bins. Voters that only flickered bright (glints over a dark channel) spread their
// ratios and give no gain.
TEST(Segmentation, GainMedianIgnoresVotesThatDisagree) {
  std::vector<uint32_t> hist(seg::kGainBins, 0);
  hist[100] = 250; // q1 = 100, q3 = 128: 224 <= 228
  hist[128] = 750;
  EXPECT_NEAR(seg::gain_median([&](int k) { return hist[k]; }, 1000), (127.5 + 250.0 / 750) / 256, 1e-6);
  hist[128] = 0;
  hist[129] = 750; // q3 = 129: 232 > 229
  EXPECT_EQ(seg::gain_median([&](int k) { return hist[k]; }, 1000), 1.0f);
  std::fill(hist.begin(), hist.end(), 0u);
  hist[0] = 400; // a black 40 % and a 60 % at ratio 20 / 256
  hist[20] = 600;
  EXPECT_EQ(seg::gain_median([&](int k) { return hist[k]; }, 1000), 1.0f);
  std::mt19937 rng(5);
  std::fill(hist.begin(), hist.end(), 0u);
  uint32_t n = 0;
  for (int i = 0; i < 5000; ++i) { // bright on dark: ratios 0.08 to 1.2
    ++hist[20 + rng() % 290];
    ++n;
  }
  EXPECT_EQ(seg::gain_median([&](int k) { return hist[k]; }, n), 1.0f);
}

TEST(Segmentation, ShotChangeRuleNeedsAnAbruptStartAndPersistence) {
  seg::ShotChangeRule r;
  r.configure(0.5, 2);
  EXPECT_FALSE(r.update(0.9, 0.1)); // most pixels foreground but nothing changed abruptly
  EXPECT_FALSE(r.update(0.9, 0.1));
  EXPECT_FALSE(r.update(0.9, 0.8)); // abrupt: candidate
  EXPECT_TRUE(r.update(0.8, 0.0));  // persists: confirmed
  EXPECT_FALSE(r.update(0.2, 0.9)); // little foreground: nothing
  EXPECT_FALSE(r.update(0.7, 0.7));
  EXPECT_FALSE(r.update(0.3, 0.0)); // candidate dropped
  EXPECT_FALSE(r.update(0.7, 0.0));
}

TEST(Segmentation, ShadowRuleAcceptsDimmedColoursOnly) {
  int bg[3], sh[3], obj[3];
  seg::rgb_to_yuv(180, 150, 110, bg);
  seg::rgb_to_yuv(99, 83, 61, sh);   // the same surface at 55% light
  seg::rgb_to_yuv(60, 90, 150, obj); // a darker, bluish object
  const int lo16 = 6, hi16 = 14;     // 0.4 .. 0.9 (x 16, rounded as the detectors do)
  EXPECT_TRUE(seg::shadow_yuv(sh[0], sh[1], sh[2], bg[0], bg[1], bg[2], 0, lo16, hi16, 4));
  EXPECT_FALSE(seg::shadow_yuv(obj[0], obj[1], obj[2], bg[0], bg[1], bg[2], 0, lo16, hi16, 4));
  EXPECT_FALSE(
      seg::shadow_yuv(bg[0], bg[1], bg[2], bg[0], bg[1], bg[2], 0, lo16, hi16, 4)); // a = 1
}

TEST(Segmentation, SmallComponentsAreRemoved) {
  const int w = 13, h = 9;
  std::vector<uint8_t> m(w * h, 0);
  m[0] = 255;                 // 1 pixel
  for (int y = 3; y < 7; ++y) // 4x5 = 20 pixels, touching diagonally a 2-pixel one
    for (int x = 5; x < 10; ++x)
      m[y * w + x] = 255;
  m[2 * w + 4] = m[1 * w + 3] = 255; // joined to the block (8-connected): 22 in all
  seg::remove_small_components(m.data(), w, h, 20);
  EXPECT_EQ(m[0], 0);
  EXPECT_EQ(std::count(m.begin(), m.end(), 255), 22);
}

// A seeded scene: smooth texture, Gaussian noise (sigma 3), optional gain, and squares.
struct Square {
  int x, y, size;
  uint8_t rgb[3];
  bool scored = true; // false: part of the scene (not in the ground truth)
};

HostImage render(const HostImage& base, const std::vector<Square>& squares, float gain, int t,
                 std::vector<uint8_t>* truth) {
  const int w = base.width(), h = base.height();
  HostImage out(PixelFormat::kRGBA, w, h, 12);
  std::mt19937 rng(1000 + t);
  std::normal_distribution<float> noise(0.f, 3.f);
  truth->assign(static_cast<size_t>(w) * h, 0);
  const ImageView bv = base.view();
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const uint8_t* p = bv.data[0] + y * bv.pitch[0] + 4 * x;
      float c[3] = {p[0] * 0.6f + 50, p[1] * 0.6f + 50, p[2] * 0.6f + 50};
      for (const Square& s : squares) {
        if (x >= s.x && x < s.x + s.size && y >= s.y && y < s.y + s.size) {
          for (int k = 0; k < 3; ++k)
            c[k] = s.rgb[k];
          (*truth)[y * w + x] = s.scored ? 255 : 0;
        }
      }
      uint8_t q[3];
      for (int k = 0; k < 3; ++k)
        q[k] = static_cast<uint8_t>(
            std::min(255.f, std::max(0.f, std::round(c[k] * gain + noise(rng)))));
      out.set_rgb(x, y, q[0], q[1], q[2]);
    }
  }
  return out;
}

struct Counts {
  int64_t tp = 0, fp = 0, fn = 0;
  void add(const HostImage& m, const std::vector<uint8_t>& truth) {
    for (int y = 0; y < m.height(); ++y) {
      for (int x = 0; x < m.width(); ++x) {
        const bool a = m.view().data[0][y * m.pitch(0) + x] != 0, t = truth[y * m.width() + x] != 0;
        tp += a && t;
        fp += a && !t;
        fn += !a && t;
      }
    }
  }
  double f() const { return tp ? 2.0 * tp / (2.0 * tp + fp + fn) : 0.0; }
};

constexpr uint8_t kRed[3] = {220, 40, 30};

// Two CPU motion detectors fed the same frames, each with its own mask and background image of
// w x h: the tests that compare two configurations, or a used detector with a fresh one.
// A CPU motion detector configured with p (call through ASSERT_NO_FATAL_FAILURE).
void make_cpu_detector(const median3d::MotionParams& p,
                       std::unique_ptr<median3d::MotionDetector>* det) {
  Status st;
  *det = median3d::make_motion_detector(Backend::kCpu, &st);
  ASSERT_TRUE(*det) << st.to_string();
  ASSERT_TRUE((*det)->configure(p).ok());
}

struct DetectorPair {
  std::unique_ptr<median3d::MotionDetector> det[2];
  HostImage mask[2], bg[2];
  median3d::MotionResult result[2];

  // Creates and configures both (call through ASSERT_NO_FATAL_FAILURE).
  void init(const median3d::MotionParams& p0, const median3d::MotionParams& p1, int w, int h) {
    const median3d::MotionParams* p[2] = {&p0, &p1};
    for (int i = 0; i < 2; ++i) {
      ASSERT_NO_FATAL_FAILURE(make_cpu_detector(*p[i], &det[i]));
      mask[i] = HostImage(PixelFormat::kGRAY8, w, h);
      bg[i] = HostImage(PixelFormat::kGRAY8, w, h);
    }
  }
  // Detector i processes f into its own mask, background and result.
  bool process(int i, const HostImage& f) {
    const ImageView mv = mask[i].view(), bv = bg[i].view();
    return det[i]->process(f.view(), &mv, &bv, &result[i], nullptr).ok();
  }
  bool process_both(const HostImage& f) { return process(0, f) && process(1, f); }
};

// The first row in which two GRAY8 images of the same size differ; -1 when they are equal.
int first_differing_row(const HostImage& a, const HostImage& b) {
  for (int y = 0; y < a.height(); ++y) {
    if (std::memcmp(a.view().data[0] + y * a.pitch(0), b.view().data[0] + y * b.pitch(0),
                    a.width()) != 0)
      return y;
  }
  return -1;
}

TEST(MotionDetector, DetectsMovingStoppedObjectsAndDissolvesGhosts) {
  const int w = 63, h = 47; // odd sizes
  const HostImage base = test::make_rgba(test::Pattern::kSmoothNoise, w, h, 5);
  median3d::MotionParams p;
  p.history = 15;
  p.sample_period = 2;
  p.min_blob_area = 4;
  std::unique_ptr<median3d::MotionDetector> det;
  ASSERT_NO_FATAL_FAILURE(make_cpu_detector(p, &det));
  HostImage mask(PixelFormat::kGRAY8, w, h, 5), bg(PixelFormat::kGRAY8, w, h, 3);
  Counts moving, stopped, ghost;
  std::vector<uint8_t> truth;
  const ImageView bv = bg.view(), mv = mask.view();
  for (int t = 0; t < 160; ++t) {
    std::vector<Square> sq;
    if (t < 100) // parked from the start (part of the scene), removed at frame 100
      sq.push_back({4, 30, 9, {40, 200, 60}, false});
    if (t >= 30)
      sq.push_back({std::min(5 + 2 * (t - 30), 40), 6, 10, {kRed[0], kRed[1], kRed[2]}}); // stops
    if (t >= 40 && t < 60)
      sq.push_back({50 - 2 * (t - 40), 20, 8, {30, 30, 200}});
    const HostImage f = render(base, sq, 1.0f, t, &truth);
    median3d::MotionResult r;
    ASSERT_TRUE(det->process(f.view(), &mv, &bv, &r, nullptr).ok());
    EXPECT_EQ(r.warming_up, t < p.history);
    EXPECT_FALSE(r.shot_change) << t;
    if (t >= 100) // the parked square is gone: its place is background
      ghost.add(mask, truth);
    else if (t >= 30 && t < 60)
      moving.add(mask, truth);
    else if (t >= 60 && t < 100)
      stopped.add(mask, truth);
  }
  EXPECT_GT(moving.f(), 0.9);
  EXPECT_GT(stopped.f(), 0.9) << "a stopped object stays foreground";
  EXPECT_LT(ghost.fp, 9 * 9 * 60 / 4) << "the ghost dissolves";
  EXPECT_GT(ghost.f(), 0.9);
}

TEST(MotionDetector, FollowsAnIlluminationDropAndRestartsAtACut) {
  const int w = 48, h = 36;
  const HostImage base = test::make_rgba(test::Pattern::kSmoothNoise, w, h, 9);
  const HostImage other = test::make_rgba(test::Pattern::kChecker, w, h, 10);
  median3d::MotionParams p;
  p.history = 9;
  std::unique_ptr<median3d::MotionDetector> det;
  ASSERT_NO_FATAL_FAILURE(make_cpu_detector(p, &det));
  HostImage mask(PixelFormat::kGRAY8, w, h);
  const ImageView mv = mask.view();
  std::vector<uint8_t> truth;
  int64_t fp_dim = 0;
  int cut_at = -1;
  for (int t = 0; t < 90; ++t) {
    const float gain = t < 20 ? 1.f : (t < 30 ? 1.f - 0.04f * (t - 20) : 0.6f);
    const HostImage f = render(t < 60 ? base : other, {}, t < 60 ? gain : 1.f, t, &truth);
    median3d::MotionResult r;
    ASSERT_TRUE(det->process(f.view(), &mv, nullptr, &r, nullptr).ok());
    if (r.shot_change && cut_at < 0)
      cut_at = t;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        if (t >= 20 && t < 60)
          fp_dim += mask.view().data[0][y * mask.pitch(0) + x] != 0;
    if (t >= 66) { // a few frames after the cut the new scene is background
      int64_t fg = 0;
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          fg += mask.view().data[0][y * mask.pitch(0) + x] != 0;
      EXPECT_LT(fg, w * h / 50) << t;
    }
  }
  EXPECT_LT(fp_dim, static_cast<int64_t>(w) * h * 40 / 100) << "false positives while dimming";
  EXPECT_GE(cut_at, 60);
  EXPECT_LE(cut_at, 63);
}

// Frames that go black and come back (lights off, a closed iris, black between clips): the gain
// stops at seg::kGainMin instead of 0 (the compensation divides by it), and the scene is background
// again a few frames after it returns.
TEST(MotionDetector, SurvivesBlackFrames) {
  const int w = 40, h = 30;
  const HostImage base = test::make_rgba(test::Pattern::kSmoothNoise, w, h, 4);
  median3d::MotionParams p;
  p.history = 9;
  std::unique_ptr<median3d::MotionDetector> det;
  ASSERT_NO_FATAL_FAILURE(make_cpu_detector(p, &det));
  HostImage mask(PixelFormat::kGRAY8, w, h);
  const ImageView mv = mask.view();
  std::vector<uint8_t> truth;
  for (int t = 0; t < 70; ++t) {
    HostImage f = render(base, {}, 1.f, t, &truth);
    if (t >= 25 && t < 35)
      for (int y = 0; y < h; ++y)
        std::memset(f.view().data[0] + y * f.pitch(0), 0, 4 * static_cast<size_t>(w));
    median3d::MotionResult r;
    ASSERT_TRUE(det->process(f.view(), &mv, nullptr, &r, nullptr).ok()) << t;
    EXPECT_GE(r.gain, seg::kGainMin) << t;
    if (t >= 60) {
      int64_t fg = 0;
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          fg += mask.view().data[0][y * mask.pitch(0) + x] != 0;
      EXPECT_LT(fg, w * h / 50) << t;
    }
  }
}

// live_background: at this frame's background pixels the background output is the frame's own
// luma (a moving background is its own best estimate; within tau_min / 2 of the median, their
// mean), under an object the median, and the masks do not change; live_background=false gives the
// median everywhere.
TEST(MotionDetector, LiveBackgroundShowsTheFrameWhereBackgroundAndTheMedianUnderObjects) {
  const int w = 40, h = 30;
  const HostImage base = test::make_rgba(test::Pattern::kSmoothNoise, w, h, 31);
  median3d::MotionParams p;
  p.history = 7;
  p.sample_period = 1;
  median3d::MotionParams median = p;
  median.live_background = false;
  DetectorPair d; // 0: live background, 1: the median everywhere
  ASSERT_NO_FATAL_FAILURE(d.init(p, median, w, h));
  const HostImage &m1 = d.mask[0], &b1 = d.bg[0], &b2 = d.bg[1];
  std::vector<uint8_t> truth;
  int64_t bg_pixels = 0, bg_live = 0, bg_moved = 0, under = 0;
  for (int t = 0; t < 40; ++t) {
    // Grey frames (R = G = B: the luma is the value itself); a square that stops at x = 16.
    HostImage f = render(base, {{std::min(2 + t, 16), 10, 8, {240, 240, 240}}}, 1.0f, t, &truth);
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const uint8_t* q = f.view().data[0] + y * f.pitch(0) + 4 * x;
        f.set_rgb(x, y, q[0], q[0], q[0]);
      }
    }
    ASSERT_TRUE(d.process_both(f));
    ASSERT_EQ(first_differing_row(d.mask[0], d.mask[1]), -1) << "masks differ, frame " << t;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; t >= p.history && x < w; ++x) {
        const uint8_t frame = f.view().data[0][y * f.pitch(0) + 4 * x];
        const uint8_t a = b1.view().data[0][y * b1.pitch(0) + x];
        const uint8_t b = b2.view().data[0][y * b2.pitch(0) + x];
        if (m1.view().data[0][y * m1.pitch(0) + x]) {
          ASSERT_EQ(a, b) << "under the mask: the median, " << x << "," << y << " frame " << t;
          under += truth[y * w + x] != 0;
        } else {
          const int want = median3d::live_background_value(frame, b, p.tau_min);
          ASSERT_TRUE(a == want || a == b) << x << "," << y << " frame " << t;
          ++bg_pixels;
          bg_live += a == want;
          bg_moved += a != b;
        }
      }
    }
  }
  EXPECT_GT(under, 8 * 8 * 20) << "the stopped square stays foreground";
  EXPECT_GT(bg_live, bg_pixels * 95 / 100) << "the frame's luma at background pixels";
  EXPECT_GT(bg_moved, bg_pixels / 2) << "the frame's noise shows (halved): not the median";
}

// reset() (the element's flush and seek) gives a fresh detector: the same frames after a reset give
// the same masks, backgrounds and figures as a new detector's, although the model had aged pixels,
// counts and an adopted stopped object before it.
TEST(MotionDetector, ResetEqualsAFreshDetector) {
  const int w = 41, h = 29;
  const HostImage base = test::make_rgba(test::Pattern::kSmoothNoise, w, h, 21);
  median3d::MotionParams p;
  p.history = 7;
  p.sample_period = 2;
  auto scene = [&](int t, std::vector<uint8_t>* truth) {
    std::vector<Square> sq{{std::min(2 + t, 20), 4, 8, {kRed[0], kRed[1], kRed[2]}}}; // stops
    if (t % 30 > 10)
      sq.push_back({30 - (t % 30 - 10), 16, 6, {30, 30, 200}});
    return render(base, sq, 1.0f, t, truth);
  };
  // Reset while objects move, while one has just stopped (counts growing), and once it is old.
  for (int reset_at : {12, 25, 33, 47, 80}) {
    DetectorPair d; // 0: used, then reset; 1: fresh
    ASSERT_NO_FATAL_FAILURE(d.init(p, p, w, h));
    std::vector<uint8_t> truth;
    for (int t = 0; t < reset_at; ++t)
      ASSERT_TRUE(d.process(0, scene(t, &truth)));
    d.det[0]->reset();
    for (int t = reset_at; t < reset_at + 40; ++t) {
      ASSERT_TRUE(d.process_both(scene(t, &truth)));
      ASSERT_EQ(first_differing_row(d.mask[0], d.mask[1]), -1)
          << "masks differ, frame " << t << ", reset at " << reset_at;
      ASSERT_EQ(first_differing_row(d.bg[0], d.bg[1]), -1)
          << "backgrounds differ, frame " << t << ", reset at " << reset_at;
      const median3d::MotionResult &r1 = d.result[0], &r2 = d.result[1];
      EXPECT_EQ(r1.frame, r2.frame);
      EXPECT_EQ(r1.blobs, r2.blobs) << t;
    }
  }
}

// Ages (frames in the mask in a row) are counted only while absorption is on: an object stopped
// long before absorption is switched on is absorbed absorb_frames frames after that, not at once.
TEST(MotionDetector, AbsorptionSwitchedOnCountsFromThen) {
  const int w = 63, h = 47;
  const HostImage base = test::make_rgba(test::Pattern::kSmoothNoise, w, h, 5);
  median3d::MotionParams p;
  p.history = 15;
  p.sample_period = 2;
  std::unique_ptr<median3d::MotionDetector> det;
  ASSERT_NO_FATAL_FAILURE(make_cpu_detector(p, &det));
  HostImage mask(PixelFormat::kGRAY8, w, h, 5);
  const ImageView mv = mask.view();
  std::vector<uint8_t> truth;
  constexpr int kOn = 80, kAbsorb = 10;
  const int cx = 40 + 5, cy = 6 + 5; // the stopped square's centre (stops at x = 40 by t = 48)
  for (int t = 0; t < kOn + kAbsorb + 6; ++t) {
    if (t == kOn) {
      p.absorb_frames = kAbsorb;
      ASSERT_TRUE(det->configure(p).ok());
    }
    std::vector<Square> sq{
        {std::min(5 + 2 * (std::max(t, 30) - 30), 40), 6, 10, {kRed[0], kRed[1], kRed[2]}}};
    const HostImage f = render(base, sq, 1.0f, t, &truth);
    median3d::MotionResult r;
    ASSERT_TRUE(det->process(f.view(), &mv, nullptr, &r, nullptr).ok());
    const bool set = mv.data[0][cy * mv.pitch[0] + cx] != 0;
    if (t >= 50 && t < kOn + kAbsorb - 1) { // its age reaches kAbsorb at frame kOn + kAbsorb - 1
      EXPECT_TRUE(set) << "frame " << t;
    }
    if (t > kOn + kAbsorb) {
      EXPECT_FALSE(set) << "absorbed, frame " << t;
    }
  }
}

} // namespace
} // namespace cvis

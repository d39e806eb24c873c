// The motion detector next to a moving background (cpu suite): a flat object that stops beside a
// region whose background moves (wide thresholds) keeps its mask with `adopt_tight`, and is eaten
// from that border without it (the adopted wide model is copied across the flat object); the
// default `tau_max` leaves a background moving by up to 70 levels out of the mask; the default
// `min_mask_area` clears one-frame glints of 30 pixels and keeps a 12x12 object; in a scene whose
// background moves, adoption waits `adopt_frames_dynamic` frames, so that a flat object beside a
// still patch of its own colour is not taken over a column every `adopt_frames` frames.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "median3d/motion.hpp"
#include "test_images.hpp"

namespace cvis {
namespace {

using test::HostImage;

// Grey frames (R = G = B: the luma is the value): columns x < kBand are a "moving" background of
// mean 100 with uniform noise of +-40 (its median absolute deviation ~20: thresholds at tau_max),
// the others a still background of 60 with Gaussian noise of sigma 2; from frame kAppear on, a flat
// square of 140 (sigma 2) stands at x = kBand.. against the band. 140 is within the band's
// thresholds (|140 - 100| = 40) but not within tau_min of its median (the median of 15 samples
// of the band stays within ~25 levels of 100), and far from the still background (80 levels).
constexpr int kW = 64, kH = 48, kBand = 24, kSide = 16, kTop = 16, kAppear = 30, kFrames = 130;

// `swell` (the other test): the band moves as a whole, one offset in -swell..swell per frame, so
// that no neighbour explains it and the clean-up keeps it.
HostImage frame(int t, std::vector<uint8_t>* truth, int swell = 0) {
  HostImage out(PixelFormat::kRGBA, kW, kH);
  std::mt19937 rng(7000 + t);
  std::uniform_int_distribution<int> wave(-40, 40);
  const int offset = swell ? std::uniform_int_distribution<int>(-swell, swell)(rng) : 0;
  std::normal_distribution<float> noise(0.f, 2.f);
  truth->assign(static_cast<size_t>(kW) * kH, 0);
  for (int y = 0; y < kH; ++y) {
    for (int x = 0; x < kW; ++x) {
      const bool object =
          t >= kAppear && x >= kBand && x < kBand + kSide && y >= kTop && y < kTop + kSide;
      int v;
      if (object)
        v = static_cast<int>(std::lround(140.f + noise(rng)));
      else if (x < kBand)
        v = 100 + (swell ? offset : wave(rng));
      else
        v = static_cast<int>(std::lround(60.f + noise(rng)));
      const uint8_t g = static_cast<uint8_t>(std::min(255, std::max(0, v)));
      out.set_rgb(x, y, g, g, g);
      (*truth)[static_cast<size_t>(y) * kW + x] = object ? 255 : 0;
    }
  }
  return out;
}

// The tests' settings: a short history (15 samples every 2 frames), no blobs.
median3d::MotionParams short_history() {
  median3d::MotionParams p;
  p.history = 15;
  p.sample_period = 2;
  p.blobs = false;
  return p;
}

// The CPU detector of `p` over frames 0..n-1 made by make(t); visit(t, mask) after each.
template <typename Make, typename Visit>
void run_frames(const median3d::MotionParams& p, int n, Make make, Visit visit) {
  Status st;
  auto det = median3d::make_motion_detector(Backend::kCpu, &st);
  ASSERT_TRUE(det && det->configure(p).ok()) << st.to_string();
  HostImage mask(PixelFormat::kGRAY8, kW, kH);
  const ImageView mv = mask.view();
  for (int t = 0; t < n; ++t) {
    const HostImage f = make(t);
    median3d::MotionResult r;
    ASSERT_TRUE(det->process(f.view(), &mv, nullptr, &r, nullptr).ok());
    visit(t, mv);
  }
}

// The share of the pixels that `truth` marks (make(t) fills it for frame t) that the mask holds,
// over frames `from` .. kFrames - 1.
template <typename Make>
double truth_recall(const median3d::MotionParams& p, int from, const std::vector<uint8_t>& truth,
                    Make make) {
  int64_t hit = 0, total = 0;
  run_frames(p, kFrames, make, [&](int t, const ImageView& mv) {
    if (t < from)
      return;
    for (int y = 0; y < kH; ++y) {
      for (int x = 0; x < kW; ++x) {
        if (truth[static_cast<size_t>(y) * kW + x]) {
          ++total;
          hit += mv.data[0][y * mv.pitch[0] + x] != 0;
        }
      }
    }
  });
  return total ? static_cast<double>(hit) / total : 0.0;
}

// Recall of the square over frames kAppear + 20 .. kFrames - 1 (it stands still for 100 frames).
double stopped_recall(bool tight) {
  median3d::MotionParams p = short_history();
  p.adopt_frames = 2; // the fastest adoption: the flood, if any, crosses the square in ~40 frames
  // The band makes this a moving scene: keep adopt_frames there too (the slower adoption alone is
  // the last test's subject).
  p.adopt_frames_dynamic = 0;
  p.adopt_tight = tight;
  std::vector<uint8_t> truth;
  return truth_recall(p, kAppear + 20, truth, [&](int t) { return frame(t, &truth); });
}

TEST(MotionDetector, TightAdoptionKeepsAFlatObjectBesideAMovingBackground) {
  const double tight = stopped_recall(true), loose = stopped_recall(false);
  // The square's column next to the band matches the band's models through the neighbour test
  // (1/16 of it, background either way); the rest stays foreground (measured 0.94): > 0.9 leaves
  // room for that column and the 3x3 majority's corners.
  EXPECT_GT(tight, 0.9) << "tight adoption";
  // Without it the band's wide model walks into the square a column every adopt_frames frames
  // (measured: nothing left 30 frames after it appeared; 0.02 over the frames): less than half.
  EXPECT_LT(loose, 0.5) << "loose adoption (the rule's reason; if this passes, the test no longer "
                           "shows it)";
}

// The band (the square has not appeared yet) swelling by up to +-70 levels as a whole: its median
// absolute deviation is ~35, so its thresholds sit at tau_max. At 80 (the default) no frame leaves
// them; at 48 (the former default) ~30% of the frames do, and the whole band is flagged.
double band_false_positives(int tau_max) {
  median3d::MotionParams p = short_history();
  p.tau_max = tau_max;
  p.shadows = false;    // grey: the darker half of the swell would pass as a cast shadow
  p.persistence = 0.0f; // the thresholds frame by frame (the filter hides frames flagged alone)
  p.illumination = false; // the swell is not a change of the light (its votes disagree: gain 1)
  std::vector<uint8_t> truth;
  int64_t fp = 0, total = 0;
  run_frames(
      p, kAppear, [&](int t) { return frame(t, &truth, 70); },
      [&](int t, const ImageView& mv) {
        for (int y = 0; t >= p.history && y < kH; ++y) {
          for (int x = 0; x < kBand; ++x) {
            ++total;
            fp += mv.data[0][y * mv.pitch[0] + x] != 0;
          }
        }
      });
  return total ? static_cast<double>(fp) / total : -1.0;
}

TEST(MotionDetector, DefaultTauMaxKeepsAStronglyMovingBackgroundOut) {
  const median3d::MotionParams defaults;
  const double now = band_false_positives(defaults.tau_max), before = band_false_positives(48);
  // A median of 15 offsets may sit up to ~25 levels off 0, and 70 + 25 > 80: < 10% of the band's
  // pixel-frames allows for such frames (measured 0.067).
  EXPECT_LT(now, 0.1) << "tau_max " << defaults.tau_max;
  // The reason for the default (if this fails, the test no longer shows it): measured 0.199 (the
  // default: 0).
  EXPECT_GT(before, 0.15) << "tau_max 48";
}

// Glints on a still background (grey 60, sigma 2): every frame from kAppear on, four bright
// patches of 5x6 pixels (30, under the default min_mask_area) at random places for that frame only,
// like the sparkles of water; and a 12x12 object of 140 that stays. Returns the mask pixels on the
// glints and the object's recall, over frames kAppear + 5 .. kFrames - 1.
struct GlintScore {
  int64_t glint = 0;
  double object_recall = 0.0;
};

GlintScore glints(int min_mask_area, float persistence = 0.0f) {
  median3d::MotionParams p = short_history();
  p.min_mask_area = min_mask_area;
  p.persistence = persistence;
  std::vector<uint8_t> label(static_cast<size_t>(kW) * kH); // 1 glint, 2 object
  GlintScore score;
  int64_t hit = 0, total = 0;
  auto make = [&](int t) {
    HostImage f(PixelFormat::kRGBA, kW, kH);
    std::mt19937 rng(9100 + t);
    std::normal_distribution<float> noise(0.f, 2.f);
    std::fill(label.begin(), label.end(), 0);
    if (t >= kAppear) {
      for (int y = 30; y < 42; ++y)
        for (int x = 44; x < 56; ++x)
          label[static_cast<size_t>(y) * kW + x] = 2;
      // Patches in x < 38 (clear of the object and its 3x3 neighbourhood), apart or touching.
      for (int g = 0; g < 4; ++g) {
        const int gx = std::uniform_int_distribution<int>(1, 38 - 6)(rng);
        const int gy = std::uniform_int_distribution<int>(1, kH - 7)(rng);
        for (int y = gy; y < gy + 6; ++y)
          for (int x = gx; x < gx + 5; ++x)
            label[static_cast<size_t>(y) * kW + x] = 1;
      }
    }
    for (int y = 0; y < kH; ++y) {
      for (int x = 0; x < kW; ++x) {
        const uint8_t l = label[static_cast<size_t>(y) * kW + x];
        const float base = l == 1 ? 200.f : l == 2 ? 140.f : 60.f;
        const int v = static_cast<int>(std::lround(base + noise(rng)));
        const uint8_t gr = static_cast<uint8_t>(std::min(255, std::max(0, v)));
        f.set_rgb(x, y, gr, gr, gr);
      }
    }
    return f;
  };
  run_frames(p, kFrames, make, [&](int t, const ImageView& mv) {
    if (t < kAppear + 5)
      return;
    for (int y = 0; y < kH; ++y) {
      for (int x = 0; x < kW; ++x) {
        const uint8_t l = label[static_cast<size_t>(y) * kW + x];
        const bool on = mv.data[0][y * mv.pitch[0] + x] != 0;
        score.glint += l == 1 && on;
        if (l == 2) {
          ++total;
          hit += on;
        }
      }
    }
  });
  score.object_recall = total ? static_cast<double>(hit) / total : 0.0;
  return score;
}

TEST(MotionDetector, DefaultMinMaskAreaClearsGlints) {
  const median3d::MotionParams defaults;
  const GlintScore now = glints(defaults.min_mask_area), before = glints(20);
  // A patch alone (30 pixels, fewer after the 3x3 majority) is cleared; patches that touch or
  // overlap make components of up to 120 pixels and some stay (measured 1,384 glint pixel-frames
  // against 11,212 at 20): a quarter of the former count leaves room for them.
  EXPECT_LT(now.glint, before.glint / 4) << "min_mask_area " << defaults.min_mask_area;
  // The reason for the default (if this fails, the test no longer shows it): at 20 the patches
  // stay in the mask.
  EXPECT_GT(before.glint, 1000) << "min_mask_area 20";
  // The 144-pixel object is far above either limit (measured recall 1.0 with both): > 0.95 leaves
  // room for the 3x3 majority's corners; the filter must not change it.
  EXPECT_GT(now.object_recall, 0.95);
  EXPECT_EQ(now.object_recall, before.object_recall);
}

// The same glints with the default persistence on top of the default area: the touching patches
// that pass the area filter last one frame, the object stays (measured: 0 glint pixel-frames
// against 1,384 without it, object recall 1.000 both).
TEST(MotionDetector, DefaultPersistenceClearsGlintsThatPassTheArea) {
  const median3d::MotionParams defaults;
  const GlintScore now = glints(defaults.min_mask_area, defaults.persistence),
                   off = glints(defaults.min_mask_area, 0.0f);
  std::printf("[persistence] glint pixel-frames %lld (off %lld), object recall %.3f (off %.3f)\n",
              static_cast<long long>(now.glint), static_cast<long long>(off.glint),
              now.object_recall, off.object_recall);
  EXPECT_LT(now.glint, off.glint / 4) << "persistence " << defaults.persistence;
  EXPECT_GT(off.glint, 500) << "the glints pass the area filter (else the test shows nothing)";
  EXPECT_EQ(now.object_recall, off.object_recall); // the object is in every frame's mask
}

// The band of frame() (37% of the pixels: thresholds at tau_max, above 2 tau_min) and, between it
// and a flat square of 140 that appears at kAppear and stays, a still strip of 140 (sigma 2) four
// columns wide: the square's column beside it matches the strip's model within tau_min (a chance
// colour match, as an object's beside a wall of its colour) and adopts it, then the next column
// adopts that copy. Returns the square's recall over frames kAppear + 20 .. kFrames - 1.
// `lit`: the band is a still background of 100 (sigma 2) crossed by bright diagonal streaks
// (+60 levels, 3 pixels wide every 15, moving 3 pixels a frame), as water's glints: each pixel is
// lit a fifth of the time, so its median and thresholds stay those of the still background (no
// wide threshold), but 15% of the frame's pixels change by 60 levels from one frame to the next.
double beside_strip_recall(const median3d::MotionParams& params, bool lit = false) {
  median3d::MotionParams p = short_history();
  p.adopt_frames_dynamic = params.adopt_frames_dynamic;
  p.dynamic_fraction = params.dynamic_fraction;
  p.dynamic_change_fraction = params.dynamic_change_fraction;
  constexpr int kStrip = 4, kLeft = kBand + kStrip;
  std::vector<uint8_t> truth(static_cast<size_t>(kW) * kH);
  auto make = [&](int t) {
    HostImage f(PixelFormat::kRGBA, kW, kH);
    std::mt19937 rng(11300 + t);
    std::uniform_int_distribution<int> wave(-40, 40);
    std::normal_distribution<float> noise(0.f, 2.f);
    for (int y = 0; y < kH; ++y) {
      for (int x = 0; x < kW; ++x) {
        const bool object =
            t >= kAppear && x >= kLeft && x < kLeft + kSide && y >= kTop && y < kTop + kSide;
        int v;
        if (x < kBand && lit)
          v = static_cast<int>(std::lround(100.f + noise(rng))) + ((x + y + 3 * t) % 15 < 3 ? 60 : 0);
        else if (x < kBand)
          v = 100 + wave(rng);
        else
          v = static_cast<int>(std::lround((object || x < kLeft ? 140.f : 60.f) + noise(rng)));
        const uint8_t g = static_cast<uint8_t>(std::min(255, std::max(0, v)));
        f.set_rgb(x, y, g, g, g);
        truth[static_cast<size_t>(y) * kW + x] = object ? 255 : 0;
      }
    }
    return f;
  };
  return truth_recall(p, kAppear + 20, truth, make);
}

TEST(MotionDetector, SlowAdoptionInAMovingSceneKeepsAFlatObjectBesideItsColour) {
  const median3d::MotionParams defaults;
  median3d::MotionParams everywhere = defaults;
  everywhere.adopt_frames_dynamic = 0; // adopt_frames everywhere
  const double now = beside_strip_recall(defaults);
  const double before = beside_strip_recall(everywhere);
  std::printf("beside-strip recall: %.3f (adopt_frames_dynamic %d), %.3f (0)\n", now,
              defaults.adopt_frames_dynamic, before);
  // The copy still crosses the 16 columns, one every 16 frames instead of 2: measured 0.69 over
  // the 80 frames against 0.007. > 0.6 and < 0.1 leave room on both sides.
  EXPECT_GT(now, 0.6) << "adopt_frames_dynamic " << defaults.adopt_frames_dynamic;
  EXPECT_LT(before, 0.1) << "adopt_frames_dynamic 0 (the rule's reason; if this passes, the test "
                            "no longer shows it)";
}

// The same beside glints that leave every threshold narrow: the scene counts as moving by its
// changes (MotionParams::dynamic_change_fraction), as the dynamic set's dev-water2 (11.5% wide
// thresholds, 17-21% of the pixels changing every frame).
TEST(MotionDetector, AChangingSceneSlowsAdoptionWithoutWideThresholds) {
  const median3d::MotionParams defaults;
  median3d::MotionParams by_width = defaults;
  by_width.dynamic_change_fraction = 1.0f; // the wide thresholds alone decide
  const double now = beside_strip_recall(defaults, true);
  const double before = beside_strip_recall(by_width, true);
  std::printf("beside-strip recall under glints: %.3f (dynamic_change_fraction %.2f), %.3f (1)\n",
              now, defaults.dynamic_change_fraction, before);
  EXPECT_GT(now, 0.6) << "dynamic_change_fraction " << defaults.dynamic_change_fraction;
  EXPECT_LT(before, 0.1) << "the wide thresholds alone (the rule's reason; if this passes, the "
                            "test no longer shows it)";
}

} // namespace
} // namespace cvis

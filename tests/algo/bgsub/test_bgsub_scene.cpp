// The scene extensions of the background model (Params: illumination, shadows, shot_change,
// min_mask_area, ghost_passes) on seeded scenes, CPU reference: each test compares the extension on
// and off, so it fails without the extension. Scenes: smooth random texture, Gaussian noise (sigma
// 3).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "bgsub/bgsub.hpp"
#include "bgsub/bgsub_scene.hpp"
#include "test_images.hpp"

namespace cvis::bgsub {
namespace {

using cvis::test::HostImage;

constexpr int kW = 48, kH = 36;

// A rectangle painted over the scene: an object (colour) or a shadow (factor < 1, colour unused).
struct Patch {
  int x, y, w, h;
  uint8_t rgb[3];
  float shadow = 0.0f;
};

// Frame t: the texture `base` (levels 50..203) times `gain`, the patches, noise of seed t.
HostImage scene(const HostImage& base, float gain, const std::vector<Patch>& patches, int t) {
  HostImage out(PixelFormat::kRGBA, kW, kH, 8);
  std::mt19937 rng(500 + t);
  std::normal_distribution<float> noise(0.f, 3.f);
  const ImageView bv = base.view();
  for (int y = 0; y < kH; ++y) {
    for (int x = 0; x < kW; ++x) {
      const uint8_t* p = bv.data[0] + y * bv.pitch[0] + 4 * x;
      float c[3] = {p[0] * 0.6f + 50, p[1] * 0.6f + 50, p[2] * 0.6f + 50};
      for (const Patch& q : patches) {
        if (x < q.x || x >= q.x + q.w || y < q.y || y >= q.y + q.h)
          continue;
        for (int k = 0; k < 3; ++k)
          c[k] = q.shadow > 0 ? c[k] * q.shadow : q.rgb[k];
      }
      uint8_t v[3];
      for (int k = 0; k < 3; ++k)
        v[k] = static_cast<uint8_t>(std::clamp(std::round(c[k] * gain + noise(rng)), 0.f, 255.f));
      out.set_rgb(x, y, v[0], v[1], v[2]);
    }
  }
  return out;
}

Params base_params(bool on) {
  Params p = on ? Params() : paper_params();
  // The scenes were built for this threshold (paper_params' and the earlier default); at the
  // corpus's default, 3e-7, the smooth 48x36 texture lets a ghost or a cut without the extension
  // dissolve through the neighbourhood in a few frames, and the comparisons would test less.
  p.threshold = 1e-6;
  p.num_samples = 12;
  p.cpu_threads = 1;
  p.persistence = 0.0f; // the masks frame by frame (test_bgsub_persistence.cpp: the filter)
  return p;
}

struct Masks {
  std::vector<std::vector<uint8_t>> masks;
  std::vector<FrameResult> results;
};

template <typename FrameFn> Masks run(const Params& p, int frames, FrameFn frame) {
  Status st;
  auto sub = make_subtractor(Backend::kCpu, &st);
  EXPECT_TRUE(sub && sub->configure(p).ok());
  Masks r;
  HostImage mask(PixelFormat::kGRAY8, kW, kH, 3);
  for (int t = 0; t < frames; ++t) {
    FrameResult res;
    const HostImage f = frame(t);
    EXPECT_TRUE(sub->process(f.view(), mask.view(), &res, nullptr).ok());
    std::vector<uint8_t> m(static_cast<size_t>(kW) * kH);
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x)
        m[static_cast<size_t>(y) * kW + x] = mask.plane(0)[y * mask.pitch(0) + x];
    r.masks.push_back(std::move(m));
    r.results.push_back(res);
  }
  return r;
}

// Foreground pixels of mask t inside the rectangle (or everywhere).
int64_t count(const Masks& r, int t, int x0 = 0, int y0 = 0, int w = kW, int h = kH) {
  int64_t n = 0;
  for (int y = y0; y < y0 + h; ++y)
    for (int x = x0; x < x0 + w; ++x)
      n += r.masks[t][static_cast<size_t>(y) * kW + x] != 0;
  return n;
}

const HostImage& texture() {
  static const HostImage t = cvis::test::make_rgba(cvis::test::Pattern::kSmoothNoise, kW, kH, 11);
  return t;
}

// A sudden global drop to 60% of the light at frame 20 with a red object: the gains follow it
// (the frame is background again at once, the object stays foreground); without them the whole
// frame is foreground.
TEST(BgsubScene, IlluminationGainsFollowAGlobalDrop) {
  const Patch obj{30, 10, 10, 12, {220, 40, 30}};
  auto frame = [&](int t) {
    return scene(texture(), t < 20 ? 1.0f : 0.6f,
                 t < 20 ? std::vector<Patch>{} : std::vector<Patch>{obj}, t);
  };
  const Masks on = run(base_params(true), 30, frame), off = run(base_params(false), 30, frame);
  for (int t = 21; t < 30; ++t) {
    EXPECT_NEAR(on.results[t].gain[0], 0.6f, 0.05f) << t;
    EXPECT_GE(count(on, t, 30, 10, 10, 12), 110) << t; // 120 object pixels
    EXPECT_LE(count(on, t) - count(on, t, 30, 10, 10, 12), 20) << t;
    EXPECT_GE(count(off, t), kW * kH / 2) << t;
    EXPECT_EQ(off.results[t].gain[0], 1.0f);
  }
}

// A cast shadow (55% light) beside an object: the shadow stays background and out of the model,
// the object stays foreground; without the shadow test the shadow is foreground. A shadow that
// stays put is learnt by the model after a while (its border pixels update, and the
// neighbourhood's samples spread it): the first 5 frames are scored.
TEST(BgsubScene, ShadowsStayBackgroundObjectsForeground) {
  const Patch shadow{4, 8, 12, 14, {0, 0, 0}, 0.55f}, obj{24, 8, 10, 14, {220, 40, 30}};
  auto frame = [&](int t) {
    return scene(texture(), 1.0f, t < 20 ? std::vector<Patch>{} : std::vector<Patch>{shadow, obj},
                 t);
  };
  Params on = base_params(true);
  on.shadow_samples = 3; // a quarter of the samples, as the default 12 of 48
  Params off = on;
  off.shadows = false;
  const Masks a = run(on, 25, frame), b = run(off, 25, frame);
  int64_t sa = 0, sb = 0, obj_on = 0;
  for (int t = 20; t < 25; ++t) {
    sa += count(a, t, 5, 9, 10, 12);
    sb += count(b, t, 5, 9, 10, 12);
    obj_on += count(a, t, 24, 8, 10, 14);
    EXPECT_GT(a.results[t].shadow_pixels, 0) << t;
    EXPECT_EQ(b.results[t].shadow_pixels, 0) << t;
  }
  EXPECT_GT(a.results[20].shadow_pixels, 100); // of 168 (the border has fewer neighbours inside)
  const double px = 5.0 * 10 * 12;
  EXPECT_LT(sa / px, 0.1);
  EXPECT_GT(sb / px, 0.8);
  EXPECT_GT(obj_on / (5.0 * 10 * 14), 0.9);
}

// A cut to another scene at frame 30: shot_change marks one frame within a few frames of it, the
// model restarts with cut_warmup frames and the new scene is background after them; without the
// rule the new scene stays foreground (only background pixels update).
TEST(BgsubScene, ShotChangeRestartsTheModelWithinAFewFrames) {
  const HostImage other = cvis::test::make_rgba(cvis::test::Pattern::kSmoothNoise, kW, kH, 99);
  auto frame = [&](int t) { return scene(t < 30 ? texture() : other, 1.0f, {}, t); };
  const Params on = base_params(true);
  Params off = on;
  off.shot_change = false;
  off.ghost_passes = 0; // they would take the new scene in from its few background pixels, slowly
  const Masks a = run(on, 50, frame), b = run(off, 50, frame);
  int restart = -1;
  for (int t = 0; t < 50; ++t) {
    if (a.results[t].shot_change) {
      EXPECT_EQ(restart, -1);
      restart = t;
    }
    EXPECT_FALSE(b.results[t].shot_change);
  }
  ASSERT_GT(restart, 30);
  EXPECT_LE(restart, 30 + on.cut_frames + 1);
  for (int t = restart; t < restart + on.cut_warmup; ++t)
    EXPECT_TRUE(a.results[t].warming_up) << t;
  for (int t = restart + on.cut_warmup; t < 50; ++t) {
    EXPECT_LE(count(a, t), 20) << t;
    EXPECT_GE(count(b, t), kW * kH / 2) << t;
  }
}

// An object standing in the new scene during the short warm-up after a cut, then gone: the
// samples hold it, so its place is a ghost; the blind refill after the cut (every pixel updates
// for cut_refill frames) replaces them; without it the ghost only erodes from its border.
TEST(BgsubScene, RefillAfterACutRemovesWarmUpGhosts) {
  const HostImage other = cvis::test::make_rgba(cvis::test::Pattern::kSmoothNoise, kW, kH, 99);
  const Patch obj{8, 8, 12, 12, {220, 40, 30}};
  auto frame = [&](int t) {
    if (t < 30)
      return scene(texture(), 1.0f, {}, t);
    return scene(other, 1.0f, t < 42 ? std::vector<Patch>{obj} : std::vector<Patch>{}, t);
  };
  const Params on = base_params(true);
  Params off = on;
  off.cut_refill = 0;
  const Masks a = run(on, 70, frame), b = run(off, 70, frame);
  // The object leaves at frame 42: the refilled samples hold the new scene at once, the selectively
  // updated ones only let the ghost erode from its border (4 frames on this smooth texture; a
  // real scene's ghosts can last hundreds of frames: cut-b of the corpus).
  int64_t ga = 0, gb = 0;
  for (int t = 43; t < 46; ++t) {
    ga += count(a, t, 8, 8, 12, 12);
    gb += count(b, t, 8, 8, 12, 12);
  }
  EXPECT_LE(ga, 10);
  EXPECT_GE(gb, 100); // of 3 x 144
  for (int t = 50; t < 70; ++t)
    EXPECT_EQ(count(a, t, 8, 8, 12, 12), 0) << t;
}

// Frame t of the ghost scenes below: a large object (4,3 30x26) stands in the scene during the
// warm-up and leaves at frame 30; another (38,20 8x12) stops at frame 20 and stays.
HostImage parked_and_stopped(int t) {
  const Patch parked{4, 3, 30, 26, {40, 200, 60}}, stopped{38, 20, 8, 12, {220, 40, 30}};
  std::vector<Patch> p;
  if (t < 30)
    p.push_back(parked);
  if (t >= 20)
    p.push_back(stopped);
  return scene(texture(), 1.0f, p, t);
}

// A large object stands in the scene during the warm-up (it is in the samples) and leaves at frame
// 30; another stops at frame 20 and stays. With the ghost passes the revealed background (no edge
// in the frame at the ghost's contour, the neighbours' samples explain it) is taken in from the
// contour, about a layer per frame once it has been still for ghost_still frames; without
// them it only erodes through the neighbourhood's samples, about a pixel per frame. The stopped
// object (its colour is not its neighbours') stays foreground either way. ghost_still = 2 here
// (the default 8 only delays the start).
TEST(BgsubScene, GhostPassesTakeInARevealedBackgroundNotAStoppedObject) {
  Params on = base_params(true);
  on.ghost_still = 2;
  Params off = on;
  off.ghost_passes = 0;
  const Masks a = run(on, 80, parked_and_stopped), b = run(off, 80, parked_and_stopped);
  // Measured (674 ghost pixels in the mask at frame 30): on 582 / 551 / 419 / 372 / 350 / 286 at
  // frames 32 / 36 / 42 / 44 / 46 / 48, none from frame 73; off 586 / 573 / 485 / 431 / 414 / 355.
  // (Before the illumination gain needed its votes to agree, the gain drifted to 1.17 / 0.86 /
  // 1.21 in this scene of constant light and the ghost was gone from frame 68.) On
  // this textured background the update takes in most of the ghost: a ghost pixel that only its
  // neighbours' samples explain learns its value where a neighbour's samples hold it (update_own,
  // borrowed_learnable), the next layer once that pixel holds it in half of its L = 12 samples. A
  // pass adds a layer only where its source's own density test explains the source's value
  // (ghost_source), so a layer taken over in a frame is a source from the next frame on. What is
  // kept: from frame 32 on the passes only remove ghost pixels (fewer left on every frame; at frame
  // 31, 595 either way), and the ghost is gone 43 frames after the object left.
  for (int t = 32; t < 68; ++t)
    EXPECT_LE(count(a, t, 4, 3, 30, 26), count(b, t, 4, 3, 30, 26)) << t;
  EXPECT_LT(count(a, 44, 4, 3, 30, 26), count(b, 44, 4, 3, 30, 26));
  for (int t = 73; t < 80; ++t)
    EXPECT_EQ(count(a, t, 4, 3, 30, 26), 0) << t;
  EXPECT_GE(count(b, 44, 4, 3, 30, 26), 40);
  for (int t = 22; t < 80; ++t) {
    EXPECT_GE(count(a, t, 38, 20, 8, 12), 90) << t; // 96 pixels
    EXPECT_EQ(count(a, t, 38, 20, 8, 12), count(b, t, 38, 20, 8, 12)) << t;
  }
}

// The same parked object leaving, without the ghost passes, with still_lend_fraction 1/8: where the
// scene is still (no frame with more than dynamic_fraction of its pixels at a wide bandwidth) a
// ghost pixel learns the revealed background once a neighbour holds it in an eighth of its samples,
// in a moving scene in half of them: the ghost dissolves sooner, and the stopped object (its colour
// is no neighbour's) stays.
TEST(BgsubScene, StillSceneLendingDissolvesAGhostSooner) {
  Params still = base_params(true);
  still.ghost_passes = 0;
  still.still_lend_fraction = 0.125f;
  Params moving = still;
  still.dynamic_fraction = 1.0f;  // never moving
  moving.dynamic_fraction = 0.0f; // moving as soon as one pixel has a wide bandwidth
  const Masks a = run(still, 80, parked_and_stopped), b = run(moving, 80, parked_and_stopped);
  for (int t = 13; t < 80; ++t) { // after the warm-up
    EXPECT_FALSE(a.results[t].moving_background) << t;
    EXPECT_TRUE(b.results[t].moving_background) << t;
  }
  for (int t = 30; t < 80; t += 5)
    std::printf("ghost at frame %d: %lld still, %lld moving\n", t,
                static_cast<long long>(count(a, t, 4, 3, 30, 26)),
                static_cast<long long>(count(b, t, 4, 3, 30, 26)));
  // Measured (677 ghost pixels at frame 30): still 483 / 314 / 192 / 104 at frames 35 / 40 / 45 /
  // 50, none from frame 55; moving 575 / 490 / 412 / 365 / 324 (frame 55), 138 at frame 75.
  for (int t = 55; t < 80; ++t)
    EXPECT_EQ(count(a, t, 4, 3, 30, 26), 0) << t;
  EXPECT_GE(count(b, 55, 4, 3, 30, 26), 200);
  for (int t = 22; t < 80; ++t) {
    EXPECT_GE(count(a, t, 38, 20, 8, 12), 90) << t; // 96 pixels
    EXPECT_GE(count(b, t, 38, 20, 8, 12), 90) << t;
  }
}

// Flecks of 6x6 pixels (36: what waves and leaves leave after the clean-up, a few tens of pixels;
// below min_mask_area 60, above the earlier default 20) are cleared, a 12x12 object is kept.
TEST(BgsubScene, AreaFilterClearsSmallComponents) {
  std::vector<Patch> specks;
  for (int i = 0; i < 4; ++i)
    specks.push_back(Patch{4 + 10 * i, 3, 6, 6, {250, 250, 20}});
  specks.push_back(Patch{10, 18, 12, 12, {220, 40, 30}});
  auto frame = [&](int t) {
    return scene(texture(), 1.0f, t < 20 ? std::vector<Patch>{} : specks, t);
  };
  Params on = base_params(true), off = base_params(true);
  off.min_mask_area = 0;
  const Masks a = run(on, 24, frame), b = run(off, 24, frame);
  for (int t = 20; t < 24; ++t) {
    EXPECT_EQ(count(a, t, 0, 0, kW, 12), 0) << t;
    EXPECT_GE(count(b, t, 0, 0, kW, 12), 4 * 30) << t; // 4 x 36, corners may go
    EXPECT_GE(count(a, t, 10, 18, 12, 12), 140) << t;
    EXPECT_EQ(count(a, t, 10, 18, 12, 12), count(b, t, 10, 18, 12, 12)) << t;
  }
}

// The paper's parameters (paper_params) reproduce the model without any extension: a global drop
// is foreground, FrameResult's scene fields stay neutral.
TEST(BgsubScene, PaperParamsTurnEveryExtensionOff) {
  const Params p = paper_params();
  EXPECT_FALSE(p.illumination || p.shadows || p.shot_change);
  EXPECT_EQ(p.min_mask_area, 0);
  EXPECT_TRUE(validate(p).ok());
  Params bad = Params();
  bad.shadow_low = 0.95f; // above shadow_high
  EXPECT_FALSE(validate(bad).ok());
  bad = Params();
  bad.cut_fraction = 0.0;
  EXPECT_FALSE(validate(bad).ok());
  bad = Params();
  bad.cut_warmup = 1;
  EXPECT_FALSE(validate(bad).ok());
  bad = Params();
  bad.cut_refill = -1;
  EXPECT_FALSE(validate(bad).ok());
  EXPECT_EQ(p.ghost_passes, 0);
  bad = Params();
  bad.ghost_passes = -1;
  EXPECT_FALSE(validate(bad).ok());
  for (float f : {0.0f, 0.6f}) {
    bad = Params();
    bad.still_lend_fraction = f;
    EXPECT_FALSE(validate(bad).ok()) << f;
  }
  for (float f : {-0.1f, 1.1f}) {
    bad = Params();
    bad.dynamic_fraction = f;
    EXPECT_FALSE(validate(bad).ok()) << f;
  }
  bad = Params();
  bad.ghost_matches = 0;
  EXPECT_FALSE(validate(bad).ok());
  bad = Params();
  bad.ghost_still = 256;
  EXPECT_FALSE(validate(bad).ok());
}

// The schedule: the full warm-up, then after a confirmed cut the short one (its frames numbered
// from 1 again), and the update period counted from the end of each warm-up.
TEST(BgsubScene, FrameScheduleWarmUpsAndCut) {
  Params p;
  p.num_samples = 5;
  p.cut_warmup = 3;
  p.cut_frames = 2;
  p.update_period = 2;
  FrameSchedule s;
  s.configure(p);
  s.reset();
  for (int t = 1; t <= 5; ++t) {
    const FramePlan f = s.begin();
    EXPECT_TRUE(f.warming_up);
    EXPECT_EQ(f.warm_len, 5);
    EXPECT_EQ(f.last_warm, t == 5);
  }
  FramePlan f = s.begin(); // frame 6: classified, updates
  EXPECT_FALSE(f.warming_up);
  EXPECT_TRUE(f.update);
  EXPECT_FALSE(f.blind); // no cut yet
  s.end(100, 100, 100);  // a candidate
  f = s.begin();         // frame 7: no update (period 2)
  EXPECT_FALSE(f.update);
  s.end(90, 0, 100); // confirmed: the foreground stayed
  f = s.begin();
  EXPECT_TRUE(f.shot_change);
  EXPECT_TRUE(f.warming_up);
  EXPECT_EQ(f.frame, 1);
  EXPECT_EQ(f.warm_len, 3);
  s.begin();
  f = s.begin();
  EXPECT_TRUE(f.last_warm);
  f = s.begin();
  EXPECT_FALSE(f.warming_up);
  EXPECT_FALSE(f.shot_change);
  EXPECT_TRUE(f.update);
  EXPECT_TRUE(f.blind); // the refill after a cut
}

} // namespace
} // namespace cvis::bgsub

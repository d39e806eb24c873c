// cpu suite: the tracker's handling of partial occlusion and of large size changes (CPU
// reference) on seeded synthetic sequences with exact ground truth (rcdtrack_scene.hpp). Each test
// runs the behaviour off (the settings that turn it off) and on (the defaults), and states what
// both reach on these seeds, so that the test shows what the behaviour adds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "rcdtrack_cpu_tracker.hpp"
#include "rcdtrack_scene.hpp"

namespace cvis::rcdtrack {
namespace {

using test::cpu_tracker;
using test::HostImage;

struct TrackRun {
  double mean_iou = 0.0;  // over the frames scored
  double max_growth = 0;  // largest box area over the truth's area
  double max_size = 0;    // largest tracked size (TargetResult::scale squared: an area ratio)
  double final_iou = 0.0; // mean over the last 10 frames
  int lost = 0;           // frames reported lost
};

// One target from its first box over N W x H frames (`pose`, `overlay` as test::run_one_target):
// a TrackRun over the frames scored(t, truth) accepts, final_iou over those last(t, truth) accepts.
template <typename Pose, typename Overlay, typename Scored, typename Last>
TrackRun run_scene(const Params& p, int W, int H, int N, const HostImage& bg, const HostImage& tex,
                   Pose pose, Overlay overlay, Scored scored, Last last) {
  auto tr = cpu_tracker(p, W, H);
  TrackRun run;
  int n_scored = 0, n_last = 0;
  const Status st = test::run_one_target(
      tr.get(), bg, tex, N, pose,
      [&](int t, const Box& gt, const TargetResult& r) {
        if (!scored(t, gt))
          return;
        const double o = iou(r.box, gt);
        run.mean_iou += o;
        ++n_scored;
        run.max_growth = std::max(run.max_growth, static_cast<double>(r.box.w) * r.box.h /
                                                      (static_cast<double>(gt.w) * gt.h));
        run.max_size = std::max(run.max_size, r.scale * r.scale);
        if (last(t, gt)) {
          run.final_iou += o;
          ++n_last;
        }
        run.lost += r.lost ? 1 : 0;
      },
      0, overlay);
  EXPECT_TRUE(st.ok()) << st.to_string();
  run.mean_iou /= std::max(1, n_scored);
  run.final_iou /= std::max(1, n_last);
  return run;
}

// A target moving right at 1.5 px per frame; from frame 12 to 36 a textured bar slides with it
// over its left half (then leaves). The bar is the kind of occluder that pulls the matched window
// onto itself and lets it grow (a half occluded window is about as far from the model at many
// sizes). Scored from frame 1; final_iou over the last 10 frames.
TrackRun partial_occlusion(const Params& p) {
  const int W = 220, H = 150, N = 56;
  HostImage bg = test::make_background(W, H, 41);
  HostImage tex = test::make_texture(40, 30, 43, 0);
  HostImage bar = test::make_texture(14, 44, 45, 1);
  auto pose = [](int t) { return test::Pose{60 + 1.5 * t, 72 + 0.3 * t, 1.0, 0.0}; };
  auto overlay = [&](int t, HostImage* f) {
    if (t >= 12 && t < 36) {
      const test::Pose q = pose(t);
      // Covers the left third of the target and a margin above and below.
      test::draw_object(f, bar, q.cx - 13, q.cy, 1.0, 0.0);
    }
  };
  return run_scene(
      p, W, H, N, bg, tex, pose, overlay, [](int t, const Box&) { return t > 0; },
      [&](int t, const Box&) { return t >= N - 10; });
}

// occlusion_ratio: with it off the box follows the window drawn onto the bar and grows past the
// target; on, the frames the bar covers are uncertain (distance far above the target's running
// distance), their size and model are kept, and the box stays on the target. Both without
// template_refine (the mechanism alone); the defaults, with it, below.
TEST(TrackerOcclusion, BoxDoesNotGrowPastPartlyOccludedTarget) {
  Params on;
  on.template_refine = false;
  Params off = on;
  off.occlusion_ratio = 0.0;
  const TrackRun a = partial_occlusion(off);
  const TrackRun b = partial_occlusion(on);
  const TrackRun d = partial_occlusion(Params());
  std::printf("partial occluder: off mean IoU %.3f, largest box %.2fx the truth (size %.2fx), "
              "last 10 frames IoU %.3f, %d lost; on %.3f, %.2fx (%.2fx), %.3f, %d lost; defaults "
              "%.3f, %.2fx (%.2fx), %.3f, %d lost\n",
              a.mean_iou, a.max_growth, a.max_size, a.final_iou, a.lost, b.mean_iou, b.max_growth,
              b.max_size, b.final_iou, b.lost, d.mean_iou, d.max_growth, d.max_size, d.final_iou,
              d.lost);
  // Measured: off 0.706 mean IoU, largest box 2.17x, 0.902 over the last 10 frames; on 0.733,
  // 1.21x, 0.935. The growth is what the behaviour prevents (1.6: between
  // the two, with margin for a box that is a rotated or slightly larger window); the IoU bounds,
  // that it does not lose the target to do so.
  EXPECT_LT(b.max_growth, 1.6);
  EXPECT_GT(b.mean_iou, 0.65);
  EXPECT_GT(b.final_iou, 0.8);
  // Defaults (the template on): 0.750, 1.17x, 0.922; the tracked size at most 1.18x the first.
  EXPECT_LT(d.max_size, 1.6);
  EXPECT_GT(d.mean_iou, 0.65);
  EXPECT_GT(d.final_iou, 0.8);
}

// A target moving right at 2.5 px per frame passes behind a textured bar fixed in the scene, 3/4
// of its width wide and taller than it: hidden more and more from frame 18, at most 3/4 hidden
// around frame 32, clear again from frame 46. Scored over the frames the bar touches it;
// final_iou over its last 10 pixels coming out.
TrackRun behind_bar(const Params& p) {
  const int W = 280, H = 150, N = 70, bx = 150, bw = 24;
  HostImage bg = test::make_background(W, H, 51);
  HostImage tex = test::make_texture(40, 30, 53, 0);
  HostImage bar = test::make_texture(bw, 50, 55, 1);
  auto pose = [](int t) { return test::Pose{40 + 2.5 * t, 75 + 0.2 * t, 1.0, 0.0}; };
  auto overlay = [&](int, HostImage* f) { test::draw_object(f, bar, bx, 78, 1.0, 0.0); };
  return run_scene(
      p, W, H, N, bg, tex, pose, overlay,
      [&](int, const Box& gt) { return gt.x + gt.w > bx - bw / 2 && gt.x < bx + bw / 2; },
      [&](int, const Box& gt) { return gt.x + gt.w > bx + bw / 2 - 10 && gt.x < bx + bw / 2; });
}

// coast_frames: with it off the target is lost while mostly hidden (or its window sticks to the
// visible part and the bar) and found again late; on, the frames above lost_threshold that follow
// the uncertain ones move the box with the target's velocity. Both without template_refine, which
// changes which frames are uncertain here (below).
TEST(TrackerOcclusion, TargetCoastsBehindBar) {
  Params on;
  on.template_refine = false;
  Params off = on;
  off.coast_frames = 0;
  const TrackRun a = behind_bar(off);
  const TrackRun b = behind_bar(on);
  const TrackRun d = behind_bar(Params());
  std::printf("behind a bar: off mean IoU %.3f, coming out %.3f, %d lost; on %.3f, %.3f, %d lost; "
              "defaults %.3f, %.3f, %d lost\n",
              a.mean_iou, a.final_iou, a.lost, b.mean_iou, b.final_iou, b.lost, d.mean_iou,
              d.final_iou, d.lost);
  // Measured: off 0.378 mean IoU, 0.288 coming out, 10 frames lost; on 0.416, 0.338, none lost.
  // Not losing it is what the behaviour adds; the IoU bounds (0.40: between the two, the scene
  // and the CPU reference being the same bytes on every machine) that the coasting box stays
  // nearer the target than the lost one.
  EXPECT_EQ(b.lost, 0);
  EXPECT_GT(b.mean_iou, 0.40);
  EXPECT_GT(b.mean_iou, a.mean_iou);
  // At the defaults (template_refine on) the box stays on the target while it is mostly hidden,
  // so the running distance follows the occlusion up and the first uncertain frame comes late;
  // the next frame's best window is a smaller size, taken as a size change, and the frame after
  // it is lost. Measured: 0.446 mean IoU, 0.296 coming out, 10 frames lost: the box is nearer the
  // target than with coasting alone.
  EXPECT_GT(d.mean_iou, b.mean_iou);
}

// A target moving right at 2 px per frame disappears on frame 20 and comes back whole on frame 32,
// three times as large. The whole-frame search tries sizes up to twice the one it had when lost,
// so what it finds again is a part of it. Scored from frame 1; final_iou over frames 40-59.
TrackRun back_larger(const Params& p) {
  const int W = 320, H = 160, N = 60;
  HostImage bg = test::make_background(W, H, 61);
  HostImage tex = test::make_texture(40, 30, 63, 0);
  auto pose = [](int t) {
    test::Pose q{80 + 2.0 * t, 80, t < 20 ? 1.0 : 3.0, 0.0};
    q.visible = t < 20 || t >= 32;
    return q;
  };
  return run_scene(
      p, W, H, N, bg, tex, pose, [](int, HostImage*) {}, [](int t, const Box&) { return t > 0; },
      [&](int t, const Box&) { return t >= 40; });
}

// kFreeSizeFrames: for 10 tracking frames after a re-acquisition the scale prior is off, so the
// box grows from the part found to the whole; with the prior on from the first of them the box
// stays near the part's size.
TEST(TrackerOcclusion, SizeRecoversAfterReacquisition) {
  const TrackRun r = back_larger(Params());
  std::printf("back three times as large: mean IoU %.3f, frames 40-59 IoU %.3f, %d lost\n",
              r.mean_iou, r.final_iou, r.lost);
  // Measured: mean IoU 0.580, 0.849 over frames 40-59 (without template_refine 0.550 and 0.817:
  // the box 126-130 x 96-98 for 120 x 90); with the prior on throughout 0.404 and 0.404 (69 x 52
  // to frame 50, then 80-100 wide).
  EXPECT_GT(r.final_iou, 0.65);
  EXPECT_GT(r.mean_iou, 0.47);
}

} // namespace
} // namespace cvis::rcdtrack

// cpu suite: the target lifecycle (rcdtrack_lifecycle.hpp) around the CPU tracker on seeded
// synthetic frames: ids, initial targets, targets started from boxes (persistence, min area,
// boxes over a target), the static and lost timeouts, re-acquisition, untrack, reset and requests
// from another thread while frames run.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "rcdtrack_lifecycle.hpp"
#include "rcdtrack_scene.hpp"

namespace cvis::rcdtrack {
namespace {

using test::HostImage;
using Kind = TargetEvent::Kind;

constexpr int kW = 160, kH = 120;

// A lifecycle around a CPU tracker on 160x120 RGBA frames: a background and one textured 24x18
// object, drawn where asked.
struct Rig {
  HostImage bg = test::make_background(kW, kH, 11);
  HostImage tex = test::make_texture(24, 18, 17, 1);
  std::unique_ptr<Tracker> tracker;
  Lifecycle life;
  LifecycleParams params;
  std::vector<TargetResult> results;

  Rig() {
    Status st;
    tracker = make_tracker(Backend::kCpu, &st);
    EXPECT_TRUE(tracker && tracker->configure(Params(), kW, kH, PixelFormat::kRGBA).ok());
    life.set_frame_size(kW, kH);
  }
  // The frame with the object centred at (cx, cy) (none when cx < 0); *truth its box.
  HostImage image(double cx, double cy, Box* truth = nullptr) const {
    HostImage f = test::copy_image(bg);
    const Box b = cx >= 0 ? test::draw_object(&f, tex, cx, cy, 1.0, 0.0) : Box{};
    if (truth)
      *truth = b;
    return f;
  }
  // One frame through begin_frame, process and end_frame: its events.
  std::vector<TargetEvent> frame(const HostImage& img, const InitBoxes& init, int first_id = 0) {
    std::vector<TargetEvent> ev;
    Status s = life.begin_frame(tracker.get(), params, first_id, init, &ev);
    EXPECT_TRUE(s.ok()) << s.to_string();
    s = tracker->process(img.view(), nullptr, &results);
    EXPECT_TRUE(s.ok()) << s.to_string();
    life.end_frame(tracker.get(), results, params, init, &ev);
    return ev;
  }
  // Targets from boxes start on their first frame and end by duplicate_timeout (`frames`) alone.
  void only_duplicate_timeout(uint32_t frames) {
    params.persistence = 1;
    params.static_timeout = 0;
    params.lost_timeout = 0;
    params.still_timeout = 0;
    params.duplicate_timeout = frames;
  }
  std::vector<int> result_ids() const {
    std::vector<int> ids;
    for (const TargetResult& r : results)
      ids.push_back(r.id);
    return ids;
  }
};

InitBoxes boxes(std::vector<Box> b) {
  InitBoxes init;
  init.enabled = true;
  init.boxes = std::move(b);
  return init;
}

// "kind:id" per event, e.g. "started:2".
std::vector<std::string> names(const std::vector<TargetEvent>& ev) {
  static const char* kNames[] = {"started", "lost", "reacquired", "removed", "refused"};
  std::vector<std::string> out;
  for (const TargetEvent& e : ev)
    out.push_back(std::string(kNames[static_cast<int>(e.kind)]) + ":" +
                  std::to_string(e.target.id));
  return out;
}

using Names = std::vector<std::string>;

TEST(Lifecycle, AutoMinArea) {
  EXPECT_EQ(auto_min_area(1920, 1080), 414u); // 2,073,600 / 5000
  EXPECT_EQ(auto_min_area(640, 512), 65u);
  EXPECT_EQ(auto_min_area(160, 120), 64u); // at least 64
  EXPECT_EQ(auto_min_area(0, 0), 64u);
}

// Initial targets take ids 0..n-1 (boxes) and n (model); requests get the next ids from
// `first_id` on, are refused when too small or beyond max_targets, and ids are never handed out
// twice, not even after reset().
TEST(Lifecycle, IdsInitialTargetsAndRequests) {
  Rig rig;
  Box b0;
  const HostImage img = rig.image(60, 55, &b0);
  Model m;
  ASSERT_TRUE(model_from_image(rig.tex.view(), thesis_features(), 5, &m).ok());
  rig.life.set_initial({b0, {100, 10, 30, 24}}, &m);
  std::string why;
  EXPECT_EQ(rig.life.request_track({10, 80, 20, 20}, 3, 64, &why), 3); // 0, 1, 2 reserved
  EXPECT_EQ(rig.life.request_track({40, 80, 20, 20}, 3, 64, &why), 4);
  EXPECT_EQ(rig.life.request_track({1, 1, 3, 20}, 3, 64, &why), -1);
  EXPECT_EQ(why, "smaller than 4x4");
  EXPECT_EQ(rig.life.ids(), (std::vector<int>{3, 4})); // the initial ones once started
  EXPECT_EQ(names(rig.frame(img, {}, 3)),
            (Names{"started:0", "started:1", "started:2", "started:3", "started:4"}));
  EXPECT_EQ(rig.result_ids(), (std::vector<int>{0, 1, 2, 3, 4})); // 2: the model, found
  EXPECT_EQ(rig.life.ids(), (std::vector<int>{3, 4, 0, 1, 2}));
  EXPECT_EQ(rig.life.request_track({70, 90, 20, 20}, 3, 5, &why), -1); // 5 ids handed out
  EXPECT_EQ(why, "max-targets (5) reached");
  EXPECT_EQ(rig.life.request_track({70, 90, 20, 20}, 3, 6, &why), 5);
  EXPECT_FALSE(rig.life.from_boxes(5));

  rig.life.reset();
  EXPECT_TRUE(rig.life.ids().empty());
  EXPECT_EQ(rig.life.request_track({70, 90, 20, 20}, 3, 6, &why), 6); // not 5 again
  rig.frame(img, {}, 3);
  EXPECT_EQ(rig.result_ids(), (std::vector<int>{0, 1, 2, 6})); // initial targets again
}

// A box starts a target once seen `persistence` frames in a row (overlapping itself by half), if
// it has min_area pixels and covers no target; a box missing for a frame starts counting again.
TEST(Lifecycle, StartsFromPersistentBoxes) {
  Rig rig;
  rig.params.persistence = 3;
  rig.params.min_area = 200;
  std::vector<Names> ev;
  for (int t = 0; t < 7; ++t) {
    Box obj;
    const HostImage img = rig.image(40 + 2 * t, 60, &obj);
    std::vector<Box> b{obj, {140, 100, 12, 12}}; // 144 pixels: under min_area
    if (t != 2)
      b.push_back({110, 10, 30, 24}); // missing on frame 2
    if (t >= 3)
      b.push_back({obj.x + 2, obj.y + 1, obj.w, obj.h}); // over the object's target
    ev.push_back(names(rig.frame(img, boxes(b), 2)));
  }
  EXPECT_EQ(ev, (std::vector<Names>{{}, {}, {"started:2"}, {}, {}, {"started:3"}, {}}));
  EXPECT_EQ(rig.result_ids(), (std::vector<int>{2, 3}));
  EXPECT_TRUE(rig.life.from_boxes(2));
  EXPECT_TRUE(rig.life.from_boxes(3));
}

// A target from boxes that overlaps no box of min_area for static_timeout frames in a row is
// removed (the object is still there and tracked); 0 keeps it. A box over the removed target's
// place starts a new target (a new id) from the frame after the next: on the next one, the box the
// target had on its last frame still covers it.
TEST(Lifecycle, StaticTimeout) {
  for (uint32_t timeout : {4u, 0u}) {
    Rig rig;
    rig.params.persistence = 1;
    rig.params.min_area = 200;
    rig.params.static_timeout = timeout;
    rig.params.lost_timeout = 0;
    Box obj;
    const HostImage img = rig.image(60, 55, &obj);
    std::vector<Names> ev;
    for (int t = 0; t < 10; ++t) {
      std::vector<Box> b{{obj.x + 4, obj.y + 4, 8, 8}}; // over the object but under min_area
      if (t < 3 || t >= 7)
        b.push_back(obj);
      ev.push_back(names(rig.frame(img, boxes(b))));
      if (timeout == 0 || t < 6) {
        EXPECT_FALSE(rig.results.at(0).lost) << t;
      }
    }
    // Off from frame 3: the fourth frame off is 6; the box is back from frame 7.
    if (timeout) {
      EXPECT_EQ(ev, (std::vector<Names>{
                        {"started:0"}, {}, {}, {}, {}, {}, {"removed:0"}, {}, {"started:1"}, {}}));
    } else {
      EXPECT_EQ(ev, (std::vector<Names>{{"started:0"}, {}, {}, {}, {}, {}, {}, {}, {}, {}}));
    }
  }
}

// Two targets on one object: the tracker's results are edited so that from frame 2 on target 1's
// box lies on target 0's (90% of it inside). With duplicate_timeout 4 the younger, target 1, is
// removed on the fourth such frame (5); 0 keeps both. A box three times the area of target 0's
// around it (target 0's box inside, its centre off it, IoU 0.19; a group around one person) is
// no duplicate: it starts a target on frame 1 and keeps it.
TEST(Lifecycle, DuplicateTimeoutRemovesTheYounger) {
  for (uint32_t timeout : {4u, 0u}) {
    Rig rig;
    rig.params.persistence = 1;
    rig.params.static_timeout = 0;
    rig.params.lost_timeout = 0;
    rig.params.duplicate_timeout = timeout;
    Box obj;
    const HostImage img = rig.image(60, 55, &obj);
    const Box far{110, 10, 30, 30};
    const Box around{obj.x - 2, obj.y - 7, 70, 32};
    ASSERT_LE(iou(around, obj), 0.2);
    ASSERT_GE(around.x + around.w / 2, obj.x + obj.w);
    std::vector<Names> ev;
    for (int t = 0; t < 8; ++t) {
      std::vector<Box> b{obj};
      if (t == 0)
        b.push_back(far);
      if (t == 1)
        b.push_back(around);
      std::vector<TargetEvent> e;
      ASSERT_TRUE(rig.life.begin_frame(rig.tracker.get(), rig.params, 0, boxes(b), &e).ok());
      ASSERT_TRUE(rig.tracker->process(img.view(), nullptr, &rig.results).ok());
      for (TargetResult& r : rig.results) {
        EXPECT_FALSE(r.lost) << t << " " << r.id;
        if (r.id == 1 && t >= 2)
          r.box = {obj.x + 1, obj.y + 1, obj.w, obj.h}; // (23 x 17) / (24 x 18) inside
      }
      rig.life.end_frame(rig.tracker.get(), rig.results, rig.params, boxes(b), &e);
      ev.push_back(names(e));
    }
    if (timeout) {
      EXPECT_EQ(ev,
                (std::vector<Names>{
                    {"started:0", "started:1"}, {"started:2"}, {}, {}, {}, {"removed:1"}, {}, {}}));
      EXPECT_EQ(rig.life.ids(), (std::vector<int>{0, 2}));
    } else {
      EXPECT_EQ(ev, (std::vector<Names>{
                        {"started:0", "started:1"}, {"started:2"}, {}, {}, {}, {}, {}, {}}));
      EXPECT_EQ(rig.life.ids(), (std::vector<int>{0, 1, 2}));
    }
  }
}

// A target whose box is a part of another's (less than half its area, 70% inside it, at least
// kPartWidth of its width: the head or the legs of one person) is removed after
// duplicate_timeout (4) frames, older or younger; a box beside another in a group's box (half its
// width, less than half its area) is kept. Targets 0 and 1 start on frame 0 (the object and a far
// box); from frame 1 on the far target's result is moved onto the object's top half (a part) or
// left half (a neighbour).
TEST(Lifecycle, DuplicateTimeoutRemovesAPart) {
  for (bool part_older : {false, true}) {
    for (bool beside : {false, true}) {
      Rig rig;
      rig.only_duplicate_timeout(4);
      Box obj;
      const HostImage img = rig.image(60, 55, &obj);
      const Box far{110, 10, 30, 30};
      const Box piece = beside ? Box{obj.x, obj.y, obj.w / 2 - 1, obj.h}
                               : Box{obj.x + 1, obj.y, obj.w - 2, obj.h / 2};
      ASSERT_LT(2 * piece.w * piece.h, obj.w * obj.h);
      const int part_id = part_older ? 0 : 1;
      std::vector<Names> ev;
      for (int t = 0; t < 7; ++t) {
        const std::vector<Box> b =
            part_older ? std::vector<Box>{far, obj} : std::vector<Box>{obj, far};
        std::vector<TargetEvent> e;
        ASSERT_TRUE(rig.life
                        .begin_frame(rig.tracker.get(), rig.params, 0,
                                     boxes(t == 0 ? b : std::vector<Box>{obj}), &e)
                        .ok());
        ASSERT_TRUE(rig.tracker->process(img.view(), nullptr, &rig.results).ok());
        for (TargetResult& r : rig.results) {
          EXPECT_FALSE(r.lost) << t << " " << r.id;
          if (r.id == part_id && t >= 1)
            r.box = piece;
        }
        rig.life.end_frame(rig.tracker.get(), rig.results, rig.params, boxes({obj}), &e);
        ev.push_back(names(e));
      }
      std::vector<Names> want(7);
      want[0] = {"started:0", "started:1"};
      if (!beside)
        want[4] = {"removed:" + std::to_string(part_id)};
      EXPECT_EQ(ev, want) << "part older " << part_older << " beside " << beside;
      EXPECT_EQ(rig.life.ids(), beside ? (std::vector<int>{0, 1}) : (std::vector<int>{1 - part_id}))
          << "part older " << part_older << " beside " << beside;
    }
  }
}

// Two targets started from stacked pieces of one object (top and bottom halves, neither inside
// the other) merge once one box of the frame holds both (the foreground sees one object) for
// duplicate_timeout (4) frames in a row: the younger is removed, the older restarts under its id
// on the union of both boxes, with no second kStarted event. Pieces side by side do not merge, nor
// do stacked pieces that each have their own box (no box holds both). A younger piece in the lower
// part of the older's box (half its width, too narrow for a part) is removed and the older goes
// on without a restart (kRegrow: the union is its own box), its age counting on.
TEST(Lifecycle, StackedPiecesMergeIntoTheOlder) {
  for (int c = 0; c < 4; ++c) {
    const bool side = c == 1, separate = c == 2, inside = c == 3;
    Rig rig;
    rig.only_duplicate_timeout(4);
    Box obj;
    const HostImage img = rig.image(60, 55, &obj);
    Box a = side ? Box{obj.x, obj.y, obj.w / 2, obj.h} : Box{obj.x, obj.y, obj.w, obj.h / 2};
    Box b = side ? Box{obj.x + obj.w / 2, obj.y, obj.w - obj.w / 2, obj.h}
                 : Box{obj.x, obj.y + obj.h / 2, obj.w, obj.h - obj.h / 2};
    const Box a0 = a; // where the older starts; from frame 1 on its box is `a`
    if (inside) {
      const int bh = obj.h * 2 / 5;
      a = obj; // grown over the younger piece
      b = Box{obj.x + obj.w / 4, obj.y + obj.h - bh, obj.w / 2, bh};
    }
    std::vector<Names> ev;
    Box merged{};
    uint64_t age5 = 0;
    for (int t = 0; t < 7; ++t) {
      const InitBoxes init = boxes(t == 0     ? std::vector<Box>{a0, b}
                                   : separate ? std::vector<Box>{a, b}
                                              : std::vector<Box>{obj});
      std::vector<TargetEvent> e;
      ASSERT_TRUE(rig.life.begin_frame(rig.tracker.get(), rig.params, 0, init, &e).ok());
      ASSERT_TRUE(rig.tracker->process(img.view(), nullptr, &rig.results).ok());
      for (TargetResult& r : rig.results) {
        EXPECT_FALSE(r.lost) << t << " " << r.id;
        if (t >= 1 && t <= 4)
          r.box = r.id == 0 ? a : b; // the pieces, as the tracker would follow them
        if (t == 5 && r.id == 0) {
          merged = r.box;
          age5 = r.age;
        }
      }
      rig.life.end_frame(rig.tracker.get(), rig.results, rig.params, init, &e);
      ev.push_back(names(e));
    }
    std::vector<Names> want(7);
    want[0] = {"started:0", "started:1"};
    const bool merges = c == 0 || inside;
    if (merges)
      want[4] = {"removed:1"};
    EXPECT_EQ(ev, want) << "case " << c;
    EXPECT_EQ(rig.life.ids(), merges ? (std::vector<int>{0}) : (std::vector<int>{0, 1})) << c;
    if (inside) {
      EXPECT_EQ(age5, 5u); // not restarted
    }
    if (c == 0) {
      EXPECT_EQ(age5, 0u); // restarted on the union
      // Restarted on the union of the pieces: the whole object's box.
      EXPECT_EQ(merged.x, obj.x);
      EXPECT_EQ(merged.y, obj.y);
      EXPECT_EQ(merged.w, obj.w);
      EXPECT_EQ(merged.h, obj.h);
    }
  }
}

// A box whose object fills less than kMinFill of it (InitBoxes::pixels, e.g. a foreground blob's
// pixel count) starts no target; one at kMinFill, or with the count not known (0 or missing),
// starts one after `persistence` (2) frames.
TEST(Lifecycle, SparseBoxesStartNoTarget) {
  Box obj;
  Rig probe;
  probe.image(60, 55, &obj);
  const uint64_t area = static_cast<uint64_t>(obj.w) * obj.h;
  const uint64_t at = static_cast<uint64_t>(std::ceil(kMinFill * area));
  for (int c = 0; c < 4; ++c) {
    Rig rig;
    rig.params.persistence = 2;
    const HostImage img = rig.image(60, 55);
    InitBoxes init = boxes({obj});
    if (c == 0)
      init.pixels = {at - 1};
    else if (c == 1)
      init.pixels = {at};
    else if (c == 2)
      init.pixels = {0};
    std::vector<Names> ev;
    for (int t = 0; t < 3; ++t)
      ev.push_back(names(rig.frame(img, init)));
    const std::vector<Names> want =
        c == 0 ? std::vector<Names>{{}, {}, {}} : std::vector<Names>{{}, {"started:0"}, {}};
    EXPECT_EQ(ev, want) << "case " << c;
  }
}

// A target from boxes that is not away from where it started (centre within a quarter of its
// first box's size) still_timeout frames after its start is removed: with 6, the still object's
// target (started on frame 0) goes on frame 5, and a box like its first starts no target for
// static_timeout (8) frames after that: the next starts on frame 14. So does the target of an
// object that went 7.5 px away and came back by then (the tracker's excursion over a background
// that flickers). An object moving 1.5 px a frame (a quarter of its 24 x 18 box's size, 20.8 px,
// is 5.2 px: 4 frames) keeps its target; 0 keeps all three.
TEST(Lifecycle, StillTimeoutRemovesATargetThatNeverMoved) {
  enum Motion { kStill, kMoving, kThereAndBack };
  const double excursion[] = {0, 2.5, 5, 7.5, 3.75, 0};
  for (uint32_t timeout : {6u, 0u}) {
    for (Motion m : {kStill, kMoving, kThereAndBack}) {
      Rig rig;
      rig.params.persistence = 1;
      rig.params.lost_timeout = 0;
      rig.params.static_timeout = 8;
      rig.params.still_timeout = timeout;
      std::vector<Names> ev;
      for (int t = 0; t < 16; ++t) {
        const double dx = m == kMoving ? 1.5 * t : m == kThereAndBack && t < 6 ? excursion[t] : 0;
        Box obj;
        const HostImage img = rig.image(60 + dx, 55, &obj);
        ev.push_back(names(rig.frame(img, boxes({obj}))));
      }
      std::vector<Names> want(16);
      want[0] = {"started:0"};
      if (timeout && m != kMoving) {
        want[5] = {"removed:0"};
        want[14] = {"started:1"};
      }
      EXPECT_EQ(ev, want) << "timeout " << timeout << " motion " << m;
    }
  }
}

// A target from boxes lost lost_timeout frames in a row is removed; a requested target on the same
// object is kept, lost.
TEST(Lifecycle, LostTimeoutRemovesOnlyTargetsFromBoxes) {
  Rig rig;
  rig.params.persistence = 1;
  rig.params.lost_timeout = 3;
  rig.params.static_timeout = 0;
  Box obj;
  rig.image(60, 55, &obj);
  ASSERT_EQ(rig.life.request_track(obj, 0, 64, nullptr), 0);
  std::vector<Names> ev;
  for (int t = 0; t < 9; ++t) {
    const bool shown = t < 3;
    Box b;
    const HostImage img = rig.image(shown ? 60 : -1, 55, &b);
    ev.push_back(names(rig.frame(img, boxes(shown ? std::vector<Box>{b} : std::vector<Box>{}))));
  }
  // Lost on frames 3, 4, 5: removed after frame 5.
  EXPECT_EQ(ev, (std::vector<Names>{{"started:0", "started:1"},
                                    {},
                                    {},
                                    {"lost:0", "lost:1"},
                                    {},
                                    {"removed:1"},
                                    {},
                                    {},
                                    {}}));
  EXPECT_EQ(rig.result_ids(), (std::vector<int>{0}));
  EXPECT_TRUE(rig.results[0].lost);
  EXPECT_EQ(rig.life.ids(), (std::vector<int>{0}));
}

// Re-acquisition resets the lost count: hidden twice for 3 frames, re-acquired each time, a
// target with lost_timeout 4 is kept (6 lost frames in all); with lost_timeout 3 it is removed
// during the first absence.
TEST(Lifecycle, ReacquisitionRestartsTheLostCount) {
  for (uint32_t timeout : {4u, 3u}) {
    Rig rig;
    rig.params.persistence = 1;
    rig.params.lost_timeout = timeout;
    rig.params.static_timeout = 0;
    Names all;
    for (int t = 0; t < 16; ++t) {
      const bool shown = !(t >= 4 && t < 7) && !(t >= 10 && t < 13);
      Box b;
      const HostImage img = rig.image(shown ? 60 : -1, 55, &b);
      for (const std::string& n :
           names(rig.frame(img, boxes(shown ? std::vector<Box>{b} : std::vector<Box>{}))))
        all.push_back(n + "@" + std::to_string(t));
    }
    if (timeout == 4) {
      EXPECT_EQ(all, (Names{"started:0@0", "lost:0@4", "reacquired:0@7", "lost:0@10",
                            "reacquired:0@13"}));
    } else { // removed on its third lost frame; the object back starts a new target a frame later
      EXPECT_EQ(all, (Names{"started:0@0", "lost:0@4", "removed:0@6", "started:1@8", "lost:1@10",
                            "removed:1@12", "started:2@14"}));
    }
  }
}

// untrack stops a running target from the next frame and cancels a request not yet applied;
// unknown ids are refused.
TEST(Lifecycle, Untrack) {
  Rig rig;
  Box obj;
  const HostImage img = rig.image(60, 55, &obj);
  const int a = rig.life.request_track(obj, 0, 64, nullptr);
  const int b = rig.life.request_track({100, 10, 30, 24}, 0, 64, nullptr);
  EXPECT_EQ(names(rig.frame(img, {})), (Names{"started:0", "started:1"}));
  EXPECT_TRUE(rig.life.request_untrack(b));
  EXPECT_FALSE(rig.life.request_untrack(b));
  EXPECT_FALSE(rig.life.request_untrack(77));
  const int c = rig.life.request_track({10, 80, 20, 20}, 0, 64, nullptr);
  EXPECT_TRUE(rig.life.request_untrack(c)); // before it started: never starts
  EXPECT_EQ(rig.life.ids(), (std::vector<int>{a}));
  EXPECT_TRUE(rig.frame(img, {}).empty());
  EXPECT_EQ(rig.result_ids(), (std::vector<int>{a}));
  EXPECT_EQ(rig.tracker->target_count(), 1);
}

// With the frame size known, a box with fewer than 4x4 pixels inside the frame is refused at once;
// before it is known, it gets an id and is refused at the next frame (a kRefused event with the
// box asked for and distance -1; the id is no longer a target).
TEST(Lifecycle, BoxesOutsideTheFrame) {
  Rig rig;
  const HostImage img = rig.image(60, 55);
  std::string why;
  EXPECT_EQ(rig.life.request_track({500, 400, 30, 24}, 0, 64, &why), -1);
  EXPECT_EQ(why, "less than 4x4 pixels inside the 160x120 frame");
  EXPECT_EQ(rig.life.request_track({-27, 10, 30, 24}, 0, 64, &why), -1); // 3 pixels wide inside
  EXPECT_EQ(rig.life.request_track({-26, 10, 30, 24}, 0, 64, &why), 0);  // 4 pixels wide inside
  rig.life.set_frame_size(0, 0);
  EXPECT_EQ(rig.life.request_track({500, 400, 30, 24}, 0, 64, &why), 1);
  rig.life.set_frame_size(kW, kH);
  const std::vector<TargetEvent> ev = rig.frame(img, {});
  EXPECT_EQ(names(ev), (Names{"refused:1", "started:0"}));
  ASSERT_FALSE(ev.empty());
  EXPECT_EQ(ev[0].target.box, (Box{500, 400, 30, 24}));
  EXPECT_EQ(ev[0].target.distance, -1.0);
  EXPECT_FALSE(ev[0].detail.empty());
  EXPECT_EQ(rig.life.ids(), (std::vector<int>{0}));
  EXPECT_FALSE(rig.life.request_untrack(1));
  EXPECT_EQ(rig.result_ids(), (std::vector<int>{0}));
}

// Requests and untracks from another thread while frames run: every id handed out once, the
// tracker's targets after the last frame are exactly the ids handed out and not untracked, and
// never more than max_targets ids at a time.
TEST(Lifecycle, RequestsFromAnotherThread) {
  Rig rig;
  const HostImage img = rig.image(60, 55);
  constexpr uint32_t kMax = 12;
  std::atomic<bool> done{false};
  std::vector<int> handed, untracked;
  int refused = 0;
  std::thread requester([&] {
    std::mt19937 rng(5);
    for (int k = 0; k < 300; ++k) {
      const Box box{static_cast<int>(rng() % 140), static_cast<int>(rng() % 100), 8, 8};
      const int id = rig.life.request_track(box, 2, kMax, nullptr);
      if (id < 0) {
        ++refused;
      } else {
        handed.push_back(id);
      }
      if (!handed.empty() && rng() % 2) {
        const int victim = handed[rng() % handed.size()];
        if (std::find(untracked.begin(), untracked.end(), victim) == untracked.end()) {
          EXPECT_TRUE(rig.life.request_untrack(victim));
          untracked.push_back(victim);
        }
      }
      EXPECT_LE(rig.life.ids().size(), kMax);
      std::this_thread::sleep_for(std::chrono::microseconds(200)); // spread over several frames
    }
    done = true;
  });
  int frames = 0;
  while (!done || frames < 3) {
    rig.frame(img, {}, 2);
    ++frames;
  }
  requester.join();
  rig.frame(img, {}, 2);
  std::set<int> unique(handed.begin(), handed.end());
  EXPECT_EQ(unique.size(), handed.size());
  EXPECT_GE(*unique.begin(), 2);
  EXPECT_GT(refused, 0); // max_targets was reached
  std::set<int> live;
  for (int id : handed)
    if (std::find(untracked.begin(), untracked.end(), id) == untracked.end())
      live.insert(id);
  const std::vector<int> ids = rig.life.ids();
  EXPECT_EQ(std::set<int>(ids.begin(), ids.end()), live);
  const std::vector<int> rid = rig.result_ids();
  EXPECT_EQ(std::set<int>(rid.begin(), rid.end()), live);
  EXPECT_EQ(rid.size(), live.size());
}

} // namespace
} // namespace cvis::rcdtrack

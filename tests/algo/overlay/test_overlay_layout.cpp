// cpu suite: the label layout (layout_labels) against its rules: labels inside the frame, never
// overlapping each other, the short label or none for small boxes, priorities first, the same
// result on every call; and the drawing of two boxes at one spot shows both labels.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "overlay_test_util.hpp"

namespace cvis::overlay {
namespace {

using cvis::test::HostImage;

bool overlap(const LabelPlacement& a, const LabelPlacement& b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

std::vector<LabelPlacement> layout(const std::vector<Box>& boxes, int w, int h, const Params& p) {
  std::vector<LabelPlacement> out;
  const Status st = layout_labels(boxes, w, h, p, &out);
  EXPECT_TRUE(st.ok()) << st.to_string();
  EXPECT_EQ(out.size(), boxes.size());
  return out;
}

// Street-like scenes: many boxes of every size, crowded, some partly outside the frame.
std::vector<Box> crowd(int w, int h, int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Box> boxes;
  for (int i = 0; i < n; ++i) {
    Box b;
    const int side = 2 + static_cast<int>(rng() % static_cast<uint32_t>(h / 3));
    b.w = side / 2 + static_cast<int>(rng() % static_cast<uint32_t>(side));
    b.h = side;
    b.x = static_cast<int>(rng() % static_cast<uint32_t>(w + 20)) - 10 - b.w / 4;
    b.y = static_cast<int>(rng() % static_cast<uint32_t>(h + 20)) - 10 - b.h / 4;
    b.label = "track " + std::to_string(i) + " d0." + std::to_string(rng() % 100);
    b.short_label = "track " + std::to_string(i);
    b.priority = static_cast<int>(rng() % 4);
    boxes.push_back(b);
  }
  return boxes;
}

// The rules, on 40 crowded scenes of 3 frame sizes and 3 font scales: every label inside the
// frame, no two overlapping, its text the full label, the short one or (full label wider than
// the frame) a cut of it; unchanged on a second call.
TEST(LabelLayout, InsideFrameNoOverlapDeterministic) {
  int labelled = 0, total = 0;
  for (uint32_t seed = 0; seed < 40; ++seed) {
    const int sizes[3][2] = {{640, 360}, {1920, 1080}, {97, 61}};
    const int w = sizes[seed % 3][0], h = sizes[seed % 3][1];
    Params p;
    p.font_scale = 1 + static_cast<int>(seed % 3);
    const std::vector<Box> boxes = crowd(w, h, 10 + static_cast<int>(seed) * 5, seed);
    const std::vector<LabelPlacement> a = layout(boxes, w, h, p);
    for (size_t i = 0; i < a.size(); ++i) {
      ++total;
      if (a[i].text.empty())
        continue;
      ++labelled;
      int lw, lh;
      label_size(a[i].text, p.font_scale, &lw, &lh);
      ASSERT_EQ(a[i].w, lw);
      ASSERT_EQ(a[i].h, lh);
      ASSERT_GE(a[i].x, 0);
      ASSERT_GE(a[i].y, 0);
      ASSERT_LE(a[i].x + a[i].w, w) << "seed " << seed << " box " << i;
      ASSERT_LE(a[i].y + a[i].h, h) << "seed " << seed << " box " << i;
      const std::string& t = a[i].text;
      ASSERT_TRUE(t == boxes[i].label || t == boxes[i].short_label ||
                  boxes[i].label.compare(0, t.size(), t) == 0)
          << t;
      for (size_t j = 0; j < i; ++j)
        ASSERT_FALSE(!a[j].text.empty() && overlap(a[i], a[j]))
            << "seed " << seed << " labels " << j << " and " << i;
    }
    const std::vector<LabelPlacement> b = layout(boxes, w, h, p);
    for (size_t i = 0; i < a.size(); ++i)
      ASSERT_TRUE(a[i].x == b[i].x && a[i].y == b[i].y && a[i].text == b[i].text);
  }
  // Not a vacuous pass: most boxes keep a label (2,507 of 4,300 labelled; 0.3 leaves room for
  // the generator's crowding).
  EXPECT_GT(labelled, total * 3 / 10) << labelled << " of " << total;
}

// Size rules at 640x360 (230,400 pixels): label_full_area 1/400 = 576, label_min_area 1/5000 =
// 46.08 pixels of box area.
TEST(LabelLayout, SmallBoxesShortOrUnlabelled) {
  Params p;
  const std::vector<Box> boxes = {
      {100, 100, 24, 24, {}, "fg 1 300px", "fg 1", 0}, // 576: full
      {300, 100, 23, 25, {}, "fg 2 300px", "fg 2", 0}, // 575: short
      {500, 100, 6, 8, {}, "fg 3 30px", "fg 3", 0},    // 48: short
      {500, 300, 5, 9, {}, "fg 4 30px", "fg 4", 0},    // 45: none
      {200, 300, 3, 3, {}, "fg 5", "", 0},             // none
  };
  const std::vector<LabelPlacement> a = layout(boxes, 640, 360, p);
  EXPECT_EQ(a[0].text, "fg 1 300px");
  EXPECT_EQ(a[1].text, "fg 2");
  EXPECT_EQ(a[2].text, "fg 3");
  EXPECT_EQ(a[3].text, "");
  EXPECT_EQ(a[4].text, "");
  // Without the layout every label is drawn in full above its box (the earlier rule).
  p.label_layout = false;
  const std::vector<LabelPlacement> b = layout(boxes, 640, 360, p);
  for (size_t i = 0; i < boxes.size(); ++i) {
    EXPECT_EQ(b[i].text, boxes[i].label);
    EXPECT_EQ(b[i].x, boxes[i].x);
    EXPECT_EQ(b[i].y, boxes[i].y - 9);
  }
}

// Three boxes at one spot: the higher priority takes the place above the box, the next the
// place inside its top edge, then below; equal priorities go by area (larger first), then index.
TEST(LabelLayout, PlacesByPriorityThenArea) {
  Params p;
  const std::vector<Box> boxes = {
      {100, 100, 60, 80, {}, "A", "", 0},
      {100, 100, 60, 80, {}, "B", "", 5},
      {100, 100, 60, 79, {}, "C", "", 0},
  };
  const std::vector<LabelPlacement> a = layout(boxes, 640, 360, p);
  EXPECT_EQ(a[1].y, 100 - 9); // B: above
  EXPECT_EQ(a[0].y, 100);     // A (larger than C): inside the top edge
  EXPECT_EQ(a[2].y, 180 - 1); // C: below its own box (100 + 79)
  for (const LabelPlacement& l : a)
    EXPECT_EQ(l.x, 100);
}

// A label wider than the frame is cut to the characters that fit; one that fits nowhere is
// replaced by the short label, then dropped.
TEST(LabelLayout, CutToFrameAndFallBack) {
  Params p;
  Box wide{0, 20, 40, 30, {}, "abcdefghijklmnopqrstuvwxyz", "", 0};
  std::vector<LabelPlacement> a = layout({wide}, 40, 60, p);
  EXPECT_EQ(a[0].text, "abcdef"); // (6 n + 1) <= 40: n = 6
  EXPECT_LE(a[0].x + a[0].w, 40);
  // A 20x12 frame holds one row of labels: "AB" (13 wide) and "C" (7 wide) side by side.
  const std::vector<Box> two = {{0, 0, 20, 12, {}, "AB", "", 1}, {0, 0, 20, 12, {}, "CDE", "C", 0}};
  a = layout(two, 20, 12, p);
  EXPECT_EQ(a[0].text, "AB");
  EXPECT_EQ(a[1].text, "C");
  EXPECT_FALSE(overlap(a[0], a[1]));
}

TEST(LabelLayout, Errors) {
  std::vector<LabelPlacement> out;
  Params p;
  EXPECT_FALSE(layout_labels({}, 0, 10, p, &out).ok());
  EXPECT_FALSE(layout_labels({}, 10, 16385, p, &out).ok());
  p.label_min_area = 0.5, p.label_full_area = 0.1;
  EXPECT_FALSE(layout_labels({}, 10, 10, p, &out).ok());
  p = Params{};
  p.label_full_area = 1.5;
  EXPECT_FALSE(validate(p).ok());
}

// Drawn: two boxes of different colours at one spot. Their outlines coincide (the second
// covers the first), but both labels are drawn, side by side, so both colours show.
TEST(LabelLayout, StackedBoxesShowBothLabels) {
  const int W = 200, H = 120;
  HostImage img(PixelFormat::kRGBA, W, H, 0);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      img.set_rgb(x, y, 0, 0, 0);
  Params p;
  Scene sc;
  sc.boxes.push_back({50, 50, 60, 40, {200, 0, 0}, "track 1", "", 0});
  sc.boxes.push_back({50, 50, 60, 40, {0, 0, 200}, "track 2", "", 0});
  Status st;
  auto d = make_drawer(Backend::kCpu, &st);
  ASSERT_TRUE(d && d->configure(p).ok());
  ASSERT_TRUE(d->draw(sc, img.view(), nullptr).ok());
  int red = 0, blue = 0;
  for (int y = 0; y < H; ++y) {
    for (int x = 0; x < W; ++x) {
      const uint8_t* px = img.plane(0) + y * img.pitch(0) + 4 * x;
      red += px[0] == 200 && px[2] == 0;
      blue += px[0] == 0 && px[2] == 200;
    }
  }
  EXPECT_GT(red, 0);
  EXPECT_GT(blue, 0);
}

} // namespace
} // namespace cvis::overlay

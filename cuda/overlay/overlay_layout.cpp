// Label layout: where each box's label goes so that labels do not pile up (overlay.hpp,
// layout_labels). Host-side geometry shared by both backends and the street evaluation's scorer.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "overlay_internal.hpp"

namespace cvis::overlay {

namespace {

struct Rect {
  int64_t x, y, w, h;
};

bool overlap(const Rect& a, const Rect& b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

// Placed labels in a grid of kCell-pixel cells, so that a frame with many labels costs about one
// cell's labels per test instead of all of them.
class Occupancy {
public:
  Occupancy(int width, int height)
      : nx_((width + kCell - 1) / kCell), ny_((height + kCell - 1) / kCell),
        cells_(static_cast<size_t>(nx_) * ny_) {}

  bool free(const Rect& r) const {
    bool ok = true;
    each_cell(r, [&](size_t c) {
      for (int i : cells_[c])
        ok = ok && !overlap(r, placed_[static_cast<size_t>(i)]);
    });
    return ok;
  }

  void add(const Rect& r) {
    const int id = static_cast<int>(placed_.size());
    placed_.push_back(r);
    each_cell(r, [&](size_t c) { cells_[c].push_back(id); });
  }

private:
  static constexpr int kCell = 64;

  template <typename Fn> void each_cell(const Rect& r, Fn&& fn) const {
    const int cx0 = static_cast<int>(r.x / kCell), cy0 = static_cast<int>(r.y / kCell);
    const int cx1 = static_cast<int>((r.x + r.w - 1) / kCell);
    const int cy1 = static_cast<int>((r.y + r.h - 1) / kCell);
    for (int cy = std::max(0, cy0); cy <= std::min(ny_ - 1, cy1); ++cy)
      for (int cx = std::max(0, cx0); cx <= std::min(nx_ - 1, cx1); ++cx)
        fn(static_cast<size_t>(cy) * nx_ + cx);
  }

  int nx_, ny_;
  std::vector<std::vector<int>> cells_;
  std::vector<Rect> placed_;
};

// `text` cut to the characters whose label fits `width` pixels (empty when none does).
std::string fit_width(const std::string& text, int scale, int width) {
  std::string t = printable(text);
  int w, h;
  label_size(t, scale, &w, &h);
  if (w <= width)
    return t;
  const int n = (width - 2 * scale + scale) / (6 * scale); // (6n - 1 + 2) s <= width
  return n > 0 ? t.substr(0, static_cast<size_t>(n)) : std::string();
}

// The earlier rule: above the box, inside its top edge when there is no room above, shifted left
// to stay in the frame when it fits.
LabelPlacement above(const Box& box, int width, int height, int s) {
  LabelPlacement p;
  p.text = printable(box.label);
  label_size(p.text, s, &p.w, &p.h);
  const int64_t lx = std::max<int64_t>(0, std::min<int64_t>(box.x, width - p.w));
  int64_t ly = static_cast<int64_t>(box.y) - p.h;
  if (ly < 0)
    ly = std::max(0, box.y);
  if (lx >= width || ly >= height) {
    p.text.clear();
    return p;
  }
  p.x = static_cast<int>(lx);
  p.y = static_cast<int>(ly);
  return p;
}

// The first free position for a `w` x `h` label of `box` (order in overlay.hpp), shifted into the
// frame; false when every one overlaps a placed label.
bool place(const Box& box, int64_t w, int64_t h, int width, int height, const Occupancy& occ,
           Rect* out) {
  const int64_t x0 = box.x, y0 = box.y, x1 = x0 + box.w, y1 = y0 + box.h;
  const int64_t cand[][2] = {
      {x0, y0 - h}, {x0, y0},     {x0, y1},     {x0, y1 - h}, {x1 - w, y0 - h},
      {x1 - w, y0}, {x1 - w, y1}, {x0 - w, y0}, {x1, y0},
  };
  for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); ++i) {
    // Above the box only where there is room (otherwise inside its top edge comes next).
    if (i == 0 && cand[i][1] < 0)
      continue;
    const Rect r{std::clamp<int64_t>(cand[i][0], 0, width - w),
                 std::clamp<int64_t>(cand[i][1], 0, height - h), w, h};
    if (occ.free(r)) {
      *out = r;
      return true;
    }
  }
  return false;
}

} // namespace

Status layout_labels(const std::vector<Box>& boxes, int width, int height, const Params& params,
                     std::vector<LabelPlacement>* out) {
  CVIS_RETURN_IF_ERROR(validate(params));
  if (width < 1 || height < 1 || width > kMaxCoord || height > kMaxCoord)
    return invalid_argument("overlay: label layout on a " + std::to_string(width) + "x" +
                            std::to_string(height) + " frame (1..16384 a side)");
  out->assign(boxes.size(), LabelPlacement{});
  if (!params.labels)
    return Status::Ok();
  const int s = params.font_scale;
  if (!params.label_layout) {
    for (size_t i = 0; i < boxes.size(); ++i)
      if (boxes[i].w > 0 && boxes[i].h > 0 && !boxes[i].label.empty())
        (*out)[i] = above(boxes[i], width, height, s);
    return Status::Ok();
  }
  const double frame_area = static_cast<double>(width) * height;
  std::vector<size_t> order(boxes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  auto area = [&](size_t i) { return static_cast<int64_t>(boxes[i].w) * boxes[i].h; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (boxes[a].priority != boxes[b].priority)
      return boxes[a].priority > boxes[b].priority;
    return area(a) > area(b);
  });
  Occupancy occ(width, height);
  for (size_t i : order) {
    const Box& box = boxes[i];
    if (box.w <= 0 || box.h <= 0)
      continue;
    const int64_t bx1 = static_cast<int64_t>(box.x) + box.w;
    const int64_t by1 = static_cast<int64_t>(box.y) + box.h;
    if (bx1 <= 0 || by1 <= 0 || box.x >= width || box.y >= height)
      continue;
    const double a = static_cast<double>(area(i));
    if (a < params.label_min_area * frame_area)
      continue;
    std::string texts[2] = {box.label, box.short_label};
    if (a < params.label_full_area * frame_area)
      texts[0].clear();
    for (const std::string& t : texts) {
      const std::string text = fit_width(t, s, width);
      if (text.empty())
        continue;
      int w, h;
      label_size(text, s, &w, &h);
      Rect r{};
      if (h > height || !place(box, w, h, width, height, occ, &r))
        continue;
      occ.add(r);
      LabelPlacement& p = (*out)[i];
      p.x = static_cast<int>(r.x), p.y = static_cast<int>(r.y), p.w = w, p.h = h;
      p.text = text;
      break;
    }
  }
  return Status::Ok();
}

} // namespace cvis::overlay

#include "rcdtrack_lifecycle.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace cvis::rcdtrack {

namespace {

// Pixels of `a` inside `b`.
int64_t intersection(const Box& a, const Box& b) {
  const int64_t iw = std::min<int64_t>(int64_t{a.x} + a.w, int64_t{b.x} + b.w) - std::max(a.x, b.x);
  const int64_t ih = std::min<int64_t>(int64_t{a.y} + a.h, int64_t{b.y} + b.h) - std::max(a.y, b.y);
  return iw > 0 && ih > 0 ? iw * ih : 0;
}

// Two boxes of consecutive frames are the same object when they overlap by at least this.
constexpr double kSameBoxIou = 0.5;
// A ready box starts no target when it overlaps a target's box by more than this, or when its
// centre lies inside one: the object is tracked already.
constexpr double kTakenIou = 0.2;

// Whether `a` and `b` are one object: kDuplicateOverlap of the smaller inside the other, and at
// least half the other's area (a box around a group of people holds each of them).
bool duplicates(const Box& a, const Box& b) {
  const int64_t small = std::min(int64_t{a.w} * a.h, int64_t{b.w} * b.h);
  const int64_t large = std::max(int64_t{a.w} * a.h, int64_t{b.w} * b.h);
  return small > 0 && 2 * small >= large &&
         static_cast<double>(intersection(a, b)) >= kDuplicateOverlap * static_cast<double>(small);
}

// Whether `a` is a part of the object of `b`: less than half its area, kDuplicateOverlap of it
// inside `b`, and at least kPartWidth of b's width (a head, a torso or the legs of one person; a
// person beside another in a group's box spans about half its width).
bool part_of(const Box& a, const Box& b) {
  const int64_t aa = int64_t{a.w} * a.h, ab = int64_t{b.w} * b.h;
  return aa > 0 && 2 * aa < ab && a.w >= kPartWidth * b.w &&
         static_cast<double>(intersection(a, b)) >= kDuplicateOverlap * static_cast<double>(aa);
}

// The target that `r` duplicates, or -1; both tracked: an older target (smaller id: ids are
// handed out in increasing order) of about its size, or any target that `r` is a part of.
int duplicate_of(const TargetResult& r, const std::vector<TargetResult>& results) {
  if (r.lost)
    return -1;
  for (const TargetResult& o : results)
    if (o.id != r.id && !o.lost &&
        ((o.id < r.id && duplicates(r.box, o.box)) || part_of(r.box, o.box)))
      return o.id;
  return -1;
}

// Whether `a` and `b` lie one above the other as pieces of one object (kStackGap; geometry only).
bool stacked(const Box& a, const Box& b) {
  const bool a_top = 2 * int64_t{a.y} + a.h <= 2 * int64_t{b.y} + b.h;
  const Box& top = a_top ? a : b;
  const Box& bottom = a_top ? b : a;
  const int64_t ow = std::min<int64_t>(int64_t{a.x} + a.w, int64_t{b.x} + b.w) - std::max(a.x, b.x);
  const int min_w = std::min(a.w, b.w), min_h = std::min(a.h, b.h);
  if (min_w <= 0 || min_h <= 0 || static_cast<double>(ow) < kPartWidth * min_w)
    return false;
  const double dcy = (bottom.y + 0.5 * bottom.h) - (top.y + 0.5 * top.h);
  const double gap = static_cast<double>(bottom.y) - (top.y + top.h);
  return dcy >= 0.5 * min_h && gap <= kStackGap * min_h;
}

// Whether one of `boxes` (of at least `min_area` pixels) holds kDuplicateOverlap of `a` and of `b`.
bool one_box_holds(const std::vector<Box>& boxes, uint32_t min_area, const Box& a, const Box& b) {
  const double aa = static_cast<double>(a.w) * a.h, ab = static_cast<double>(b.w) * b.h;
  for (const Box& f : boxes)
    if (static_cast<uint64_t>(f.w) * static_cast<uint64_t>(f.h) >= min_area &&
        static_cast<double>(intersection(a, f)) >= kDuplicateOverlap * aa &&
        static_cast<double>(intersection(b, f)) >= kDuplicateOverlap * ab)
      return true;
  return false;
}

Box union_box(const Box& a, const Box& b) {
  const int x0 = std::min(a.x, b.x), y0 = std::min(a.y, b.y);
  const int x1 = std::max(a.x + a.w, b.x + b.w), y1 = std::max(a.y + a.h, b.y + b.h);
  return Box{x0, y0, x1 - x0, y1 - y0};
}

TargetEvent event_of(TargetEvent::Kind kind, const TargetResult& r, std::string detail = {}) {
  TargetEvent e;
  e.kind = kind;
  e.target = r;
  e.detail = std::move(detail);
  return e;
}

} // namespace

uint32_t auto_min_area(int width, int height) {
  const uint64_t area = static_cast<uint64_t>(std::max(width, 0)) * std::max(height, 0);
  return std::max<uint32_t>(64, static_cast<uint32_t>(area / 5000));
}

int Lifecycle::take_id(int first_id) {
  next_id_ = std::max(next_id_, first_id);
  const int id = next_id_++;
  ids_.push_back(id);
  return id;
}

void Lifecycle::forget_id(int id) {
  ids_.erase(std::remove(ids_.begin(), ids_.end(), id), ids_.end());
}

int Lifecycle::request_track(const Box& box, int first_id, uint32_t max_targets, std::string* why) {
  std::lock_guard<std::mutex> lk(mutex_);
  std::string reason;
  if (box.w < kMinTargetSide || box.h < kMinTargetSide) {
    reason = "smaller than 4x4";
  } else if (ids_.size() >= max_targets) {
    reason = "max-targets (" + std::to_string(max_targets) + ") reached";
  } else if (width_ > 0 && height_ > 0) {
    const Box in = clip_box(box, width_, height_);
    if (in.w < kMinTargetSide || in.h < kMinTargetSide)
      reason = "less than 4x4 pixels inside the " + std::to_string(width_) + "x" +
               std::to_string(height_) + " frame";
  }
  if (!reason.empty()) {
    if (why)
      *why = reason;
    return -1;
  }
  const int id = take_id(first_id);
  add_.push_back({id, box});
  return id;
}

bool Lifecycle::request_untrack(int id) {
  std::lock_guard<std::mutex> lk(mutex_);
  auto it = std::find(ids_.begin(), ids_.end(), id);
  if (it == ids_.end())
    return false;
  ids_.erase(it);
  auto pending = std::find_if(add_.begin(), add_.end(),
                              [id](const std::pair<int, Box>& a) { return a.first == id; });
  if (pending != add_.end())
    add_.erase(pending); // never started
  else
    remove_.push_back(id);
  return true;
}

void Lifecycle::set_frame_size(int width, int height) {
  std::lock_guard<std::mutex> lk(mutex_);
  width_ = std::max(width, 0);
  height_ = std::max(height, 0);
}

std::vector<int> Lifecycle::ids() const {
  std::lock_guard<std::mutex> lk(mutex_);
  return ids_;
}

void Lifecycle::set_initial(const std::vector<Box>& boxes, const Model* model) {
  initial_ = boxes;
  have_model_ = model != nullptr;
  model_ = model ? *model : Model();
}

void Lifecycle::restart() {
  need_initial_ = true;
}

void Lifecycle::reset() {
  {
    std::lock_guard<std::mutex> lk(mutex_);
    add_.clear();
    remove_.clear();
    ids_.clear();
  }
  candidates_.clear();
  from_boxes_.clear();
  last_boxes_.clear();
  still_.clear();
  regrown_.clear();
  need_initial_ = true;
}

uint32_t Lifecycle::min_area(const LifecycleParams& params) const {
  if (params.min_area > 0)
    return params.min_area;
  std::lock_guard<std::mutex> lk(mutex_);
  return auto_min_area(width_, height_);
}

bool Lifecycle::has_moved(const Counters& c, const Box& now) {
  // The geometric mean of the sides: a thin box's short side would count the tracker's jitter
  // on it as motion.
  const double size = std::sqrt(static_cast<double>(c.first.w) * c.first.h);
  const double dx = (now.x + 0.5 * now.w) - (c.first.x + 0.5 * c.first.w);
  const double dy = (now.y + 0.5 * now.h) - (c.first.y + 0.5 * c.first.h);
  return std::sqrt(dx * dx + dy * dy) > kStillMove * size;
}

Status Lifecycle::begin_frame(Tracker* tracker, const LifecycleParams& params, int first_id,
                              const InitBoxes& init, std::vector<TargetEvent>* events) {
  std::vector<std::pair<int, Box>> add;
  std::vector<int> remove;
  {
    std::lock_guard<std::mutex> lk(mutex_);
    if (need_initial_) {
      // The initial targets' ids (reset() dropped every id, except those of requests made since).
      const int n = static_cast<int>(initial_.size()) + (have_model_ ? 1 : 0);
      for (int id = 0; id < n; ++id)
        if (std::find(ids_.begin(), ids_.end(), id) == ids_.end())
          ids_.push_back(id);
      next_id_ = std::max(next_id_, n);
    }
    add.swap(add_);
    remove.swap(remove_);
  }
  if (need_initial_) {
    tracker->reset();
    from_boxes_.clear();
    still_.clear();
    regrown_.clear();
    for (size_t k = 0; k < initial_.size(); ++k)
      CVIS_RETURN_IF_ERROR(tracker->add_target(static_cast<int>(k), initial_[k]));
    if (have_model_)
      CVIS_RETURN_IF_ERROR(tracker->add_target_model(static_cast<int>(initial_.size()), model_));
    need_initial_ = false;
  }
  for (int id : remove) {
    tracker->remove_target(id);
    from_boxes_.erase(id);
  }
  for (const auto& a : add) {
    const Status s = tracker->add_target(a.first, a.second);
    if (s.ok())
      continue;
    {
      std::lock_guard<std::mutex> lk(mutex_);
      forget_id(a.first);
    }
    TargetResult r;
    r.id = a.first;
    r.box = a.second;
    r.distance = -1.0;
    events->push_back(event_of(TargetEvent::Kind::kRefused, r, s.message()));
  }
  if (!init.enabled)
    return Status::Ok();
  for (const Box& b : ready_boxes(init, params.persistence, min_area(params))) {
    if (static_cast<uint32_t>(tracker->target_count()) >= params.max_targets)
      break;
    int id;
    {
      std::lock_guard<std::mutex> lk(mutex_);
      id = take_id(first_id);
    }
    // Boxes are data, not settings: one the tracker cannot start from (less than 4x4 pixels
    // inside the frame, e.g. a 2-pixel-wide blob at the border) is skipped.
    if (!tracker->add_target(id, b, params.lost_radius, params.aligned_steps).ok()) {
      std::lock_guard<std::mutex> lk(mutex_);
      forget_id(id);
      continue;
    }
    Counters c;
    c.first = c.last = b;
    from_boxes_[id] = c;
  }
  return Status::Ok();
}

std::vector<Box> Lifecycle::ready_boxes(const InitBoxes& init, uint32_t persistence,
                                        uint32_t min_area) {
  for (Candidate& c : candidates_)
    c.seen = false;
  for (size_t k = 0; k < init.boxes.size(); ++k) {
    const Box& b = init.boxes[k];
    const uint64_t pixels = k < init.pixels.size() ? init.pixels[k] : 0;
    Candidate* best = nullptr;
    double best_iou = kSameBoxIou;
    for (Candidate& c : candidates_) {
      const double o = iou(c.box, b);
      if (!c.seen && o >= best_iou) {
        best = &c;
        best_iou = o;
      }
    }
    if (best) {
      best->box = b;
      best->pixels = pixels;
      best->frames++;
      best->seen = true;
    } else {
      candidates_.push_back({b, pixels, 1, true});
    }
  }
  std::vector<Box> ready;
  std::vector<Candidate> keep;
  for (const Candidate& c : candidates_) {
    if (!c.seen)
      continue; // gone: starts again from one frame
    const uint64_t area = static_cast<uint64_t>(c.box.w) * static_cast<uint64_t>(c.box.h);
    const bool big = area >= min_area;
    const bool sparse = c.pixels > 0 && static_cast<double>(c.pixels) < kMinFill * area;
    if (c.frames < persistence || !big || sparse) {
      keep.push_back(c);
      continue;
    }
    const double cx = c.box.x + 0.5 * c.box.w, cy = c.box.y + 0.5 * c.box.h;
    auto covers = [&](const Box& t) {
      return iou(t, c.box) > kTakenIou ||
             (cx >= t.x && cx < t.x + t.w && cy >= t.y && cy < t.y + t.h);
    };
    bool taken = false;
    for (const StillBox& t : still_) // where a target stood still until removed
      taken = taken || iou(t.box, c.box) >= kSameBoxIou;
    for (const Box& t : last_boxes_)
      taken = taken || covers(t);
    for (const Box& t : ready) // started just now
      taken = taken || covers(t);
    if (!taken)
      ready.push_back(c.box);
    else
      keep.push_back(c);
  }
  candidates_.swap(keep);
  return ready;
}

void Lifecycle::end_frame(Tracker* tracker, const std::vector<TargetResult>& results,
                          const LifecycleParams& params, const InitBoxes& init,
                          std::vector<TargetEvent>* events) {
  last_boxes_.clear();
  std::vector<StillBox> still;
  for (StillBox& b : still_)
    if (--b.frames > 0)
      still.push_back(b);
  still_.swap(still);
  for (const TargetResult& r : results) {
    last_boxes_.push_back(r.box);
    auto regrown = std::find(regrown_.begin(), regrown_.end(), r.id);
    if (r.event == Event::kStarted && regrown != regrown_.end())
      regrown_.erase(regrown); // the same target on the union of its pieces: not a new one
    else if (r.event == Event::kStarted)
      events->push_back(event_of(TargetEvent::Kind::kStarted, r));
    else if (r.event == Event::kLost)
      events->push_back(event_of(TargetEvent::Kind::kLost, r));
    else if (r.event == Event::kReacquired)
      events->push_back(event_of(TargetEvent::Kind::kReacquired, r));
  }
  if (from_boxes_.empty())
    return;
  const uint32_t area = min_area(params);
  std::map<int, Box> grown; // older targets that take the boxes of pieces stacked on them
  for (const TargetResult& r : results) {
    auto it = from_boxes_.find(r.id);
    if (it == from_boxes_.end())
      continue;
    bool on = !init.enabled;        // no boxes any more: nothing to be off
    for (const Box& b : init.boxes) // the boxes that could start a target: not noise
      on = on ||
           (static_cast<uint64_t>(b.w) * static_cast<uint64_t>(b.h) >= area && iou(b, r.box) > 0.0);
    Counters& c = it->second;
    c.lost = r.lost ? c.lost + 1 : 0;
    c.off = on ? 0 : c.off + 1;
    const int older = duplicate_of(r, results);
    c.dup = older >= 0 ? c.dup + 1 : 0;
    int below = -1; // the older target from boxes that `r` is stacked on
    for (const TargetResult& o : results)
      if (below < 0 && !r.lost && !o.lost && o.id < r.id && from_boxes_.count(o.id) &&
          stacked(r.box, o.box) && one_box_holds(init.boxes, area, r.box, o.box))
        below = o.id;
    c.stack = below >= 0 ? c.stack + 1 : 0;
    c.age++;
    if (!r.lost)
      c.last = r.box;
    if (!c.moved && c.age >= params.still_timeout)
      c.moved = has_moved(c, c.last);
    const bool lost_out = params.lost_timeout > 0 && c.lost >= params.lost_timeout;
    const bool static_out = params.static_timeout > 0 && c.off >= params.static_timeout;
    const bool dup_out = params.duplicate_timeout > 0 && c.dup >= params.duplicate_timeout;
    const bool still_out = params.still_timeout > 0 && !c.moved && c.age >= params.still_timeout;
    const bool stack_out = params.duplicate_timeout > 0 && c.stack >= params.duplicate_timeout;
    if (!lost_out && !static_out && !dup_out && !still_out && !stack_out)
      continue;
    std::string detail;
    if (lost_out)
      detail = "lost for " + std::to_string(c.lost) + " frames";
    else if (static_out)
      detail = "off the boxes for " + std::to_string(c.off) + " frames";
    else if (dup_out)
      detail = "duplicate of target " + std::to_string(older) + " for " + std::to_string(c.dup) +
               " frames";
    else if (stack_out)
      detail = "stacked on target " + std::to_string(below) + " for " + std::to_string(c.stack) +
               " frames, merged into it";
    else
      detail = "not moved in " + std::to_string(c.age) + " frames";
    if (still_out && !lost_out && !static_out && !dup_out) {
      const uint32_t block =
          params.static_timeout > 0 ? params.static_timeout : params.still_timeout;
      still_.push_back({c.first, block});
    }
    if (stack_out && !lost_out && !static_out && !dup_out && !still_out) {
      auto g = grown.find(below);
      if (g == grown.end())
        for (const TargetResult& o : results)
          if (o.id == below)
            g = grown.emplace(below, o.box).first;
      g->second = union_box(g->second, r.box);
    }
    tracker->remove_target(r.id);
    from_boxes_.erase(it);
    {
      std::lock_guard<std::mutex> lk(mutex_);
      forget_id(r.id);
    }
    events->push_back(event_of(TargetEvent::Kind::kRemoved, r, detail));
  }
  // The older target restarts on the whole object, under its id, from the next frame's pixels,
  // unless its box already holds nearly all of it (a restart forgets its motion and model).
  for (const auto& [id, box] : grown) {
    if (!from_boxes_.count(id))
      continue; // removed itself this frame
    const TargetResult* now = nullptr;
    for (const TargetResult& o : results)
      if (o.id == id)
        now = &o;
    if (now && static_cast<double>(box.w) * box.h <= kRegrow * now->box.w * now->box.h)
      continue;
    tracker->remove_target(id);
    const Status s = tracker->add_target(id, box, params.lost_radius, params.aligned_steps);
    if (s.ok()) {
      regrown_.push_back(id);
      continue;
    }
    from_boxes_.erase(id);
    {
      std::lock_guard<std::mutex> lk(mutex_);
      forget_id(id);
    }
    TargetResult r = now ? *now : TargetResult();
    events->push_back(event_of(TargetEvent::Kind::kRemoved, r,
                               "could not restart on its stacked pieces: " + s.message()));
  }
}

} // namespace cvis::rcdtrack

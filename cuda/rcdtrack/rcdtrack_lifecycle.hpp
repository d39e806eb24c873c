// The life of a Tracker's targets: where they come from, which ids they get, when they end.
//
// Targets come from four sources:
//  * initial targets (set_initial): boxes (ids 0..n-1) and at most one model (id n), started on
//    the first frame after a restart() or reset() (a new frame size, a flush);
//  * requests from any thread (request_track, request_untrack), queued and applied at the next
//    frame;
//  * boxes that arrive with the frames (InitBoxes, e.g. a background subtractor's foreground
//    boxes): a box seen on `persistence` frames in a row (overlapping itself by half), of at least
//    `min_area` pixels and covering no current target, starts a target;
//  * nothing else: a target ends when it is untracked or, for targets started from boxes, when it
//    has been lost for `lost_timeout` frames in a row, has overlapped no box of `min_area` pixels
//    for `static_timeout` frames in a row (its object stopped, or the target stayed on the
//    background its object left), is not away from where it started `still_timeout` frames
//    after its start (a change of the background, e.g. of the light, not an object), or has
//    been a duplicate of an older target for `duplicate_timeout` frames in a row (both tracked,
//    the smaller of their boxes at least half the other's area and lying by kDuplicateOverlap
//    inside it: two targets on one object) or a part of another target (kPartWidth below) for
//    as many, or has been stacked on an older target for as many (kStackGap below): the older
//    then takes the whole.
//
// Per frame: begin_frame() before Tracker::process(), end_frame() after it; both report what
// happened as TargetEvent values (started, lost, re-acquired, removed, refused) for the caller to
// publish. Threads: request_track, request_untrack and set_frame_size may be called from any
// thread at any time; the other methods from the thread that processes the frames only (not
// concurrently with each other), with the same Tracker every frame.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "rcdtrack.hpp"

namespace cvis::rcdtrack {

// Settings read at every begin_frame() / end_frame() (they may change between frames).
struct LifecycleParams {
  uint32_t max_targets = 64; // boxes start no target while the tracker holds this many
  // Targets started from boxes (InitBoxes):
  uint32_t persistence = 3;     // frames in a row a box must be seen before a target starts on it
  uint32_t min_area = 0;        // pixels; smaller boxes start nothing and do not count as the
                                // target's object for static_timeout; 0: auto_min_area()
  uint32_t lost_timeout = 30;   // frames lost in a row before the target is removed; 0: never
  uint32_t static_timeout = 60; // frames in a row overlapping no box of min_area before the
                                // target is removed; 0: never
  double lost_radius = 3.0;     // Tracker::add_target's lost_radius for these targets
  bool aligned_steps = true;    // Tracker::add_target's aligned_steps for these targets
  // Frames in a row a duplicate of an older target or a part of another (above) before the
  // target is removed; 0: never.
  uint32_t duplicate_timeout = 10;
  // Frames after its start at which a target must be away from where it started (its centre by
  // kStillMove of its first box's size; where it went in between does not count) or be removed;
  // 0: never. For static_timeout frames after that (0: still_timeout), a box like the removed
  // target's (IoU of at least a half) starts no target.
  uint32_t still_timeout = 20;
};

// A target has moved when its centre is this share of its first box's size (the geometric mean
// of its sides) away from where it started.
inline constexpr double kStillMove = 0.25;

// Two tracked targets are on one object when this share of the smaller box lies inside the other
// (and the smaller has at least half the other's area).
inline constexpr double kDuplicateOverlap = 0.7;

// A tracked target whose box has less than half another's area, lies by kDuplicateOverlap inside
// it and spans at least this share of its width is a part of that target's object (a head, a
// torso, the legs: pieces of one person's foreground), whatever their ages.
inline constexpr double kPartWidth = 0.6;

// Two tracked targets from boxes are stacked pieces of one object (a person's torso and legs; the
// younger may also lie in the lower or upper part of the older's box) when their boxes overlap
// horizontally by kPartWidth of the narrower, their centres lie apart vertically by at least half
// the shorter height, the gap between them is at most kStackGap of the shorter height, and one box
// of the frame's InitBoxes holds kDuplicateOverlap of each (the foreground sees one object). After
// duplicate_timeout such frames in a row the younger is removed and the older restarts, with its
// id, on the union of both boxes (kRegrow).
inline constexpr double kStackGap = 0.75;
// The older restarts only when the union has more than this times its box's area; else the
// younger piece is removed and the older goes on as it is.
inline constexpr double kRegrow = 1.1;

// A box whose object (InitBoxes::pixels) fills less than this share of it starts no target: a
// target models its whole box, and one mostly of background tracks the background (a sparse blob
// of flicker or of the light).
inline constexpr double kMinFill = 0.25;

// min_area 0: 1/5000 of the frame's area, at least 64 pixels (414 at 1920x1080). Compression
// noise and slivers of a background subtractor's foreground are mostly smaller.
uint32_t auto_min_area(int width, int height);

// The boxes that arrived with one frame and may start targets.
struct InitBoxes {
  bool enabled = false;   // false: no targets start from boxes, none is removed as static
  std::vector<Box> boxes; // any size; those under min_area are ignored
  // Per box (same order; may be shorter): the pixels of its object inside it, e.g. a foreground
  // blob's; 0 or missing: not known. A box with fewer than kMinFill of its area starts no target.
  std::vector<uint64_t> pixels;
};

struct TargetEvent {
  enum class Kind : int {
    kStarted = 0,    // the target's first frame (end_frame)
    kLost = 1,       // (end_frame)
    kReacquired = 2, // (end_frame)
    kRemoved = 3, // a target started from boxes timed out (end_frame); the tracker has dropped it
    kRefused = 4, // a requested target the tracker could not start, e.g. its box has fewer than
                  // kMinTargetSide x kMinTargetSide pixels inside the frame (begin_frame);
                  // its id is no longer a target
  };
  Kind kind = Kind::kStarted;
  // The frame's result for the target; kRefused: the id, the box asked for and distance -1.
  TargetResult target;
  std::string detail; // kRemoved: which timeout; kRefused: the tracker's reason
};

class Lifecycle {
public:
  Lifecycle() = default;
  Lifecycle(const Lifecycle&) = delete;
  Lifecycle& operator=(const Lifecycle&) = delete;

  // ---- Any thread.

  // Asks for a target on `box` from the next frame. Returns its id: the next id never handed out,
  // at least `first_id` (ids below it are kept for initial targets). Returns -1 with the reason in
  // *why (may be null) when `box` is smaller than kMinTargetSide on a side, when `max_targets` ids
  // are handed out, or when the frame size is known (set_frame_size) and fewer than
  // kMinTargetSide x kMinTargetSide pixels of `box` lie inside the frame. When the frame size is
  // not known yet, such a box is accepted here and refused at the next frame (a kRefused event),
  // as is any box the tracker refuses then (e.g. after a change to a smaller frame).
  int request_track(const Box& box, int first_id, uint32_t max_targets, std::string* why);
  // Stops target `id` from the next frame (a request not yet applied is dropped). False when `id`
  // is not a target.
  bool request_untrack(int id);
  // The frame size of the coming frames (request_track's test, auto_min_area); 0 x 0: not known.
  void set_frame_size(int width, int height);

  // ---- The thread that processes the frames.

  // The initial targets: `boxes` get ids 0..n-1, `model` (when not null; copied) id n. Started on
  // the first frame after the next restart() or reset().
  void set_initial(const std::vector<Box>& boxes, const Model* model);
  // The initial targets start again on the next frame: there the tracker is reset and the targets
  // from boxes forgotten (call it when the tracker was configured anew). Requests are kept.
  void restart();
  // Forgets every target, box candidate, pending request and handed-out id (a flush, a stop, new
  // caps); the initial targets start again on the next frame. Ids are never handed out twice.
  void reset();

  // Before Tracker::process(): the initial targets (after restart() or reset(): the tracker is
  // reset first), then the requests (untracks, then tracks in the order asked), then targets from
  // `init`'s boxes, ids from `first_id` on. Appends a kRefused event per requested target the
  // tracker refuses. Errors: the tracker's, for an initial target (they are settings, not data).
  Status begin_frame(Tracker* tracker, const LifecycleParams& params, int first_id,
                     const InitBoxes& init, std::vector<TargetEvent>* events);
  // After Tracker::process() with its `results`: appends their kStarted, kLost and kReacquired
  // events in result order, then removes the targets from boxes that timed out (one kRemoved event
  // each, with the frame's result).
  void end_frame(Tracker* tracker, const std::vector<TargetResult>& results,
                 const LifecycleParams& params, const InitBoxes& init,
                 std::vector<TargetEvent>* events);

  // Ids handed out and not ended, in the order handed out (initial targets once started).
  std::vector<int> ids() const;
  // Whether `id` is a target started from boxes.
  bool from_boxes(int id) const { return from_boxes_.count(id) != 0; }

private:
  // A box seen on consecutive frames.
  struct Candidate {
    Box box;
    uint64_t pixels = 0; // InitBoxes::pixels of the box (0: not known)
    uint32_t frames = 0;
    bool seen = false;
  };
  // A target started from boxes: frames in a row lost, off every box of min_area, and a
  // duplicate of an older target.
  struct Counters {
    uint32_t lost = 0, off = 0, dup = 0;
    uint32_t stack = 0; // frames in a row stacked on an older target (kStackGap)
    Box first;          // the box it started from
    uint32_t age = 0;   // frames since it started
    Box last;           // its last box while tracked
    bool moved = false; // kStillMove from `first` still_timeout frames after its start
                        // (a box's excursion over a flickering background comes back)
  };
  // The box of a target removed for not moving, and the frames it still blocks new targets.
  struct StillBox {
    Box box;
    uint32_t frames = 0;
  };

  int take_id(int first_id); // under mutex_
  void forget_id(int id);    // under mutex_
  std::vector<Box> ready_boxes(const InitBoxes& init, uint32_t persistence, uint32_t min_area);
  static bool has_moved(const Counters& c, const Box& now);
  uint32_t min_area(const LifecycleParams& params) const;

  // Shared with request_*: under mutex_.
  mutable std::mutex mutex_;
  std::vector<std::pair<int, Box>> add_;
  std::vector<int> remove_;
  std::vector<int> ids_; // every id handed out and not ended
  int next_id_ = 0;
  int width_ = 0, height_ = 0;

  // The frames' thread only.
  std::vector<Box> initial_;
  bool have_model_ = false;
  Model model_;
  bool need_initial_ = true;
  std::vector<Candidate> candidates_;
  std::map<int, Counters> from_boxes_;
  std::vector<Box> last_boxes_; // the targets' boxes of the last frame (a box over one starts none)
  std::vector<StillBox> still_; // removed for not moving: a box like one starts none
  std::vector<int> regrown_;    // restarted on a union of boxes: their next kStarted is not new
};

} // namespace cvis::rcdtrack

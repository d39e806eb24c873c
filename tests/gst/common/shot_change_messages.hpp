// The `cvis-shot-change` element messages that cudabgsub and cudamedian3d (mode=motion) post on
// the bus at a cut, collected for the element tests.
//
// Usage: give the harness's element a private bus (ShotChangeBus), push the frames, then pop()
// the messages and assert on them. A harness element has no bus of its own, so without one the
// element's gst_element_post_message() drops the message and a test could not see it.
#pragma once

#include <gst/gst.h>

#include <vector>

namespace cvis_test {

// One cvis-shot-change message. has_* says whether the field was present with type guint64
// (an element that posts a field of another type fails the test's has_* assertion instead of
// reading a wrong value).
struct ShotChange {
  bool has_frame = false, has_pts = false, has_running_time = false;
  guint64 frame = 0, pts = 0, running_time = 0;
};

// Pops every element message now queued on `bus` (the others are unreffed and ignored) and
// returns the cvis-shot-change ones in posting order. `bus` must not be null.
std::vector<ShotChange> pop_shot_changes(GstBus* bus);

// A private bus attached to `element` for the lifetime of the object (detached and released in
// the destructor, before the harness is torn down).
class ShotChangeBus {
public:
  explicit ShotChangeBus(GstElement* element);
  ~ShotChangeBus();
  ShotChangeBus(const ShotChangeBus&) = delete;
  ShotChangeBus& operator=(const ShotChangeBus&) = delete;

  // pop_shot_changes() of this bus.
  std::vector<ShotChange> pop();

private:
  GstElement* element_;
  GstBus* bus_;
};

} // namespace cvis_test

// cudarcdtrack with backend=cpu (cpu suite): the "track" action signal and boxes the frame cannot
// hold. With the caps known, a box with fewer than 4x4 pixels inside the frame is refused (-1);
// before the caps, it gets an id and is refused at the first frame with a cvis-rcdtrack-removed
// message for that id (distance -1) and no meta.
#include <gst/check/gstharness.h>

#include <string>
#include <vector>

#include "rcdtrack_elem_util.hpp"

using namespace rcd_elem;

namespace {

class RcdTrackSignal : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

GstElement* element_of(GstHarness* hs) {
  GstElement* e = gst_bin_get_by_name(GST_BIN(hs->element), "t");
  EXPECT_TRUE(e);
  gst_object_unref(e); // the bin keeps it alive
  return e;
}

gint track(GstHarness* hs, int x, int y, int w, int h) {
  gint id = -2;
  g_signal_emit_by_name(element_of(hs), "track", x, y, w, h, &id);
  return id;
}

// The ROI metas of the output of frame t of the scene.
std::vector<Track> push_frame(GstHarness* hs, const Scene& sc, int t) {
  EXPECT_EQ(gst_harness_push(hs, make_buffer(sc.frame(t, nullptr), t)), GST_FLOW_OK);
  GstBuffer* o = gst_harness_pull(hs);
  std::vector<Track> r = read_rois(o);
  gst_buffer_unref(o);
  return r;
}

TEST_F(RcdTrackSignal, BoxOutsideTheFrameIsRefusedWithCaps) {
  Scene sc; // 160x120
  GstHarness* hs = gst_harness_new_parse("cudarcdtrack name=t backend=cpu");
  gst_harness_set_src_caps_str(hs, caps_string(GST_VIDEO_FORMAT_RGBA, sc.w, sc.h).c_str());
  EXPECT_EQ(track(hs, 500, 400, 30, 24), -1); // wholly outside
  EXPECT_EQ(track(hs, -40, 10, 30, 24), -1);  // wholly left of it
  EXPECT_EQ(track(hs, 157, 10, 30, 24), -1);  // 3 pixels inside
  EXPECT_EQ(track(hs, 150, 100, 30, 24), 0);  // 10 x 20 inside: clipped and tracked
  const std::vector<Track> r = push_frame(hs, sc, 0);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].id, 0);
  EXPECT_EQ(r[0].box, (rcd::Box{150, 100, 10, 20}));
  gst_harness_teardown(hs);
}

TEST_F(RcdTrackSignal, BoxOutsideTheFrameBeforeCapsIsRefusedAtTheFirstFrame) {
  Scene sc;
  GstHarness* hs = gst_harness_new_parse("cudarcdtrack name=t backend=cpu");
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(hs->element, bus);
  const gint out = track(hs, 500, 400, 30, 24); // no caps yet: the frame size is not known
  const gint in = track(hs, 20, 30, 30, 24);
  EXPECT_EQ(out, 0);
  EXPECT_EQ(in, 1);
  gst_harness_set_src_caps_str(hs, caps_string(GST_VIDEO_FORMAT_RGBA, sc.w, sc.h).c_str());
  const std::vector<Track> r = push_frame(hs, sc, 0);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].id, in);
  bool removed = false;
  while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT)) {
    const GstStructure* s = gst_message_get_structure(m);
    if (gst_structure_has_name(s, "cvis-rcdtrack-removed")) {
      gint id = -2, x = 0, w = 0;
      gdouble distance = 0;
      EXPECT_TRUE(gst_structure_get_int(s, "id", &id));
      EXPECT_TRUE(gst_structure_get_int(s, "x", &x));
      EXPECT_TRUE(gst_structure_get_int(s, "width", &w));
      EXPECT_TRUE(gst_structure_get_double(s, "distance", &distance));
      EXPECT_EQ(id, out);
      EXPECT_EQ(x, 500); // the box asked for
      EXPECT_EQ(w, 30);
      EXPECT_EQ(distance, -1.0); // never matched
      removed = true;
    }
    gst_message_unref(m);
  }
  EXPECT_TRUE(removed);
  gboolean ok = TRUE;
  g_signal_emit_by_name(element_of(hs), "untrack", out, &ok);
  EXPECT_FALSE(ok); // no such target any more
  gst_element_set_bus(hs->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(hs);
}

} // namespace

// cudamedian3d as a GStreamer citizen (cpu suite), through GstCvisTemporalFilter: the LATENCY
// message, upstream buffers for output=frame, serialised events behind owed outputs, sticky events
// across a flush, and which metadata an output that is another image keeps.
#include <gst/check/gstharness.h>
#include <gst/cvis/cvisceddmeta.h>

#include <algorithm>
#include <string>
#include <vector>

#include "median3d_elem_util.hpp"

using namespace m3d_elem;

namespace {

class Median3dStream : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

std::string caps_at(GstVideoFormat f, int w, int h, const char* rate) {
  std::string caps = caps_string(f, w, h);
  return caps.replace(caps.find("30/1"), 4, rate);
}

GstHarness* harness(const std::string& props, GstVideoFormat f, int w, int h) {
  GstHarness* hs = gst_harness_new_parse(("cudamedian3d mode=paper backend=cpu " + props).c_str());
  gst_harness_set_src_caps_str(hs, caps_string(f, w, h).c_str());
  return hs;
}

// What reached the harness's sink pad, in order: "buf:<frame index>" or the event's type name
// (custom events: their structure's name).
struct Log {
  std::vector<std::string> items;
};

GstPadProbeReturn record(GstPad*, GstPadProbeInfo* info, gpointer data) {
  Log* log = static_cast<Log*>(data);
  if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer* b = GST_PAD_PROBE_INFO_BUFFER(info);
    log->items.push_back("buf:" + std::to_string(GST_BUFFER_PTS(b) / kDur));
  } else if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent* e = GST_PAD_PROBE_INFO_EVENT(info);
    const GstStructure* s = gst_event_get_structure(e);
    log->items.push_back(GST_EVENT_TYPE(e) == GST_EVENT_CUSTOM_DOWNSTREAM && s
                             ? std::string(gst_structure_get_name(s))
                             : std::string(GST_EVENT_TYPE_NAME(e)));
  }
  return GST_PAD_PROBE_OK;
}

int index_of(const Log& log, const std::string& item) {
  for (size_t i = 0; i < log.items.size(); ++i)
    if (log.items[i] == item)
      return static_cast<int>(i);
  return -1;
}

std::string joined(const Log& log) {
  std::string s;
  for (const auto& i : log.items)
    s += i + " ";
  return s;
}

void drop_outputs(GstHarness* hs) {
  GstBuffer* b;
  while ((b = gst_harness_try_pull(hs)))
    gst_buffer_unref(b);
}

// Caps with a frame rate give the latency the query reports: the pipeline is told to ask again.
TEST_F(Median3dStream, LatencyMessageWhenTheFrameRateIsKnown) {
  struct {
    const char* props;
    bool message;
  } cases[] = {{"temporal-size=15", true}, {"temporal-size=15 window=causal", false}};
  for (const auto& c : cases) {
    // The element itself (gst_harness_new_parse wraps it in a bin, which keeps LATENCY messages).
    GstElement* e = gst_element_factory_make("cudamedian3d", nullptr);
    gchar** props = g_strsplit((std::string("mode=paper backend=cpu ") + c.props).c_str(), " ", -1);
    for (gchar** p = props; *p; ++p) {
      gchar** kv = g_strsplit(*p, "=", 2);
      gst_util_set_object_arg(G_OBJECT(e), kv[0], kv[1]);
      g_strfreev(kv);
    }
    g_strfreev(props);
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(e, bus);
    GstHarness* hs = gst_harness_new_with_element(e, "sink", "src");
    gst_object_unref(e);
    gst_harness_set_src_caps_str(hs, caps_at(GST_VIDEO_FORMAT_GRAY8, 16, 16, "30/1").c_str());
    ASSERT_EQ(gst_harness_push(hs, make_buffer(GST_VIDEO_FORMAT_GRAY8, 16, 16, 1, 0)), GST_FLOW_OK);
    GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_LATENCY);
    EXPECT_EQ(m != nullptr, c.message) << c.props;
    if (m) {
      EXPECT_EQ(GST_MESSAGE_SRC(m), GST_OBJECT(hs->element));
    }
    gst_clear_message(&m);
    if (c.message) {
      // Another frame rate: another latency, another message; the query agrees.
      gst_harness_set_src_caps_str(hs, caps_at(GST_VIDEO_FORMAT_GRAY8, 16, 16, "15/1").c_str());
      ASSERT_EQ(gst_harness_push(hs, make_buffer(GST_VIDEO_FORMAT_GRAY8, 16, 16, 1, 1)),
                GST_FLOW_OK);
      m = gst_bus_pop_filtered(bus, GST_MESSAGE_LATENCY);
      EXPECT_NE(m, nullptr);
      gst_clear_message(&m);
      GstQuery* q = gst_query_new_latency();
      ASSERT_TRUE(gst_pad_peer_query(hs->sinkpad, q));
      gboolean live;
      GstClockTime min, max;
      gst_query_parse_latency(q, &live, &min, &max);
      EXPECT_EQ(min, 7 * (GST_SECOND / 15));
      gst_query_unref(q);
    }
    gst_element_set_bus(hs->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(hs);
  }
}

// output=frame holds up to lag + 1 frames: upstream must be able to allocate that many more.
TEST_F(Median3dStream, FrameOutputAsksUpstreamForLagPlusOneBuffers) {
  struct {
    const char* props;
    guint min;
  } cases[] = {{"output=frame temporal-size=15", 8},
               {"output=frame temporal-size=15 window=causal", 1},
               {"output=background temporal-size=15", 0}};
  for (const auto& c : cases) {
    GstHarness* hs = harness(c.props, GST_VIDEO_FORMAT_RGBA, 32, 24);
    ASSERT_EQ(gst_harness_push(hs, make_buffer(GST_VIDEO_FORMAT_RGBA, 32, 24, 1, 0)), GST_FLOW_OK);
    GstCaps* caps = gst_caps_from_string(caps_string(GST_VIDEO_FORMAT_RGBA, 32, 24).c_str());
    GstQuery* q = gst_query_new_allocation(caps, TRUE);
    ASSERT_TRUE(gst_pad_peer_query(hs->srcpad, q)) << c.props;
    guint min_total = 0;
    for (guint i = 0; i < gst_query_get_n_allocation_pools(q); ++i) {
      guint size, min, max;
      gst_query_parse_nth_allocation_pool(q, i, nullptr, &size, &min, &max);
      EXPECT_GE(size, 32u * 24u * 4u);
      EXPECT_TRUE(max == 0 || max >= min);
      min_total = std::max(min_total, min);
    }
    EXPECT_EQ(min_total, c.min) << c.props;
    gst_query_unref(q);
    gst_caps_unref(caps);
    gst_harness_teardown(hs);
  }
}

// GAP, TAG, custom, SEGMENT and STREAM_START events leave right after the outputs of the frames
// that came before them, never ahead of owed outputs.
TEST_F(Median3dStream, SerialisedEventsWaitBehindOwedOutputs) {
  for (const char* out : {"background", "mask", "frame"}) {
    GstHarness* hs = harness(std::string("temporal-size=5 output=") + out, GST_VIDEO_FORMAT_GRAY8,
                             16, 8); // lag 2
    Log log;
    gst_pad_add_probe(
        hs->sinkpad,
        (GstPadProbeType)(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM), record,
        &log, nullptr);
    for (int t = 0; t < 4; ++t)
      ASSERT_EQ(gst_harness_push(hs, make_buffer(GST_VIDEO_FORMAT_GRAY8, 16, 8, 3, t)),
                GST_FLOW_OK);
    ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_gap(4 * kDur, kDur)));
    ASSERT_TRUE(gst_harness_push_event(
        hs, gst_event_new_custom(GST_EVENT_CUSTOM_DOWNSTREAM, gst_structure_new_empty("after-3"))));
    for (int t = 4; t < 6; ++t)
      ASSERT_EQ(gst_harness_push(hs, make_buffer(GST_VIDEO_FORMAT_GRAY8, 16, 8, 3, t)),
                GST_FLOW_OK);
    GstSegment seg;
    gst_segment_init(&seg, GST_FORMAT_TIME);
    seg.base = 1000 * GST_SECOND;
    ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_segment(&seg)));
    ASSERT_TRUE(gst_harness_push_event(
        hs, gst_event_new_custom(GST_EVENT_CUSTOM_DOWNSTREAM, gst_structure_new_empty("after-5"))));
    ASSERT_EQ(gst_harness_push(hs, make_buffer(GST_VIDEO_FORMAT_GRAY8, 16, 8, 3, 6)), GST_FLOW_OK);
    ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
    const std::string what = std::string(out) + ": " + joined(log);
    // Outputs 0..6 in order, all present.
    for (int j = 0; j < 7; ++j)
      ASSERT_GE(index_of(log, "buf:" + std::to_string(j)), 0) << what;
    for (int j = 1; j < 7; ++j)
      EXPECT_LT(index_of(log, "buf:" + std::to_string(j - 1)),
                index_of(log, "buf:" + std::to_string(j)))
          << what;
    const int gap = index_of(log, "gap"), a3 = index_of(log, "after-3"),
              a5 = index_of(log, "after-5");
    ASSERT_GE(gap, 0) << what;
    EXPECT_GT(gap, index_of(log, "buf:3")) << what;
    EXPECT_LT(gap, index_of(log, "buf:4")) << what;
    EXPECT_EQ(a3, gap + 1) << what;
    // The second segment (the last one) after output 5, before output 6.
    int seg2 = -1;
    for (size_t i = 0; i < log.items.size(); ++i)
      if (log.items[i] == "segment")
        seg2 = static_cast<int>(i);
    EXPECT_GT(seg2, index_of(log, "buf:5")) << what;
    EXPECT_LT(seg2, index_of(log, "buf:6")) << what;
    EXPECT_EQ(a5, seg2 + 1) << what;
    EXPECT_EQ(log.items.back(), "eos") << what;
    drop_outputs(hs);
    gst_harness_teardown(hs);
  }
}

// A new stream (STREAM_START) behind owed outputs: the outputs of the old stream leave first; a
// flush drops the owed outputs but the stream-start still reaches downstream.
TEST_F(Median3dStream, StreamStartBehindOwedOutputsAndAcrossAFlush) {
  GstHarness* hs = harness("temporal-size=9", GST_VIDEO_FORMAT_GRAY8, 16, 8); // lag 4
  Log log;
  gst_pad_add_probe(
      hs->sinkpad,
      (GstPadProbeType)(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM), record,
      &log, nullptr);
  for (int t = 0; t < 6; ++t)
    ASSERT_EQ(gst_harness_push(hs, make_buffer(GST_VIDEO_FORMAT_GRAY8, 16, 8, 3, t)), GST_FLOW_OK);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_stream_start("second-stream")));
  // (The probe came after the harness's own stream-start; flushes are not logged.)
  const size_t before_flush = log.items.size();
  EXPECT_EQ(index_of(log, "stream-start"), -1) << joined(log);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_stop(TRUE)));
  EXPECT_EQ(log.items.size(), before_flush + 1) << joined(log);
  EXPECT_EQ(log.items.back(), "stream-start") << joined(log);
  GstEvent* ss = gst_pad_get_sticky_event(hs->sinkpad, GST_EVENT_STREAM_START, 0);
  ASSERT_NE(ss, nullptr);
  const gchar* id = nullptr;
  gst_event_parse_stream_start(ss, &id);
  EXPECT_STREQ(id, "second-stream");
  gst_event_unref(ss);
  drop_outputs(hs);
  gst_harness_teardown(hs);
}

// Outputs that are other images (background, mask) do not carry what was computed from the input
// frame's pixels (CEDD descriptors, its foreground mask); untagged metadata still follows.
TEST_F(Median3dStream, OtherImagesDoNotInheritPixelMetadata) {
  for (const char* out : {"background", "mask", "frame"}) {
    GstHarness* hs =
        harness(std::string("temporal-size=3 output=") + out, GST_VIDEO_FORMAT_GRAY8, 16, 8);
    GstCaps* ref = gst_caps_from_string("timestamp/x-test");
    GstBuffer* masks[3];
    for (int t = 0; t < 3; ++t) {
      GstBuffer* in = make_buffer(GST_VIDEO_FORMAT_GRAY8, 16, 8, 2, t);
      const GstCvisCeddRegion r = {GST_CVIS_CEDD_FRAME_ID, 0, 0, 16, 8};
      std::vector<guint8> levels(GST_CVIS_CEDD_BINS, 1);
      ASSERT_NE(gst_buffer_add_cvis_cedd_meta(in, 1, &r, levels.data()), nullptr);
      masks[t] = gst_buffer_new_allocate(nullptr, 16 * 8, nullptr);
      ASSERT_NE(gst_buffer_add_cvis_foreground_meta(in, masks[t], 16, 8, 16, 0.5, FALSE, 0),
                nullptr);
      gst_buffer_add_reference_timestamp_meta(in, ref, 1000 + t, GST_CLOCK_TIME_NONE);
      ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
    }
    ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
    const bool frames = std::string(out) == "frame";
    for (int j = 0; j < 3; ++j) {
      GstBuffer* b = gst_harness_pull(hs);
      ASSERT_NE(b, nullptr) << out;
      EXPECT_EQ(gst_buffer_get_cvis_cedd_meta(b) != nullptr, frames) << out << " #" << j;
      // output=frame: the frame keeps its own CEDD meta and gets the element's foreground meta.
      GstCustomMeta* fg = gst_buffer_get_cvis_foreground_meta(b);
      if (frames) {
        ASSERT_NE(fg, nullptr);
      } else {
        EXPECT_EQ(fg, nullptr) << out << " #" << j;
      }
      EXPECT_NE(gst_buffer_get_reference_timestamp_meta(b, ref), nullptr) << out << " #" << j;
      gst_buffer_unref(b);
    }
    for (GstBuffer* m : masks)
      gst_buffer_unref(m);
    gst_caps_unref(ref);
    gst_harness_teardown(hs);
  }
}

} // namespace

// GstCvisTemporalFilter with a minimal subclass (cpu suite): outputs lag inputs by two frames and
// the output caps' frame rate follows downstream, so downstream can renegotiate the output alone:
// the owed outputs must leave (drained, under the old caps) before the new caps, not be dropped.
// The subclass is also the smallest example of the temporal API (push / ready / produce).
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gstcvistemporal.h"

namespace {

constexpr int kLag = 2;

struct TestLag {
  GstCvisTemporalFilter parent;
  int arrived;
  int produced;
};
struct TestLagClass {
  GstCvisTemporalFilterClass parent_class;
};

GType test_lag_get_type();
#define TEST_LAG(o) (G_TYPE_CHECK_INSTANCE_CAST((o), test_lag_get_type(), TestLag))

G_DEFINE_TYPE(TestLag, test_lag, GST_TYPE_CVIS_TEMPORAL_FILTER)

// Identity, except that the frame rate is free: downstream picks it.
GstCaps* test_lag_transform_caps(GstBaseTransform*, GstPadDirection, GstCaps* caps,
                                 GstCaps* filter) {
  GstCaps* res = gst_caps_copy(caps);
  for (guint i = 0; i < gst_caps_get_size(res); ++i)
    gst_structure_remove_field(gst_caps_get_structure(res, i), "framerate");
  if (filter) {
    GstCaps* f = gst_caps_intersect_full(filter, res, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(res);
    res = f;
  }
  return res;
}

cvis::Status test_lag_configure(GstCvisFilter*, const GstVideoInfo*, const GstVideoInfo*,
                                cvis::Backend) {
  return cvis::Status::Ok();
}

void test_lag_reset(GstCvisFilter* f) {
  TEST_LAG(f)->arrived = TEST_LAG(f)->produced = 0;
}

guint test_lag_get_lag(GstCvisTemporalFilter*) {
  return kLag;
}

cvis::Status test_lag_push(GstCvisTemporalFilter* f, GstBuffer*, const cvis::ImageView&,
                           cvis::StreamHandle) {
  TEST_LAG(f)->arrived++;
  return cvis::Status::Ok();
}

cvis::Status test_lag_ready(GstCvisTemporalFilter* f, gboolean draining, gboolean* ready) {
  const int owed = TEST_LAG(f)->arrived - TEST_LAG(f)->produced;
  *ready = draining ? owed > 0 : owed > kLag;
  return cvis::Status::Ok();
}

// The output is filled with the index of its frame in the current window.
cvis::Status test_lag_produce(GstCvisTemporalFilter* f, GstBuffer*, const cvis::ImageView* out,
                              cvis::StreamHandle) {
  const int k = TEST_LAG(f)->produced++;
  for (int y = 0; y < out->height; ++y)
    memset(out->data[0] + y * out->pitch[0], k & 0xff, static_cast<size_t>(out->width) * 4);
  return cvis::Status::Ok();
}

void test_lag_class_init(TestLagClass* klass) {
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  gst_element_class_set_static_metadata(element_class, "test lag", "Filter/Video",
                                        "Outputs lag inputs by two frames", "tests");
  gst_cvis_filter_class_add_pad_templates(element_class, nullptr, "{ RGBA }");
  GST_BASE_TRANSFORM_CLASS(klass)->transform_caps = test_lag_transform_caps;
  GstCvisFilterClass* filter_class = GST_CVIS_FILTER_CLASS(klass);
  filter_class->configure = test_lag_configure;
  filter_class->reset = test_lag_reset;
  GstCvisTemporalFilterClass* temporal_class = GST_CVIS_TEMPORAL_FILTER_CLASS(klass);
  temporal_class->get_lag = test_lag_get_lag;
  temporal_class->push = test_lag_push;
  temporal_class->ready = test_lag_ready;
  temporal_class->produce = test_lag_produce;
}

void test_lag_init(TestLag* self) {
  self->arrived = self->produced = 0;
}

class CvisTemporal : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    gst_init(nullptr, nullptr);
    gst_element_register(nullptr, "cvistestlag", GST_RANK_NONE, test_lag_get_type());
  }
};

std::string caps(const char* rate) {
  return std::string("video/x-raw,format=RGBA,width=16,height=8,framerate=") + rate;
}

GstBuffer* frame(int t) {
  GstBuffer* b = gst_buffer_new_allocate(nullptr, 16 * 8 * 4, nullptr);
  gst_buffer_memset(b, 0, 0, 16 * 8 * 4);
  GST_BUFFER_PTS(b) = t * GST_SECOND / 30;
  GST_BUFFER_DURATION(b) = GST_SECOND / 30;
  return b;
}

struct Log {
  std::vector<std::string> items;
};

GstPadProbeReturn record(GstPad*, GstPadProbeInfo* info, gpointer data) {
  Log* log = static_cast<Log*>(data);
  if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer* b = GST_PAD_PROBE_INFO_BUFFER(info);
    guint8 v = 0;
    gst_buffer_extract(b, 0, &v, 1);
    log->items.push_back(
        "buf:" + std::to_string(gst_util_uint64_scale_round(GST_BUFFER_PTS(b), 30, GST_SECOND)) +
        "/" + std::to_string(v));
  } else {
    GstEvent* e = GST_PAD_PROBE_INFO_EVENT(info);
    if (GST_EVENT_TYPE(e) == GST_EVENT_CAPS) {
      GstCaps* c = nullptr;
      gst_event_parse_caps(e, &c);
      gint n = 0, d = 1;
      gst_structure_get_fraction(gst_caps_get_structure(c, 0), "framerate", &n, &d);
      log->items.push_back("caps:" + std::to_string(n));
    } else if (GST_EVENT_TYPE(e) == GST_EVENT_EOS) {
      log->items.push_back("eos");
    }
  }
  return GST_PAD_PROBE_OK;
}

TEST_F(CvisTemporal, DownstreamRenegotiationDrainsTheOwedOutputsFirst) {
  GstHarness* hs = gst_harness_new("cvistestlag");
  Log log;
  gst_pad_add_probe(
      hs->sinkpad,
      (GstPadProbeType)(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM), record,
      &log, nullptr);
  gst_harness_set_sink_caps_str(hs, caps("30/1").c_str());
  gst_harness_set_src_caps_str(hs, caps("30/1").c_str());
  for (int t = 0; t < 5; ++t)
    ASSERT_EQ(gst_harness_push(hs, frame(t)), GST_FLOW_OK);
  // Downstream now wants another output frame rate: the input caps stay.
  gst_harness_set_sink_caps_str(hs, caps("15/1").c_str());
  for (int t = 5; t < 8; ++t)
    ASSERT_EQ(gst_harness_push(hs, frame(t)), GST_FLOW_OK);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  std::string got;
  for (const auto& i : log.items)
    got += i + " ";
  // Frames 3 and 4 are drained (window indices 3, 4) before the new caps; frames 5-7 form a new
  // window (indices 0-2), the last two drained at EOS.
  EXPECT_EQ(got, "caps:30 buf:0/0 buf:1/1 buf:2/2 buf:3/3 buf:4/4 caps:15 buf:5/0 buf:6/1 "
                 "buf:7/2 eos ");
  GstBuffer* b;
  while ((b = gst_harness_try_pull(hs)))
    gst_buffer_unref(b);
  gst_harness_teardown(hs);
}

TEST_F(CvisTemporal, LatencyQueryAddsTheLag) {
  GstHarness* hs = gst_harness_new("cvistestlag");
  gst_harness_set_src_caps_str(hs, caps("25/1").c_str());
  gst_harness_set_upstream_latency(hs, 3 * GST_MSECOND);
  ASSERT_EQ(gst_harness_push(hs, frame(0)), GST_FLOW_OK);
  GstQuery* q = gst_query_new_latency();
  ASSERT_TRUE(gst_pad_peer_query(hs->sinkpad, q));
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency(q, &live, &min, &max);
  EXPECT_EQ(min, 3 * GST_MSECOND + kLag * (GST_SECOND / 25));
  gst_query_unref(q);
  gst_harness_teardown(hs);
}

} // namespace

// cudamedian3d with backend=cpu (cpu suite): properties, caps per output, latency, timestamps and
// EOS drain, flush, caps changes, outputs equal to the library, metadata, bad settings.
#include <gst/check/gstharness.h>

#include <string>
#include <vector>

#include "median3d_elem_util.hpp"

using namespace m3d_elem;

namespace {

class Median3dElement : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

GstHarness* harness(const std::string& props, GstVideoFormat f, int w, int h) {
  GstHarness* hs = gst_harness_new_parse(("cudamedian3d mode=paper backend=cpu " + props).c_str());
  gst_harness_set_src_caps_str(hs, caps_string(f, w, h).c_str());
  return hs;
}

// Pushes `frames` frames then EOS; returns every output in order, and in *before_eos the count
// that came out before EOS.
std::vector<GstBuffer*> run(GstHarness* hs, GstVideoFormat f, int w, int h, uint32_t seed,
                            int frames, int* before_eos = nullptr, int first = 0) {
  for (int t = 0; t < frames; ++t) {
    EXPECT_EQ(gst_harness_push(hs, make_buffer(f, w, h, seed, first + t)), GST_FLOW_OK);
  }
  std::vector<GstBuffer*> out;
  GstBuffer* b;
  while ((b = gst_harness_try_pull(hs)))
    out.push_back(b);
  if (before_eos)
    *before_eos = static_cast<int>(out.size());
  EXPECT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  while ((b = gst_harness_try_pull(hs)))
    out.push_back(b);
  return out;
}

void unref_all(std::vector<GstBuffer*>& v) {
  for (GstBuffer* b : v)
    gst_buffer_unref(b);
  v.clear();
}

TEST_F(Median3dElement, PropertiesRoundTripAndRefusals) {
  GstElement* e = gst_element_factory_make("cudamedian3d", nullptr);
  ASSERT_TRUE(e);
  gint size, height, temporal, bins, threshold;
  g_object_get(e, "spatial-size", &size, "spatial-height", &height, "temporal-size", &temporal,
               "bins", &bins, "threshold", &threshold, nullptr);
  EXPECT_EQ(size, 3);
  EXPECT_EQ(height, 0);
  EXPECT_EQ(temporal, 15);
  EXPECT_EQ(bins, 16);
  EXPECT_EQ(threshold, -1);
  g_object_set(e, "spatial-size", 5, "spatial-height", 7, "temporal-size", 9, "bins", 64,
               "threshold", 30, "method", 0, "channels", 1, "window", 1, "output", 2,
               "min-blob-area", 10u, "max-blobs", 3u, nullptr);
  gint method, channels, window, output;
  guint area, maxb;
  g_object_get(e, "spatial-size", &size, "spatial-height", &height, "temporal-size", &temporal,
               "bins", &bins, "threshold", &threshold, "method", &method, "channels", &channels,
               "window", &window, "output", &output, "min-blob-area", &area, "max-blobs", &maxb,
               nullptr);
  EXPECT_EQ(size, 5);
  EXPECT_EQ(height, 7);
  EXPECT_EQ(temporal, 9);
  EXPECT_EQ(bins, 64);
  EXPECT_EQ(threshold, 30);
  EXPECT_EQ(method, 0);
  EXPECT_EQ(channels, 1);
  EXPECT_EQ(window, 1);
  EXPECT_EQ(output, 2);
  EXPECT_EQ(area, 10u);
  EXPECT_EQ(maxb, 3u);
  g_object_set(e, "spatial-size", 4, nullptr); // even: refused with a warning, value kept
  g_object_get(e, "spatial-size", &size, nullptr);
  EXPECT_EQ(size, 5);
  gst_object_unref(e);
}

TEST_F(Median3dElement, MaskOutputNegotiatesGray8AndOthersKeepTheFormat) {
  for (const char* out : {"background", "mask", "frame"}) {
    for (GstVideoFormat f :
         {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_GRAY8}) {
      GstHarness* hs = harness(std::string("output=") + out, f, 32, 24);
      ASSERT_EQ(gst_harness_push(hs, make_buffer(f, 32, 24, 1, 0)), GST_FLOW_OK);
      GstCaps* caps = gst_pad_get_current_caps(hs->sinkpad);
      ASSERT_TRUE(caps) << out;
      GstVideoInfo info;
      ASSERT_TRUE(gst_video_info_from_caps(&info, caps));
      const bool mask = std::string(out) == "mask";
      EXPECT_EQ(GST_VIDEO_INFO_FORMAT(&info), mask ? GST_VIDEO_FORMAT_GRAY8 : f) << out;
      EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&info), 32);
      gst_caps_unref(caps);
      gst_harness_teardown(hs);
    }
  }
}

TEST_F(Median3dElement, LatencyOfTheCenteredWindow) {
  struct {
    const char* props;
    int lag;
  } cases[] = {{"temporal-size=15", 7},
               {"temporal-size=4", 1},
               {"temporal-size=1", 0},
               {"temporal-size=15 window=causal", 0}};
  for (const auto& c : cases) {
    GstHarness* hs = harness(c.props, GST_VIDEO_FORMAT_GRAY8, 16, 16);
    gst_harness_set_upstream_latency(hs, 5 * GST_MSECOND);
    ASSERT_EQ(gst_harness_push(hs, make_buffer(GST_VIDEO_FORMAT_GRAY8, 16, 16, 1, 0)), GST_FLOW_OK);
    GstQuery* q = gst_query_new_latency();
    ASSERT_TRUE(gst_pad_peer_query(hs->sinkpad, q)) << c.props;
    gboolean live;
    GstClockTime min, max;
    gst_query_parse_latency(q, &live, &min, &max);
    EXPECT_EQ(min, 5 * GST_MSECOND + c.lag * kDur) << c.props;
    gst_query_unref(q);
    gst_harness_teardown(hs);
  }
}

TEST_F(Median3dElement, TimestampsAndEosDrainCounts) {
  for (const char* window : {"centered", "causal"}) {
    for (int temporal : {1, 2, 5, 15}) {
      for (int frames : {0, 3, 20}) {
        const std::string props =
            std::string("window=") + window + " temporal-size=" + std::to_string(temporal);
        GstHarness* hs = harness(props, GST_VIDEO_FORMAT_RGBx, 24, 16);
        int before = 0;
        std::vector<GstBuffer*> out = run(hs, GST_VIDEO_FORMAT_RGBx, 24, 16, 3, frames, &before);
        const int lag = std::string(window) == "centered" ? (temporal - 1) / 2 : 0;
        EXPECT_EQ(before, std::max(0, frames - lag)) << props << " frames " << frames;
        ASSERT_EQ(static_cast<int>(out.size()), frames) << props;
        for (int j = 0; j < frames; ++j) {
          EXPECT_EQ(GST_BUFFER_PTS(out[j]), j * kDur) << props << " output " << j;
          EXPECT_EQ(GST_BUFFER_DURATION(out[j]), kDur);
          EXPECT_EQ(GST_BUFFER_OFFSET(out[j]), static_cast<guint64>(j));
        }
        unref_all(out);
        gst_harness_teardown(hs);
      }
    }
  }
}

// Every output (all three kinds) equals the library's CPU result for the same window.
TEST_F(Median3dElement, OutputsEqualTheLibrary) {
  struct {
    GstVideoFormat f;
    int w, h;
    const char* props;
    m3d::Method method;
    m3d::Channels ch;
    m3d::Timing timing;
    int threshold;
  } cases[] = {
      {GST_VIDEO_FORMAT_RGBA, 40, 30, "", m3d::Method::kSlidingHistogram, m3d::Channels::kLuma,
       m3d::Timing::kCentered, -1},
      {GST_VIDEO_FORMAT_NV12, 38, 21, "method=integral-histogram bins=256 window=causal",
       m3d::Method::kIntegralHistogram, m3d::Channels::kLuma, m3d::Timing::kCausal, -1},
      {GST_VIDEO_FORMAT_BGR, 33, 17, "method=separable channels=rgb threshold=25",
       m3d::Method::kSeparable, m3d::Channels::kRgb, m3d::Timing::kCentered, 25},
      {GST_VIDEO_FORMAT_I420, 31, 19, "channels=rgb spatial-size=5 spatial-height=1 bins=64",
       m3d::Method::kSlidingHistogram, m3d::Channels::kRgb, m3d::Timing::kCentered, -1},
  };
  for (const auto& c : cases) {
    m3d::Params p;
    p.method = c.method;
    p.channels = c.ch;
    p.bins = strstr(c.props, "bins=256") ? 256 : (strstr(c.props, "bins=64") ? 64 : 16);
    p.spatial_w = strstr(c.props, "spatial-size=5") ? 5 : 3;
    p.spatial_h = strstr(c.props, "spatial-height=1") ? 1 : p.spatial_w;
    const int frames = 19;
    const Expected e = expected_outputs(c.f, c.w, c.h, 77, frames, p, c.timing, c.threshold);
    ASSERT_EQ(static_cast<int>(e.background.size()), frames);
    for (const char* out : {"background", "mask", "frame"}) {
      GstHarness* hs = harness(std::string(c.props) + " output=" + out, c.f, c.w, c.h);
      std::vector<GstBuffer*> got = run(hs, c.f, c.w, c.h, 77, frames);
      ASSERT_EQ(static_cast<int>(got.size()), frames);
      for (int j = 0; j < frames; ++j) {
        const std::string what = std::string(c.props) + " output=" + out + " #" + std::to_string(j);
        if (std::string(out) == "background") {
          EXPECT_EQ(read_buffer(got[j], c.f, c.w, c.h), e.background[j]) << what;
        } else if (std::string(out) == "mask") {
          EXPECT_EQ(read_buffer(got[j], GST_VIDEO_FORMAT_GRAY8, c.w, c.h), e.mask[j]) << what;
          EXPECT_TRUE(same_blobs(roi_boxes(got[j]), e.blobs[j])) << what;
        } else {
          // The frame itself, unchanged, with its mask, fraction and blob boxes.
          GstBuffer* in = make_buffer(c.f, c.w, c.h, 77, j);
          EXPECT_EQ(read_buffer(got[j], c.f, c.w, c.h), read_buffer(in, c.f, c.w, c.h)) << what;
          gst_buffer_unref(in);
          GstCustomMeta* m = gst_buffer_get_cvis_foreground_meta(got[j]);
          ASSERT_TRUE(m) << what;
          GstCvisForegroundInfo fi;
          ASSERT_TRUE(gst_cvis_foreground_meta_get(m, &fi)) << what;
          EXPECT_EQ(fi.width, c.w);
          EXPECT_EQ(fi.height, c.h);
          EXPECT_FALSE(fi.cuda_memory);
          EXPECT_DOUBLE_EQ(fi.fraction, static_cast<double>(e.result[j].foreground) / (c.w * c.h));
          EXPECT_EQ(read_buffer(fi.mask, GST_VIDEO_FORMAT_GRAY8, c.w, c.h), e.mask[j]) << what;
          EXPECT_EQ(fi.blobs, e.blobs[j].size()) << what;
          EXPECT_TRUE(same_blobs(roi_boxes(got[j]), e.blobs[j])) << what;
        }
      }
      unref_all(got);
      gst_harness_teardown(hs);
    }
  }
}

TEST_F(Median3dElement, FlushForgetsTheWindow) {
  GstHarness* hs = harness("temporal-size=9 output=mask", GST_VIDEO_FORMAT_GRAY8, 20, 12);
  for (int t = 0; t < 6; ++t) {
    ASSERT_EQ(gst_harness_push(hs, make_buffer(GST_VIDEO_FORMAT_GRAY8, 20, 12, 5, t)), GST_FLOW_OK);
  }
  GstBuffer* b;
  int early = 0;
  while ((b = gst_harness_try_pull(hs))) {
    ++early;
    gst_buffer_unref(b);
  }
  EXPECT_EQ(early, 2); // frames 0 and 1 (lag 4)
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_stop(TRUE)));
  GstSegment seg;
  gst_segment_init(&seg, GST_FORMAT_TIME);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_segment(&seg)));
  // A new sequence from frame 100: outputs are exactly those of a fresh element.
  std::vector<GstBuffer*> out = run(hs, GST_VIDEO_FORMAT_GRAY8, 20, 12, 5, 7, nullptr, 100);
  m3d::Params p;
  p.temporal = 9;
  std::vector<GstBuffer*> fresh;
  {
    GstHarness* h2 = harness("temporal-size=9 output=mask", GST_VIDEO_FORMAT_GRAY8, 20, 12);
    fresh = run(h2, GST_VIDEO_FORMAT_GRAY8, 20, 12, 5, 7, nullptr, 100);
    gst_harness_teardown(h2);
  }
  ASSERT_EQ(out.size(), 7u);
  ASSERT_EQ(fresh.size(), 7u);
  for (size_t j = 0; j < out.size(); ++j) {
    EXPECT_EQ(GST_BUFFER_PTS(out[j]), (100 + j) * kDur);
    EXPECT_EQ(read_buffer(out[j], GST_VIDEO_FORMAT_GRAY8, 20, 12),
              read_buffer(fresh[j], GST_VIDEO_FORMAT_GRAY8, 20, 12))
        << "output " << j;
  }
  unref_all(out);
  unref_all(fresh);
  gst_harness_teardown(hs);
}

// A caps change drains the old window with the old caps, then starts a new one.
TEST_F(Median3dElement, CapsChangeDrainsFirst) {
  GstHarness* hs = harness("temporal-size=5", GST_VIDEO_FORMAT_RGBA, 32, 24);
  for (int t = 0; t < 6; ++t) {
    ASSERT_EQ(gst_harness_push(hs, make_buffer(GST_VIDEO_FORMAT_RGBA, 32, 24, 9, t)), GST_FLOW_OK);
  }
  gst_harness_set_src_caps_str(hs, caps_string(GST_VIDEO_FORMAT_NV12, 16, 12).c_str());
  for (int t = 6; t < 10; ++t) {
    ASSERT_EQ(gst_harness_push(hs, make_buffer(GST_VIDEO_FORMAT_NV12, 16, 12, 9, t)), GST_FLOW_OK);
  }
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  std::vector<GstBuffer*> out;
  GstBuffer* b;
  while ((b = gst_harness_try_pull(hs)))
    out.push_back(b);
  ASSERT_EQ(out.size(), 10u);
  for (size_t j = 0; j < out.size(); ++j) {
    EXPECT_EQ(GST_BUFFER_PTS(out[j]), j * kDur);
    GstVideoInfo info;
    gst_video_info_set_format(&info, j < 6 ? GST_VIDEO_FORMAT_RGBA : GST_VIDEO_FORMAT_NV12,
                              j < 6 ? 32 : 16, j < 6 ? 24 : 12);
    EXPECT_EQ(gst_buffer_get_size(out[j]), GST_VIDEO_INFO_SIZE(&info)) << "output " << j;
  }
  unref_all(out);
  gst_harness_teardown(hs);
}

// A downstream reconfigure renegotiates the same caps: that must not reset the window.
TEST_F(Median3dElement, SameCapsAgainKeepsTheWindow) {
  GstHarness* a = harness("temporal-size=7 output=mask", GST_VIDEO_FORMAT_GRAY8, 20, 10);
  GstHarness* b = harness("temporal-size=7 output=mask", GST_VIDEO_FORMAT_GRAY8, 20, 10);
  for (int t = 0; t < 12; ++t) {
    if (t == 6) {
      ASSERT_TRUE(gst_harness_push_upstream_event(b, gst_event_new_reconfigure()));
    }
    ASSERT_EQ(gst_harness_push(a, make_buffer(GST_VIDEO_FORMAT_GRAY8, 20, 10, 4, t)), GST_FLOW_OK);
    ASSERT_EQ(gst_harness_push(b, make_buffer(GST_VIDEO_FORMAT_GRAY8, 20, 10, 4, t)), GST_FLOW_OK);
  }
  std::vector<GstBuffer*> oa = run(a, GST_VIDEO_FORMAT_GRAY8, 20, 10, 4, 0);
  std::vector<GstBuffer*> ob = run(b, GST_VIDEO_FORMAT_GRAY8, 20, 10, 4, 0);
  ASSERT_EQ(oa.size(), 12u);
  ASSERT_EQ(ob.size(), 12u);
  for (size_t j = 0; j < oa.size(); ++j) {
    EXPECT_EQ(read_buffer(oa[j], GST_VIDEO_FORMAT_GRAY8, 20, 10),
              read_buffer(ob[j], GST_VIDEO_FORMAT_GRAY8, 20, 10))
        << "output " << j;
  }
  unref_all(oa);
  unref_all(ob);
  gst_harness_teardown(a);
  gst_harness_teardown(b);
}

// Metadata of the input frames (here a reference timestamp meta) follows each output.
TEST_F(Median3dElement, UnrelatedMetadataFollowsTheFrame) {
  GstHarness* hs = harness("temporal-size=5", GST_VIDEO_FORMAT_GRAY8, 16, 8);
  GstCaps* ref = gst_caps_from_string("timestamp/x-test");
  for (int t = 0; t < 6; ++t) {
    GstBuffer* in = make_buffer(GST_VIDEO_FORMAT_GRAY8, 16, 8, 2, t);
    gst_buffer_add_reference_timestamp_meta(in, ref, 1000 + t, GST_CLOCK_TIME_NONE);
    ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
  }
  std::vector<GstBuffer*> out = run(hs, GST_VIDEO_FORMAT_GRAY8, 16, 8, 2, 0);
  ASSERT_EQ(out.size(), 6u);
  for (size_t j = 0; j < out.size(); ++j) {
    GstReferenceTimestampMeta* m = gst_buffer_get_reference_timestamp_meta(out[j], ref);
    ASSERT_TRUE(m) << "output " << j;
    EXPECT_EQ(m->timestamp, 1000 + j);
  }
  gst_caps_unref(ref);
  unref_all(out);
  gst_harness_teardown(hs);
}

TEST_F(Median3dElement, BadSettingsAreAnElementError) {
  // 17 x 17 x 255 values exceed the supported window: refused at start (the state change fails)
  // with one settings error.
  GstElement* e = gst_element_factory_make("cudamedian3d", nullptr);
  ASSERT_NE(e, nullptr);
  gst_util_set_object_arg(G_OBJECT(e), "backend", "cpu");
  gst_util_set_object_arg(G_OBJECT(e), "mode", "paper");
  g_object_set(e, "spatial-size", 17, "temporal-size", 255, nullptr);
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(e, bus);
  EXPECT_EQ(gst_element_set_state(e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  ASSERT_NE(m, nullptr);
  GError* err = nullptr;
  gst_message_parse_error(m, &err, nullptr);
  EXPECT_TRUE(g_error_matches(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS));
  EXPECT_NE(std::string(err->message).find("17x17x255"), std::string::npos) << err->message;
  g_clear_error(&err);
  gst_message_unref(m);
  gst_element_set_state(e, GST_STATE_NULL);
  gst_element_set_bus(e, nullptr);
  gst_object_unref(bus);
  gst_object_unref(e);
}

TEST_F(Median3dElement, CudaBackendWithoutDeviceFailsCleanly) {
  if (cvis::test::gpu_available())
    GTEST_SKIP() << "a GPU is present";
  GstElement* e = gst_element_factory_make("cudamedian3d", nullptr);
  ASSERT_TRUE(e);
  g_object_set(e, "backend", 2 /* cuda */, nullptr);
  EXPECT_EQ(gst_element_set_state(e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  gst_element_set_state(e, GST_STATE_NULL);
  gst_object_unref(e);
}

} // namespace

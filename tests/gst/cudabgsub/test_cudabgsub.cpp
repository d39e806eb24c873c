// cudabgsub element tests with the CPU backend (run everywhere): caps and formats in system memory,
// masks and blob boxes equal to the library's, output=frame metadata, unrelated metadata kept,
// reset on flush / caps change / READY, properties and bad values, backend=cuda without a GPU.
#include <gst/cvis/cvisforegroundmeta.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "bgsub_elem_util.hpp"
#include "ccl/ccl.hpp"
#include "test_images.hpp"

using namespace bgsub_elem;
using cvis::bgsub::Kernel;

namespace {

class BgSubElement : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

GstHarness* harness(const std::string& props, GstVideoFormat fmt, int w, int h) {
  GstHarness* hs = gst_harness_new_parse(("cudabgsub backend=cpu " + props).c_str());
  gst_harness_set_src_caps_str(hs, caps_string(fmt, w, h).c_str());
  return hs;
}

TEST_F(BgSubElement, PropertiesDefaultsRoundTripAndBadValues) {
  GstElement* e = gst_element_factory_make("cudabgsub", nullptr);
  ASSERT_NE(e, nullptr) << "plugin not found: GST_PLUGIN_PATH must point at the build";
  gint samples = 0, radius = 0, period = 0, points = 0, output = -1, kernel = -1;
  gdouble threshold = 0;
  gfloat smin = 0, smax = 0;
  guint area = 0, maxb = 0;
  g_object_get(e, "num-samples", &samples, "neighborhood", &radius, "update-period", &period,
               "cpwl-points", &points, "output", &output, "kernel", &kernel, "threshold",
               &threshold, "sigma-min", &smin, "sigma-max", &smax, "min-blob-area", &area,
               "max-blobs", &maxb, nullptr);
  const cvis::bgsub::Params d;
  EXPECT_EQ(samples, d.num_samples);
  EXPECT_EQ(radius, d.neighborhood);
  EXPECT_EQ(period, d.update_period);
  EXPECT_EQ(points, d.cpwl_points);
  EXPECT_EQ(output, 0);
  EXPECT_EQ(kernel, static_cast<int>(cvis::bgsub::kDefaultKernel));
  EXPECT_DOUBLE_EQ(threshold, d.threshold);
  EXPECT_FLOAT_EQ(smin, d.sigma_min);
  EXPECT_FLOAT_EQ(smax, d.sigma_max);
  EXPECT_EQ(area, 0u); // relative to the frame (ccl::auto_min_area)
  EXPECT_EQ(maxb, 64u);
  for (const char* k : {"exact", "fast", "cpwl-texture", "cpwl-manual", "cpwl-opt-texture",
                        "cpwl-opt-manual", "cpwl-slope", "fast-fused"}) {
    gst_util_set_object_arg(G_OBJECT(e), "kernel", k);
    gchar* got = nullptr;
    GValue v = G_VALUE_INIT;
    g_value_init(&v, g_object_class_find_property(G_OBJECT_GET_CLASS(e), "kernel")->value_type);
    g_object_get_property(G_OBJECT(e), "kernel", &v);
    got = gst_value_serialize(&v);
    EXPECT_STREQ(got, k);
    g_free(got);
    g_value_unset(&v);
  }
  g_object_set(e, "num-samples", 20, "neighborhood", 2, "threshold", 2e-6, "cpwl-points", 256,
               "sigma-min", 3.0f, "sigma-max", 30.0f, "max-blobs", 5u, nullptr);
  gst_util_set_object_arg(G_OBJECT(e), "output", "frame");
  gst_util_set_object_arg(G_OBJECT(e), "color-space", "chromaticity");
  gst_util_set_object_arg(G_OBJECT(e), "cleanup", "opening");
  gst_util_set_object_arg(G_OBJECT(e), "cpwl-fit", "interpolant");
  g_object_get(e, "num-samples", &samples, "neighborhood", &radius, "threshold", &threshold,
               "cpwl-points", &points, "sigma-min", &smin, "sigma-max", &smax, "max-blobs", &maxb,
               "output", &output, nullptr);
  EXPECT_EQ(samples, 20);
  EXPECT_EQ(radius, 2);
  EXPECT_DOUBLE_EQ(threshold, 2e-6);
  EXPECT_EQ(points, 256);
  EXPECT_FLOAT_EQ(smin, 3.0f);
  EXPECT_FLOAT_EQ(smax, 30.0f);
  EXPECT_EQ(maxb, 5u);
  EXPECT_EQ(output, 1);
  // Values that are valid only together are taken as set in NULL (any order: sigma-min first,
  // then a larger sigma-max); start judges the pair (tests/gst/contracts).
  g_object_set(e, "sigma-min", 31.0f, nullptr);
  g_object_get(e, "sigma-min", &smin, nullptr);
  EXPECT_FLOAT_EQ(smin, 31.0f);
  g_object_set(e, "sigma-min", 3.0f, nullptr);
  // Out-of-range values are refused by GObject (a warning), the old value stays.
  GLogLevelFlags old = g_log_set_always_fatal(static_cast<GLogLevelFlags>(G_LOG_FATAL_MASK));
  g_object_set(e, "num-samples", 1000, "neighborhood", 9, "cpwl-points", 1, "threshold", 0.0,
               nullptr);
  g_log_set_always_fatal(old);
  g_object_get(e, "num-samples", &samples, "neighborhood", &radius, "cpwl-points", &points,
               "threshold", &threshold, nullptr);
  EXPECT_EQ(samples, 20);
  EXPECT_EQ(radius, 2);
  EXPECT_EQ(points, 256);
  EXPECT_DOUBLE_EQ(threshold, 2e-6);
  gst_object_unref(e);
}

// output=mask in system memory, every input format: the masks and boxes are the library's.
TEST_F(BgSubElement, MaskOutputEveryFormatMatchesLibrary) {
  const GstVideoFormat formats[] = {
      GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
      GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR,
      GST_VIDEO_FORMAT_RGB,  GST_VIDEO_FORMAT_BGR,  GST_VIDEO_FORMAT_GRAY8};
  const int w = 45, h = 33, frames = 20; // odd size: the output pool's rows are padded
  const Sequence seq(w, h, frames, 10, 5);
  int compared = 0;
  for (GstVideoFormat fmt : formats) {
    const Expected e = library_run(seq, fmt, frames, small_params(Kernel::kFast));
    GstHarness* hs = harness(small_props(Kernel::kFast), fmt, w, h);
    for (int t = 0; t < frames; ++t) {
      ASSERT_EQ(gst_harness_push(hs, seq.buffer(t, fmt)), GST_FLOW_OK);
      GstBuffer* out = gst_harness_pull(hs);
      ASSERT_NE(out, nullptr);
      EXPECT_EQ(read_mask(out, w, h), e.masks[t]) << gst_video_format_to_string(fmt) << " " << t;
      EXPECT_EQ(read_blobs(out), limit_blobs(e.results[t].blobs, 64)) << t;
      EXPECT_EQ(GST_BUFFER_PTS(out), static_cast<GstClockTime>(t) * GST_SECOND / 30);
      gst_buffer_unref(out);
      ++compared;
    }
    GstCaps* caps = gst_pad_get_current_caps(hs->sinkpad);
    ASSERT_NE(caps, nullptr);
    GstVideoInfo info;
    ASSERT_TRUE(gst_video_info_from_caps(&info, caps));
    EXPECT_EQ(GST_VIDEO_INFO_FORMAT(&info), GST_VIDEO_FORMAT_GRAY8);
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&info), w);
    gst_caps_unref(caps);
    gst_harness_teardown(hs);
  }
  EXPECT_EQ(compared, 11 * frames);
}

// output=frame: the frame passes unchanged with the foreground meta (mask in system memory,
// fraction, warming-up) and the boxes; metadata from upstream is kept.
TEST_F(BgSubElement, FrameOutputCarriesForegroundMetaAndKeepsOtherMeta) {
  const int w = 64, h = 48, frames = 24;
  const Sequence seq(w, h, frames, 10, 9);
  const Expected e = library_run(seq, GST_VIDEO_FORMAT_RGBA, frames, small_params(Kernel::kExact));
  GstHarness* hs =
      harness(small_props(Kernel::kExact) + " output=frame", GST_VIDEO_FORMAT_RGBA, w, h);
  int with_blobs = 0;
  for (int t = 0; t < frames; ++t) {
    GstBuffer* in = seq.buffer(t, GST_VIDEO_FORMAT_RGBA);
    gst_buffer_add_video_region_of_interest_meta(in, "person", 1, 2, 3, 4)->id = 1000;
    GstBuffer* ref = gst_buffer_copy_deep(in);
    ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(hs);
    ASSERT_NE(out, nullptr);
    GstMapInfo a, b;
    ASSERT_TRUE(gst_buffer_map(out, &a, GST_MAP_READ));
    ASSERT_TRUE(gst_buffer_map(ref, &b, GST_MAP_READ));
    ASSERT_EQ(a.size, b.size);
    EXPECT_EQ(0, memcmp(a.data, b.data, a.size)) << "the frame must pass unchanged";
    gst_buffer_unmap(out, &a);
    gst_buffer_unmap(ref, &b);
    gst_buffer_unref(ref);
    GstVideoRegionOfInterestMeta* person =
        gst_buffer_get_video_region_of_interest_meta_id(out, 1000);
    ASSERT_NE(person, nullptr);
    EXPECT_STREQ(g_quark_to_string(person->roi_type), "person");
    GstCustomMeta* m = gst_buffer_get_cvis_foreground_meta(out);
    ASSERT_NE(m, nullptr) << t;
    GstCvisForegroundInfo fi;
    ASSERT_TRUE(gst_cvis_foreground_meta_get(m, &fi));
    EXPECT_EQ(fi.width, w);
    EXPECT_EQ(fi.height, h);
    EXPECT_FALSE(fi.cuda_memory);
    EXPECT_EQ(read_mask(fi.mask, w, h), e.masks[t]) << t;
    EXPECT_DOUBLE_EQ(fi.fraction, e.results[t].foreground_fraction);
    gboolean warming = FALSE;
    EXPECT_TRUE(
        gst_structure_get_boolean(gst_custom_meta_get_structure(m), "warming-up", &warming));
    EXPECT_EQ(static_cast<bool>(warming), t < 8) << t;
    const auto blobs = read_blobs(out);
    EXPECT_EQ(blobs, limit_blobs(e.results[t].blobs, 64)) << t;
    EXPECT_EQ(fi.blobs, blobs.size());
    with_blobs += !blobs.empty();
    gst_buffer_unref(out);
  }
  EXPECT_GT(with_blobs, 5) << "the sequence's objects must be found";
  gst_harness_teardown(hs);
}

TEST_F(BgSubElement, MaxBlobsKeepsTheLargest) {
  const int w = 64, h = 48, frames = 20;
  const Sequence seq(w, h, frames, 9, 21);
  const Expected e = library_run(seq, GST_VIDEO_FORMAT_RGB, frames, small_params(Kernel::kFast));
  GstHarness* hs = harness(small_props(Kernel::kFast) + " max-blobs=1", GST_VIDEO_FORMAT_RGB, w, h);
  for (int t = 0; t < frames; ++t) {
    ASSERT_EQ(gst_harness_push(hs, seq.buffer(t, GST_VIDEO_FORMAT_RGB)), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(hs);
    EXPECT_EQ(read_blobs(out), limit_blobs(e.results[t].blobs, 1)) << t;
    gst_buffer_unref(out);
  }
  gst_harness_teardown(hs);
}

// A flush, a caps change and READY->PAUSED each restart the warm-up.
// min-blob-area 0 (the default) is 1/3000 of the frame (cvis::ccl::auto_min_area): 57 pixels at
// 480x360. Two squares appear on a still, noisy background after the warm-up: 6x6 (36 pixels)
// and 12x12 (144). The default boxes only the larger; min-blob-area=25 boxes both.
TEST_F(BgSubElement, DefaultMinBlobAreaIsRelativeToTheFrame) {
  const int w = 480, h = 360, frames = 14;
  ASSERT_EQ(cvis::ccl::auto_min_area(w, h), 57u);
  ASSERT_EQ(cvis::ccl::auto_min_area(1920, 1080), 691u);
  ASSERT_EQ(cvis::ccl::auto_min_area(64, 48), 25u);
  auto frame = [&](int t) {
    GstBuffer* buf = gst_buffer_new_allocate(nullptr, static_cast<gsize>(w) * h * 4, nullptr);
    GstMapInfo m;
    gst_buffer_map(buf, &m, GST_MAP_WRITE);
    uint32_t state = 12345u + static_cast<uint32_t>(t) * 7919u; // per-frame sensor noise, +-1
    for (int i = 0; i < w * h; ++i) {
      state = state * 1664525u + 1013904223u;
      const uint8_t v = static_cast<uint8_t>(100 + static_cast<int>(state >> 30) - 1);
      m.data[4 * i] = m.data[4 * i + 1] = m.data[4 * i + 2] = v;
      m.data[4 * i + 3] = 255;
    }
    auto square = [&](int x0, int y0, int side, uint8_t v) {
      for (int y = y0; y < y0 + side; ++y)
        for (int x = x0; x < x0 + side; ++x)
          for (int c = 0; c < 3; ++c)
            m.data[4 * (y * w + x) + c] = v;
    };
    if (t >= 10) {
      square(50, 50, 6, 230);
      square(200, 150, 12, 20);
    }
    gst_buffer_unmap(buf, &m);
    return buf;
  };
  GstHarness* hd =
      harness(small_props(Kernel::kFast) + " output=frame", GST_VIDEO_FORMAT_RGBA, w, h);
  GstHarness* hf = harness(small_props(Kernel::kFast) + " output=frame min-blob-area=25",
                           GST_VIDEO_FORMAT_RGBA, w, h);
  // The persistence filter at 0.5: an object's first frame is not output, from its second on
  // it is (the squares stay).
  GstHarness* hp = harness(small_props(Kernel::kFast) + " output=frame persistence=0.5",
                           GST_VIDEO_FORMAT_RGBA, w, h);
  guint area = 1;
  g_object_get(gst_harness_find_element(hd, "cudabgsub"), "min-blob-area", &area, nullptr);
  EXPECT_EQ(area, 0u);
  gfloat persistence = 0.f;
  g_object_get(gst_harness_find_element(hp, "cudabgsub"), "persistence", &persistence, nullptr);
  EXPECT_EQ(persistence, 0.5f);
  for (int t = 0; t < frames; ++t) {
    ASSERT_EQ(gst_harness_push(hd, frame(t)), GST_FLOW_OK);
    ASSERT_EQ(gst_harness_push(hf, frame(t)), GST_FLOW_OK);
    ASSERT_EQ(gst_harness_push(hp, frame(t)), GST_FLOW_OK);
    GstBuffer* a = gst_harness_pull(hd);
    GstBuffer* b = gst_harness_pull(hf);
    GstBuffer* c = gst_harness_pull(hp);
    std::vector<int> da, db, dc;
    for (const auto& blob : read_blobs(a))
      da.push_back(blob.area);
    for (const auto& blob : read_blobs(b))
      db.push_back(blob.area);
    for (const auto& blob : read_blobs(c))
      dc.push_back(blob.area);
    if (t < 10) {
      EXPECT_TRUE(da.empty() && db.empty() && dc.empty()) << t;
    } else {
      EXPECT_EQ(da, std::vector<int>({144})) << t;
      EXPECT_EQ(db, std::vector<int>({36, 144})) << t;
      EXPECT_EQ(dc, t == 10 ? std::vector<int>() : std::vector<int>({144})) << t;
    }
    gst_buffer_unref(a);
    gst_buffer_unref(b);
    gst_buffer_unref(c);
  }
  gst_harness_teardown(hd);
  gst_harness_teardown(hf);
  gst_harness_teardown(hp);
}

TEST_F(BgSubElement, FlushCapsChangeAndReadyResetTheModel) {
  const int w = 40, h = 30;
  const Sequence seq(w, h, 40, 100, 3); // no objects: only warm-up state matters here
  GstHarness* hs = harness("num-samples=8 output=frame", GST_VIDEO_FORMAT_RGBA, w, h);
  GstVideoFormat fmt = GST_VIDEO_FORMAT_RGBA;
  auto warming = [&](int t) {
    EXPECT_EQ(gst_harness_push(hs, seq.buffer(t, fmt)), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(hs);
    gboolean wu = FALSE;
    GstCustomMeta* m = out ? gst_buffer_get_cvis_foreground_meta(out) : nullptr;
    EXPECT_TRUE(m &&
                gst_structure_get_boolean(gst_custom_meta_get_structure(m), "warming-up", &wu));
    if (out)
      gst_buffer_unref(out);
    return static_cast<bool>(wu);
  };
  for (int t = 0; t < 8; ++t)
    EXPECT_TRUE(warming(t));
  EXPECT_FALSE(warming(8));
  gst_harness_push_event(hs, gst_event_new_flush_start());
  gst_harness_push_event(hs, gst_event_new_flush_stop(TRUE));
  gst_harness_push_event(hs, gst_event_new_segment([] {
                           static GstSegment s;
                           gst_segment_init(&s, GST_FORMAT_TIME);
                           return &s;
                         }()));
  EXPECT_TRUE(warming(9));
  for (int t = 10; t < 17; ++t)
    warming(t);
  EXPECT_FALSE(warming(17));
  fmt = GST_VIDEO_FORMAT_BGRx;
  gst_harness_set_src_caps_str(hs, caps_string(fmt, w, h).c_str());
  EXPECT_TRUE(warming(18));
  fmt = GST_VIDEO_FORMAT_RGBA;
  gst_harness_teardown(hs);
  // READY -> PAUSED in a fresh pipeline run: the element starts from an empty model.
  hs = harness("num-samples=8 output=frame", GST_VIDEO_FORMAT_RGBA, w, h);
  for (int t = 0; t < 9; ++t)
    warming(t);
  gst_element_set_state(hs->element, GST_STATE_READY);
  gst_harness_play(hs);
  gst_harness_set_src_caps_str(hs, caps_string(GST_VIDEO_FORMAT_RGBA, w, h).c_str());
  EXPECT_TRUE(warming(9));
  gst_harness_teardown(hs);
}

TEST_F(BgSubElement, PropertiesChangeWhilePlaying) {
  const int w = 48, h = 36, frames = 20;
  const Sequence seq(w, h, frames, 10, 13);
  GstHarness* hs = harness(small_props(Kernel::kFast), GST_VIDEO_FORMAT_RGBA, w, h);
  for (int t = 0; t < 12; ++t) {
    ASSERT_EQ(gst_harness_push(hs, seq.buffer(t, GST_VIDEO_FORMAT_RGBA)), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(hs));
  }
  // Kernel, threshold and clean-up apply from the next frame without a reset; a new number of
  // samples restarts the warm-up (its masks are all background).
  GstElement* e = gst_harness_find_element(hs, "cudabgsub");
  ASSERT_NE(e, nullptr);
  gst_util_set_object_arg(G_OBJECT(e), "kernel", "cpwl-texture");
  g_object_set(e, "threshold", 1e-5, nullptr);
  ASSERT_EQ(gst_harness_push(hs, seq.buffer(12, GST_VIDEO_FORMAT_RGBA)), GST_FLOW_OK);
  GstBuffer* out = gst_harness_pull(hs);
  const auto m = read_mask(out, w, h);
  EXPECT_GT(std::count(m.begin(), m.end(), 255), 0);
  gst_buffer_unref(out);
  g_object_set(e, "num-samples", 6, nullptr);
  gst_object_unref(e);
  ASSERT_EQ(gst_harness_push(hs, seq.buffer(13, GST_VIDEO_FORMAT_RGBA)), GST_FLOW_OK);
  out = gst_harness_pull(hs);
  const auto z = read_mask(out, w, h);
  EXPECT_EQ(std::count(z.begin(), z.end(), 0), w * h);
  gst_buffer_unref(out);
  gst_harness_teardown(hs);
}

TEST_F(BgSubElement, DownstreamConverterGetsSystemMemoryGray8) {
  GstHarness* hs = gst_harness_new_parse("cudabgsub backend=cpu num-samples=4 ! videoconvert");
  gst_harness_set_src_caps_str(hs, caps_string(GST_VIDEO_FORMAT_NV12, 50, 40).c_str());
  gst_harness_set_sink_caps_str(hs, "video/x-raw,format=RGBA");
  const Sequence seq(50, 40, 6, 100, 4);
  for (int t = 0; t < 6; ++t) {
    // NV12 frames: the library reads them through the colour matrix; any content works here.
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, 50, 40);
    GstBuffer* b = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    gst_buffer_memset(b, 0, static_cast<guint8>(16 + 20 * t), GST_VIDEO_INFO_SIZE(&info));
    ASSERT_EQ(gst_harness_push(hs, b), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(hs);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(gst_buffer_get_size(out), 50u * 40 * 4);
    gst_buffer_unref(out);
  }
  gst_harness_teardown(hs);
}

// backend=cuda on a machine without a usable GPU: a clear element error, no crash.
TEST_F(BgSubElement, CudaBackendWithoutGpuIsAnElementError) {
  if (cvis::test::gpu_available())
    GTEST_SKIP() << "a GPU is present";
  GstElement* pipe =
      gst_parse_launch("videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=32,height=24 ! "
                       "cudabgsub backend=cuda ! fakesink",
                       nullptr);
  ASSERT_NE(pipe, nullptr);
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipe);
  GstMessage* msg = gst_bus_timed_pop_filtered(
      bus, 20 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  ASSERT_NE(msg, nullptr);
  EXPECT_EQ(GST_MESSAGE_TYPE(msg), GST_MESSAGE_ERROR);
  GError* err = nullptr;
  gst_message_parse_error(msg, &err, nullptr);
  EXPECT_TRUE(err && g_error_matches(err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND))
      << (err ? err->message : "");
  g_clear_error(&err);
  gst_message_unref(msg);
  gst_object_unref(bus);
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(pipe);
}

} // namespace

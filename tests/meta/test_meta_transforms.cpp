// The metas' tags and transforms as GStreamer's elements use them: scalers rescale CEDD boxes and
// drop foreground masks of another size; colour conversion keeps both; metadata-only copies keep
// both. Runs videoscale / videoconvert (gst-plugins-base) through GstHarness.
#include <gst/check/gstharness.h>
#include <gst/cvis/cvis.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace {

class MetaTransforms : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

bool has_tag(GType api, const char* tag) {
  return gst_meta_api_type_has_tag(api, g_quark_from_string(tag));
}

// An RGBA frame carrying a CEDD meta (the frame and two ROIs) and a foreground meta.
GstBuffer* frame_with_metas(int w, int h, GstBuffer** mask_out) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, w, h);
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  gst_buffer_memset(buf, 0, 0x40, GST_VIDEO_INFO_SIZE(&info));
  GST_BUFFER_PTS(buf) = 0;
  GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
  const GstCvisCeddRegion regs[3] = {
      {GST_CVIS_CEDD_FRAME_ID, 0, 0, w, h}, {4, 10, 20, 30, 14}, {7, 33, 1, 31, 47}};
  std::mt19937 rng(11);
  std::vector<guint8> levels(3 * GST_CVIS_CEDD_BINS);
  for (auto& v : levels)
    v = static_cast<guint8>(rng() % 8);
  EXPECT_NE(gst_buffer_add_cvis_cedd_meta(buf, 3, regs, levels.data()), nullptr);
  GstBuffer* mask = gst_buffer_new_allocate(nullptr, static_cast<gsize>(w) * h, nullptr);
  EXPECT_NE(gst_buffer_add_cvis_foreground_meta(buf, mask, w, h, w, 0.5, FALSE, 0), nullptr);
  *mask_out = mask;
  return buf;
}

std::string caps(const char* format, int w, int h) {
  return std::string("video/x-raw,format=") + format + ",width=" + std::to_string(w) +
         ",height=" + std::to_string(h) + ",framerate=30/1";
}

TEST_F(MetaTransforms, CustomMetasAreTaggedAsVideoGeometry) {
  for (const GstMetaInfo* info :
       {gst_cvis_cedd_meta_get_info(), gst_cvis_foreground_meta_get_info()}) {
    EXPECT_TRUE(has_tag(info->api, GST_META_TAG_VIDEO_STR)) << g_type_name(info->api);
    EXPECT_TRUE(has_tag(info->api, GST_META_TAG_VIDEO_SIZE_STR)) << g_type_name(info->api);
    EXPECT_TRUE(has_tag(info->api, GST_META_TAG_VIDEO_ORIENTATION_STR)) << g_type_name(info->api);
    EXPECT_FALSE(has_tag(info->api, GST_META_TAG_VIDEO_COLORSPACE_STR)) << g_type_name(info->api);
  }
}

TEST_F(MetaTransforms, ScalerRescalesCeddBoxesAndDropsTheForegroundMask) {
  GstHarness* hs = gst_harness_new("videoscale");
  gst_harness_set_src_caps_str(hs, caps("RGBA", 64, 48).c_str());
  gst_harness_set_sink_caps_str(hs, caps("RGBA", 32, 24).c_str());
  GstBuffer* mask = nullptr;
  ASSERT_EQ(gst_harness_push(hs, frame_with_metas(64, 48, &mask)), GST_FLOW_OK);
  GstBuffer* out = gst_harness_pull(hs);
  ASSERT_NE(out, nullptr);
  GstCustomMeta* cedd = gst_buffer_get_cvis_cedd_meta(out);
  ASSERT_NE(cedd, nullptr);
  ASSERT_EQ(gst_cvis_cedd_meta_get_count(cedd), 3u);
  GstCvisCeddEntry e;
  ASSERT_TRUE(gst_cvis_cedd_meta_find(cedd, GST_CVIS_CEDD_FRAME_ID, &e));
  EXPECT_EQ(e.width, 32);
  EXPECT_EQ(e.height, 24);
  ASSERT_TRUE(gst_cvis_cedd_meta_find(cedd, 4, &e));
  EXPECT_EQ(e.x, 5);
  EXPECT_EQ(e.y, 10);
  EXPECT_EQ(e.width, 15);
  EXPECT_EQ(e.height, 7);
  ASSERT_TRUE(gst_cvis_cedd_meta_find(cedd, 7, &e));
  EXPECT_EQ(e.x, 16); // floor(33 / 2)
  EXPECT_EQ(e.y, 0);
  EXPECT_EQ(e.width, 15);
  EXPECT_EQ(e.height, 23);
  // A 64x48 mask does not describe a 32x24 frame.
  EXPECT_EQ(gst_buffer_get_cvis_foreground_meta(out), nullptr);
  gst_buffer_unref(out);
  gst_buffer_unref(mask);
  gst_harness_teardown(hs);
}

TEST_F(MetaTransforms, ColourConversionKeepsBothMetas) {
  GstHarness* hs = gst_harness_new("videoconvert");
  gst_harness_set_src_caps_str(hs, caps("RGBA", 64, 48).c_str());
  gst_harness_set_sink_caps_str(hs, caps("I420", 64, 48).c_str());
  GstBuffer* mask = nullptr;
  ASSERT_EQ(gst_harness_push(hs, frame_with_metas(64, 48, &mask)), GST_FLOW_OK);
  GstBuffer* out = gst_harness_pull(hs);
  ASSERT_NE(out, nullptr);
  GstCustomMeta* cedd = gst_buffer_get_cvis_cedd_meta(out);
  ASSERT_NE(cedd, nullptr);
  GstCvisCeddEntry e;
  ASSERT_TRUE(gst_cvis_cedd_meta_find(cedd, 4, &e));
  EXPECT_EQ(e.x, 10);
  EXPECT_EQ(e.width, 30);
  GstCustomMeta* fg = gst_buffer_get_cvis_foreground_meta(out);
  ASSERT_NE(fg, nullptr);
  GstCvisForegroundInfo fi;
  ASSERT_TRUE(gst_cvis_foreground_meta_get(fg, &fi));
  EXPECT_EQ(fi.mask, mask);
  EXPECT_EQ(fi.width, 64);
  gst_buffer_unref(out);
  gst_buffer_unref(mask);
  gst_harness_teardown(hs);
}

TEST_F(MetaTransforms, PartialCopyDropsTheMaskWholeCopyKeepsIt) {
  GstBuffer* mask = nullptr;
  GstBuffer* buf = frame_with_metas(16, 8, &mask);
  GstBuffer* whole = gst_buffer_copy(buf);
  EXPECT_NE(gst_buffer_get_cvis_foreground_meta(whole), nullptr);
  EXPECT_NE(gst_buffer_get_cvis_cedd_meta(whole), nullptr);
  GstBuffer* part = gst_buffer_copy_region(buf, GST_BUFFER_COPY_ALL, 0, 64);
  EXPECT_EQ(gst_buffer_get_cvis_foreground_meta(part), nullptr);
  gst_buffer_unref(part);
  gst_buffer_unref(whole);
  gst_buffer_unref(buf);
  gst_buffer_unref(mask);
}

} // namespace

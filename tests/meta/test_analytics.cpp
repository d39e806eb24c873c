// GStreamer >= 1.24 builds only (cpu suite): the ROI -> GstAnalyticsRelationMeta bridge.
// The converter alone (detections, tracks with their tracking mtd, relations to the blobs inside
// a track, `first`), and the analytics-meta property of an element (cudabgsub, CPU backend): one
// detection per foreground box, none without the property.
#include <gst/check/gstharness.h>
#include <gst/cvis/cvis.h>
#include <gst/cvis/cvisanalytics.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <vector>

namespace {

struct Od {
  guint id;
  std::string type;
  gint x, y, w, h;
  gfloat conf;
};

std::vector<Od> detections(GstBuffer* buf) {
  std::vector<Od> out;
  GstAnalyticsRelationMeta* rm = gst_buffer_get_analytics_relation_meta(buf);
  if (!rm)
    return out;
  gpointer state = nullptr;
  GstAnalyticsODMtd od;
  while (
      gst_analytics_relation_meta_iterate(rm, &state, gst_analytics_od_mtd_get_mtd_type(), &od)) {
    Od o{od.id, g_quark_to_string(gst_analytics_od_mtd_get_obj_type(&od)), 0, 0, 0, 0, 0};
    EXPECT_TRUE(gst_analytics_od_mtd_get_location(&od, &o.x, &o.y, &o.w, &o.h, &o.conf));
    out.push_back(o);
  }
  return out;
}

class Analytics : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

TEST_F(Analytics, DetectionsTracksRelations) {
  GstBuffer* buf = gst_buffer_new();
  GST_BUFFER_PTS(buf) = GST_SECOND;
  GST_BUFFER_DURATION(buf) = 40 * GST_MSECOND;
  gst_buffer_add_cvis_foreground_box(buf, 10, 10, 20, 40, 0, 500);  // centre 20,30: in the track
  gst_buffer_add_cvis_foreground_box(buf, 200, 10, 20, 20, 1, 300); // centre 210,20: outside
  GstVideoRegionOfInterestMeta* t =
      gst_buffer_add_video_region_of_interest_meta(buf, "track", 5, 5, 40, 60);
  t->id = 3;
  gst_video_region_of_interest_meta_add_param(
      t, gst_structure_new("track", "id", G_TYPE_INT, 17, "age", G_TYPE_UINT, 5u, "lost",
                           G_TYPE_BOOLEAN, TRUE, "distance", G_TYPE_DOUBLE, 0.5, NULL));
  GstVideoRegionOfInterestMeta* d =
      gst_buffer_add_video_region_of_interest_meta(buf, "person", 100, 100, 10, 30);
  gst_video_region_of_interest_meta_add_param(
      d, gst_structure_new("detection", "score", G_TYPE_DOUBLE, 0.25, NULL));

  EXPECT_EQ(gst_cvis_analytics_add_rois(buf, 0), 4u);
  std::vector<Od> ods = detections(buf);
  ASSERT_EQ(ods.size(), 4u);
  EXPECT_EQ(ods[0].type, "foreground");
  EXPECT_EQ((std::vector<gint>{ods[0].x, ods[0].y, ods[0].w, ods[0].h}),
            (std::vector<gint>{10, 10, 20, 40}));
  EXPECT_FLOAT_EQ(ods[0].conf, 1.0f);
  EXPECT_EQ(ods[2].type, "track");
  EXPECT_EQ(ods[3].type, "person");
  EXPECT_FLOAT_EQ(ods[3].conf, 0.25f);

  GstAnalyticsRelationMeta* rm = gst_buffer_get_analytics_relation_meta(buf);
  gpointer state = nullptr;
  GstAnalyticsTrackingMtd trk;
  ASSERT_TRUE(gst_analytics_relation_meta_iterate(rm, &state,
                                                  gst_analytics_tracking_mtd_get_mtd_type(), &trk));
  guint64 id = 0;
  GstClockTime first = 0, last = 0;
  gboolean lost = FALSE;
  ASSERT_TRUE(gst_analytics_tracking_mtd_get_info(&trk, &id, &first, &last, &lost));
  EXPECT_EQ(id, 17u);
  EXPECT_EQ(first, GST_SECOND - 5 * 40 * GST_MSECOND);
  EXPECT_EQ(last, GST_SECOND);
  EXPECT_TRUE(lost);
  GstAnalyticsTrackingMtd another;  // the iteration may write its handle argument
  EXPECT_FALSE(gst_analytics_relation_meta_iterate(
      rm, &state, gst_analytics_tracking_mtd_get_mtd_type(), &another))
      << "one track, one tracking mtd";

  const guint blob0 = ods[0].id, blob1 = ods[1].id, track = ods[2].id;
  EXPECT_EQ(gst_analytics_relation_meta_get_relation(rm, track, trk.id),
            GST_ANALYTICS_REL_TYPE_RELATE_TO);
  EXPECT_EQ(gst_analytics_relation_meta_get_relation(rm, trk.id, track),
            GST_ANALYTICS_REL_TYPE_RELATE_TO);
  EXPECT_EQ(gst_analytics_relation_meta_get_relation(rm, track, blob0),
            GST_ANALYTICS_REL_TYPE_CONTAIN);
  EXPECT_EQ(gst_analytics_relation_meta_get_relation(rm, blob0, track),
            GST_ANALYTICS_REL_TYPE_IS_PART_OF);
  EXPECT_EQ(gst_analytics_relation_meta_get_relation(rm, track, blob1),
            GST_ANALYTICS_REL_TYPE_NONE);

  // `first`: only the ROIs attached after the first N (what one element added).
  GstBuffer* b2 = gst_buffer_new();
  gst_buffer_add_cvis_foreground_box(b2, 1, 1, 2, 2, 0, 4);
  gst_buffer_add_cvis_foreground_box(b2, 5, 5, 2, 2, 1, 4);
  EXPECT_EQ(gst_cvis_analytics_add_rois(b2, 1), 1u);
  ods = detections(b2);
  ASSERT_EQ(ods.size(), 1u);
  EXPECT_EQ(ods[0].x, 5);
  gst_buffer_unref(b2);
  gst_buffer_unref(buf);
}

// cudabgsub output=frame with analytics-meta: a detection for each foreground box, same boxes.
TEST_F(Analytics, ElementProperty) {
  for (bool on : {true, false}) {
    GstHarness* hs = gst_harness_new_parse(
        on ? "cudabgsub backend=cpu output=frame num-samples=4 analytics-meta=true"
           : "cudabgsub backend=cpu output=frame num-samples=4");
    gst_harness_set_src_caps_str(hs, "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1");
    int boxes = 0;
    for (int i = 0; i < 12; ++i) {
      GstBuffer* in = gst_buffer_new_allocate(nullptr, 64 * 48 * 4, nullptr);
      gst_buffer_memset(in, 0, 30, 64 * 48 * 4);
      GstMapInfo m;
      gst_buffer_map(in, &m, GST_MAP_WRITE);
      for (int y = 10; y < 30; ++y)
        for (int x = 0; x < 12; ++x)
          memset(m.data + (y * 64 + (x + 4 * i) % 64) * 4, 250, 3);
      gst_buffer_unmap(in, &m);
      GstBuffer* out = gst_harness_push_and_pull(hs, in);
      ASSERT_NE(out, nullptr);
      std::vector<Od> ods = detections(out);
      GList* rois = gst_cvis_buffer_list_rois(out, "foreground");
      if (on) {
        ASSERT_EQ(ods.size(), g_list_length(rois)) << "frame " << i;
        size_t k = 0;
        for (GList* l = rois; l; l = l->next, ++k) {
          const GstStructure* s = static_cast<const GstStructure*>(l->data);
          guint x, y, w, h;
          gst_structure_get_uint(s, "x", &x);
          gst_structure_get_uint(s, "y", &y);
          gst_structure_get_uint(s, "width", &w);
          gst_structure_get_uint(s, "height", &h);
          EXPECT_EQ((std::vector<gint>{ods[k].x, ods[k].y, ods[k].w, ods[k].h}),
                    (std::vector<gint>{(gint)x, (gint)y, (gint)w, (gint)h}));
          EXPECT_EQ(ods[k].type, "foreground");
        }
      } else {
        EXPECT_EQ(gst_buffer_get_analytics_relation_meta(out), nullptr);
      }
      boxes += g_list_length(rois);
      g_list_free_full(rois, (GDestroyNotify)gst_structure_free);
      gst_buffer_unref(out);
    }
    EXPECT_GT(boxes, 0) << "the moving square was never segmented";
    gst_harness_teardown(hs);
  }
}

} // namespace

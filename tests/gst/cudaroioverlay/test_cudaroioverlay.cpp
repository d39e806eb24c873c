// cudaroioverlay (cpu suite, system memory): the element draws what the overlay library draws for
// the scene its metadata describes (boxes of every ROI, labels composed from the param
// structures, documented colours, trails of tracks, the foreground mask); types / labels / mask
// properties; metadata passes unchanged; a shared input buffer is not modified; flush and
// READY reset the trails; every system-memory format; properties round-trip and bad values are
// refused.
#include "overlay_elem_util.hpp"

using namespace overlay_test;
using cvis::overlay::Box;
using cvis::overlay::Params;
using cvis::overlay::Polyline;
using cvis::overlay::Scene;

namespace {

class RoiOverlay : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    gst_init(nullptr, nullptr);
    const gchar* tags[] = {nullptr};
    gst_meta_register_custom("CvisTestMeta", tags, copy_test_meta, nullptr, nullptr);
  }

  // An untagged meta of no element's: copied with the buffer.
  static gboolean copy_test_meta(GstBuffer* dest, GstCustomMeta* meta, GstBuffer*, GQuark type,
                                 gpointer, gpointer) {
    if (!GST_META_TRANSFORM_IS_COPY(type))
      return FALSE;
    GstCustomMeta* out = gst_buffer_add_custom_meta(dest, "CvisTestMeta");
    gint v = 0;
    gst_structure_get_int(gst_custom_meta_get_structure(meta), "v", &v);
    gst_structure_set(gst_custom_meta_get_structure(out), "v", G_TYPE_INT, v, NULL);
    return TRUE;
  }

  GstHarness* harness(const std::string& props, GstVideoFormat f, int w, int h) {
    GstHarness* hs = gst_harness_new_parse(("cudaroioverlay backend=cpu " + props).c_str());
    gst_harness_set_src_caps_str(hs, caps_string(f, w, h).c_str());
    return hs;
  }

  // The element inside the harness's bin (a reference the harness keeps; do not unref).
  static GstElement* overlay(GstHarness* hs) {
    GstElement* e = gst_harness_find_element(hs, "cudaroioverlay");
    gst_object_unref(e);
    return e;
  }

  // Pushes `in` (the reference is taken) and returns the output (owned by the caller).
  static GstBuffer* push_pull(GstHarness* hs, GstBuffer* in) {
    EXPECT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
    return gst_harness_pull(hs);
  }
};

GstVideoRegionOfInterestMeta* add_track(GstBuffer* b, int id, int x, int y, int w, int h,
                                        double distance) {
  GstVideoRegionOfInterestMeta* roi =
      gst_buffer_add_video_region_of_interest_meta(b, "track", x, y, w, h);
  roi->id = id;
  gst_video_region_of_interest_meta_add_param(
      roi, gst_structure_new("track", "id", G_TYPE_INT, id, "distance", G_TYPE_DOUBLE, distance,
                             "scale", G_TYPE_DOUBLE, 1.0, "lost", G_TYPE_BOOLEAN, FALSE, "age",
                             G_TYPE_UINT, 3u, NULL));
  return roi;
}

// Boxes, labels and colours as documented: foreground blobs "foreground <id> <area>px" in green,
// a detection "<label> <id> <score>" coloured by its roi_type, a lost track "track <id> d<dist>
// lost" coloured by id.
TEST_F(RoiOverlay, DrawsWhatTheMetadataDescribes) {
  const int W = 161, H = 121;
  GstHarness* hs = harness("", GST_VIDEO_FORMAT_RGBA, W, H);
  GstBuffer* in = make_frame(GST_VIDEO_FORMAT_RGBA, W, H, 1);
  gst_buffer_add_cvis_foreground_box(in, 10, 30, 40, 30, 3, 812);
  GstVideoRegionOfInterestMeta* det =
      gst_buffer_add_video_region_of_interest_meta(in, "detection", 90, 60, 50, 40);
  det->id = 7;
  gst_video_region_of_interest_meta_add_param(det, gst_structure_new("detection", "label",
                                                                     G_TYPE_STRING, "car", "score",
                                                                     G_TYPE_DOUBLE, 0.87, NULL));
  GstVideoRegionOfInterestMeta* trk =
      gst_buffer_add_video_region_of_interest_meta(in, "track", 60, 20, 20, 20);
  trk->id = 2;
  gst_video_region_of_interest_meta_add_param(
      trk, gst_structure_new("track", "id", G_TYPE_UINT, 14u, "distance", G_TYPE_DOUBLE, 1.5,
                             "lost", G_TYPE_BOOLEAN, TRUE, NULL));
  Scene sc;
  sc.boxes = {Box{10, 30, 40, 30, color_of_type("foreground"), "fg 3 812px"},
              Box{90, 60, 50, 40, color_of_type("detection"), "car 7 0.87"},
              Box{60, 20, 20, 20, color_of_id(14), "track 14 d1.50 lost"}};
  GstBuffer* want = expected_frame(in, GST_VIDEO_FORMAT_RGBA, W, H, sc, Params());
  GstBuffer* out = push_pull(hs, in);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(frame_difference(out, want, GST_VIDEO_FORMAT_RGBA, W, H), "");
  gst_buffer_unref(out);
  gst_buffer_unref(want);
  gst_harness_teardown(hs);
}

TEST_F(RoiOverlay, TypesLabelsLineWidthFontScaleColorBy) {
  const int W = 200, H = 150;
  GstHarness* hs = harness("types=\"detection, car\" labels=false line-width=5 color-by=id",
                           GST_VIDEO_FORMAT_BGRx, W, H);
  GstBuffer* in = make_frame(GST_VIDEO_FORMAT_BGRx, W, H, 2);
  gst_buffer_add_cvis_foreground_box(in, 10, 30, 40, 30, 0, 100); // not in types: not drawn
  gst_buffer_add_video_region_of_interest_meta(in, "car", 100, 50, 60, 60)->id = 4;
  gst_buffer_add_video_region_of_interest_meta(in, "detection", 20, 90, 30, 30)->id = 9;
  Scene sc;
  sc.boxes = {Box{100, 50, 60, 60, color_of_id(4), ""}, Box{20, 90, 30, 30, color_of_id(9), ""}};
  Params p;
  p.line_width = 5;
  GstBuffer* want = expected_frame(in, GST_VIDEO_FORMAT_BGRx, W, H, sc, p);
  GstBuffer* out = push_pull(hs, in);
  EXPECT_EQ(frame_difference(out, want, GST_VIDEO_FORMAT_BGRx, W, H), "");
  gst_buffer_unref(out);
  gst_buffer_unref(want);

  // Labels back on, font scale 3, colour by type; changed while playing.
  g_object_set(overlay(hs), "labels", TRUE, "font-scale", 3u, "color-by", 1, "types", NULL, NULL);
  in = make_frame(GST_VIDEO_FORMAT_BGRx, W, H, 3);
  gst_buffer_add_video_region_of_interest_meta(in, "car", 100, 80, 60, 60)->id = 4;
  sc.boxes = {Box{100, 80, 60, 60, color_of_type("car"), "car 4"}};
  p.font_scale = 3;
  want = expected_frame(in, GST_VIDEO_FORMAT_BGRx, W, H, sc, p);
  out = push_pull(hs, in);
  EXPECT_EQ(frame_difference(out, want, GST_VIDEO_FORMAT_BGRx, W, H), "");
  gst_buffer_unref(out);
  gst_buffer_unref(want);
  gst_harness_teardown(hs);
}

// The foreground meta's mask is tinted (mask-color's alpha is the strength); mask=false, alpha 0
// or a mask of another size leave the pixels alone without an error.
TEST_F(RoiOverlay, ForegroundMaskTint) {
  const int W = 64, H = 48;
  for (GstVideoFormat f : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420}) {
    GstHarness* hs = harness("mask-color=0x80102030", f, W, H);
    int stride = 0;
    GstBuffer* mask = make_mask(W, H, 5, 7, 41, 30, &stride);
    GstBuffer* in = make_frame(f, W, H, 4);
    gst_buffer_add_cvis_foreground_meta(in, mask, W, H, stride, 0.3, FALSE, 0);
    Params p;
    p.mask_alpha = 0x80;
    p.mask_color = {0x10, 0x20, 0x30};
    GstBuffer* want = expected_frame(in, f, W, H, Scene(), p, mask);
    GstBuffer* out = push_pull(hs, in);
    EXPECT_EQ(frame_difference(out, want, f, W, H), "") << gst_video_format_to_string(f);
    EXPECT_NE(gst_buffer_get_cvis_foreground_meta(out), nullptr);
    gst_buffer_unref(out);
    gst_buffer_unref(want);

    for (const auto& [prop, value] :
         {std::pair{"mask", "false"}, std::pair{"mask-color", "0x00ffffff"}}) {
      g_object_set(overlay(hs), "mask", TRUE, "mask-color", 0x80102030u, NULL);
      gst_util_set_object_arg(G_OBJECT(overlay(hs)), prop, value);
      const std::string off = std::string(prop) + "=" + value;
      in = make_frame(f, W, H, 5);
      gst_buffer_add_cvis_foreground_meta(in, mask, W, H, stride, 0.3, FALSE, 0);
      GstBuffer* copy = gst_buffer_copy_deep(in);
      out = push_pull(hs, in);
      EXPECT_EQ(frame_difference(out, copy, f, W, H), "") << off;
      gst_buffer_unref(out);
      gst_buffer_unref(copy);
    }
    g_object_set(overlay(hs), "mask", TRUE, "mask-color", 0x80102030u, NULL);
    GstBuffer* small = make_mask(W / 2, H, 0, 0, W / 2, H, &stride);
    in = make_frame(f, W, H, 6);
    gst_buffer_add_cvis_foreground_meta(in, small, W / 2, H, stride, 1.0, FALSE, 0);
    GstBuffer* copy = gst_buffer_copy_deep(in);
    out = push_pull(hs, in);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(frame_difference(out, copy, f, W, H), "") << "mask of another size";
    gst_buffer_unref(out);
    gst_buffer_unref(copy);
    gst_buffer_unref(small);
    gst_buffer_unref(mask);
    gst_harness_teardown(hs);
  }
}

// Trails: the centres of a track's boxes over the last frames, in the track's colour; a flush
// and READY forget them.
TEST_F(RoiOverlay, TrailsAndReset) {
  const int W = 120, H = 90;
  GstHarness* hs = harness("trail-length=3", GST_VIDEO_FORMAT_RGB, W, H);
  const int xs[] = {10, 20, 35, 50};
  std::vector<cvis::overlay::Point> centres;
  for (int i = 0; i < 4; ++i) {
    GstBuffer* in = make_frame(GST_VIDEO_FORMAT_RGB, W, H, 10 + i);
    add_track(in, 5, xs[i], 40, 10, 12, 0.25);
    centres.push_back({xs[i] + 5, 46});
    if (centres.size() > 3)
      centres.erase(centres.begin());
    Scene sc;
    if (centres.size() >= 2)
      sc.trails = {Polyline{centres, color_of_id(5)}};
    sc.boxes = {Box{xs[i], 40, 10, 12, color_of_id(5), "track 5 d0.25"}};
    GstBuffer* want = expected_frame(in, GST_VIDEO_FORMAT_RGB, W, H, sc, Params());
    GstBuffer* out = push_pull(hs, in);
    EXPECT_EQ(frame_difference(out, want, GST_VIDEO_FORMAT_RGB, W, H), "") << "frame " << i;
    gst_buffer_unref(out);
    gst_buffer_unref(want);
  }
  // After a flush the next box starts a new trail: no line.
  gst_harness_push_event(hs, gst_event_new_flush_start());
  gst_harness_push_event(hs, gst_event_new_flush_stop(TRUE));
  GstSegment seg;
  gst_segment_init(&seg, GST_FORMAT_TIME);
  gst_harness_push_event(hs, gst_event_new_segment(&seg));
  GstBuffer* in = make_frame(GST_VIDEO_FORMAT_RGB, W, H, 20);
  add_track(in, 5, 80, 40, 10, 12, 0.25);
  Scene sc;
  sc.boxes = {Box{80, 40, 10, 12, color_of_id(5), "track 5 d0.25"}};
  GstBuffer* want = expected_frame(in, GST_VIDEO_FORMAT_RGB, W, H, sc, Params());
  GstBuffer* out = push_pull(hs, in);
  EXPECT_EQ(frame_difference(out, want, GST_VIDEO_FORMAT_RGB, W, H), "") << "after flush";
  gst_buffer_unref(out);
  gst_buffer_unref(want);
  gst_harness_teardown(hs);
}

// A buffer still referenced elsewhere (a tee) is not written: GstBaseTransform hands over a copy,
// whose shared memory the writable map copies. Metadata passes unchanged.
TEST_F(RoiOverlay, SharedInputUntouchedMetadataKept) {
  const int W = 80, H = 60;
  GstHarness* hs = harness("", GST_VIDEO_FORMAT_NV12, W, H);
  GstBuffer* in = make_frame(GST_VIDEO_FORMAT_NV12, W, H, 30);
  gst_buffer_add_cvis_foreground_box(in, 5, 5, 30, 30, 0, 10);
  gst_buffer_add_video_region_of_interest_meta(in, "other", 40, 20, 30, 30);
  GstCustomMeta* unrelated = gst_buffer_add_custom_meta(in, "CvisTestMeta");
  ASSERT_NE(unrelated, nullptr);
  gst_structure_set(gst_custom_meta_get_structure(unrelated), "v", G_TYPE_INT, 42, NULL);
  GstBuffer* original = gst_buffer_copy_deep(in);
  gst_buffer_ref(in); // held elsewhere
  GstBuffer* out = push_pull(hs, in);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(frame_difference(in, original, GST_VIDEO_FORMAT_NV12, W, H), "");
  EXPECT_NE(frame_difference(out, original, GST_VIDEO_FORMAT_NV12, W, H), "");
  guint rois = 0;
  gpointer it = NULL;
  while (gst_buffer_iterate_meta_filtered(out, &it, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
    ++rois;
  EXPECT_EQ(rois, 2u);
  GstCustomMeta* m = gst_buffer_get_custom_meta(out, "CvisTestMeta");
  ASSERT_NE(m, nullptr);
  gint v = 0;
  EXPECT_TRUE(gst_structure_get_int(gst_custom_meta_get_structure(m), "v", &v));
  EXPECT_EQ(v, 42);
  gst_buffer_unref(in);
  gst_buffer_unref(out);
  gst_buffer_unref(original);
  gst_harness_teardown(hs);
}

// Every system-memory format, odd sizes: the library's drawing (font scale from the height).
TEST_F(RoiOverlay, EverySystemFormat) {
  const GstVideoFormat formats[] = {
      GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx,  GST_VIDEO_FORMAT_BGRx,
      GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_ARGB,  GST_VIDEO_FORMAT_ABGR,
      GST_VIDEO_FORMAT_RGB,  GST_VIDEO_FORMAT_BGR,  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12,
      GST_VIDEO_FORMAT_I420};
  const int W = 181, H = 723; // height / 360 = font scale 2
  for (GstVideoFormat f : formats) {
    GstHarness* hs = harness("", f, W, H);
    GstBuffer* in = make_frame(f, W, H, 40);
    gst_buffer_add_cvis_foreground_box(in, 7, 301, 101, 51, 1, 77);
    add_track(in, 3, 120, 600, 40, 100, 0.5);
    Scene sc;
    sc.boxes = {Box{7, 301, 101, 51, color_of_type("foreground"), "fg 1 77px"},
                Box{120, 600, 40, 100, color_of_id(3), "track 3 d0.50"}};
    Params p;
    p.font_scale = 2;
    GstBuffer* want = expected_frame(in, f, W, H, sc, p);
    GstBuffer* out = push_pull(hs, in);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(frame_difference(out, want, f, W, H), "") << gst_video_format_to_string(f);
    gst_buffer_unref(out);
    gst_buffer_unref(want);
    gst_harness_teardown(hs);
  }
}

TEST_F(RoiOverlay, PropertiesRoundTripAndRangesRefused) {
  GstElement* e = gst_element_factory_make("cudaroioverlay", nullptr);
  ASSERT_NE(e, nullptr);
  g_object_set(e, "types", "a,b", "labels", FALSE, "mask", FALSE, "mask-color", 0x11223344u,
               "trails", FALSE, "trail-length", 7u, "line-width", 9u, "font-scale", 4u, NULL);
  gchar* types = nullptr;
  gboolean labels = TRUE, mask = TRUE, trails = TRUE;
  guint color = 0, tl = 0, lw = 0, fs = 0;
  g_object_get(e, "types", &types, "labels", &labels, "mask", &mask, "mask-color", &color, "trails",
               &trails, "trail-length", &tl, "line-width", &lw, "font-scale", &fs, NULL);
  EXPECT_STREQ(types, "a,b");
  EXPECT_FALSE(labels);
  EXPECT_FALSE(mask);
  EXPECT_FALSE(trails);
  EXPECT_EQ(color, 0x11223344u);
  EXPECT_EQ(tl, 7u);
  EXPECT_EQ(lw, 9u);
  EXPECT_EQ(fs, 4u);
  g_free(types);
  // Out of range: GLib warns and keeps the previous value.
  GValue v = G_VALUE_INIT;
  g_value_init(&v, G_TYPE_UINT);
  g_value_set_uint(&v, 0);
  g_object_set_property(G_OBJECT(e), "line-width", &v);
  g_value_set_uint(&v, 65);
  g_object_set_property(G_OBJECT(e), "line-width", &v);
  g_value_set_uint(&v, 1);
  g_object_set_property(G_OBJECT(e), "trail-length", &v);
  g_object_get(e, "line-width", &lw, "trail-length", &tl, NULL);
  EXPECT_EQ(lw, 9u);
  EXPECT_EQ(tl, 7u);
  g_value_unset(&v);
  gst_object_unref(e);
}

// Nothing to draw: the frame passes unchanged (no mapping copy of shared memory needed either).
TEST_F(RoiOverlay, NothingToDrawPassesUnchanged) {
  GstHarness* hs = harness("", GST_VIDEO_FORMAT_I420, 33, 21);
  GstBuffer* in = make_frame(GST_VIDEO_FORMAT_I420, 33, 21, 50);
  GstBuffer* copy = gst_buffer_copy_deep(in);
  GstBuffer* out = push_pull(hs, in);
  EXPECT_EQ(frame_difference(out, copy, GST_VIDEO_FORMAT_I420, 33, 21), "");
  gst_buffer_unref(out);
  gst_buffer_unref(copy);
  gst_harness_teardown(hs);
}

} // namespace

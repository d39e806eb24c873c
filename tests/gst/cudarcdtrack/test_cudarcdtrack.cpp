// cudarcdtrack with backend=cpu (cpu suite): properties, ROI metas (order, fields, upstream metas
// kept behind ours), frames unchanged, action signals, init-roi-type, lost / re-acquired messages,
// reset on flush and READY, detect mode, and element errors for bad roi strings, boxes outside
// the frame and unreadable model files.
#include <gst/check/gstharness.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "rcdtrack_elem_util.hpp"

using namespace rcd_elem;

namespace {

class RcdTrackElement : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

GstHarness* harness(const std::string& props, int w = 160, int h = 120) {
  GstHarness* hs = gst_harness_new_parse(("cudarcdtrack name=t backend=cpu " + props).c_str());
  gst_harness_set_src_caps_str(hs, caps_string(GST_VIDEO_FORMAT_RGBA, w, h).c_str());
  return hs;
}

// The element inside the harness's bin (gst_harness_new_parse wraps it), for its signals.
GstElement* element(GstHarness* hs) {
  GstElement* e = gst_bin_get_by_name(GST_BIN(hs->element), "t");
  EXPECT_TRUE(e);
  gst_object_unref(e); // the bin keeps it alive
  return e;
}

// Pushes frames first..last-1 of the scene and returns the outputs' ROI metas.
std::vector<std::vector<Track>> run(GstHarness* hs, const Scene& sc, int first, int last,
                                    std::vector<rcd::Box>* truth = nullptr) {
  std::vector<std::vector<Track>> out;
  for (int t = first; t < last; ++t) {
    rcd::Box b;
    const HostImage img = sc.frame(t, &b);
    if (truth)
      truth->push_back(b);
    EXPECT_EQ(gst_harness_push(hs, make_buffer(img, t)), GST_FLOW_OK) << t;
    GstBuffer* o = gst_harness_pull(hs);
    out.push_back(read_rois(o));
    gst_buffer_unref(o);
  }
  return out;
}

std::string roi_of(const std::vector<rcd::Box>& boxes) {
  std::string s = "roi=\"";
  for (const rcd::Box& b : boxes)
    s += std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.w) + "," +
         std::to_string(b.h) + ";";
  return s + "\"";
}

TEST_F(RcdTrackElement, PropertiesRoundTripAndRefusals) {
  GstElement* e = gst_element_factory_make("cudarcdtrack", nullptr);
  ASSERT_TRUE(e);
  gchar *features = nullptr, *roi = nullptr;
  gint parts, scales, step, mode;
  gdouble smin, smax, radius, rate, lost;
  g_object_get(e, "features", &features, "roi", &roi, "parts", &parts, "scales", &scales, "step",
               &step, "scale-min", &smin, "scale-max", &smax, "search-radius", &radius,
               "update-rate", &rate, "lost-threshold", &lost, "mode", &mode, nullptr);
  const rcd::Params d;
  EXPECT_EQ(std::string(features), rcd::feature_names(d.features));
  EXPECT_EQ(roi, nullptr);
  EXPECT_EQ(parts, d.parts);
  EXPECT_EQ(scales, 8);
  EXPECT_EQ(step, 0);
  EXPECT_EQ(smin, 0.5);
  EXPECT_EQ(smax, 2.0);
  EXPECT_EQ(radius, d.search_radius);
  EXPECT_EQ(rate, d.update_rate);
  EXPECT_EQ(lost, d.lost_threshold);
  EXPECT_EQ(mode, 0);
  g_free(features);
  guint area0 = 1, static0 = 0;
  gboolean aligned0 = FALSE;
  g_object_get(e, "init-min-area", &area0, "static-timeout", &static0, "init-aligned-steps",
               &aligned0, nullptr);
  EXPECT_EQ(area0, 0u); // automatic
  EXPECT_EQ(static0, 60u);
  EXPECT_TRUE(aligned0);
  {
    guint still = 0;
    g_object_get(e, "still-timeout", &still, nullptr);
    EXPECT_EQ(still, 20u);
    g_object_set(e, "still-timeout", 7u, nullptr);
    g_object_get(e, "still-timeout", &still, nullptr);
    EXPECT_EQ(still, 7u);
  }
  g_object_set(e, "features", "x,y,r,g,b", "roi", "1,2,30,40;5,6,7,8", "parts", 1, "scales", 5,
               "step", 3, "scale-min", 0.8, "scale-max", 1.25, "search-radius", -1.0, "update-rate",
               0.2, "lost-threshold", 3.0, "distance", 1, "top-k", 3, "init-roi-type", "foreground",
               "init-min-area", 100u, "init-persistence", 5u, "threshold", 2.0, "nms-overlap", 0.4,
               "max-detections", 9u, "context-weight", 0.25, nullptr);
  gint distance, topk;
  guint area, persist, maxd;
  gchar* type = nullptr;
  gdouble thr, nms, ctx;
  g_object_get(e, "features", &features, "roi", &roi, "parts", &parts, "scales", &scales, "step",
               &step, "scale-min", &smin, "scale-max", &smax, "search-radius", &radius,
               "update-rate", &rate, "lost-threshold", &lost, "distance", &distance, "top-k", &topk,
               "init-roi-type", &type, "init-min-area", &area, "init-persistence", &persist,
               "threshold", &thr, "nms-overlap", &nms, "max-detections", &maxd, "context-weight",
               &ctx, nullptr);
  EXPECT_EQ(ctx, 0.25);
  {
    gdouble sp, anchor;
    g_object_get(e, "scale-prediction", &sp, "model-anchor", &anchor, nullptr);
    EXPECT_EQ(sp, rcd::Params().scale_prediction);
    EXPECT_EQ(anchor, rcd::Params().model_anchor);
    g_object_set(e, "scale-prediction", 0.75, "model-anchor", 0.125, nullptr);
    g_object_get(e, "scale-prediction", &sp, "model-anchor", &anchor, nullptr);
    EXPECT_EQ(sp, 0.75);
    EXPECT_EQ(anchor, 0.125);
    gdouble occ = 0.0;
    g_object_get(e, "occlusion-ratio", &occ, nullptr);
    EXPECT_EQ(occ, rcd::Params().occlusion_ratio);
    g_object_set(e, "occlusion-ratio", 2.5, nullptr);
    g_object_get(e, "occlusion-ratio", &occ, nullptr);
    EXPECT_EQ(occ, 2.5);
    gint coast = -1;
    g_object_get(e, "coast-frames", &coast, nullptr);
    EXPECT_EQ(coast, rcd::Params().coast_frames);
    g_object_set(e, "coast-frames", 7, nullptr);
    g_object_get(e, "coast-frames", &coast, nullptr);
    EXPECT_EQ(coast, 7);
    gboolean local = FALSE;
    g_object_get(e, "local-reacquire", &local, nullptr);
    EXPECT_EQ(local != FALSE, rcd::Params().local_reacquire);
    g_object_set(e, "local-reacquire", FALSE, nullptr);
    g_object_get(e, "local-reacquire", &local, nullptr);
    EXPECT_FALSE(local);
    gboolean refine = FALSE;
    g_object_get(e, "template-refine", &refine, nullptr);
    EXPECT_EQ(refine != FALSE, rcd::Params().template_refine);
    g_object_set(e, "template-refine", FALSE, nullptr);
    g_object_get(e, "template-refine", &refine, nullptr);
    EXPECT_FALSE(refine);
    gboolean rotation = FALSE;
    g_object_get(e, "rotation-box", &rotation, nullptr);
    EXPECT_EQ(rotation != FALSE, rcd::Params().rotation_box);
    g_object_set(e, "rotation-box", FALSE, nullptr);
    g_object_get(e, "rotation-box", &rotation, nullptr);
    EXPECT_FALSE(rotation);
    gint source = -1;
    g_object_get(e, "rotation-source", &source, nullptr);
    EXPECT_EQ(source, static_cast<gint>(rcd::Params().rotation_source));
    g_object_set(e, "rotation-source", static_cast<gint>(rcd::RotationSource::kLayout), nullptr);
    g_object_get(e, "rotation-source", &source, nullptr);
    EXPECT_EQ(source, static_cast<gint>(rcd::RotationSource::kLayout));
  }
  EXPECT_EQ(std::string(features), "x,y,r,g,b");
  EXPECT_EQ(std::string(roi), "1,2,30,40;5,6,7,8");
  EXPECT_EQ(std::string(type), "foreground");
  EXPECT_EQ(parts, 1);
  EXPECT_EQ(scales, 5);
  EXPECT_EQ(step, 3);
  EXPECT_EQ(smin, 0.8);
  EXPECT_EQ(smax, 1.25);
  EXPECT_EQ(radius, -1.0);
  EXPECT_EQ(rate, 0.2);
  EXPECT_EQ(lost, 3.0);
  EXPECT_EQ(distance, 1);
  EXPECT_EQ(topk, 3);
  EXPECT_EQ(area, 100u);
  EXPECT_EQ(persist, 5u);
  EXPECT_EQ(thr, 2.0);
  EXPECT_EQ(nms, 0.4);
  EXPECT_EQ(maxd, 9u);
  g_free(features);
  g_free(roi);
  g_free(type);
  // Refused with a warning, the value kept: a feature list that does not parse, 3 parts.
  // scale-min above scale-max is taken as set (the pair may be completed in any order); start
  // judges the pair (tests/gst/contracts).
  g_object_set(e, "features", "r,g,q", "parts", 3, "scale-min", 1.5, nullptr);
  g_object_get(e, "features", &features, "parts", &parts, "scale-min", &smin, nullptr);
  EXPECT_EQ(std::string(features), "x,y,r,g,b");
  EXPECT_EQ(parts, 1);
  EXPECT_EQ(smin, 1.5);
  g_free(features);
  gst_object_unref(e);
}

// Frames pass unchanged; one "track" meta per target and frame, first among the buffer's ROI
// metas (upstream ones follow, intact), in roi order, with the parameter structure; the boxes
// follow the target.
TEST_F(RcdTrackElement, MetasFollowTheTargetsInOrder) {
  Scene sc;
  rcd::Box b0;
  sc.frame(0, &b0);
  GstHarness* hs = harness(roi_of({b0, {100, 10, 30, 24}}));
  double sum = 0;
  for (int t = 0; t < 12; ++t) {
    rcd::Box truth;
    const HostImage img = sc.frame(t, &truth);
    GstBuffer* in = make_buffer(img, t);
    // An upstream ROI meta with a parameter, which must survive behind ours.
    GstVideoRegionOfInterestMeta* up =
        gst_buffer_add_video_region_of_interest_meta(in, "foreground", 1, 2, 3, 4);
    up->id = 42;
    gst_video_region_of_interest_meta_add_param(
        up, gst_structure_new("foreground", "area", G_TYPE_UINT, 12u, nullptr));
    ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
    GstBuffer* o = gst_harness_pull(hs);
    GstMapInfo map;
    ASSERT_TRUE(gst_buffer_map(o, &map, GST_MAP_READ));
    EXPECT_EQ(0, std::memcmp(map.data, img.view().data[0], map.size)) << "frame changed";
    gst_buffer_unmap(o, &map);
    const std::vector<Track> r = read_rois(o);
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].type, "track");
    EXPECT_EQ(r[0].id, 0);
    EXPECT_EQ(r[1].type, "track");
    EXPECT_EQ(r[1].id, 1);
    EXPECT_EQ(r[2].type, "foreground");
    EXPECT_EQ(r[2].id, 42);
    EXPECT_EQ(r[2].box, (rcd::Box{1, 2, 3, 4}));
    GstVideoRegionOfInterestMeta* last = nullptr;
    gpointer iter = nullptr;
    while (GstMeta* m = gst_buffer_iterate_meta_filtered(
               o, &iter, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
      last = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
    guint area = 0;
    ASSERT_TRUE(gst_structure_get_uint(
        gst_video_region_of_interest_meta_get_param(last, "foreground"), "area", &area));
    EXPECT_EQ(area, 12u);
    EXPECT_EQ(r[0].age, static_cast<guint64>(t));
    EXPECT_FALSE(r[0].lost);
    EXPECT_GE(r[0].distance, 0.0);
    EXPECT_GT(r[0].scale, 0.4);
    sum += rcd::iou(r[0].box, truth);
    gst_buffer_unref(o);
  }
  EXPECT_GT(sum / 12, 0.6);
  gst_harness_teardown(hs);
}

// track returns increasing ids and the target appears from the next frame; untrack removes it;
// save-model writes a model that mode=detect finds the target with.
TEST_F(RcdTrackElement, SignalsAndSavedModel) {
  Scene sc;
  rcd::Box b0;
  sc.frame(0, &b0);
  GstHarness* hs = harness("");
  gint id = -1, id2 = -1;
  g_signal_emit_by_name(element(hs), "track", b0.x, b0.y, b0.w, b0.h, &id);
  g_signal_emit_by_name(element(hs), "track", 100, 10, 30, 24, &id2);
  EXPECT_EQ(id, 0);
  EXPECT_EQ(id2, 1);
  gint refused = 0;
  g_signal_emit_by_name(element(hs), "track", 1, 1, 2, 2, &refused);
  EXPECT_EQ(refused, -1);
  auto r = run(hs, sc, 0, 3);
  ASSERT_EQ(r[0].size(), 2u);
  EXPECT_EQ(r[0][0].id, 0);
  EXPECT_EQ(r[0][1].id, 1);
  gboolean ok = FALSE;
  g_signal_emit_by_name(element(hs), "untrack", id2, &ok);
  EXPECT_TRUE(ok);
  g_signal_emit_by_name(element(hs), "untrack", 77, &ok);
  EXPECT_FALSE(ok);
  const std::string path = ::testing::TempDir() + "/rcdtrack_elem_" + std::to_string(getpid());
  g_signal_emit_by_name(element(hs), "save-model", id, path.c_str(), &ok);
  EXPECT_TRUE(ok);
  g_signal_emit_by_name(element(hs), "save-model", 99, path.c_str(), &ok);
  EXPECT_FALSE(ok);
  r = run(hs, sc, 3, 4);
  ASSERT_EQ(r[0].size(), 1u);
  EXPECT_EQ(r[0][0].id, 0);
  gst_harness_teardown(hs);

  GstHarness* det = harness("mode=detect threshold=2.0 model-location=\"" + path + "\"");
  std::vector<rcd::Box> truth;
  r = run(det, sc, 5, 6, &truth);
  ASSERT_GE(r[0].size(), 1u);
  EXPECT_EQ(r[0][0].type, "detection");
  EXPECT_GT(rcd::iou(r[0][0].box, truth[0]), 0.5);
  gst_harness_teardown(det);
  std::remove(path.c_str());
}

// Upstream boxes of init-roi-type start one target once they persist init-persistence frames;
// small ones, ones the tracker cannot start from and ones over an existing target do not.
TEST_F(RcdTrackElement, InitRoiType) {
  Scene sc;
  GstHarness* hs = harness("init-roi-type=foreground init-persistence=3 init-min-area=200");
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(hs->element, bus);
  std::vector<int> counts;
  for (int t = 0; t < 6; ++t) {
    rcd::Box b;
    GstBuffer* in = make_buffer(sc.frame(t, &b), t);
    gst_buffer_add_video_region_of_interest_meta(in, "foreground", b.x, b.y, b.w, b.h);
    gst_buffer_add_video_region_of_interest_meta(in, "foreground", 140, 100, 8, 8); // too small
    gst_buffer_add_video_region_of_interest_meta(in, "other", 5, 5, 40, 40);        // another type
    // Large enough but 2 pixels wide (a blob along the border): skipped, not an element error.
    gst_buffer_add_video_region_of_interest_meta(in, "foreground", 0, 0, 2, 300);
    ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
    GstBuffer* o = gst_harness_pull(hs);
    int tracks = 0;
    for (const Track& r : read_rois(o))
      tracks += r.type == "track";
    counts.push_back(tracks);
    gst_buffer_unref(o);
  }
  EXPECT_EQ(counts, (std::vector<int>{0, 0, 1, 1, 1, 1}));
  const auto msgs = pop_messages(bus);
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0].first, "cvis-rcdtrack-started");
  gst_element_set_bus(hs->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(hs);
}

// A target started from a foreground box and lost (its object hidden) is removed after
// lost-timeout frames lost in a row: a removed message, no more metas; 0 keeps it.
TEST_F(RcdTrackElement, LostTimeoutRemovesTargetsFromInitBoxes) {
  for (int timeout : {5, 0}) {
    Scene sc;
    sc.hide_from = 6;
    GstHarness* hs = harness("init-roi-type=foreground init-persistence=2 lost-timeout=" +
                             std::to_string(timeout));
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(hs->element, bus);
    std::vector<int> tracks, lost;
    for (int t = 0; t < 20; ++t) {
      rcd::Box b;
      GstBuffer* in = make_buffer(sc.frame(t, &b), t);
      if (t < sc.hide_from)
        gst_buffer_add_video_region_of_interest_meta(in, "foreground", b.x, b.y, b.w, b.h);
      ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
      GstBuffer* o = gst_harness_pull(hs);
      int n = 0, l = 0;
      for (const Track& r : read_rois(o)) {
        n += r.type == "track";
        l += r.type == "track" && r.lost;
      }
      tracks.push_back(n);
      lost.push_back(l);
      gst_buffer_unref(o);
    }
    std::vector<std::string> names;
    for (const auto& m : pop_messages(bus))
      names.push_back(m.first);
    // Started at frame 1 (seen twice), lost from frame 6 (hidden), removed after 5 lost frames.
    const int last = timeout ? 6 + timeout - 1 : 19; // the last frame with the target's meta
    for (int t = 1; t < 20; ++t) {
      EXPECT_EQ(tracks[t], t <= last ? 1 : 0) << "timeout " << timeout << " frame " << t;
      EXPECT_EQ(lost[t], t >= 6 && t <= last ? 1 : 0) << "timeout " << timeout << " frame " << t;
    }
    std::vector<std::string> want{"cvis-rcdtrack-started", "cvis-rcdtrack-lost"};
    if (timeout)
      want.push_back("cvis-rcdtrack-removed");
    EXPECT_EQ(names, want) << "timeout " << timeout;
    gst_element_set_bus(hs->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(hs);
  }
}

// A target started from foreground boxes whose object is still seen but no longer has one (it
// stopped, or the target sits on the background it left) is removed after static-timeout frames
// off every box, without being lost; 0 keeps it.
TEST_F(RcdTrackElement, StaticTimeoutRemovesTargetsOffTheBoxes) {
  for (int timeout : {4, 0}) {
    Scene sc;
    GstHarness* hs = harness("init-roi-type=foreground init-persistence=2 static-timeout=" +
                             std::to_string(timeout));
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(hs->element, bus);
    std::vector<int> tracks;
    for (int t = 0; t < 14; ++t) {
      rcd::Box b;
      GstBuffer* in = make_buffer(sc.frame(t, &b), t);
      if (t < 6) // boxes on frames 0-5 only; the target stays visible
        gst_buffer_add_video_region_of_interest_meta(in, "foreground", b.x, b.y, b.w, b.h);
      else // a box of the type elsewhere does not keep it
        gst_buffer_add_video_region_of_interest_meta(in, "foreground", 0, 0, 4, 4);
      ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
      GstBuffer* o = gst_harness_pull(hs);
      int n = 0;
      for (const Track& r : read_rois(o))
        n += r.type == "track" && !r.lost;
      tracks.push_back(n);
      gst_buffer_unref(o);
    }
    std::vector<std::string> names;
    for (const auto& m : pop_messages(bus))
      names.push_back(m.first);
    // Started at frame 1; off the boxes from frame 6: removed after frame 6 + timeout - 1.
    const int last = timeout ? 6 + timeout - 1 : 13;
    for (int t = 1; t < 14; ++t)
      EXPECT_EQ(tracks[t], t <= last ? 1 : 0) << "timeout " << timeout << " frame " << t;
    std::vector<std::string> want{"cvis-rcdtrack-started"};
    if (timeout)
      want.push_back("cvis-rcdtrack-removed");
    EXPECT_EQ(names, want) << "timeout " << timeout;
    gst_element_set_bus(hs->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(hs);
  }
}

// A lost target from a foreground box is searched near where it was last seen (lost-radius): its
// object back far away is not re-acquired; with lost-radius=-1 (whole frame) it is.
TEST_F(RcdTrackElement, LostRadiusOfTargetsFromInitBoxes) {
  for (double radius : {0.5, -1.0}) {
    Scene sc;
    sc.hide_from = 6;
    sc.hide_to = 10; // back at (120, 85), about 60 pixels from where it was lost
    GstHarness* hs = harness("init-roi-type=foreground init-persistence=2 lost-timeout=0 "
                             "lost-radius=" +
                             std::to_string(radius));
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(hs->element, bus);
    for (int t = 0; t < 16; ++t) {
      rcd::Box b;
      GstBuffer* in = make_buffer(sc.frame(t, &b), t);
      if (t < sc.hide_from)
        gst_buffer_add_video_region_of_interest_meta(in, "foreground", b.x, b.y, b.w, b.h);
      ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
      gst_buffer_unref(gst_harness_pull(hs));
    }
    std::vector<std::string> names;
    for (const auto& m : pop_messages(bus))
      names.push_back(m.first);
    std::vector<std::string> want{"cvis-rcdtrack-started", "cvis-rcdtrack-lost"};
    if (radius < 0)
      want.push_back("cvis-rcdtrack-reacquired");
    EXPECT_EQ(names, want) << "lost-radius " << radius;
    gst_element_set_bus(hs->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(hs);
  }
}

// Hidden for 8 frames: a lost message, lost metas, then a re-acquired message at the new place.
TEST_F(RcdTrackElement, LostAndReacquiredMessages) {
  Scene sc;
  sc.hide_from = 6;
  sc.hide_to = 14;
  rcd::Box b0;
  sc.frame(0, &b0);
  GstHarness* hs = harness(roi_of({b0}));
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(hs->element, bus);
  std::vector<rcd::Box> truth;
  const auto r = run(hs, sc, 0, 20, &truth);
  const auto msgs = pop_messages(bus);
  ASSERT_EQ(msgs.size(), 3u);
  EXPECT_EQ(msgs[0].first, "cvis-rcdtrack-started");
  EXPECT_EQ(msgs[1].first, "cvis-rcdtrack-lost");
  EXPECT_EQ(msgs[2].first, "cvis-rcdtrack-reacquired");
  EXPECT_EQ(msgs[2].second, 0);
  EXPECT_FALSE(r[5][0].lost);
  EXPECT_TRUE(r[10][0].lost);
  EXPECT_FALSE(r[19][0].lost);
  EXPECT_GT(rcd::iou(r[19][0].box, truth[19]), 0.5);
  gst_element_set_bus(hs->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(hs);
}

// After a flush, and after READY and back, the element starts again from roi: the outputs equal
// those of a fresh element on the same frames; signal targets are gone.
TEST_F(RcdTrackElement, ResetOnFlushAndReady) {
  Scene sc;
  rcd::Box b0;
  sc.frame(0, &b0);
  const std::string props = roi_of({b0});
  GstHarness* fresh = harness(props);
  const auto expect = run(fresh, sc, 0, 6);
  gst_harness_teardown(fresh);

  GstHarness* hs = harness(props);
  gint id;
  g_signal_emit_by_name(element(hs), "track", 100, 10, 30, 24, &id);
  run(hs, sc, 0, 8);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_stop(TRUE)));
  GstSegment seg;
  gst_segment_init(&seg, GST_FORMAT_TIME);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_segment(&seg)));
  auto after = run(hs, sc, 0, 6);
  ASSERT_EQ(after.size(), expect.size());
  for (size_t t = 0; t < after.size(); ++t) {
    ASSERT_EQ(after[t].size(), 1u) << t;
    EXPECT_EQ(after[t][0].box, expect[t][0].box) << t;
    EXPECT_EQ(after[t][0].age, expect[t][0].age) << t;
  }
  ASSERT_EQ(gst_element_set_state(hs->element, GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
  ASSERT_EQ(gst_element_set_state(hs->element, GST_STATE_PLAYING), GST_STATE_CHANGE_SUCCESS);
  gst_harness_set_src_caps_str(hs, caps_string(GST_VIDEO_FORMAT_RGBA, 160, 120).c_str());
  after = run(hs, sc, 0, 6);
  for (size_t t = 0; t < after.size(); ++t) {
    ASSERT_EQ(after[t].size(), 1u) << t;
    EXPECT_EQ(after[t][0].box, expect[t][0].box) << t;
  }
  gst_harness_teardown(hs);
}

// Bad settings are element errors with a clear message, not crashes or silent failures.
TEST_F(RcdTrackElement, BadSettingsAreElementErrors) {
  struct {
    std::string props;
    GQuark domain;
    gint code;
    const char* text;
  } cases[] = {
      {"roi=\"10,10,20\"", GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "roi"},
      {"roi=\"a,b,c,d\"", GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "roi"},
      {"roi=\"10,10,20,0\"", GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "roi"},
      {"roi=\"150,110,40,40\"", GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
       "inside the 160x120"},
      {"model-location=/nonexistent/model.txt", GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
       "model-location"},
      {"mode=detect", GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "model-location"},
  };
  for (const auto& c : cases) {
    // A real pipeline: a start() that fails makes a harness abort.
    const std::string launch = "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=160,"
                               "height=120 ! cudarcdtrack backend=cpu " +
                               c.props + " ! fakesink";
    GstElement* p = gst_parse_launch(launch.c_str(), nullptr);
    ASSERT_TRUE(p) << launch;
    GstBus* bus = gst_element_get_bus(p);
    gst_element_set_state(p, GST_STATE_PLAYING);
    GstMessage* m = gst_bus_timed_pop_filtered(
        bus, 20 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
    ASSERT_TRUE(m) << c.props;
    ASSERT_EQ(GST_MESSAGE_TYPE(m), GST_MESSAGE_ERROR) << c.props << ": no error";
    GError* e = nullptr;
    gst_message_parse_error(m, &e, nullptr);
    EXPECT_EQ(e->domain, c.domain) << c.props << ": " << e->message;
    EXPECT_EQ(e->code, c.code) << c.props << ": " << e->message;
    EXPECT_NE(std::string(e->message).find(c.text), std::string::npos)
        << c.props << ": " << e->message;
    EXPECT_NE(std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(m))).find("cudarcdtrack"),
              std::string::npos);
    g_clear_error(&e);
    gst_message_unref(m);
    gst_element_set_state(p, GST_STATE_NULL);
    gst_object_unref(bus);
    gst_object_unref(p);
  }
}

// An image file as the template: a binary PPM of the target makes mode=detect find it.
TEST_F(RcdTrackElement, DetectFromImageFile) {
  Scene sc;
  const std::string ppm =
      ::testing::TempDir() + "/rcdtrack_elem_" + std::to_string(getpid()) + ".ppm";
  {
    FILE* f = std::fopen(ppm.c_str(), "wb");
    ASSERT_TRUE(f);
    std::fprintf(f, "P6\n%d %d\n255\n", sc.tex.width(), sc.tex.height());
    for (int y = 0; y < sc.tex.height(); ++y)
      for (int x = 0; x < sc.tex.width(); ++x)
        std::fwrite(sc.tex.view().data[0] + y * sc.tex.pitch(0) + x * 4, 1, 3, f);
    std::fclose(f);
  }
  GstHarness* hs = harness("mode=detect threshold=1.5 model-location=\"" + ppm + "\"");
  std::vector<rcd::Box> truth;
  const auto r = run(hs, sc, 2, 4, &truth);
  for (size_t t = 0; t < r.size(); ++t) {
    ASSERT_GE(r[t].size(), 1u);
    EXPECT_EQ(r[t][0].type, "detection");
    EXPECT_GT(rcd::iou(r[t][0].box, truth[t]), 0.6);
  }
  gst_harness_teardown(hs);
  std::remove(ppm.c_str());
}

TEST_F(RcdTrackElement, CudaBackendWithoutDeviceFailsCleanly) {
  if (cvis::test::gpu_available())
    GTEST_SKIP() << "a GPU is present";
  GstElement* e = gst_element_factory_make("cudarcdtrack", nullptr);
  ASSERT_TRUE(e);
  g_object_set(e, "backend", 2 /* cuda */, nullptr);
  EXPECT_EQ(gst_element_set_state(e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  gst_element_set_state(e, GST_STATE_NULL);
  gst_object_unref(e);
}

} // namespace

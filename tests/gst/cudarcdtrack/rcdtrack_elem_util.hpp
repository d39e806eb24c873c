// Shared by the cudarcdtrack element tests: a seeded scene (a textured target moving over a
// background, optionally hidden for a while) as GstBuffers, and readers of the element's metas and
// messages.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gstcvisutils.h"
#include "rcdtrack.hpp"
#include "rcdtrack_scene.hpp"

namespace rcd_elem {

namespace rcd = cvis::rcdtrack;
using cvis::test::HostImage;

inline const GstClockTime kDur = GST_SECOND / 30;

inline std::string caps_string(GstVideoFormat f, int w, int h, bool cuda = false) {
  return std::string("video/x-raw") + (cuda ? "(memory:CUDAMemory)" : "") +
         ",format=" + gst_video_format_to_string(f) + ",width=" + std::to_string(w) +
         ",height=" + std::to_string(h) + ",framerate=30/1";
}

// The scene: 160x120, a 24x18 textured target at (30 + 3t, 50) (hidden for hide_from <= t <
// hide_to, then at (120, 85)); frame t and its truth.
struct Scene {
  int w = 160, h = 120;
  int hide_from = 1 << 30, hide_to = 1 << 30;
  HostImage bg = rcd::test::make_background(160, 120, 11);
  HostImage tex = rcd::test::make_texture(24, 18, 17, 1);
  HostImage frame(int t, rcd::Box* truth) const {
    HostImage f = rcd::test::copy_image(bg);
    rcd::Box b;
    if (t < hide_from)
      b = rcd::test::draw_object(&f, tex, 30 + 3 * t, 50, 1.0, 0.0);
    else if (t >= hide_to)
      b = rcd::test::draw_object(&f, tex, 120, 85, 1.0, 0.0);
    if (truth)
      *truth = b;
    return f;
  }
};

// An RGBA frame as a system-memory buffer in format f (RGBA / BGRx / I420 via GStreamer's own
// converter would change pixels: only packed RGB formats are produced here) with PTS t/30 s.
inline GstBuffer* make_buffer(const HostImage& img, int t) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, img.width(), img.height());
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  GstVideoFrame vf;
  if (gst_video_frame_map(&vf, &info, buf, GST_MAP_WRITE)) {
    for (int y = 0; y < img.height(); ++y)
      std::memcpy(static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&vf, 0)) +
                      y * GST_VIDEO_FRAME_PLANE_STRIDE(&vf, 0),
                  img.view().data[0] + y * img.pitch(0), static_cast<size_t>(img.width()) * 4);
    gst_video_frame_unmap(&vf);
  }
  GST_BUFFER_PTS(buf) = t * kDur;
  GST_BUFFER_DURATION(buf) = kDur;
  return buf;
}

struct Track {
  std::string type;
  int id = -1;
  rcd::Box box;
  double distance = -1, scale = 0;
  bool lost = false;
  guint64 age = 0;
};

// Every ROI meta of the buffer, in order.
inline std::vector<Track> read_rois(GstBuffer* b) {
  std::vector<Track> out;
  gpointer iter = nullptr;
  GstMeta* m;
  while ((
      m = gst_buffer_iterate_meta_filtered(b, &iter, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
    Track t;
    t.type = g_quark_to_string(roi->roi_type);
    t.id = roi->id;
    t.box = {static_cast<int>(roi->x), static_cast<int>(roi->y), static_cast<int>(roi->w),
             static_cast<int>(roi->h)};
    if (GstStructure* s = gst_video_region_of_interest_meta_get_param(roi, "rcdtrack")) {
      gint id = -1;
      gboolean lost = FALSE;
      gst_structure_get_double(s, "distance", &t.distance);
      gst_structure_get_double(s, "scale", &t.scale);
      if (gst_structure_get_int(s, "id", &id)) {
        EXPECT_EQ(id, t.id);
      }
      gst_structure_get_boolean(s, "lost", &lost);
      t.lost = lost;
      gst_structure_get_uint64(s, "age", &t.age);
    }
    out.push_back(t);
  }
  return out;
}

// Names of the element messages waiting on the bus, with their "id" fields.
inline std::vector<std::pair<std::string, int>> pop_messages(GstBus* bus) {
  std::vector<std::pair<std::string, int>> out;
  while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT)) {
    const GstStructure* s = gst_message_get_structure(m);
    gint id = -1;
    gst_structure_get_int(s, "id", &id);
    out.push_back({gst_structure_get_name(s), id});
    gst_message_unref(m);
  }
  return out;
}

// The first error message on the bus: its domain and code (0, 0 when there is none).
inline std::pair<GQuark, gint> pop_error(GstBus* bus, std::string* text = nullptr) {
  GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  if (!m)
    return {0, 0};
  GError* e = nullptr;
  gst_message_parse_error(m, &e, nullptr);
  std::pair<GQuark, gint> r{e->domain, e->code};
  if (text)
    *text = e->message;
  g_clear_error(&e);
  gst_message_unref(m);
  return r;
}

} // namespace rcd_elem

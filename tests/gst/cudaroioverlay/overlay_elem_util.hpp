// Helpers for the cudaroioverlay element tests: seeded frames, what the overlay library draws for
// an expected scene (the oracle), the documented colour rules, byte comparison of frames.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/cvis/cvis.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gstcvisutils.h"
#include "overlay/overlay.hpp"

#include "cuda_frame_io.hpp"

namespace overlay_test {

inline std::string caps_string(GstVideoFormat f, int w, int h, bool cuda = false) {
  return std::string("video/x-raw") + (cuda ? "(memory:CUDAMemory)" : "") +
         ",format=" + gst_video_format_to_string(f) + ",width=" + std::to_string(w) +
         ",height=" + std::to_string(h) + ",framerate=30/1";
}

// A system-memory frame of random bytes with a GstVideoMeta.
inline GstBuffer* make_frame(GstVideoFormat f, int w, int h, guint32 seed) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, f, w, h);
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE, f, w, h,
                                 GST_VIDEO_INFO_N_PLANES(&info), info.offset, info.stride);
  GstMapInfo m;
  gst_buffer_map(buf, &m, GST_MAP_WRITE);
  std::mt19937 rng(seed);
  for (gsize i = 0; i < m.size; ++i)
    m.data[i] = static_cast<guint8>(rng());
  gst_buffer_unmap(buf, &m);
  return buf;
}

// A system-memory copy of `b` (system or CUDA memory, laid out by its GstVideoMeta, else by the
// CUDA memory's own pitched layout, else the default one) in the default layout, with a
// GstVideoMeta of that layout and no other metadata. CUDA memory is read by device copies of the
// visible bytes (cuda_frame_io.hpp).
inline GstBuffer* system_copy(GstBuffer* b, GstVideoFormat f, int w, int h) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, f, w, h);
  GstBuffer* out = make_frame(f, w, h, 0);
  EXPECT_TRUE(cvis_test::copy_visible(out, b, info));
  return out;
}

// A GRAY8 mask buffer (system memory): 255 inside [x0, x1) x [y0, y1), else 0.
inline GstBuffer* make_mask(int w, int h, int x0, int y0, int x1, int y1, int* stride) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, w, h, 1,
                                 info.offset, info.stride);
  *stride = GST_VIDEO_INFO_PLANE_STRIDE(&info, 0);
  GstMapInfo m;
  gst_buffer_map(buf, &m, GST_MAP_WRITE);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < *stride; ++x)
      m.data[y * *stride + x] = (x >= x0 && x < x1 && y >= y0 && y < y1) ? 255 : 0;
  gst_buffer_unmap(buf, &m);
  return buf;
}

// The documented palette (docs/elements/cudaroioverlay.md) and colour rules.
inline const cvis::overlay::Rgb kPalette[12] = {{230, 25, 75},   {60, 180, 75},  {255, 225, 25},
                                                {0, 130, 200},   {245, 130, 48}, {145, 30, 180},
                                                {70, 240, 240},  {240, 50, 230}, {210, 245, 60},
                                                {250, 190, 212}, {0, 128, 128},  {170, 110, 40}};
inline cvis::overlay::Rgb color_of_id(int id) {
  return kPalette[((id % 12) + 12) % 12];
}
inline cvis::overlay::Rgb color_of_type(const std::string& type) {
  if (type == "foreground")
    return kPalette[1];
  guint32 h = 2166136261u; // FNV-1a
  for (unsigned char c : type)
    h = (h ^ c) * 16777619u;
  return kPalette[h % 12];
}

// A copy of `in` (system memory) with `scene` drawn by the overlay library's CPU reference, as
// the element should draw it with `params`.
inline GstBuffer* expected_frame(GstBuffer* in, GstVideoFormat f, int w, int h,
                                 cvis::overlay::Scene scene, const cvis::overlay::Params& params,
                                 GstBuffer* mask = nullptr) {
  GstBuffer* out = gst_buffer_copy_deep(in);
  GstVideoInfo info;
  gst_video_info_set_format(&info, f, w, h);
  GstVideoFrame vf, mf;
  EXPECT_TRUE(gst_video_frame_map(&vf, &info, out, GST_MAP_READWRITE));
  cvis::ImageView view, mview;
  EXPECT_TRUE(gst_cvis_view_from_frame(&vf, cvis::MemorySpace::kHost, &view));
  GstVideoInfo minfo;
  gst_video_info_set_format(&minfo, GST_VIDEO_FORMAT_GRAY8, w, h);
  if (mask) {
    EXPECT_TRUE(gst_video_frame_map(&mf, &minfo, mask, GST_MAP_READ));
    EXPECT_TRUE(gst_cvis_view_from_frame(&mf, cvis::MemorySpace::kHost, &mview));
    scene.mask = &mview;
  }
  cvis::Status st;
  auto d = cvis::overlay::make_drawer(cvis::Backend::kCpu, &st);
  EXPECT_TRUE(d->configure(params).ok());
  st = d->draw(scene, view, nullptr);
  EXPECT_TRUE(st.ok()) << st.to_string();
  if (mask)
    gst_video_frame_unmap(&mf);
  gst_video_frame_unmap(&vf);
  return out;
}

// "" when the two frames' pixel bytes are equal, else where they first differ.
inline std::string frame_difference(GstBuffer* a, GstBuffer* b, GstVideoFormat f, int w, int h) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, f, w, h);
  const std::vector<uint8_t> va = cvis_test::visible_bytes(a, info);
  const std::vector<uint8_t> vb = cvis_test::visible_bytes(b, info);
  if (va.empty() || vb.empty())
    return "cannot read a frame";
  size_t at = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component(info.finfo, p, comp);
    const size_t row_bytes = static_cast<size_t>(GST_VIDEO_INFO_COMP_WIDTH(&info, comp[0])) *
                             GST_VIDEO_INFO_COMP_PSTRIDE(&info, comp[0]);
    const size_t rows = static_cast<size_t>(GST_VIDEO_INFO_COMP_HEIGHT(&info, comp[0]));
    for (size_t i = 0; i < row_bytes * rows; ++i, ++at) {
      if (va[at] != vb[at])
        return "plane " + std::to_string(p) + " row " + std::to_string(i / row_bytes) +
               " byte " + std::to_string(i % row_bytes) + ": " + std::to_string(va[at]) + " vs " +
               std::to_string(vb[at]);
    }
  }
  return "";
}

inline bool has_plugin_feature(const char* name) {
  GstPluginFeature* f = gst_registry_lookup_feature(gst_registry_get(), name);
  if (f)
    gst_object_unref(f);
  return f != nullptr;
}

} // namespace overlay_test

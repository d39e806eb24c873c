#include "cedd_test_util.hpp"

#include <random>

#include "gstcvisutils.h"
#include "test_images.hpp"

namespace cedd_test {

std::string caps_string(GstVideoFormat format, int width, int height, bool cuda) {
  return std::string("video/x-raw") + (cuda ? "(memory:CUDAMemory)" : "") +
         ",format=" + gst_video_format_to_string(format) + ",width=" + std::to_string(width) +
         ",height=" + std::to_string(height) + ",framerate=30/1";
}

GstBuffer* make_frame(GstVideoFormat format, int width, int height, guint32 seed) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, width, height);
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE, format, width, height,
                                 GST_VIDEO_INFO_N_PLANES(&info), info.offset, info.stride);
  GstVideoFrame f;
  if (!gst_video_frame_map(&f, &info, buf, GST_MAP_WRITE)) return buf;
  const auto pattern = static_cast<cvis::test::Pattern>(seed % 6);
  cvis::test::HostImage rgba = cvis::test::make_rgba(pattern, width, height, seed);
  cvis::PixelFormat pf;
  if (gst_cvis_pixel_format_from_video(format, &pf) && !cvis::is_yuv(pf)) {
    cvis::test::HostImage img = rgba.converted(pf);
    const size_t row = cvis::plane_row_bytes(pf, 0, width);
    for (int y = 0; y < height; ++y) {
      memcpy(static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)) +
                 y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0),
             img.plane(0) + y * img.pitch(0), row);
    }
    if (cvis::has_alpha(pf)) {  // vary alpha so compositing over black is exercised
      const cvis::PackedLayout l = cvis::packed_layout(pf);
      for (int y = 0; y < height; ++y) {
        guint8* p = static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)) +
                    y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0);
        for (int x = 0; x < width; ++x) p[x * 4 + l.a] = static_cast<guint8>((x * 7 + y * 3) & 0xFF);
      }
    }
  } else {
    std::mt19937 rng(seed);
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&f); ++p) {
      guint8* d = static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&f, p));
      const int rows = GST_VIDEO_FRAME_COMP_HEIGHT(&f, p == 0 ? 0 : 1);
      const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&f, p);
      for (int y = 0; y < rows; ++y) {
        for (int x = 0; x < stride; ++x) d[y * stride + x] = static_cast<guint8>(((x / 5 + y / 7) * 37 + (rng() & 15)) & 0xFF);
      }
    }
  }
  gst_video_frame_unmap(&f);
  return buf;
}

std::vector<cvis::cedd::Levels> library_levels(GstBuffer* buf, GstVideoFormat format, int width,
                                               int height,
                                               const std::vector<cvis::cedd::Region>* regions) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, width, height);
  GstVideoFrame f;
  std::vector<cvis::cedd::Levels> out;
  if (!gst_video_frame_map(&f, &info, buf, GST_MAP_READ)) return out;
  cvis::ImageView view;
  gst_cvis_view_from_frame(&f, cvis::MemorySpace::kHost, &view);
  cvis::Status st;
  auto ex = cvis::cedd::make_extractor(cvis::Backend::kCpu, &st);
  std::vector<cvis::cedd::Region> whole = {{0, 0, width, height}};
  const auto& regs = regions ? *regions : whole;
  std::vector<cvis::cedd::Result> res(regs.size());
  if (ex && ex->describe(view, regs.data(), static_cast<int>(regs.size()), res.data(), nullptr).ok()) {
    for (const auto& r : res) out.push_back(r.levels);
  }
  gst_video_frame_unmap(&f);
  return out;
}

std::vector<guint8> meta_levels(GstBuffer* buf, gint roi_id) {
  GstCustomMeta* m = gst_buffer_get_cvis_cedd_meta(buf);
  GstCvisCeddEntry e;
  if (!m || !gst_cvis_cedd_meta_find(m, roi_id, &e)) return {};
  return std::vector<guint8>(e.levels, e.levels + GST_CVIS_CEDD_BINS);
}

std::string run_pipeline(const std::string& launch, const char* collect,
                         std::vector<GstStructure*>* messages, int timeout_s) {
  GError* err = nullptr;
  GstElement* p = gst_parse_launch(launch.c_str(), &err);
  if (!p) {
    std::string m = err ? err->message : "parse failed";
    g_clear_error(&err);
    return "parse: " + m;
  }
  GstBus* bus = gst_element_get_bus(p);
  std::string error;
  if (gst_element_set_state(p, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) error = "state change failed";
  for (;;) {
    GstMessage* m = gst_bus_timed_pop_filtered(
        bus, static_cast<GstClockTime>(timeout_s) * GST_SECOND,
        static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_ELEMENT));
    if (!m) {
      if (error.empty()) error = "timeout";
      break;
    }
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
      GError* e = nullptr;
      gst_message_parse_error(m, &e, nullptr);
      error = e ? e->message : "error";
      if (e && e->domain == GST_RESOURCE_ERROR) error = "resource: " + error;
      g_clear_error(&e);
      gst_message_unref(m);
      break;
    }
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS) {
      gst_message_unref(m);
      break;
    }
    const GstStructure* s = gst_message_get_structure(m);
    if (messages && collect && s && gst_structure_has_name(s, collect)) messages->push_back(gst_structure_copy(s));
    gst_message_unref(m);
  }
  gst_element_set_state(p, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(p);
  return error;
}

bool has_plugin_feature(const char* name) {
  GstElementFactory* f = gst_element_factory_find(name);
  if (!f) return false;
  gst_object_unref(f);
  return true;
}

bool gpu_available() { return cvis::test::gpu_available(); }

}  // namespace cedd_test

#include "bgsub_elem_util.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace bgsub_elem {

namespace {
cvis::PixelFormat to_cvis(GstVideoFormat f) {
  switch (f) {
  case GST_VIDEO_FORMAT_RGBA:
    return cvis::PixelFormat::kRGBA;
  case GST_VIDEO_FORMAT_BGRA:
    return cvis::PixelFormat::kBGRA;
  case GST_VIDEO_FORMAT_RGBx:
    return cvis::PixelFormat::kRGBx;
  case GST_VIDEO_FORMAT_BGRx:
    return cvis::PixelFormat::kBGRx;
  case GST_VIDEO_FORMAT_xRGB:
    return cvis::PixelFormat::kxRGB;
  case GST_VIDEO_FORMAT_xBGR:
    return cvis::PixelFormat::kxBGR;
  case GST_VIDEO_FORMAT_ARGB:
    return cvis::PixelFormat::kARGB;
  case GST_VIDEO_FORMAT_ABGR:
    return cvis::PixelFormat::kABGR;
  case GST_VIDEO_FORMAT_RGB:
    return cvis::PixelFormat::kRGB;
  case GST_VIDEO_FORMAT_BGR:
    return cvis::PixelFormat::kBGR;
  default:
    return cvis::PixelFormat::kGRAY8;
  }
}

cvis::test::SequenceSpec spec(int w, int h, int frames, int first_object, uint32_t seed) {
  cvis::test::SequenceSpec s;
  s.width = w;
  s.height = h;
  s.frames = frames;
  s.first_object_frame = first_object;
  s.seed = seed;
  s.objects = 2;
  s.noise_sigma = 3.0f;
  s.illumination_drift = 0.0f;
  return s;
}
} // namespace

Sequence::Sequence(int w, int h, int frames, int first_object, uint32_t seed)
    : width(w), height(h), seq(spec(w, h, frames, first_object, seed)) {}

cvis::test::HostImage Sequence::image(int t, GstVideoFormat format) const {
  cvis::test::HostImage rgb;
  std::vector<uint8_t> truth;
  seq.render(t, &rgb, &truth);
  if (format == GST_VIDEO_FORMAT_GRAY8)
    return cvis::test::to_gray(rgb);
  return rgb.converted(to_cvis(format));
}

GstBuffer* Sequence::buffer(int t, GstVideoFormat format) const {
  const cvis::test::HostImage img = image(t, format);
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, width, height);
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  GstVideoFrame f;
  gst_video_frame_map(&f, &info, buf, GST_MAP_WRITE);
  const cvis::ImageView v = img.view();
  const size_t row = cvis::plane_row_bytes(v.format, 0, width);
  for (int y = 0; y < height; ++y) {
    std::memcpy(static_cast<uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)) +
                    y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0),
                v.data[0] + y * v.pitch[0], row);
  }
  gst_video_frame_unmap(&f);
  gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE, format, width, height,
                                 GST_VIDEO_INFO_N_PLANES(&info), info.offset, info.stride);
  GST_BUFFER_PTS(buf) = static_cast<GstClockTime>(t) * GST_SECOND / 30;
  GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
  return buf;
}

std::string caps_string(GstVideoFormat format, int width, int height, bool cuda) {
  return std::string("video/x-raw") + (cuda ? "(memory:CUDAMemory)" : "") +
         ",format=" + gst_video_format_to_string(format) + ",width=" + std::to_string(width) +
         ",height=" + std::to_string(height) + ",framerate=30/1";
}

Expected library_run(const Sequence& seq, GstVideoFormat format, int n,
                     const cvis::bgsub::Params& params) {
  Expected e;
  cvis::Status st;
  auto s = cvis::bgsub::make_subtractor(cvis::Backend::kCpu, &st);
  EXPECT_TRUE(s && s->configure(params).ok());
  cvis::test::HostImage mask(cvis::PixelFormat::kGRAY8, seq.width, seq.height);
  for (int t = 0; t < n; ++t) {
    const cvis::test::HostImage img = seq.image(t, format);
    cvis::bgsub::FrameResult r;
    EXPECT_TRUE(s->process(img.view(), mask.view(), &r, nullptr).ok());
    std::vector<uint8_t> m(static_cast<size_t>(seq.width) * seq.height);
    for (int y = 0; y < seq.height; ++y)
      std::memcpy(m.data() + y * seq.width, mask.plane(0) + y * mask.pitch(0), seq.width);
    e.masks.push_back(std::move(m));
    e.results.push_back(std::move(r));
  }
  return e;
}

std::vector<uint8_t> read_mask(GstBuffer* buf, int width, int height) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_GRAY8, width, height);
  GstVideoFrame f;
  std::vector<uint8_t> out;
  if (!gst_video_frame_map(&f, &info, buf, GST_MAP_READ))
    return out;
  out.resize(static_cast<size_t>(width) * height);
  for (int y = 0; y < height; ++y) {
    std::memcpy(out.data() + y * width,
                static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)) +
                    y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0),
                width);
  }
  gst_video_frame_unmap(&f);
  return out;
}

std::vector<cvis::bgsub::Blob> read_blobs(GstBuffer* buf) {
  std::vector<cvis::bgsub::Blob> out;
  for (gint id = 0;; ++id) {
    GstVideoRegionOfInterestMeta* m = gst_buffer_get_video_region_of_interest_meta_id(buf, id);
    if (!m)
      break;
    EXPECT_STREQ(g_quark_to_string(m->roi_type), GST_CVIS_FOREGROUND_ROI_TYPE);
    guint area = 0;
    GstStructure* s = gst_video_region_of_interest_meta_get_param(m, "foreground");
    EXPECT_TRUE(s && gst_structure_get_uint(s, "area", &area));
    out.push_back({(int)m->x, (int)m->y, (int)m->w, (int)m->h, (int)area});
  }
  return out;
}

std::vector<cvis::bgsub::Blob> limit_blobs(const std::vector<cvis::bgsub::Blob>& b, size_t max) {
  std::vector<size_t> keep(b.size());
  std::iota(keep.begin(), keep.end(), 0);
  if (keep.size() > max) {
    std::stable_sort(keep.begin(), keep.end(),
                     [&](size_t x, size_t y) { return b[x].area > b[y].area; });
    keep.resize(max);
    std::sort(keep.begin(), keep.end());
  }
  std::vector<cvis::bgsub::Blob> out;
  for (size_t i : keep)
    out.push_back(b[i]);
  return out;
}

cvis::bgsub::Params small_params(cvis::bgsub::Kernel k) {
  cvis::bgsub::Params p;
  p.num_samples = 8;
  p.kernel = k;
  p.min_mask_area = 20; // the small scenes' objects (6x6 squares) are under the default 60
  p.persistence = 0.0f; // as small_props()
  return p;
}

std::string small_props(cvis::bgsub::Kernel k) {
  // persistence=0: masks frame by frame (the filter's own checks set it).
  return std::string("num-samples=8 min-mask-area=20 persistence=0 kernel=") +
         cvis::bgsub::kernel_name(k);
}

bool has_feature(const char* name) {
  GstPluginFeature* f = gst_registry_lookup_feature(gst_registry_get(), name);
  if (f)
    gst_object_unref(f);
  return f != nullptr;
}

} // namespace bgsub_elem

// Shared by the cudamedian3d element tests: seeded frames as GstBuffers, the expected outputs
// computed with the library's CPU backend (itself checked against the definition in the algo
// tests), and helpers to read outputs back.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/cvis/cvisforegroundmeta.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gstcvisutils.h"
#include "median3d.hpp"
#include "median3d_cases.hpp"
#include "motion.hpp"

namespace m3d_elem {

namespace m3d = cvis::median3d;

inline const GstClockTime kDur = GST_SECOND / 30;

inline std::string caps_string(GstVideoFormat f, int w, int h, bool cuda = false) {
  return std::string("video/x-raw") + (cuda ? "(memory:CUDAMemory)" : "") +
         ",format=" + gst_video_format_to_string(f) + ",width=" + std::to_string(w) +
         ",height=" + std::to_string(h) + ",framerate=30/1";
}

// Copies frame t of the seeded sequence into `dst` (any layout: strides from the mapped frame).
inline void fill_frame(GstVideoFrame* dst, GstVideoFormat f, int w, int h, uint32_t seed, int t) {
  cvis::PixelFormat pf;
  gst_cvis_pixel_format_from_video(f, &pf);
  cvis::test::HostImage img =
      m3d::test::make_frame(pf, w, h, 0, m3d::test::Content::kScene, seed, t);
  for (int p = 0; p < cvis::plane_count(pf); ++p) {
    for (int y = 0; y < cvis::plane_rows(pf, p, h); ++y) {
      memcpy(static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(dst, p)) +
                 y * GST_VIDEO_FRAME_PLANE_STRIDE(dst, p),
             img.plane(p) + y * img.pitch(p), cvis::plane_row_bytes(pf, p, w));
    }
  }
}

// A system-memory frame t with PTS t/30 s, duration, offset t.
inline GstBuffer* make_buffer(GstVideoFormat f, int w, int h, uint32_t seed, int t) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, f, w, h);
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  GstVideoFrame vf;
  if (gst_video_frame_map(&vf, &info, buf, GST_MAP_WRITE)) {
    fill_frame(&vf, f, w, h, seed, t);
    gst_video_frame_unmap(&vf);
  }
  GST_BUFFER_PTS(buf) = t * kDur;
  GST_BUFFER_DURATION(buf) = kDur;
  GST_BUFFER_OFFSET(buf) = t;
  return buf;
}

// Expected outputs of a whole sequence (arrivals then EOS), output j for frame j.
struct Expected {
  std::vector<std::vector<uint8_t>> background; // packed rows (input format, plane by plane)
  std::vector<std::vector<uint8_t>> mask;       // w * h
  std::vector<m3d::FrameResult> result;
  std::vector<std::vector<m3d::Blob>> blobs;
};

inline size_t frame_bytes(cvis::PixelFormat pf, int w, int h) {
  size_t n = 0;
  for (int p = 0; p < cvis::plane_count(pf); ++p)
    n += cvis::plane_row_bytes(pf, p, w) * cvis::plane_rows(pf, p, h);
  return n;
}

inline Expected expected_outputs(GstVideoFormat f, int w, int h, uint32_t seed, int frames,
                                 const m3d::Params& p, m3d::Timing timing, int threshold,
                                 uint32_t min_area = 25, size_t max_blobs = 64) {
  Expected e;
  cvis::PixelFormat pf;
  gst_cvis_pixel_format_from_video(f, &pf);
  cvis::Status s;
  auto est = m3d::make_estimator(cvis::Backend::kCpu, &s);
  if (!est || !est->configure(p, w, h, pf).ok())
    return e;
  m3d::WindowTracker tr(p.temporal, timing);
  std::vector<cvis::test::HostImage> seq;
  for (int t = 0; t < frames; ++t) {
    seq.push_back(m3d::test::make_frame(pf, w, h, 0, m3d::test::Content::kScene, seed, t));
  }
  auto take = [&](bool draining) {
    int pops, index;
    while (tr.next_output(draining, &pops, &index)) {
      for (int k = 0; k < pops; ++k)
        (void)est->pop(nullptr);
      cvis::test::HostImage bg(pf, w, h), mk(cvis::PixelFormat::kGRAY8, w, h);
      const cvis::ImageView vb = bg.view(), vm = mk.view();
      m3d::Request rq;
      rq.background = &vb;
      rq.mask = &vm;
      rq.threshold = threshold;
      (void)est->compute(index, rq, nullptr);
      m3d::FrameResult fr;
      (void)est->result(&fr);
      std::vector<uint8_t> b, m;
      for (int pl = 0; pl < cvis::plane_count(pf); ++pl) {
        for (int y = 0; y < cvis::plane_rows(pf, pl, h); ++y) {
          const uint8_t* row = bg.plane(pl) + y * bg.pitch(pl);
          b.insert(b.end(), row, row + cvis::plane_row_bytes(pf, pl, w));
        }
      }
      for (int y = 0; y < h; ++y)
        m.insert(m.end(), mk.plane(0) + y * mk.pitch(0), mk.plane(0) + y * mk.pitch(0) + w);
      std::vector<m3d::Blob> blobs;
      (void)m3d::find_blobs(vm, min_area, max_blobs, &blobs);
      e.background.push_back(b);
      e.mask.push_back(m);
      e.result.push_back(fr);
      e.blobs.push_back(blobs);
    }
  };
  for (const auto& img : seq) {
    (void)est->push(img.view(), tr.arrive(), nullptr);
    take(false);
  }
  take(true);
  return e;
}

// Frame t of a motion test: the seeded scene of `seed`, and from frame `cut` on (when >= 0) that
// of `seed` + 25 (another background: a shot change).
inline uint32_t motion_seed(uint32_t seed, int cut, int t) {
  return cut >= 0 && t >= cut ? seed + 25 : seed;
}

// Expected outputs of mode=motion (no lag: output j is frame j's) from the library's CPU motion
// detector: mask and blobs, background (in the input format), results.
struct MotionExpected {
  std::vector<std::vector<uint8_t>> background, mask;
  std::vector<m3d::MotionResult> result;
};

inline MotionExpected expected_motion(GstVideoFormat f, int w, int h, uint32_t seed, int frames,
                                      const m3d::MotionParams& p, int cut = -1) {
  MotionExpected e;
  cvis::PixelFormat pf;
  gst_cvis_pixel_format_from_video(f, &pf);
  cvis::Status s;
  auto det = m3d::make_motion_detector(cvis::Backend::kCpu, &s);
  if (!det || !det->configure(p).ok())
    return e;
  for (int t = 0; t < frames; ++t) {
    const cvis::test::HostImage in = m3d::test::make_frame(pf, w, h, 0, m3d::test::Content::kScene,
                                                           motion_seed(seed, cut, t), t);
    cvis::test::HostImage bg(pf, w, h), mk(cvis::PixelFormat::kGRAY8, w, h);
    const cvis::ImageView vb = bg.view(), vm = mk.view();
    m3d::MotionResult r;
    if (!det->process(in.view(), &vm, &vb, &r, nullptr).ok())
      return MotionExpected();
    std::vector<uint8_t> b, m;
    for (int pl = 0; pl < cvis::plane_count(pf); ++pl) {
      for (int y = 0; y < cvis::plane_rows(pf, pl, h); ++y) {
        const uint8_t* row = bg.plane(pl) + y * bg.pitch(pl);
        b.insert(b.end(), row, row + cvis::plane_row_bytes(pf, pl, w));
      }
    }
    for (int y = 0; y < h; ++y)
      m.insert(m.end(), mk.plane(0) + y * mk.pitch(0), mk.plane(0) + y * mk.pitch(0) + w);
    e.background.push_back(b);
    e.mask.push_back(m);
    e.result.push_back(r);
  }
  return e;
}

// The pixels of a (system or CUDA memory) output buffer, packed plane by plane.
inline std::vector<uint8_t> read_buffer(GstBuffer* buf, GstVideoFormat f, int w, int h) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, f, w, h);
  GstVideoFrame vf;
  std::vector<uint8_t> out;
  if (!gst_video_frame_map(&vf, &info, buf, GST_MAP_READ))
    return out;
  cvis::PixelFormat pf;
  gst_cvis_pixel_format_from_video(f, &pf);
  for (int p = 0; p < cvis::plane_count(pf); ++p) {
    for (int y = 0; y < cvis::plane_rows(pf, p, h); ++y) {
      const guint8* row = static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&vf, p)) +
                          y * GST_VIDEO_FRAME_PLANE_STRIDE(&vf, p);
      out.insert(out.end(), row, row + cvis::plane_row_bytes(pf, p, w));
    }
  }
  gst_video_frame_unmap(&vf);
  return out;
}

// Foreground ROI boxes on a buffer, in meta order.
inline std::vector<m3d::Blob> roi_boxes(GstBuffer* buf) {
  std::vector<m3d::Blob> out;
  gpointer state = nullptr;
  GstMeta* meta;
  while ((meta = gst_buffer_iterate_meta_filtered(buf, &state,
                                                  GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(meta);
    if (roi->roi_type != g_quark_from_string(GST_CVIS_FOREGROUND_ROI_TYPE))
      continue;
    m3d::Blob b;
    b.x = roi->x;
    b.y = roi->y;
    b.width = roi->w;
    b.height = roi->h;
    GstStructure* s = gst_video_region_of_interest_meta_get_param(roi, "foreground");
    guint area = 0;
    if (s)
      gst_structure_get_uint(s, "area", &area);
    b.area = static_cast<int>(area);
    out.push_back(b);
  }
  return out;
}

inline bool same_blobs(const std::vector<m3d::Blob>& a, const std::vector<m3d::Blob>& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) {
      return false;
    }
  }
  return true;
}

} // namespace m3d_elem

// Shared by the cudaactionmatch element tests: generated action clips (tests/actiongen) as GRAY8
// frames, a test dictionary cut from them, the library's own results for a clip (the oracle), and
// readers of the element's outputs.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/cvis/cvisactionmeta.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include "actiongen.hpp"
#include "cuda_frame_io.hpp"
#include "actionlearn_models.hpp"
#include "actionlearn_recognise.hpp"

namespace am_elem {

namespace am = cvis::actionmatch;
namespace al = cvis::actionlearn;
namespace stip = cvis::stip;

inline const GstClockTime kDur = GST_SECOND / 25;
inline const int kW = 96, kH = 72;

// A generated clip as GRAY8 frames (tight rows).
using Gray = std::vector<uint8_t>;
inline std::vector<Gray> clip(int subject, int action, int frames, uint64_t seed) {
  actiongen::ClipSpec c;
  c.action = action;
  c.scenario = 1;
  c.width = kW;
  c.height = kH;
  c.frames = frames;
  c.seed = seed;
  std::vector<Gray> out;
  for (const auto& rgb : actiongen::render_clip(actiongen::make_subject(subject, 7), c, {})) {
    Gray g(static_cast<size_t>(kW) * kH);
    for (size_t i = 0; i < g.size(); ++i)
      g[i] = static_cast<uint8_t>((77 * rgb[3 * i] + 150 * rgb[3 * i + 1] + 29 * rgb[3 * i + 2]) >> 8);
    out.push_back(std::move(g));
  }
  return out;
}

inline cvis::ImageView view(const Gray& g) {
  cvis::ImageView v;
  v.format = cvis::PixelFormat::kGRAY8;
  v.width = kW;
  v.height = kH;
  v.data[0] = const_cast<uint8_t*>(g.data());
  v.pitch[0] = kW;
  return v;
}

// All interest points of a clip by the library's CPU front end.
inline al::ClipPoints points(const std::vector<Gray>& frames, const stip::FrontEndParams& fp) {
  cvis::Status st;
  auto fe = stip::make_frontend(cvis::Backend::kCpu, &st);
  EXPECT_TRUE(fe && fe->configure(kW, kH, fp).ok());
  al::ClipPoints cp;
  std::vector<stip::FramePoints> ready;
  for (const Gray& g : frames)
    EXPECT_TRUE(fe->push(view(g), nullptr, &ready).ok());
  EXPECT_TRUE(fe->finish(nullptr, &ready).ok());
  al::append_points(ready, &cp);
  return cp;
}

// The test dictionary: two model windows from each of two actions of subject 1, by the front end
// `fp` (and recording its flow histogram, as cvis-action train does). Written once per process and
// front-end setting to a temporary file, removed at exit.
struct TempFile {
  std::string path;
  ~TempFile() {
    if (!path.empty())
      std::remove(path.c_str());
  }
};

// The front-end settings a dictionary depends on, as a file-name key.
inline std::string frontend_key(const stip::FrontEndParams& fp) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "d%d-f%d-s%g-t%g-tau%g-k%g-h%g-m%d", static_cast<int>(fp.detector),
                static_cast<int>(fp.flow_histogram), fp.speed_split, fp.threshold, fp.tau,
                fp.harris_k, fp.harris_scale, fp.max_points);
  return buf;
}

inline const std::string& dictionary_path(const stip::FrontEndParams& fp = stip::FrontEndParams()) {
  static std::map<std::string, TempFile> files;
  const std::string key = frontend_key(fp);
  std::string& path = files[key].path;
  if (!path.empty())
    return path;
  al::Dictionary d;
  al::describe(fp, &d);
  d.params.dummy_cost = 0.6;  // as cvis-action train
  al::LearnParams lp;
  for (int action : {0, 5}) {  // boxing, walking
    al::ClipPoints cp = points(clip(1, action, 70, 100 + action), fp);
    cp.label = actiongen::kActions[action];
    for (am::Model& m : al::cut_models(cp, lp, 2)) {
      m.label = cp.label;
      d.models.push_back(std::move(m));
    }
  }
  path = std::string(g_get_tmp_dir()) + "/cvis-test-actions-" + std::to_string(getpid()) + "-" +
         key + ".cvad";
  EXPECT_GE(d.models.size(), 2u);
  EXPECT_TRUE(al::save_dictionary(path, d).ok());
  return path;
}

// What the element should report for a clip: the library's blocks and nearest models.
struct Expected {
  int64_t first, last;
  bool complete;
  int model;
  double distance, score;
  std::vector<al::MatchedPoint> pts;
};
inline std::vector<Expected> expected(const std::vector<Gray>& frames, int block, int overlap,
                                      const stip::FrontEndParams& fp = stip::FrontEndParams()) {
  al::Dictionary d;
  EXPECT_TRUE(al::load_dictionary(dictionary_path(fp), &d).ok());
  al::ClipPoints cp = points(frames, fp);
  cp.frames = static_cast<int>(frames.size());
  al::LearnParams lp;
  lp.block_frames = block;
  lp.block_step = block - overlap;
  cvis::Status st;
  auto matcher = am::make_matcher(cvis::Backend::kCpu, &st);
  EXPECT_TRUE(matcher && matcher->configure(d.params, d.models).ok());
  std::vector<Expected> out;
  const int F = cp.frames;
  std::vector<int64_t> firsts;
  if (F <= block) {
    firsts.push_back(0);
  } else {
    for (int s = 0; s + block <= F; s += block - overlap)
      firsts.push_back(s);
    if (firsts.back() + block < F)
      firsts.push_back(F - block);
  }
  const std::vector<am::Graph> blocks = al::cut_blocks(cp, lp);
  EXPECT_EQ(blocks.size(), firsts.size());
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].size() < 3)
      continue;  // the element's min-points
    std::vector<am::MatchResult> res;
    EXPECT_TRUE(matcher->match(&blocks[b], 1, &res, nullptr, nullptr).ok());
    Expected e{firsts[b], std::min<int64_t>(firsts[b] + block, F) - 1, F >= block, -1, 0, 0, {}};
    double best = std::numeric_limits<double>::infinity();
    for (size_t m = 0; m < d.models.size(); ++m) {
      const double v =
          al::node_distance(res[m], am::Distance::kAppearance, d.models[m].graph.size());
      if (v < best) {
        best = v;
        e.model = static_cast<int>(m);
      }
    }
    if (e.model < 0 || res[e.model].dummies == static_cast<int>(res[e.model].assignment.size()))
      continue;  // no action (all dummies: no evidence)
    double other = std::numeric_limits<double>::infinity();
    for (size_t m = 0; m < d.models.size(); ++m)
      if (d.models[m].label != d.models[e.model].label)
        other = std::min(
            other, al::node_distance(res[m], am::Distance::kAppearance, d.models[m].graph.size()));
    e.distance = best;
    e.score = std::isfinite(other) ? (other > 0 ? (other - best) / other : 0.0) : 1.0;
    for (int32_t n : res[e.model].assignment)
      if (n >= 0)
        e.pts.push_back({blocks[b].frame[n], blocks[b].x[n], blocks[b].y[n]});
    out.push_back(e);
  }
  return out;
}

inline std::string caps(GstVideoFormat f) {
  return std::string("video/x-raw,format=") + gst_video_format_to_string(f) +
         ",width=" + std::to_string(kW) + ",height=" + std::to_string(kH) + ",framerate=25/1";
}

// The element on the CPU backend with the dictionary of front end `fp` (the element's own front-end
// properties are in `props`).
inline GstHarness* harness(const std::string& props, GstVideoFormat f = GST_VIDEO_FORMAT_GRAY8,
                           const stip::FrontEndParams& fp = stip::FrontEndParams()) {
  GstHarness* hs = gst_harness_new_parse(
      ("cudaactionmatch backend=cpu model-location=" + dictionary_path(fp) + " " + props).c_str());
  gst_harness_set_caps_str(hs, caps(f).c_str(), caps(f).c_str());
  return hs;
}

// A frame as a buffer of format f (GRAY8, or NV12 with neutral chroma), PTS t / 25 s.
inline GstBuffer* buffer(const Gray& g, int t, GstVideoFormat f = GST_VIDEO_FORMAT_GRAY8) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, f, kW, kH);
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  GstVideoFrame vf;
  EXPECT_TRUE(gst_video_frame_map(&vf, &info, buf, GST_MAP_WRITE));
  for (int y = 0; y < kH; ++y)
    std::memcpy(static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&vf, 0)) +
                    y * GST_VIDEO_FRAME_PLANE_STRIDE(&vf, 0),
                g.data() + y * kW, kW);
  if (f == GST_VIDEO_FORMAT_NV12)
    for (int y = 0; y < kH / 2; ++y)
      std::memset(static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&vf, 1)) +
                      y * GST_VIDEO_FRAME_PLANE_STRIDE(&vf, 1),
                  128, kW);
  gst_video_frame_unmap(&vf);
  GST_BUFFER_PTS(buf) = t * kDur;
  GST_BUFFER_DURATION(buf) = kDur;
  return buf;
}

struct Got {
  guint64 frame;  // index of the output buffer carrying the meta
  GstCvisActionInfo info;
  std::string label;
  std::vector<al::MatchedPoint> pts;
  int rois;
  GstClockTime pts_of_buffer;
};

// Pushes frames (then EOS when `eos`) and reads every output: the metas, and that each frame
// left unchanged in order.
inline std::vector<Got> run(GstHarness* hs, const std::vector<Gray>& frames, bool eos,
                            GstVideoFormat f = GST_VIDEO_FORMAT_GRAY8, guint64* outputs = nullptr,
                            const std::function<GstBuffer*(int)>& make = nullptr) {
  for (size_t t = 0; t < frames.size(); ++t) {
    const int i = static_cast<int>(t);
    EXPECT_EQ(gst_harness_push(hs, make ? make(i) : buffer(frames[t], i, f)), GST_FLOW_OK);
  }
  if (eos) {
    EXPECT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  }
  std::vector<Got> got;
  guint64 n = 0;
  while (GstBuffer* b = gst_harness_try_pull(hs)) {
    EXPECT_EQ(GST_BUFFER_PTS(b), n * kDur);
    GstVideoInfo info;
    gst_video_info_set_format(&info, f, kW, kH);
    // Plane 0 first (kW x kH); CUDA memory is read by device copies of the visible bytes.
    const std::vector<uint8_t> px = cvis_test::visible_bytes(b, info);
    EXPECT_GE(px.size(), static_cast<size_t>(kW) * kH);
    for (int y = 0; n < frames.size() && px.size() >= static_cast<size_t>(kW) * kH && y < kH; ++y)
      EXPECT_EQ(std::memcmp(px.data() + y * kW, frames[n].data() + y * kW, kW), 0)
          << "frame " << n << " row " << y;
    if (GstCustomMeta* m = gst_buffer_get_cvis_action_meta(b)) {
      Got g;
      g.frame = n;
      EXPECT_TRUE(gst_cvis_action_meta_get(m, &g.info));
      g.label = g.info.label;
      for (guint i = 0; i < g.info.n_points; ++i) {
        guint64 fr;
        gdouble x, y;
        EXPECT_TRUE(gst_cvis_action_meta_get_point(m, i, &fr, &x, &y));
        g.pts.push_back({static_cast<int64_t>(fr), static_cast<float>(x), static_cast<float>(y)});
      }
      g.rois = 0;
      gpointer it = nullptr;
      while (GstMeta* rm = gst_buffer_iterate_meta_filtered(
                 b, &it, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(rm);
        EXPECT_STREQ(g_quark_to_string(roi->roi_type), GST_CVIS_ACTION_ROI_TYPE);
        for (const al::MatchedPoint& p : g.pts) { // the box holds the matched points
          EXPECT_GE(p.x, roi->x);
          EXPECT_LT(p.x, roi->x + roi->w);
          EXPECT_GE(p.y, roi->y);
          EXPECT_LT(p.y, roi->y + roi->h);
        }
        ++g.rois;
      }
      g.pts_of_buffer = GST_BUFFER_PTS(b);
      got.push_back(g);
    }
    gst_buffer_unref(b);
    ++n;
  }
  if (outputs)
    *outputs = n;
  return got;
}

inline void compare(const std::vector<Got>& got, const std::vector<Expected>& exp,
                    const stip::FrontEndParams& fp = stip::FrontEndParams()) {
  al::Dictionary d;
  ASSERT_TRUE(al::load_dictionary(dictionary_path(fp), &d).ok());
  ASSERT_EQ(got.size(), exp.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("block " + std::to_string(i));
    const Got& g = got[i];
    const Expected& e = exp[i];
    EXPECT_EQ(g.frame, static_cast<guint64>(e.last));  // on the block's last frame
    EXPECT_EQ(g.info.first_frame, static_cast<guint64>(e.first));
    EXPECT_EQ(g.info.last_frame, static_cast<guint64>(e.last));
    EXPECT_EQ(g.info.complete, e.complete);
    EXPECT_EQ(g.info.model_id, e.model);
    EXPECT_EQ(g.label, d.models[e.model].label);
    EXPECT_EQ(g.info.distance, e.distance);  // the same arithmetic: exact
    EXPECT_EQ(g.info.score, e.score);
    EXPECT_EQ(g.info.start, e.first * kDur);
    EXPECT_EQ(g.info.end, (e.last + 1) * kDur);
    EXPECT_EQ(g.rois, 1);
    ASSERT_EQ(g.pts.size(), e.pts.size());
    for (size_t k = 0; k < g.pts.size(); ++k) {
      EXPECT_EQ(g.pts[k].frame, e.pts[k].frame);
      EXPECT_EQ(g.pts[k].x, e.pts[k].x);
      EXPECT_EQ(g.pts[k].y, e.pts[k].y);
    }
  }
}

} // namespace am_elem

// cudabgsub element tests of the scene extensions (CPU backend, run everywhere): their properties
// and the cvis-shot-change message at a cut.
#include <memory>
#include <string>
#include <vector>

#include "bgsub_elem_util.hpp"
#include "shot_change_messages.hpp"

using namespace bgsub_elem;

namespace {

class BgSubScene : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

TEST_F(BgSubScene, PropertiesDefaultsRoundTripAndBadValues) {
  GstElement* e = gst_element_factory_make("cudabgsub", nullptr);
  ASSERT_NE(e, nullptr) << "plugin not found: GST_PLUGIN_PATH must point at the build";
  gboolean illum = FALSE, shadows = FALSE, shots = FALSE;
  gfloat lo = 0, hi = 0;
  gint chroma = -1, need = -1, frames = -1, warm = -1, area = -1, refill = -1;
  gdouble fraction = 0;
  auto get = [&] {
    g_object_get(e, "illumination", &illum, "shadows", &shadows, "shot-changes", &shots,
                 "shadow-low", &lo, "shadow-high", &hi, "shadow-chroma", &chroma, "shadow-samples",
                 &need, "cut-frames", &frames, "cut-warmup", &warm, "min-mask-area", &area,
                 "cut-fraction", &fraction, "cut-refill", &refill, nullptr);
  };
  get();
  const cvis::bgsub::Params d;
  EXPECT_EQ(illum != FALSE, d.illumination);
  EXPECT_EQ(shadows != FALSE, d.shadows);
  EXPECT_EQ(shots != FALSE, d.shot_change);
  EXPECT_FLOAT_EQ(lo, d.shadow_low);
  EXPECT_FLOAT_EQ(hi, d.shadow_high);
  EXPECT_EQ(chroma, d.shadow_chroma);
  EXPECT_EQ(need, d.shadow_samples);
  EXPECT_EQ(frames, d.cut_frames);
  EXPECT_EQ(warm, d.cut_warmup);
  EXPECT_EQ(refill, d.cut_refill);
  EXPECT_EQ(area, d.min_mask_area);
  EXPECT_DOUBLE_EQ(fraction, d.cut_fraction);
  g_object_set(e, "illumination", FALSE, "shadows", FALSE, "shot-changes", FALSE, "shadow-low",
               0.5f, "shadow-high", 0.8f, "shadow-chroma", 6, "shadow-samples", 3, "cut-frames", 4,
               "cut-warmup", 10, "min-mask-area", 0, "cut-fraction", 0.7, "cut-refill", 5, nullptr);
  get();
  EXPECT_FALSE(illum);
  EXPECT_FALSE(shadows);
  EXPECT_FALSE(shots);
  EXPECT_FLOAT_EQ(lo, 0.5f);
  EXPECT_FLOAT_EQ(hi, 0.8f);
  EXPECT_EQ(chroma, 6);
  EXPECT_EQ(need, 3);
  EXPECT_EQ(frames, 4);
  EXPECT_EQ(warm, 10);
  EXPECT_EQ(refill, 5);
  EXPECT_EQ(area, 0);
  EXPECT_DOUBLE_EQ(fraction, 0.7);
  gint passes = -1, levels = -1, matches = -1, still = -1;
  auto get_ghosts = [&] {
    g_object_get(e, "ghost-passes", &passes, "ghost-levels", &levels, "ghost-matches", &matches,
                 "ghost-still", &still, nullptr);
  };
  get_ghosts();
  EXPECT_EQ(passes, d.ghost_passes);
  EXPECT_EQ(levels, d.ghost_levels);
  EXPECT_EQ(matches, d.ghost_matches);
  EXPECT_EQ(still, d.ghost_still);
  g_object_set(e, "ghost-passes", 0, "ghost-levels", 7, "ghost-matches", 3, "ghost-still", 2,
               nullptr);
  get_ghosts();
  EXPECT_EQ(passes, 0);
  EXPECT_EQ(levels, 7);
  EXPECT_EQ(matches, 3);
  EXPECT_EQ(still, 2);
  // shadow-low above shadow-high is taken as set in NULL (the pair may be completed in any
  // order); start judges the pair (tests/gst/contracts).
  g_object_set(e, "shadow-low", 0.85f, nullptr);
  g_object_get(e, "shadow-low", &lo, nullptr);
  EXPECT_FLOAT_EQ(lo, 0.85f);
  gst_object_unref(e);
}

// A cut to another generated scene at frame `cut`: the element's masks equal the library's and
// it posts one cvis-shot-change message, at the frame where the library restarts (1-based frame
// number, that frame's pts).
TEST_F(BgSubScene, ShotChangePostsOneMessage) {
  const int w = 40, h = 30, frames = 34, cut = 20;
  const GstVideoFormat f = GST_VIDEO_FORMAT_RGBA;
  const Sequence a(w, h, frames, 1000, 3), b(w, h, frames, 1000, 77);
  cvis::Status st;
  auto lib = cvis::bgsub::make_subtractor(cvis::Backend::kCpu, &st);
  cvis::bgsub::Params p = small_params(cvis::bgsub::kDefaultKernel);
  ASSERT_TRUE(lib->configure(p).ok());
  std::vector<std::vector<uint8_t>> masks;
  int restart = -1;
  for (int t = 0; t < frames; ++t) {
    cvis::test::HostImage img = (t < cut ? a : b).image(t, f);
    cvis::test::HostImage m(cvis::PixelFormat::kGRAY8, w, h);
    cvis::bgsub::FrameResult r;
    ASSERT_TRUE(lib->process(img.view(), m.view(), &r, nullptr).ok());
    if (r.shot_change) {
      EXPECT_EQ(restart, -1) << "one shot change";
      restart = t;
    }
    std::vector<uint8_t> v(static_cast<size_t>(w) * h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        v[static_cast<size_t>(y) * w + x] = m.plane(0)[y * m.pitch(0) + x];
    masks.push_back(v);
  }
  ASSERT_GT(restart, cut) << "the library sees the cut";
  EXPECT_LE(restart, cut + 3) << "within a few frames";

  GstHarness* hs = gst_harness_new_parse(
      ("cudabgsub backend=cpu " + small_props(cvis::bgsub::kDefaultKernel)).c_str());
  gst_harness_set_src_caps_str(hs, caps_string(f, w, h).c_str());
  auto bus = std::make_unique<cvis_test::ShotChangeBus>(hs->element);
  const GstClockTime dur = GST_SECOND / 30;
  for (int t = 0; t < frames; ++t) {
    GstBuffer* in = (t < cut ? a : b).buffer(t, f);
    GST_BUFFER_PTS(in) = t * dur;
    ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(hs);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(read_mask(out, w, h), masks[t]) << "#" << t;
    gst_buffer_unref(out);
  }
  const std::vector<cvis_test::ShotChange> got = bus->pop();
  for (const cvis_test::ShotChange& m : got) {
    EXPECT_TRUE(m.has_pts);
    EXPECT_TRUE(m.has_frame);
    EXPECT_TRUE(m.has_running_time);
    EXPECT_EQ(m.pts, restart * dur);
    EXPECT_EQ(m.frame, static_cast<guint64>(restart + 1));
  }
  EXPECT_EQ(got.size(), 1u);
  bus.reset();
  gst_harness_teardown(hs);
}

} // namespace

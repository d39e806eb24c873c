// GPU turns with real pipelines (gpu suite): six pipelines
//   videotestsrc ! NV12 ! cudaupload ! cudamedian3d ! queue ! cudarcdtrack ! queue ! cudacedd
// run at once with one slot on the device (every frame of every element waits for the one turn;
// the queues put upstream and downstream elements of a pipeline in different threads, competing
// for it), with two slots changed to none mid-run, and alone without a limit: every pipeline
// reaches EOS with every frame, and the regions and descriptors of every frame are those of the
// run without a limit (turns only order the work). Skips without a GPU (fails with
// CVIS_REQUIRE_GPU=1).
#include <gst/cvis/cvisceddmeta.h>
#include <gst/cvis/cvisturns.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "test_images.hpp"

namespace {

constexpr int kFrames = 45; // the motion detector reports regions from frame 31 of this input

struct PipeRun {
  GstElement* pipeline = nullptr;
  std::mutex lock;
  std::vector<std::string> frames; // per frame: its sorted ROIs and CEDD entries
};

GstPadProbeReturn keep(GstPad*, GstPadProbeInfo* info, gpointer data) {
  auto* run = static_cast<PipeRun*>(data);
  GstBuffer* buf = GST_PAD_PROBE_INFO_BUFFER(info);
  std::vector<std::string> items;
  gpointer state = nullptr;
  while (GstMeta* m = gst_buffer_iterate_meta_filtered(
             buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
    auto* r = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
    items.push_back(std::string(g_quark_to_string(r->roi_type)) + " " + std::to_string(r->x) + "," +
                    std::to_string(r->y) + " " + std::to_string(r->w) + "x" + std::to_string(r->h));
  }
  if (GstCustomMeta* m = gst_buffer_get_cvis_cedd_meta(buf)) {
    for (guint i = 0; i < gst_cvis_cedd_meta_get_count(m); ++i) {
      GstCvisCeddEntry e;
      if (gst_cvis_cedd_meta_get_entry(m, i, &e))
        items.push_back("cedd " + std::to_string(e.x) + "," + std::to_string(e.y) + " " +
                        std::string(e.levels, e.levels + GST_CVIS_CEDD_BINS));
    }
  }
  std::sort(items.begin(), items.end());
  std::string f;
  for (const std::string& s : items)
    f += s + ";";
  std::lock_guard<std::mutex> lk(run->lock);
  run->frames.push_back(f);
  return GST_PAD_PROBE_OK;
}

std::unique_ptr<PipeRun> build(int pattern_seed) {
  const std::string desc =
      "videotestsrc num-buffers=" + std::to_string(kFrames) + " pattern=ball motion=sweep " +
      "animation-mode=frames flip=false horizontal-speed=" + std::to_string(pattern_seed) +
      " ! video/x-raw,format=NV12,width=192,height=144,framerate=30/1 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudamedian3d output=frame backend=cuda ! "
      "queue max-size-buffers=1 ! cudarcdtrack init-roi-type=foreground backend=cuda ! "
      "queue max-size-buffers=1 ! cudacedd regions=both backend=cuda ! "
      "fakesink name=sink sync=false";
  auto run = std::make_unique<PipeRun>();
  GError* err = nullptr;
  run->pipeline = gst_parse_launch(desc.c_str(), &err);
  EXPECT_TRUE(run->pipeline) << desc << ": " << (err ? err->message : "");
  g_clear_error(&err);
  if (!run->pipeline)
    return run;
  GstElement* sink = gst_bin_get_by_name(GST_BIN(run->pipeline), "sink");
  GstPad* pad = gst_element_get_static_pad(sink, "sink");
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, keep, run.get(), nullptr);
  gst_object_unref(pad);
  gst_object_unref(sink);
  return run;
}

// Plays every run at once; `midway` (may be empty) is called once the first run is half done.
void play_all(const std::vector<PipeRun*>& runs, const std::function<void()>& midway = {}) {
  for (PipeRun* r : runs)
    ASSERT_NE(gst_element_set_state(r->pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  if (midway) {
    for (int i = 0; i < 2000; ++i) { // up to 20 s
      {
        std::lock_guard<std::mutex> lk(runs[0]->lock);
        if (runs[0]->frames.size() >= kFrames / 2)
          break;
      }
      g_usleep(10000);
    }
    midway();
  }
  for (PipeRun* r : runs) {
    GstBus* bus = gst_element_get_bus(r->pipeline);
    GstMessage* msg = gst_bus_timed_pop_filtered(
        bus, 120 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    ASSERT_NE(msg, nullptr) << "no EOS within 120 s (a turn never came?)";
    EXPECT_EQ(GST_MESSAGE_TYPE(msg), GST_MESSAGE_EOS) << GST_OBJECT_NAME(GST_MESSAGE_SRC(msg));
    gst_message_unref(msg);
    gst_object_unref(bus);
  }
}

void stop(PipeRun* r) {
  if (r->pipeline) {
    gst_element_set_state(r->pipeline, GST_STATE_NULL);
    gst_object_unref(r->pipeline);
    r->pipeline = nullptr;
  }
}

class GpuTurns : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
  void SetUp() override {
    CVIS_REQUIRE_GPU();
    gst_cvis_gpu_turns_set_slots(0, 0);
    auto ref = build(5);
    ASSERT_TRUE(ref->pipeline);
    play_all({ref.get()});
    stop(ref.get());
    reference_ = ref->frames;
    ASSERT_EQ(reference_.size(), static_cast<size_t>(kFrames));
    ASSERT_NE(reference_.back().find("track"), std::string::npos) << "the input must be tracked";
  }
  void TearDown() override { gst_cvis_gpu_turns_set_slots(0, GST_CVIS_GPU_TURNS_DEFAULT_SLOTS); }
  void check(const std::vector<std::unique_ptr<PipeRun>>& runs) {
    for (size_t i = 0; i < runs.size(); ++i) {
      ASSERT_EQ(runs[i]->frames.size(), reference_.size()) << "pipeline " << i;
      for (size_t f = 0; f < reference_.size(); ++f)
        EXPECT_EQ(runs[i]->frames[f], reference_[f]) << "pipeline " << i << " frame " << f;
    }
  }
  // Builds `n` pipelines, plays them all at once (with `midway`, as play_all), stops them and
  // checks every frame against the reference.
  void run_and_check(int n, const std::function<void()>& midway = {}) {
    std::vector<std::unique_ptr<PipeRun>> runs;
    std::vector<PipeRun*> raw;
    for (int i = 0; i < n; ++i) {
      runs.push_back(build(5));
      ASSERT_TRUE(runs.back()->pipeline);
      raw.push_back(runs.back().get());
    }
    play_all(raw, midway);
    for (auto& r : runs)
      stop(r.get());
    check(runs);
  }
  std::vector<std::string> reference_;
};

TEST_F(GpuTurns, SixPipelinesOnOneSlotGiveEveryFrameUnchanged) {
  gst_cvis_gpu_turns_set_slots(0, 1);
  run_and_check(6);
}

TEST_F(GpuTurns, LiftingTheLimitMidRunLosesNothing) {
  gst_cvis_gpu_turns_set_slots(0, 2);
  run_and_check(4, [] { gst_cvis_gpu_turns_set_slots(0, 0); });
}

} // namespace

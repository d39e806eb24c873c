// cudaactionmatch with backend=cuda (gpu suite): NV12 frames in CUDA memory (a GstCudaBufferPool
// on a shared context) and in system memory give the same blocks as backend=cpu and as the library
// on the same bytes (both backends of the matcher and of the front end are exact); frames leave
// unchanged and stay in CUDA memory.
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "actionmatch_elem_util.hpp"
#include "cuda_frame_io.hpp"
#include "test_images.hpp"

namespace {

using namespace am_elem;

class ActionMatchElementCuda : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
  void SetUp() override {
    CVIS_REQUIRE_GPU();
    ASSERT_TRUE(gst_cuda_load_library());
    gst_cuda_memory_init_once();
    ctx_ = gst_cuda_context_new(0);
    ASSERT_TRUE(ctx_);
  }
  void TearDown() override { gst_clear_object(&ctx_); }

  GstHarness* cuda_harness(const std::string& props, bool cuda_mem) {
    GstElement* e = gst_parse_launch(("cudaactionmatch backend=cuda model-location=" +
                                      dictionary_path() + " " + props)
                                         .c_str(),
                                     nullptr);
    GstContext* c = gst_context_new_cuda_context(ctx_);
    gst_element_set_context(e, c);
    gst_context_unref(c);
    GstHarness* hs = gst_harness_new_with_element(e, "sink", "src");
    gst_object_unref(e);
    gst_harness_set_src_caps_str(hs, caps_of(cuda_mem).c_str());
    return hs;
  }

  static std::string caps_of(bool cuda_mem) {
    std::string c = caps(GST_VIDEO_FORMAT_NV12);
    if (cuda_mem)
      c.replace(c.find("video/x-raw"), 11, "video/x-raw(memory:CUDAMemory)");
    return c;
  }

  GstBufferPool* cuda_pool() {
    GstBufferPool* pool = gst_cuda_buffer_pool_new(ctx_);
    GstCaps* c = gst_caps_from_string(caps_of(true).c_str());
    GstVideoInfo info;
    gst_video_info_from_caps(&info, c);
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, c, GST_VIDEO_INFO_SIZE(&info), 0, 0);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    EXPECT_TRUE(gst_buffer_pool_set_config(pool, config));
    EXPECT_TRUE(gst_buffer_pool_set_active(pool, TRUE));
    gst_caps_unref(c);
    return pool;
  }

  // Frame t as NV12 in the pool's CUDA memory (neutral chroma), copied on the device.
  static GstBuffer* pool_buffer(GstBufferPool* pool, const Gray& g, int t) {
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, kW, kH);
    GstBuffer* sys = buffer(g, t, GST_VIDEO_FORMAT_NV12);
    GstBuffer* buf = cvis_test::cuda_copy_of(pool, sys, info);
    gst_buffer_unref(sys);
    return buf;
  }

  GstCudaContext* ctx_ = nullptr;
};

TEST_F(ActionMatchElementCuda, SameBlocksAsTheCpuBackendAndTheLibrary) {
  for (int which : {0, 1}) {
    if (which == 1 && cvis::test::sanitizer_run())
      break; // compute-sanitizer: the models' own clip in CUDA memory only (same kernels)
    // The models' own clip (matched points, positive scores) and another subject's.
    const std::vector<Gray> frames = which == 0 ? clip(1, 0, 70, 100) : clip(2, 5, 100, 905);
    const std::vector<Expected> exp = expected(frames, 30, 10);
    for (bool cuda_mem : {true, false}) {
      if (!cuda_mem && cvis::test::sanitizer_run())
        break;
      SCOPED_TRACE(std::string(cuda_mem ? "CUDA" : "system") + " memory, clip " +
                   std::to_string(which));
      GstHarness* gpu = cuda_harness("block-frames=30 overlap=10", cuda_mem);
      GstBufferPool* pool = cuda_mem ? cuda_pool() : nullptr;
      std::function<GstBuffer*(int)> make = nullptr;
      if (pool)
        make = [&](int t) { return pool_buffer(pool, frames[t], t); };
      const std::vector<Got> got = run(gpu, frames, true, GST_VIDEO_FORMAT_NV12, nullptr, make);
      compare(got, exp);
      if (which == 0) {
        ASSERT_FALSE(got.empty());
        EXPECT_GT(got[1].pts.size(), 10u);
      }
      GstHarness* cpu = harness("block-frames=30 overlap=10", GST_VIDEO_FORMAT_NV12);
      const std::vector<Got> want = run(cpu, frames, true, GST_VIDEO_FORMAT_NV12);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].info.model_id, want[i].info.model_id);
        EXPECT_EQ(got[i].info.distance, want[i].info.distance);
        EXPECT_EQ(got[i].info.energy, want[i].info.energy);
      }
      gst_harness_teardown(cpu);
      if (pool) {
        gst_buffer_pool_set_active(pool, FALSE);
        gst_object_unref(pool);
      }
      gst_harness_teardown(gpu);
    }
  }
}

TEST_F(ActionMatchElementCuda, FramesStayInCudaMemory) {
  const std::vector<Gray> frames = clip(3, 2, 20, 906);
  GstHarness* gpu = cuda_harness("", true);
  GstBufferPool* pool = cuda_pool();
  for (int t = 0; t < 20; ++t)
    ASSERT_EQ(gst_harness_push(gpu, pool_buffer(pool, frames[t], t)), GST_FLOW_OK);
  ASSERT_TRUE(gst_harness_push_event(gpu, gst_event_new_eos()));
  int n = 0;
  while (GstBuffer* b = gst_harness_try_pull(gpu)) {
    EXPECT_TRUE(gst_is_cuda_memory(gst_buffer_peek_memory(b, 0))) << n;
    gst_buffer_unref(b);
    ++n;
  }
  EXPECT_EQ(n, 20);
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool);
  gst_harness_teardown(gpu);
}

} // namespace

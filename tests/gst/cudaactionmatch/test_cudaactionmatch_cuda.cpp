// cudaactionmatch with backend=cuda (gpu suite): NV12 frames in CUDA memory (a GstCudaBufferPool
// on a shared context) and in system memory give the same blocks as backend=cpu and as the library
// on the same bytes (both backends of the matcher and of the front end are exact); frames leave
// unchanged and stay in CUDA memory.
#include "actionmatch_elem_util.hpp"
#include "cuda_context_test.hpp"
#include "cuda_frame_io.hpp"
#include "test_images.hpp"

namespace {

using namespace am_elem;

class ActionMatchElementCuda : public cvis_test::CudaContextTest {
protected:
  GstHarness* cuda_harness(const std::string& props, bool cuda_mem) {
    return harness_in_context("cudaactionmatch backend=cuda model-location=" + dictionary_path() +
                                  " " + props,
                              caps_of(cuda_mem));
  }

  static std::string caps_of(bool cuda_mem) {
    std::string c = caps(GST_VIDEO_FORMAT_NV12);
    if (cuda_mem)
      c.replace(c.find("video/x-raw"), 11, "video/x-raw(memory:CUDAMemory)");
    return c;
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
      GstBufferPool* pool = cuda_mem ? cuda_pool(caps_of(true)) : nullptr;
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
      release_pool(pool);
      gst_harness_teardown(gpu);
    }
  }
}

TEST_F(ActionMatchElementCuda, FramesStayInCudaMemory) {
  const std::vector<Gray> frames = clip(3, 2, 20, 906);
  GstHarness* gpu = cuda_harness("", true);
  GstBufferPool* pool = cuda_pool(caps_of(true));
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
  release_pool(pool);
  gst_harness_teardown(gpu);
}

} // namespace

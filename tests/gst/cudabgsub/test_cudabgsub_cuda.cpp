// cudabgsub on the GPU (gpu suite): CUDA memory from cudaupload in both output modes (GRAY8 masks
// in CUDA memory, or downloaded by the element), system memory uploaded by the element, every
// kernel, and a decode pipeline. Masks are compared with the CPU library: exactly for the kernels
// with bit-identical arithmetic (cpwl-manual, cpwl-opt-manual, cpwl-slope), within 0.1% of
// pixel-frames for the others (the tolerance of test_bgsub_gpu, same reason).
#include <gst/cvis/cvisforegroundmeta.h>

#include <cstring>
#include <string>
#include <vector>

#include "bgsub_elem_util.hpp"
#include "cuda_frame_io.hpp"
#include "test_images.hpp"

using namespace bgsub_elem;
using cvis::bgsub::Kernel;

namespace {

class BgSubElementCuda : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

bool exact_kernel(Kernel k) {
  return k == Kernel::kManualUniform || k == Kernel::kManualOptimized || k == Kernel::kSlopeUniform;
}

bool caps_cuda(GstHarness* hs) {
  GstCaps* caps = gst_pad_get_current_caps(hs->sinkpad);
  if (!caps)
    return false;
  GstCapsFeatures* f = gst_caps_get_features(caps, 0);
  const bool cuda = f && gst_caps_features_contains(f, "memory:CUDAMemory");
  gst_caps_unref(caps);
  return cuda;
}

// Pushes `frames` frames through `launch`, compares every mask (the output buffer for
// output=mask, the meta's mask for output=frame) with the library. Returns differing pixels.
size_t run_and_compare(const std::string& launch, GstVideoFormat fmt, int w, int h, int frames,
                       Kernel k, bool frame_mode, bool expect_cuda_out, bool expect_cuda_mask) {
  const Sequence seq(w, h, frames, 9, 31 + w);
  const Expected e = library_run(seq, fmt, frames, small_params(k));
  GstHarness* hs = gst_harness_new_parse(launch.c_str());
  gst_harness_set_src_caps_str(hs, caps_string(fmt, w, h).c_str());
  size_t differ = 0;
  for (int t = 0; t < frames; ++t) {
    EXPECT_EQ(gst_harness_push(hs, seq.buffer(t, fmt)), GST_FLOW_OK) << launch;
    GstBuffer* out = gst_harness_pull(hs);
    if (!out) {
      ADD_FAILURE() << "no output: " << launch;
      break;
    }
    GstBuffer* mask = out;
    if (frame_mode) {
      GstCvisForegroundInfo fi;
      GstCustomMeta* m = gst_buffer_get_cvis_foreground_meta(out);
      EXPECT_TRUE(m && gst_cvis_foreground_meta_get(m, &fi)) << launch;
      if (!m) {
        gst_buffer_unref(out);
        break;
      }
      EXPECT_EQ(static_cast<bool>(fi.cuda_memory), expect_cuda_mask) << launch;
      mask = fi.mask;
    }
    GstVideoInfo gray;
    gst_video_info_set_format(&gray, GST_VIDEO_FORMAT_GRAY8, w, h);
    const std::vector<uint8_t> got = cvis_test::visible_bytes(mask, gray);
    EXPECT_EQ(got.size(), static_cast<size_t>(w) * h);
    for (size_t i = 0; i < got.size() && i < e.masks[t].size(); ++i)
      differ += got[i] != e.masks[t][i];
    if (got == e.masks[t]) {
      EXPECT_EQ(read_blobs(out), limit_blobs(e.results[t].blobs, 64)) << t;
    }
    gst_buffer_unref(out);
  }
  EXPECT_EQ(caps_cuda(hs), expect_cuda_out) << launch;
  gst_harness_teardown(hs);
  if (exact_kernel(k)) {
    EXPECT_EQ(differ, 0u) << launch;
  } else {
    EXPECT_LE(static_cast<double>(differ) / (double(w) * h * frames), 1e-3) << launch;
  }
  return differ;
}

const char* kUpload = "cudaupload ! video/x-raw(memory:CUDAMemory) ! cudabgsub backend=cuda ";

TEST_F(BgSubElementCuda, CudaMemoryMaskOutputStaysInCudaMemory) {
  CVIS_REQUIRE_GPU();
  ASSERT_TRUE(has_feature("cudaupload")) << "nvcodec's cudaupload is missing";
  // Under compute-sanitizer one odd, small size (racecheck and initcheck take minutes otherwise).
  const std::vector<std::pair<int, int>> sizes =
      cvis::test::sanitizer_run() ? std::vector<std::pair<int, int>>{{77, 41}}
                                  : std::vector<std::pair<int, int>>{{333, 211}, {64, 48}};
  for (GstVideoFormat fmt : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGB}) {
    for (auto [w, h] : sizes) {
      run_and_compare(kUpload + small_props(Kernel::kManualUniform), fmt, w, h, 14,
                      Kernel::kManualUniform, false, true, false);
    }
  }
}

TEST_F(BgSubElementCuda, CudaMemoryMaskDownloadedWhenDownstreamWantsSystemMemory) {
  CVIS_REQUIRE_GPU();
  ASSERT_TRUE(has_feature("cudaupload"));
  // A caps filter at the end of a launch line needs the element form (a bare caps string there is
  // parsed as an element name).
  run_and_compare(kUpload + small_props(Kernel::kManualUniform) +
                      " ! capsfilter caps=\"video/x-raw,format=GRAY8\"",
                  GST_VIDEO_FORMAT_RGBA, 161, 97, 14, Kernel::kManualUniform, false, false, false);
}

TEST_F(BgSubElementCuda, FrameOutputKeepsFramesAndMasksInCudaMemory) {
  CVIS_REQUIRE_GPU();
  ASSERT_TRUE(has_feature("cudaupload"));
  run_and_compare(kUpload + small_props(Kernel::kSlopeUniform) + " output=frame",
                  GST_VIDEO_FORMAT_BGRA, 200, 120, 14, Kernel::kSlopeUniform, true, true, true);
}

TEST_F(BgSubElementCuda, SystemMemoryUploadedByTheElement) {
  CVIS_REQUIRE_GPU();
  for (GstVideoFormat fmt :
       {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_xRGB}) {
    run_and_compare("cudabgsub backend=cuda " + small_props(Kernel::kManualOptimized), fmt, 97, 71,
                    14, Kernel::kManualOptimized, false, false, false);
    run_and_compare("cudabgsub backend=cuda output=frame " + small_props(Kernel::kManualOptimized),
                    fmt, 97, 71, 14, Kernel::kManualOptimized, true, false, false);
  }
}

TEST_F(BgSubElementCuda, EveryKernelInCudaMemory) {
  CVIS_REQUIRE_GPU();
  ASSERT_TRUE(has_feature("cudaupload"));
  const bool san = cvis::test::sanitizer_run(); // compute-sanitizer: a smaller frame
  for (int k = 0; k < cvis::bgsub::kKernelCount; ++k) {
    const size_t d = run_and_compare(kUpload + small_props(static_cast<Kernel>(k)),
                                     GST_VIDEO_FORMAT_RGBA, san ? 61 : 120, san ? 45 : 90, 16,
                                     static_cast<Kernel>(k), false, true, false);
    std::printf("[element] %s: %zu mask pixels differ from the CPU library\n",
                cvis::bgsub::kernel_name(static_cast<Kernel>(k)), d);
  }
}

// Decoded H.264 in CUDA memory from nvh264dec, both outputs, to fakesink.
TEST_F(BgSubElementCuda, DecodePipelineRunsToEos) {
  CVIS_REQUIRE_GPU();
  const char* media = g_getenv("CVIS_TEST_H264");
  if (!media || !has_feature("nvh264dec"))
    GTEST_SKIP() << "set CVIS_TEST_H264 to an .mp4 (H.264)";
  for (const char* tail :
       {"cudabgsub backend=cuda ! fakesink", "cudabgsub backend=cuda output=frame ! fakesink"}) {
    // Under compute-sanitizer the first 10 frames (the whole 1080p clip takes past the limit).
    const std::string launch =
        std::string("filesrc location=") + media + " ! qtdemux ! h264parse ! nvh264dec ! " +
        (cvis::test::sanitizer_run() ? "identity eos-after=10 ! " : "") + tail;
    GError* err = nullptr;
    GstElement* pipe = gst_parse_launch(launch.c_str(), &err);
    ASSERT_NE(pipe, nullptr) << (err ? err->message : "");
    gst_element_set_state(pipe, GST_STATE_PLAYING);
    GstBus* bus = gst_element_get_bus(pipe);
    GstMessage* msg = gst_bus_timed_pop_filtered(
        bus, 300 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
    ASSERT_NE(msg, nullptr) << "timeout: " << launch;
    if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
      GError* e = nullptr;
      gst_message_parse_error(msg, &e, nullptr);
      ADD_FAILURE() << launch << ": " << (e ? e->message : "?");
      g_clear_error(&e);
    }
    gst_message_unref(msg);
    gst_object_unref(bus);
    gst_element_set_state(pipe, GST_STATE_NULL);
    gst_object_unref(pipe);
  }
}

} // namespace

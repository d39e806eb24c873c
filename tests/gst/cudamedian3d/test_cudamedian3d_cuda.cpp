// cudamedian3d with backend=cuda (gpu suite): CUDA-memory frames (a GstCudaBufferPool on a shared
// context) and system-memory frames, every output kind, bit-exact with the library's CPU backend;
// the foreground mask in CUDA memory readable as GRAY8.
#include <string>
#include <vector>

#include "cuda_context_test.hpp"
#include "cuda_frame_io.hpp"
#include "median3d_elem_util.hpp"
#include "test_images.hpp"

using namespace m3d_elem;

namespace {

class Median3dElementCuda : public cvis_test::CudaContextTest {
protected:
  // mode=paper unless `props` names a mode.
  GstHarness* harness(const std::string& props, const std::string& caps) {
    const std::string mode = props.find("mode=") == std::string::npos ? "mode=paper " : "";
    return harness_in_context("cudamedian3d backend=cuda " + mode + props, caps);
  }

  // Frame t in CUDA memory, copied on the device from the system-memory frame.
  GstBuffer* cuda_buffer(GstBufferPool* pool, GstVideoFormat f, int w, int h, uint32_t seed,
                         int t) {
    GstVideoInfo info;
    gst_video_info_set_format(&info, f, w, h);
    GstBuffer* sys = make_buffer(f, w, h, seed, t);
    GstBuffer* buf = cvis_test::cuda_copy_of(pool, sys, info);
    gst_buffer_unref(sys);
    return buf;
  }
};

// The image of an output buffer (CUDA or system memory), packed plane by plane.
std::vector<uint8_t> pixels(GstBuffer* buf, GstVideoFormat f, int w, int h) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, f, w, h);
  return cvis_test::visible_bytes(buf, info);
}

bool caps_are_cuda(GstPad* pad) {
  GstCaps* caps = gst_pad_get_current_caps(pad);
  if (!caps)
    return false;
  GstCapsFeatures* f = gst_caps_get_features(caps, 0);
  const bool cuda = f && gst_caps_features_contains(f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
  gst_caps_unref(caps);
  return cuda;
}

TEST_F(Median3dElementCuda, EveryOutputEqualsTheCpuLibraryInBothMemories) {
  struct {
    GstVideoFormat f;
    int w, h;
    const char* props;
    m3d::Method method;
    m3d::Channels ch;
    m3d::Timing timing;
    int threshold, bins;
  } cases[] = {
      {GST_VIDEO_FORMAT_NV12, 96, 54, "", m3d::Method::kSlidingHistogram, m3d::Channels::kLuma,
       m3d::Timing::kCentered, -1, 16},
      {GST_VIDEO_FORMAT_RGBA, 77, 41, "method=integral-histogram bins=64 window=causal",
       m3d::Method::kIntegralHistogram, m3d::Channels::kLuma, m3d::Timing::kCausal, -1, 64},
      {GST_VIDEO_FORMAT_BGRx, 65, 33, "method=separable channels=rgb threshold=30 bins=256",
       m3d::Method::kSeparable, m3d::Channels::kRgb, m3d::Timing::kCentered, 30, 256},
      {GST_VIDEO_FORMAT_I420, 70, 38, "channels=rgb bins=256", m3d::Method::kSlidingHistogram,
       m3d::Channels::kRgb, m3d::Timing::kCentered, -1, 256},
  };
  const int frames = 20;
  for (const auto& c : cases) {
    m3d::Params p;
    p.method = c.method;
    p.channels = c.ch;
    p.bins = c.bins;
    const Expected e = expected_outputs(c.f, c.w, c.h, 31, frames, p, c.timing, c.threshold);
    ASSERT_EQ(static_cast<int>(e.background.size()), frames);
    for (bool cuda_in : {true, false}) {
      for (const char* out : {"background", "mask", "frame"}) {
        const std::string what = std::string(c.props) + " output=" + out +
                                 (cuda_in ? " (CUDA memory)" : " (system memory)");
        const std::string caps = caps_string(c.f, c.w, c.h, cuda_in);
        GstHarness* hs = harness(std::string(c.props) + " output=" + out, caps);
        GstBufferPool* pool = cuda_in ? cuda_pool(caps) : nullptr;
        for (int t = 0; t < frames; ++t) {
          GstBuffer* in =
              cuda_in ? cuda_buffer(pool, c.f, c.w, c.h, 31, t) : make_buffer(c.f, c.w, c.h, 31, t);
          ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK) << what;
        }
        ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
        const bool mask = std::string(out) == "mask";
        EXPECT_EQ(caps_are_cuda(hs->sinkpad), cuda_in && !mask) << what;
        for (int j = 0; j < frames; ++j) {
          GstBuffer* b = gst_harness_try_pull(hs);
          ASSERT_TRUE(b) << what << " output " << j;
          EXPECT_EQ(GST_BUFFER_PTS(b), j * kDur) << what;
          if (std::string(out) == "background") {
            EXPECT_EQ(pixels(b, c.f, c.w, c.h), e.background[j]) << what << " #" << j;
          } else if (mask) {
            EXPECT_EQ(pixels(b, GST_VIDEO_FORMAT_GRAY8, c.w, c.h), e.mask[j]) << what;
            EXPECT_TRUE(same_blobs(roi_boxes(b), e.blobs[j])) << what;
          } else {
            GstCustomMeta* m = gst_buffer_get_cvis_foreground_meta(b);
            ASSERT_TRUE(m) << what;
            GstCvisForegroundInfo fi;
            ASSERT_TRUE(gst_cvis_foreground_meta_get(m, &fi));
            EXPECT_EQ(fi.cuda_memory, cuda_in) << what;
            if (cuda_in) {
              EXPECT_TRUE(gst_is_cuda_memory(gst_buffer_peek_memory(fi.mask, 0))) << what;
            }
            GstVideoMeta* vm = gst_buffer_get_video_meta(fi.mask);
            ASSERT_TRUE(vm) << what;
            EXPECT_EQ(vm->format, GST_VIDEO_FORMAT_GRAY8);
            EXPECT_EQ(vm->stride[0], fi.stride);
            EXPECT_EQ(pixels(fi.mask, GST_VIDEO_FORMAT_GRAY8, c.w, c.h), e.mask[j]) << what;
            EXPECT_DOUBLE_EQ(fi.fraction,
                             static_cast<double>(e.result[j].foreground) / (c.w * c.h));
            EXPECT_TRUE(same_blobs(roi_boxes(b), e.blobs[j])) << what << " #" << j;
          }
          gst_buffer_unref(b);
          if (HasFailure())
            break;
        }
        gst_harness_teardown(hs);
        release_pool(pool);
        if (HasFailure())
          return;
      }
    }
  }
}

// mode=motion: every output equals the library's CPU motion detector (the CUDA backend is exact),
// CUDA and system memory in, through a shot change.
TEST_F(Median3dElementCuda, MotionModeEqualsTheCpuLibraryInBothMemories) {
  const GstVideoFormat f = GST_VIDEO_FORMAT_NV12;
  const int w = 90, h = 50, frames = 40, cut = 26;
  m3d::MotionParams p;
  p.history = 7;
  p.sample_period = 2;
  p.min_mask_area = 4;
  p.min_blob_area = 4;
  const MotionExpected e = expected_motion(f, w, h, 12, frames, p, cut);
  ASSERT_EQ(static_cast<int>(e.mask.size()), frames);
  const std::string props = "mode=motion history=7 sample-period=2 min-mask-area=4 min-blob-area=4";
  for (bool cuda_in : {true, false}) {
    for (const char* out : {"background", "mask", "frame"}) {
      const std::string what = std::string("output=") + out + (cuda_in ? " (CUDA)" : " (system)");
      const std::string caps = caps_string(f, w, h, cuda_in);
      GstHarness* hs = harness(props + " output=" + out, caps);
      GstBufferPool* pool = cuda_in ? cuda_pool(caps) : nullptr;
      for (int j = 0; j < frames && !HasFailure(); ++j) {
        const uint32_t seed = motion_seed(12, cut, j);
        GstBuffer* in =
            cuda_in ? cuda_buffer(pool, f, w, h, seed, j) : make_buffer(f, w, h, seed, j);
        ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK) << what;
        GstBuffer* b = gst_harness_try_pull(hs);
        ASSERT_TRUE(b) << what << " no output for frame " << j;
        const std::string at = what + " #" + std::to_string(j);
        if (std::string(out) == "background") {
          EXPECT_EQ(pixels(b, f, w, h), e.background[j]) << at;
        } else if (std::string(out) == "mask") {
          EXPECT_EQ(pixels(b, GST_VIDEO_FORMAT_GRAY8, w, h), e.mask[j]) << at;
          EXPECT_TRUE(same_blobs(roi_boxes(b), e.result[j].blobs)) << at;
        } else {
          GstCustomMeta* m = gst_buffer_get_cvis_foreground_meta(b);
          ASSERT_TRUE(m) << at;
          GstCvisForegroundInfo fi;
          ASSERT_TRUE(gst_cvis_foreground_meta_get(m, &fi));
          EXPECT_EQ(fi.cuda_memory, cuda_in) << at;
          EXPECT_EQ(pixels(fi.mask, GST_VIDEO_FORMAT_GRAY8, w, h), e.mask[j]) << at;
          EXPECT_TRUE(same_blobs(roi_boxes(b), e.result[j].blobs)) << at;
        }
        gst_buffer_unref(b);
      }
      gst_harness_teardown(hs);
      release_pool(pool);
      if (HasFailure())
        return;
    }
  }
}

// Flush and a caps change in CUDA memory: same behaviour as the CPU backend (counts, timestamps).
TEST_F(Median3dElementCuda, FlushAndCapsChangeInCudaMemory) {
  const std::string caps1 = caps_string(GST_VIDEO_FORMAT_NV12, 64, 36, true);
  const std::string caps2 = caps_string(GST_VIDEO_FORMAT_RGBA, 48, 30, true);
  GstHarness* hs = harness("temporal-size=7", caps1);
  GstBufferPool* p1 = cuda_pool(caps1);
  GstBufferPool* p2 = cuda_pool(caps2);
  for (int t = 0; t < 5; ++t) {
    ASSERT_EQ(gst_harness_push(hs, cuda_buffer(p1, GST_VIDEO_FORMAT_NV12, 64, 36, 3, t)),
              GST_FLOW_OK);
  }
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_stop(TRUE)));
  GstSegment seg;
  gst_segment_init(&seg, GST_FORMAT_TIME);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_segment(&seg)));
  GstBuffer* b;
  while ((b = gst_harness_try_pull(hs)))
    gst_buffer_unref(b); // before the flush: 2 outputs
  for (int t = 10; t < 16; ++t) {
    ASSERT_EQ(gst_harness_push(hs, cuda_buffer(p1, GST_VIDEO_FORMAT_NV12, 64, 36, 3, t)),
              GST_FLOW_OK);
  }
  gst_harness_set_src_caps_str(hs, caps2.c_str());
  for (int t = 16; t < 20; ++t) {
    ASSERT_EQ(gst_harness_push(hs, cuda_buffer(p2, GST_VIDEO_FORMAT_RGBA, 48, 30, 3, t)),
              GST_FLOW_OK);
  }
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  std::vector<GstClockTime> pts;
  while ((b = gst_harness_try_pull(hs))) {
    pts.push_back(GST_BUFFER_PTS(b));
    gst_buffer_unref(b);
  }
  ASSERT_EQ(pts.size(), 10u);
  for (size_t j = 0; j < pts.size(); ++j)
    EXPECT_EQ(pts[j], (10 + j) * kDur);
  gst_harness_teardown(hs);
  release_pool(p1);
  release_pool(p2);
}

} // namespace

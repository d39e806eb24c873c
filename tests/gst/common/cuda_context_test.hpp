// The fixture of the gpu-suite element tests that work in a CUDA context of their own: GStreamer
// initialised, and, when a GPU is usable (else the test is skipped), a GstCudaContext on device 0
// that elements are given and CUDA-memory pools are made on. Builds with CUDA only.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <string>

#include "test_images.hpp"

namespace cvis_test {

class CudaContextTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
  void SetUp() override {
    CVIS_REQUIRE_GPU();
    // Only after the device check: GStreamer 1.22 deadlocks on a second context creation once
    // cuInit has failed.
    ASSERT_TRUE(gst_cuda_load_library());
    gst_cuda_memory_init_once();
    ctx_ = gst_cuda_context_new(0);
    ASSERT_TRUE(ctx_);
  }
  void TearDown() override { gst_clear_object(&ctx_); }

  // Hands `ctx` to `e` as its CUDA context (set_context).
  static void give_context(GstElement* e, GstCudaContext* ctx) {
    GstContext* c = gst_context_new_cuda_context(ctx);
    gst_element_set_context(e, c);
    gst_context_unref(c);
  }

  // The one element described by `launch`, given ctx_, in a harness whose source has `caps`.
  GstHarness* harness_in_context(const std::string& launch, const std::string& caps) {
    GstElement* e = gst_parse_launch(launch.c_str(), nullptr);
    give_context(e, ctx_);
    GstHarness* hs = gst_harness_new_with_element(e, "sink", "src");
    gst_object_unref(e);
    gst_harness_set_src_caps_str(hs, caps.c_str());
    return hs;
  }

  // An active GstCudaBufferPool on `ctx` for `caps`, with video metas. release_pool() ends it.
  static GstBufferPool* cuda_pool(GstCudaContext* ctx, const std::string& caps_str) {
    GstBufferPool* pool = gst_cuda_buffer_pool_new(ctx);
    GstCaps* caps = gst_caps_from_string(caps_str.c_str());
    GstVideoInfo info;
    gst_video_info_from_caps(&info, caps);
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(&info), 0, 0);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    EXPECT_TRUE(gst_buffer_pool_set_config(pool, config));
    EXPECT_TRUE(gst_buffer_pool_set_active(pool, TRUE));
    gst_caps_unref(caps);
    return pool;
  }
  GstBufferPool* cuda_pool(const std::string& caps_str) { return cuda_pool(ctx_, caps_str); }

  // Deactivates and drops a pool of cuda_pool(); null is allowed.
  static void release_pool(GstBufferPool* pool) {
    if (!pool)
      return;
    gst_buffer_pool_set_active(pool, FALSE);
    gst_object_unref(pool);
  }

  GstCudaContext* ctx_ = nullptr;
};

} // namespace cvis_test

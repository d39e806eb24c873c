// GstCvisFilter and CUDA contexts (gpu suite): a context handed over by set_context is released
// (CPU backend, finalize), and an element moves to the context of CUDA input from another context
// (cuda-device-id -1), as GStreamer's CUDA base transform does: its results stay right and its
// output pool comes from the new context.
#include <string>
#include <vector>

#include "cedd_test_util.hpp"
#include "cuda_context_test.hpp"
#include "cuda_frame_io.hpp"
#include "test_images.hpp"

using namespace cedd_test;

namespace {

// ctx_ (named a_ below) and a second context b_ on the same device.
class CvisFilterCuda : public cvis_test::CudaContextTest {
protected:
  void SetUp() override {
    CudaContextTest::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    a_ = ctx_;
    b_ = gst_cuda_context_new(0);
    ASSERT_TRUE(b_);
    ASSERT_NE(a_, b_);
  }
  void TearDown() override {
    gst_clear_object(&b_);
    CudaContextTest::TearDown();
  }

  // An active RGBA pool on `ctx`.
  static GstBufferPool* pool_on(GstCudaContext* ctx, int w, int h) {
    return cuda_pool(ctx, caps_string(GST_VIDEO_FORMAT_RGBA, w, h, true));
  }

  // `frame` (system memory RGBA) copied into a buffer of `pool` on the device.
  static GstBuffer* to_cuda(GstBufferPool* pool, GstBuffer* frame, int w, int h, int t) {
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, w, h);
    GstBuffer* buf = cvis_test::cuda_copy_of(pool, frame, info);
    if (buf) {
      GST_BUFFER_PTS(buf) = t * GST_SECOND / 30;
      GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
    }
    return buf;
  }

  // The context the element answers a CONTEXT query with (a reference), or NULL.
  static GstCudaContext* context_of(GstElement* e) {
    GstQuery* q = gst_query_new_context(GST_CUDA_CONTEXT_TYPE);
    GstPad* pad = gst_element_get_static_pad(e, "sink");
    GstCudaContext* ctx = nullptr;
    if (gst_pad_query(pad, q)) {
      GstContext* c = nullptr;
      gst_query_parse_context(q, &c);
      if (c)
        gst_structure_get(gst_context_get_structure(c), GST_CUDA_CONTEXT_TYPE,
                          GST_TYPE_CUDA_CONTEXT, &ctx, nullptr);
    }
    gst_object_unref(pad);
    gst_query_unref(q);
    return ctx;
  }

  GstCudaContext* a_ = nullptr;
  GstCudaContext* b_ = nullptr;
};

// (The element also keeps the GstContext itself, which holds one more reference until the element
// is gone.)
TEST_F(CvisFilterCuda, ContextFromSetContextIsReleased) {
  const guint base = GST_OBJECT_REFCOUNT_VALUE(a_);
  // Never started: released at finalize.
  GstElement* e = gst_element_factory_make("cudacedd", nullptr);
  give_context(e, a_);
  EXPECT_EQ(GST_OBJECT_REFCOUNT_VALUE(a_), base + 2); // ours + the stored GstContext
  gst_object_unref(e);
  EXPECT_EQ(GST_OBJECT_REFCOUNT_VALUE(a_), base);
  // backend=cpu has no use for it: released at start, not held while PAUSED.
  e = gst_element_factory_make("cudabgsub", nullptr);
  g_object_set(e, "backend", 1 /* cpu */, nullptr);
  give_context(e, a_);
  EXPECT_EQ(GST_OBJECT_REFCOUNT_VALUE(a_), base + 2);
  ASSERT_NE(gst_element_set_state(e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  EXPECT_EQ(GST_OBJECT_REFCOUNT_VALUE(a_), base + 1);
  gst_element_set_state(e, GST_STATE_NULL);
  gst_object_unref(e);
  EXPECT_EQ(GST_OBJECT_REFCOUNT_VALUE(a_), base);
}

TEST_F(CvisFilterCuda, InPlaceElementMovesToTheInputsContext) {
  const int w = 64, h = 48;
  GstElement* e = gst_element_factory_make("cudacedd", nullptr);
  g_object_set(e, "backend", 2 /* cuda */, nullptr);
  give_context(e, b_);
  GstHarness* hs = gst_harness_new_with_element(e, "sink", "src");
  gst_harness_set_src_caps_str(hs, caps_string(GST_VIDEO_FORMAT_RGBA, w, h, true).c_str());
  GstCudaContext* before = context_of(e);
  EXPECT_EQ(before, b_);
  gst_clear_object(&before);
  GstBufferPool* pool = pool_on(a_, w, h);
  for (int t = 0; t < 3; ++t) {
    GstBuffer* frame = make_frame(GST_VIDEO_FORMAT_RGBA, w, h, 40 + t);
    const auto expected = library_levels(frame, GST_VIDEO_FORMAT_RGBA, w, h, nullptr);
    ASSERT_EQ(gst_harness_push(hs, to_cuda(pool, frame, w, h, t)), GST_FLOW_OK);
    gst_buffer_unref(frame);
    GstBuffer* out = gst_harness_pull(hs);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(meta_levels(out, GST_CVIS_CEDD_FRAME_ID),
              std::vector<guint8>(expected[0].begin(), expected[0].end()))
        << "frame " << t;
    gst_buffer_unref(out);
  }
  GstCudaContext* after = context_of(e);
  EXPECT_EQ(after, a_);
  gst_clear_object(&after);
  release_pool(pool);
  gst_harness_teardown(hs);
  gst_object_unref(e);
}

TEST_F(CvisFilterCuda, MaskOutputPoolFollowsTheInputsContext) {
  const int w = 64, h = 48;
  GstElement* e = gst_element_factory_make("cudabgsub", nullptr);
  g_object_set(e, "backend", 2 /* cuda */, "num-samples", 2, nullptr);
  give_context(e, b_);
  GstHarness* hs = gst_harness_new_with_element(e, "sink", "src");
  gst_harness_set_src_caps_str(hs, caps_string(GST_VIDEO_FORMAT_RGBA, w, h, true).c_str());
  gst_harness_set_sink_caps_str(
      hs, "video/x-raw(memory:CUDAMemory),format=GRAY8,width=64,height=48,framerate=30/1");
  GstBufferPool* pool = pool_on(a_, w, h);
  for (int t = 0; t < 4; ++t) {
    GstBuffer* frame = make_frame(GST_VIDEO_FORMAT_RGBA, w, h, 7 + t);
    ASSERT_EQ(gst_harness_push(hs, to_cuda(pool, frame, w, h, t)), GST_FLOW_OK);
    gst_buffer_unref(frame);
    GstBuffer* out = gst_harness_pull(hs);
    ASSERT_NE(out, nullptr);
    GstMemory* mem = gst_buffer_peek_memory(out, 0);
    ASSERT_TRUE(gst_is_cuda_memory(mem)) << t;
    EXPECT_EQ(GST_CUDA_MEMORY_CAST(mem)->context, a_) << "mask " << t;
    gst_buffer_unref(out);
  }
  release_pool(pool);
  gst_harness_teardown(hs);
  gst_object_unref(e);
}

} // namespace

// cudarcdtrack with backend=cuda (gpu suite): CUDA-memory frames (a GstCudaBufferPool on a shared
// context) and system-memory frames, RGBA and NV12, give the same track metas as backend=cpu on
// the same bytes; frames leave unchanged.
#include <algorithm>
#include <string>
#include <vector>

#include "cuda_context_test.hpp"
#include "cuda_frame_io.hpp"
#include "rcdtrack_elem_util.hpp"
#include "test_images.hpp"

using namespace rcd_elem;

namespace {

// Writes an RGBA scene frame into a mapped frame of format f (RGBA, or NV12 by integer BT.601).
void fill(GstVideoFrame* vf, const HostImage& img) {
  const int w = img.width(), h = img.height();
  auto rgb = [&](int x, int y, int c) { return img.view().data[0][y * img.pitch(0) + x * 4 + c]; };
  if (GST_VIDEO_FRAME_FORMAT(vf) == GST_VIDEO_FORMAT_RGBA) {
    for (int y = 0; y < h; ++y)
      std::memcpy(static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(vf, 0)) +
                      y * GST_VIDEO_FRAME_PLANE_STRIDE(vf, 0),
                  img.view().data[0] + y * img.pitch(0), static_cast<size_t>(w) * 4);
    return;
  }
  auto* Y = static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(vf, 0));
  auto* UV = static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(vf, 1));
  const int ys = GST_VIDEO_FRAME_PLANE_STRIDE(vf, 0), uvs = GST_VIDEO_FRAME_PLANE_STRIDE(vf, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      Y[y * ys + x] = static_cast<guint8>(
          (66 * rgb(x, y, 0) + 129 * rgb(x, y, 1) + 25 * rgb(x, y, 2) + 128) / 256 + 16);
  for (int y = 0; y < h / 2; ++y)
    for (int x = 0; x < w / 2; ++x) {
      const int r = rgb(2 * x, 2 * y, 0), g = rgb(2 * x, 2 * y, 1), b = rgb(2 * x, 2 * y, 2);
      UV[y * uvs + 2 * x] =
          static_cast<guint8>(std::clamp((-38 * r - 74 * g + 112 * b + 128) / 256 + 128, 0, 255));
      UV[y * uvs + 2 * x + 1] =
          static_cast<guint8>(std::clamp((112 * r - 94 * g - 18 * b + 128) / 256 + 128, 0, 255));
    }
}

class RcdTrackElementCuda : public cvis_test::CudaContextTest {
protected:
  GstHarness* harness(const std::string& props, const std::string& caps) {
    return harness_in_context("cudarcdtrack " + props, caps);
  }

  // Frame t in `pool`'s memory (CUDA: copied on the device), or in system memory when pool is
  // null.
  GstBuffer* buffer(GstBufferPool* pool, GstVideoFormat f, const HostImage& img, int t) {
    GstVideoInfo info;
    gst_video_info_set_format(&info, f, img.width(), img.height());
    GstBuffer* buf = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    GstVideoFrame vf;
    EXPECT_TRUE(gst_video_frame_map(&vf, &info, buf, GST_MAP_WRITE));
    fill(&vf, img);
    gst_video_frame_unmap(&vf);
    GST_BUFFER_PTS(buf) = t * kDur;
    GST_BUFFER_DURATION(buf) = kDur;
    if (!pool)
      return buf;
    GstBuffer* dev = cvis_test::cuda_copy_of(pool, buf, info);
    gst_buffer_unref(buf);
    return dev;
  }
};

TEST_F(RcdTrackElementCuda, SameMetasAsTheCpuBackend) {
  Scene sc;
  sc.hide_from = 8;
  sc.hide_to = 14;
  rcd::Box b0;
  sc.frame(0, &b0);
  const std::string roi = "roi=\"" + std::to_string(b0.x) + "," + std::to_string(b0.y) + "," +
                          std::to_string(b0.w) + "," + std::to_string(b0.h) + ";100,10,30,24\"";
  for (GstVideoFormat f : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12}) {
    for (bool cuda_mem : {true, false}) {
      const std::string caps = caps_string(f, sc.w, sc.h, cuda_mem);
      GstHarness* gpu = harness("backend=cuda " + roi, caps);
      GstHarness* cpu = harness("backend=cpu " + roi, caps_string(f, sc.w, sc.h));
      GstBufferPool* pool = cuda_mem ? cuda_pool(caps) : nullptr;
      GstBus* bus = gst_bus_new();
      gst_element_set_bus(gpu->element, bus);
      for (int t = 0; t < 18; ++t) {
        const HostImage img = sc.frame(t, nullptr);
        ASSERT_EQ(gst_harness_push(gpu, buffer(pool, f, img, t)), GST_FLOW_OK) << t;
        ASSERT_EQ(gst_harness_push(cpu, buffer(nullptr, f, img, t)), GST_FLOW_OK) << t;
        GstBuffer* og = gst_harness_pull(gpu);
        GstBuffer* oc = gst_harness_pull(cpu);
        if (cuda_mem) {
          EXPECT_TRUE(gst_is_cuda_memory(gst_buffer_peek_memory(og, 0)));
        }
        const auto rg = read_rois(og), rc = read_rois(oc);
        ASSERT_EQ(rg.size(), 2u);
        ASSERT_EQ(rc.size(), 2u);
        for (int k = 0; k < 2; ++k) {
          EXPECT_EQ(rg[k].id, rc[k].id);
          EXPECT_EQ(rg[k].box, rc[k].box) << "frame " << t << " target " << k;
          EXPECT_EQ(rg[k].lost, rc[k].lost) << "frame " << t;
          EXPECT_NEAR(rg[k].distance, rc[k].distance, 1e-6 * std::max(1.0, rc[k].distance));
        }
        gst_buffer_unref(og);
        gst_buffer_unref(oc);
      }
      const auto msgs = pop_messages(bus);
      int lost = 0, back = 0;
      for (const auto& m : msgs) {
        lost += m.first == "cvis-rcdtrack-lost";
        back += m.first == "cvis-rcdtrack-reacquired";
      }
      EXPECT_EQ(lost, 1);
      EXPECT_EQ(back, 1);
      gst_element_set_bus(gpu->element, nullptr);
      gst_object_unref(bus);
      release_pool(pool);
      gst_harness_teardown(gpu);
      gst_harness_teardown(cpu);
    }
  }
}

} // namespace

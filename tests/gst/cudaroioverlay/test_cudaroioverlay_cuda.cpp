// cudaroioverlay on the GPU (gpu suite): CUDA-memory frames of every CUDA format drawn on the GPU
// give the overlay library's CPU bytes, with boxes, labels, trails and a system-memory mask
// (uploaded by the drawer); after cudabgsub in CUDA memory (its device mask) the same; system
// memory with backend=cuda is drawn by the CPU reference.
#include "overlay_elem_util.hpp"
#include "test_images.hpp"

using namespace overlay_test;
using cvis::overlay::Box;
using cvis::overlay::Params;
using cvis::overlay::Scene;

namespace {

const GstVideoFormat kCudaFormats[] = {
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGB,  GST_VIDEO_FORMAT_BGR,
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420};

class RoiOverlayCuda : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

struct Probe {
  int w = 0, h = 0;
  GstBuffer* mask = nullptr; // system memory, attached as the foreground meta
  int stride = 0;
};

// cudaupload keeps only untagged metadata: the ROIs and the mask are attached on the overlay's
// sink pad, where an element working in CUDA memory would have put them.
GstPadProbeReturn add_metas(GstPad*, GstPadProbeInfo* info, gpointer data) {
  Probe* p = static_cast<Probe*>(data);
  GstBuffer* b = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
  gst_buffer_add_cvis_foreground_box(b, p->w / 10, p->h / 5, p->w / 3, p->h / 2, 2, 1234);
  GstVideoRegionOfInterestMeta* t = gst_buffer_add_video_region_of_interest_meta(
      b, "track", p->w / 2, p->h / 3, p->w / 4, p->h / 4);
  t->id = 6;
  gst_video_region_of_interest_meta_add_param(
      t, gst_structure_new("track", "id", G_TYPE_INT, 6, "distance", G_TYPE_DOUBLE, 0.75, NULL));
  gst_buffer_add_cvis_foreground_meta(b, p->mask, p->w, p->h, p->stride, 0.2, FALSE, 1);
  GST_PAD_PROBE_INFO_DATA(info) = b;
  return GST_PAD_PROBE_OK;
}

TEST_F(RoiOverlayCuda, CudaMemoryEveryFormatMatchesCpuLibrary) {
  CVIS_REQUIRE_GPU();
  ASSERT_TRUE(has_plugin_feature("cudaupload")) << "nvcodec's cudaupload is missing";
  int n = 0;
  for (GstVideoFormat f : kCudaFormats) {
    // GstCudaMemory lays out I420 with an odd height so that the V plane's rows run past the
    // width its host transfers copy (V begins half a pitch into a row): the host copy loses V
    // bytes whatever draws them, so I420 takes an even height here
    // (docs/elements/cudaroioverlay.md).
    const int odd_h = f == GST_VIDEO_FORMAT_I420 ? 210 : 211;
    std::vector<std::pair<int, int>> sizes{{1920, 1080}, {333, odd_h}};
    if (cvis::test::sanitizer_run()) // compute-sanitizer: the odd size only
      sizes.erase(sizes.begin());
    for (auto [w, h] : sizes) {
      GstHarness* hs = gst_harness_new_parse(
          "cudaupload ! video/x-raw(memory:CUDAMemory) ! cudaroioverlay name=o backend=cuda "
          "! cudadownload");
      Probe probe;
      probe.w = w, probe.h = h;
      probe.mask = make_mask(w, h, w / 4, h / 4, w / 2, h - 3, &probe.stride);
      GstElement* o = gst_bin_get_by_name(GST_BIN(hs->element), "o");
      GstPad* pad = gst_element_get_static_pad(o, "sink");
      gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, add_metas, &probe, nullptr);
      gst_object_unref(pad);
      gst_object_unref(o);
      gst_harness_set_src_caps_str(hs, caps_string(f, w, h).c_str());
      // Two frames: the trail appears on the second.
      std::vector<cvis::overlay::Point> trail;
      for (int i = 0; i < 2; ++i) {
        GstBuffer* in = make_frame(f, w, h, 70 + n);
        trail.push_back({w / 2 + w / 8, h / 3 + h / 8});
        Scene sc;
        if (i == 1)
          sc.trails = {cvis::overlay::Polyline{trail, color_of_id(6)}};
        sc.boxes = {
            Box{w / 10, h / 5, w / 3, h / 2, color_of_type("foreground"), "fg 2 1234px", "fg 2", 0},
            Box{w / 2, h / 3, w / 4, h / 4, color_of_id(6), "track 6 d0.75", "track 6", 3}};
        Params p;
        p.font_scale = std::max(1, h / 360);
        p.mask_alpha = 0x60;
        p.mask_color = {255, 0, 255};
        GstBuffer* want = expected_frame(in, f, w, h, sc, p, probe.mask);
        ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
        GstBuffer* out = gst_harness_pull(hs);
        ASSERT_NE(out, nullptr);
        EXPECT_EQ(frame_difference(out, want, f, w, h), "")
            << gst_video_format_to_string(f) << " " << w << "x" << h << " frame " << i;
        gst_buffer_unref(out);
        gst_buffer_unref(want);
        ++n;
      }
      gst_harness_teardown(hs);
      gst_buffer_unref(probe.mask);
    }
  }
  EXPECT_EQ(n, 10 * 2 * (cvis::test::sanitizer_run() ? 1 : 2));
}

// What cudabgsub attaches in CUDA memory (boxes, a device mask): the probe downloads the frame
// and the mask before the overlay draws, the library draws the expected result from them.
struct Capture {
  int w = 0, h = 0;
  GstBuffer* frame = nullptr; // copy in system memory, default layout
  GstBuffer* mask = nullptr;
  Scene scene;
};

GstPadProbeReturn capture(GstPad*, GstPadProbeInfo* info, gpointer data) {
  Capture* c = static_cast<Capture*>(data);
  GstBuffer* b = GST_PAD_PROBE_INFO_BUFFER(info);
  c->frame = system_copy(b, GST_VIDEO_FORMAT_NV12, c->w, c->h); // CUDA memory: device copies
  GstCvisForegroundInfo fi;
  GstCustomMeta* fm = gst_buffer_get_cvis_foreground_meta(b);
  if (fm && gst_cvis_foreground_meta_get(fm, &fi))
    c->mask = system_copy(fi.mask, GST_VIDEO_FORMAT_GRAY8, fi.width, fi.height);
  gpointer it = nullptr;
  GstMeta* meta;
  c->scene.boxes.clear();
  while ((meta = gst_buffer_iterate_meta_filtered(b, &it,
                                                  GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(meta);
    guint area = 0;
    const GstStructure* s = gst_video_region_of_interest_meta_get_param(roi, "foreground");
    if (s)
      gst_structure_get_uint(s, "area", &area);
    // The element's labels of a foreground blob: "fg <id> <area>px", short form "fg <id>"
    // (placed by the label layout, foreground at the lowest priority).
    cvis::overlay::Box box;
    box.x = (int)roi->x, box.y = (int)roi->y, box.w = (int)roi->w, box.h = (int)roi->h;
    box.color = color_of_type("foreground");
    box.short_label = "fg " + std::to_string(roi->id);
    box.label = box.short_label + " " + std::to_string(area) + "px";
    box.priority = 0;
    c->scene.boxes.push_back(box);
  }
  return GST_PAD_PROBE_OK;
}

TEST_F(RoiOverlayCuda, AfterCudaBgSubDeviceMask) {
  CVIS_REQUIRE_GPU();
  const int w = 320, h = 240;
  GstHarness* hs = gst_harness_new_parse(
      "cudaupload ! video/x-raw(memory:CUDAMemory) ! cudabgsub backend=cuda output=frame "
      "! cudaroioverlay name=o backend=cuda ! cudadownload");
  Capture cap;
  cap.w = w, cap.h = h;
  GstElement* o = gst_bin_get_by_name(GST_BIN(hs->element), "o");
  GstPad* pad = gst_element_get_static_pad(o, "sink");
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, capture, &cap, nullptr);
  gst_object_unref(pad);
  gst_object_unref(o);
  gst_harness_set_src_caps_str(hs, caps_string(GST_VIDEO_FORMAT_NV12, w, h).c_str());
  int with_boxes = 0;
  for (int i = 0; i < 80; ++i) {
    // (cudabgsub warms up for 48 frames.) A bright square moving over a still background:
    // foreground once the model has warmed up.
    GstBuffer* in = make_frame(GST_VIDEO_FORMAT_NV12, w, h, 5);
    GstMapInfo m;
    gst_buffer_map(in, &m, GST_MAP_WRITE);
    for (int y = 60; y < 120; ++y)
      for (int x = 0; x < 50; ++x)
        m.data[y * w + (4 * i + x) % w] = 250;
    gst_buffer_unmap(in, &m);
    ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(hs);
    ASSERT_NE(out, nullptr);
    ASSERT_NE(cap.frame, nullptr);
    Params p;
    p.mask_alpha = 0x60;
    p.mask_color = {255, 0, 255};
    GstBuffer* want =
        expected_frame(cap.frame, GST_VIDEO_FORMAT_NV12, w, h, cap.scene, p, cap.mask);
    EXPECT_EQ(frame_difference(out, want, GST_VIDEO_FORMAT_NV12, w, h), "") << "frame " << i;
    with_boxes += !cap.scene.boxes.empty();
    gst_buffer_unref(want);
    gst_buffer_unref(out);
    gst_clear_buffer(&cap.frame);
    gst_clear_buffer(&cap.mask);
  }
  EXPECT_GT(with_boxes, 15) << "the square was never segmented: the test saw no boxes";
  gst_harness_teardown(hs);
}

// backend=cuda with system-memory frames: drawn by the CPU reference, same bytes.
TEST_F(RoiOverlayCuda, SystemMemoryWithCudaBackend) {
  CVIS_REQUIRE_GPU();
  const int w = 200, h = 100;
  GstHarness* hs = gst_harness_new_parse("cudaroioverlay backend=cuda");
  gst_harness_set_src_caps_str(hs, caps_string(GST_VIDEO_FORMAT_xRGB, w, h).c_str());
  GstBuffer* in = make_frame(GST_VIDEO_FORMAT_xRGB, w, h, 8);
  gst_buffer_add_cvis_foreground_box(in, 20, 30, 50, 40, 0, 9);
  Scene sc;
  sc.boxes = {Box{20, 30, 50, 40, color_of_type("foreground"), "fg 0 9px", "fg 0", 0}};
  GstBuffer* want = expected_frame(in, GST_VIDEO_FORMAT_xRGB, w, h, sc, Params());
  ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
  GstBuffer* out = gst_harness_pull(hs);
  EXPECT_EQ(frame_difference(out, want, GST_VIDEO_FORMAT_xRGB, w, h), "");
  gst_buffer_unref(out);
  gst_buffer_unref(want);
  gst_harness_teardown(hs);
}

} // namespace

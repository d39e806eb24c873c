// gpu suite: the CUDA overlay writes the CPU reference's bytes (exact) on seeded scenes: every
// format, odd sizes, padded device pitches, masks in host and device memory, one drawer reused
// across sizes and frames, tiles with more primitives than one shared-memory stage (chunking),
// 1080p with hundreds of boxes.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "common/backend.hpp"
#include "overlay_test_util.hpp"

namespace cvis::overlay {
namespace {

using cvis::test::HostImage;

// A device copy of a host image (pitch = the host's + `extra`).
class DeviceImage {
public:
  DeviceImage(const HostImage& h, size_t extra) {
    view_ = h.view();
    view_.space = MemorySpace::kDevice;
    for (int p = 0; p < plane_count(h.format()); ++p) {
      const size_t pitch = h.pitch(p) + extra;
      const size_t rows = static_cast<size_t>(plane_rows(h.format(), p, h.height()));
      EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&planes_[p]), pitch * rows), cudaSuccess);
      EXPECT_EQ(cudaMemcpy2D(planes_[p], pitch, h.view().data[p], h.pitch(p), h.pitch(p), rows,
                             cudaMemcpyHostToDevice),
                cudaSuccess);
      view_.data[p] = planes_[p];
      view_.pitch[p] = pitch;
    }
    // Pageable copies may return before their DMA ends; the drawer's stream is non-blocking.
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  ~DeviceImage() {
    for (uint8_t* p : planes_)
      if (p)
        cudaFree(p);
  }
  const ImageView& view() const { return view_; }
  void download(HostImage* h) const {
    for (int p = 0; p < plane_count(view_.format); ++p)
      ASSERT_EQ(cudaMemcpy2D(h->plane(p), h->pitch(p), view_.data[p], view_.pitch[p],
                             plane_row_bytes(view_.format, p, view_.width),
                             plane_rows(view_.format, p, view_.height), cudaMemcpyDeviceToHost),
                cudaSuccess);
  }

private:
  uint8_t* planes_[3] = {nullptr, nullptr, nullptr};
  ImageView view_;
};

class OverlayGpu : public ::testing::Test {
protected:
  void SetUp() override {
    CVIS_REQUIRE_GPU();
    ASSERT_TRUE(select_cuda_device(0).ok());
    ASSERT_TRUE(stream_create(&stream_).ok());
    Status st;
    gpu_ = make_drawer(Backend::kCuda, &st);
    ASSERT_TRUE(gpu_) << st.to_string();
    cpu_ = make_drawer(Backend::kCpu, &st);
    ASSERT_TRUE(cpu_);
  }
  void TearDown() override {
    if (gpu_)
      gpu_->release();
    gpu_.reset();
    if (stream_)
      stream_destroy(stream_);
  }

  // Draws `scene` on a copy of `frame` with both backends and compares every pixel byte.
  void check(const HostImage& frame, const Scene& scene, const Params& p, bool device_mask,
             const std::string& what) {
    HostImage ref = test::clone(frame, 0);
    ASSERT_TRUE(cpu_->configure(p).ok());
    Status st = cpu_->draw(scene, ref.view(), nullptr);
    ASSERT_TRUE(st.ok()) << st.to_string();

    DeviceImage dev(frame, 64);
    Scene s = scene;
    std::unique_ptr<DeviceImage> dmask;
    ImageView mview;
    if (scene.mask && device_mask) {
      HostImage hm(PixelFormat::kGRAY8, scene.mask->width, scene.mask->height, 0);
      for (int y = 0; y < hm.height(); ++y)
        for (int x = 0; x < hm.width(); ++x)
          hm.plane(0)[y * hm.pitch(0) + x] = scene.mask->data[0][y * scene.mask->pitch[0] + x];
      dmask = std::make_unique<DeviceImage>(hm, 32);
      mview = dmask->view();
      s.mask = &mview;
    }
    ASSERT_TRUE(gpu_->configure(p).ok());
    st = gpu_->draw(s, dev.view(), stream_);
    ASSERT_TRUE(st.ok()) << st.to_string();
    ASSERT_TRUE(stream_synchronize(stream_).ok());
    HostImage got = test::clone(frame, 0);
    dev.download(&got);
    ASSERT_EQ(test::first_difference(ref.view(), got.view()), "") << what;
  }

  StreamHandle stream_ = nullptr;
  std::unique_ptr<Drawer> gpu_, cpu_;
};

TEST_F(OverlayGpu, EqualsReferenceEveryFormat) {
  uint32_t seed = 900;
  for (PixelFormat f : test::kAllFormats) {
    for (const auto& [w, h] :
         std::vector<std::pair<int, int>>{{1, 1}, {3, 2}, {33, 17}, {97, 65}, {321, 179}}) {
      for (int items : {0, 4, 30}) {
        ++seed;
        HostImage frame = test::random_frame(f, w, h, seed % 3 * 4, seed);
        HostImage mask = test::random_mask(w, h, 5, seed + 1);
        Scene sc = test::random_scene(w, h, items, seed + 2);
        const ImageView mv = mask.view();
        if (seed % 4 != 0)
          sc.mask = &mv;
        const std::string what = std::string(pixel_format_name(f)) + " " + std::to_string(w) + "x" +
                                 std::to_string(h) + " items " + std::to_string(items) + " seed " +
                                 std::to_string(seed);
        check(frame, sc, test::random_params(seed + 3), seed % 2 == 0, what);
      }
    }
  }
}

// 600 boxes over one spot: tiles hold more primitives than one shared-memory stage (256).
TEST_F(OverlayGpu, DenseTilesChunked) {
  for (PixelFormat f : {PixelFormat::kRGBA, PixelFormat::kNV12}) {
    HostImage frame = test::random_frame(f, 100, 70, 8, 3);
    Scene sc;
    std::mt19937 rng(4);
    for (int i = 0; i < 600; ++i)
      sc.boxes.push_back({static_cast<int>(rng() % 20),
                          static_cast<int>(rng() % 20),
                          10 + static_cast<int>(rng() % 40),
                          10 + static_cast<int>(rng() % 40),
                          {static_cast<uint8_t>(rng()), static_cast<uint8_t>(rng()), 7},
                          std::to_string(i),
                          "",
                          0});
    Params p;
    p.line_width = 3;
    p.label_layout = false; // every label drawn: the most primitives per tile
    check(frame, sc, p, false, std::string("dense ") + pixel_format_name(f));
  }
}

// 1080p NV12 with 300 labelled boxes, trails and a mask, several frames through one drawer.
TEST_F(OverlayGpu, FullHdSequenceReusesBuffers) {
  for (int frame_no = 0; frame_no < 4; ++frame_no) {
    const uint32_t seed = 50 + frame_no;
    HostImage frame = test::random_frame(PixelFormat::kNV12, 1920, 1080, 0, seed);
    HostImage mask = test::random_mask(1920, 1080, 0, seed + 1);
    Scene sc = test::random_scene(1920, 1080, frame_no == 2 ? 0 : 300, seed + 2);
    const ImageView mv = mask.view();
    sc.mask = &mv;
    Params p;
    p.font_scale = 2;
    check(frame, sc, p, frame_no % 2 == 1, "1080p frame " + std::to_string(frame_no));
  }
}

} // namespace
} // namespace cvis::overlay

// gpu suite: the CUDA backend of every method equal to the brute-force definition (separable: to
// its own definition, eq. 3), with device and host frames and outputs; and equal to the CPU
// backend on frames large enough for many tiles, scan segments and early-exit patterns. Every
// compute also asks for the blobs, which must equal find_blobs() (cuda/ccl's CPU function) of the
// exact mask.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "common/backend.hpp"
#include "median3d.hpp"
#include "median3d_cases.hpp"
#include "median3d_device_image.hpp"

namespace cvis::median3d {
namespace {

using test::Case;
using test::DeviceImage;
using test::HostImage;

enum class Where { kDevice, kHost, kMixed };

// Under compute-sanitizer (CVIS_SANITIZER=1): a spread of the cases.
std::vector<Case> small_if_sanitized(std::vector<Case> cases) {
  return cvis::test::sanitizer_run() ? cvis::test::spread(cases, 4) : cases;
}

// Frames: device copies (kDevice, kMixed) or the host images (kHost: the backend uploads).
// Outputs: device images downloaded after a sync (kDevice), host images (kHost), or a device mask
// plus a host mask copy that must agree (kMixed).
test::Io gpu_io(Where where, StreamHandle stream) {
  auto keep = std::make_shared<std::vector<std::unique_ptr<DeviceImage>>>();
  test::Io io;
  io.stream = stream;
  io.frame = [=](const HostImage& f) {
    if (where == Where::kHost)
      return f.view();
    keep->push_back(std::make_unique<DeviceImage>(f.view()));
    EXPECT_TRUE(keep->back()->ok());
    return keep->back()->view();
  };
  io.compute = [=](Estimator& e, int index, int threshold, HostImage* bg, HostImage* mask) {
    Request rq;
    rq.threshold = threshold;
    rq.blobs = test::blob_request(index); // from the device mask, or the scratch (kHost)
    if (where == Where::kHost) {
      const ImageView b = bg->view(), m = mask->view();
      rq.background = &b;
      rq.mask = &m;
      CVIS_RETURN_IF_ERROR(e.compute(index, rq, stream));
      return stream_synchronize(stream);
    }
    DeviceImage db(bg->view()), dm(mask->view());
    if (!db.ok() || !dm.ok())
      return Status(StatusCode::kCudaError, "test allocation failed");
    HostImage copy(PixelFormat::kGRAY8, mask->width(), mask->height(), 1);
    const ImageView copy_view = copy.view();
    rq.background = &db.view();
    rq.mask = &dm.view();
    if (where == Where::kMixed)
      rq.mask_copy = &copy_view;
    CVIS_RETURN_IF_ERROR(e.compute(index, rq, stream));
    CVIS_RETURN_IF_ERROR(stream_synchronize(stream));
    if (!db.download(bg) || !dm.download(mask))
      return Status(StatusCode::kCudaError, "download");
    if (where == Where::kMixed) {
      for (int y = 0; y < mask->height(); ++y) {
        for (int x = 0; x < mask->width(); ++x) {
          if (copy.plane(0)[y * copy.pitch(0) + x] != mask->plane(0)[y * mask->pitch(0) + x]) {
            return internal_error("host mask copy differs from the device mask");
          }
        }
      }
    }
    return Status::Ok();
  };
  return io;
}

class Median3dGpu : public ::testing::TestWithParam<Method> {
protected:
  void SetUp() override {
    CVIS_REQUIRE_GPU();
    ASSERT_TRUE(select_cuda_device(0).ok());
    ASSERT_TRUE(stream_create(&stream_).ok());
    Status s;
    est_ = make_estimator(Backend::kCuda, &s);
    ASSERT_TRUE(est_) << s.to_string();
  }
  void TearDown() override {
    est_.reset();
    if (stream_)
      stream_destroy(stream_);
  }
  StreamHandle stream_ = nullptr;
  std::unique_ptr<Estimator> est_;
};

TEST_P(Median3dGpu, WindowShapesEqualTheDefinition) {
  const test::Io io = gpu_io(Where::kDevice, stream_);
  std::vector<Case> cases = test::sweep_cases(GetParam());
  if (cvis::test::sanitizer_run())
    cases = cvis::test::spread(cases, 6);
  for (const Case& c : cases) {
    test::run_and_check(*est_, c, io);
    if (HasFailure())
      return;
  }
}

TEST_P(Median3dGpu, FormatsSizesThresholdsWithHostFrames) {
  const test::Io io = gpu_io(Where::kHost, stream_);
  for (const Case& c : small_if_sanitized(test::format_cases(GetParam()))) {
    test::run_and_check(*est_, c, io);
    if (HasFailure())
      return;
  }
}

TEST_P(Median3dGpu, FormatsSizesThresholdsWithDeviceFramesAndMaskCopy) {
  const test::Io io = gpu_io(Where::kMixed, stream_);
  for (const Case& c : small_if_sanitized(test::format_cases(GetParam()))) {
    test::run_and_check(*est_, c, io);
    if (HasFailure())
      return;
  }
}

// Larger frames: many tiles and integral-scan segments; CPU backend (itself checked against the
// definition in the cpu suite) as the oracle. Exact: all arithmetic is integer.
TEST_P(Median3dGpu, LargeFramesEqualTheCpuBackend) {
  struct Shape {
    int w, h, m, n, t, bins;
    PixelFormat f;
    Channels ch;
  };
  std::vector<Shape> shapes = {{333, 217, 3, 3, 15, 16, PixelFormat::kNV12, Channels::kLuma},
                               {640, 360, 5, 5, 9, 256, PixelFormat::kGRAY8, Channels::kLuma},
                               {257, 131, 31, 1, 5, 64, PixelFormat::kRGBA, Channels::kRgb},
                               {129, 97, 15, 15, 33, 8, PixelFormat::kBGRx, Channels::kLuma}};
  if (cvis::test::sanitizer_run()) { // still several tiles and scan segments, fewer frames
    for (Shape& sh : shapes) {
      sh.w = sh.w / 4 | 1;
      sh.h = sh.h / 3 | 1;
      sh.t = std::min(sh.t, 9);
    }
  }
  Status s;
  auto cpu = make_estimator(Backend::kCpu, &s);
  ASSERT_TRUE(cpu);
  int n = 0;
  size_t max_estimate = 0;
  for (const Shape& sh : shapes) {
    Params p;
    p.method = GetParam();
    p.spatial_w = sh.m;
    p.spatial_h = sh.n;
    p.temporal = sh.t;
    p.bins = sh.bins;
    p.channels = sh.ch;
    ASSERT_TRUE(cpu->configure(p, sh.w, sh.h, sh.f).ok());
    ASSERT_TRUE(est_->configure(p, sh.w, sh.h, sh.f).ok());
    WindowTracker tr(p.temporal, n % 2 ? Timing::kCausal : Timing::kCentered);
    const PixelFormat out = sh.ch == Channels::kLuma ? PixelFormat::kGRAY8 : PixelFormat::kRGBA;
    int outputs = 0;
    auto check = [&](bool draining) {
      int pops, index;
      while (tr.next_output(draining, &pops, &index)) {
        for (int k = 0; k < pops; ++k) {
          ASSERT_TRUE(cpu->pop(nullptr).ok());
          ASSERT_TRUE(est_->pop(stream_).ok());
        }
        HostImage bc(out, sh.w, sh.h), mc(PixelFormat::kGRAY8, sh.w, sh.h);
        HostImage bg(out, sh.w, sh.h, 7), mg(PixelFormat::kGRAY8, sh.w, sh.h, 2);
        const ImageView vbc = bc.view(), vmc = mc.view(), vbg = bg.view(), vmg = mg.view();
        Request rc, rg;
        rc.background = &vbc;
        rc.mask = &vmc;
        rg.background = &vbg;
        // Every third output asks the GPU for the blobs only: the mask goes to its scratch.
        const bool gpu_mask = outputs % 3 != 2;
        rg.mask = gpu_mask ? &vmg : nullptr;
        rc.blobs = rg.blobs = test::blob_request(outputs);
        ASSERT_TRUE(cpu->compute(index, rc, nullptr).ok());
        ASSERT_TRUE(est_->compute(index, rg, stream_).ok());
        ASSERT_TRUE(stream_synchronize(stream_).ok());
        FrameResult fc, fg;
        ASSERT_TRUE(cpu->result(&fc).ok());
        ASSERT_TRUE(est_->result(&fg).ok());
        EXPECT_EQ(fc.threshold, fg.threshold) << "shape " << n << " output " << outputs;
        EXPECT_EQ(fc.foreground, fg.foreground) << "shape " << n << " output " << outputs;
        // Blobs: the device labelling equals the shared CPU function on the CPU's mask.
        std::vector<Blob> ref;
        ASSERT_TRUE(find_blobs(vmc, rc.blobs.min_area, rc.blobs.max_blobs, &ref).ok());
        EXPECT_TRUE(fc.blobs == ref) << "shape " << n << " output " << outputs;
        EXPECT_TRUE(fg.has_blobs);
        EXPECT_EQ(fg.blobs.size(), ref.size()) << "shape " << n << " output " << outputs;
        EXPECT_TRUE(fg.blobs == ref) << "shape " << n << " output " << outputs << ": blobs differ";
        const size_t row = plane_row_bytes(out, 0, sh.w);
        int bad = 0;
        for (int y = 0; y < sh.h; ++y) {
          bad += memcmp(bc.plane(0) + y * bc.pitch(0), bg.plane(0) + y * bg.pitch(0), row) != 0;
          if (gpu_mask)
            bad += memcmp(mc.plane(0) + y * mc.pitch(0), mg.plane(0) + y * mg.pitch(0), sh.w) != 0;
        }
        EXPECT_EQ(bad, 0) << "shape " << n << " output " << outputs << ": rows differ";
        ++outputs;
      }
    };
    const int frames = p.temporal + 6;
    for (int t = 0; t < frames; ++t) {
      HostImage f = test::make_frame(sh.f, sh.w, sh.h, 4, test::Content::kScene, 900 + n, t);
      const bool drop = tr.arrive();
      ASSERT_TRUE(cpu->push(f.view(), drop, nullptr).ok());
      ASSERT_TRUE(est_->push(f.view(), drop, stream_).ok());
      ASSERT_TRUE(stream_synchronize(stream_).ok()); // `f` is freed at the end of the loop body
      check(false);
      if (HasFailure())
        return;
    }
    check(true);
    EXPECT_EQ(outputs, frames);
    // The estimator keeps its larger buffers across configure(): bound by the largest estimate.
    max_estimate = std::max(max_estimate, estimate_device_bytes(p, sh.w, sh.h, sh.f, true));
    const MemoryUse mu = est_->memory();
    EXPECT_GT(mu.device_bytes, 0u);
    EXPECT_LE(mu.device_bytes, max_estimate * 2);
    ++n;
  }
}

// result() waits for its compute() itself (an event), with no synchronisation of the stream by
// the caller: the figures and the blobs (more than the labelling's first read-back holds) equal
// the CPU backend's. The masks go to device scratch only (blobs requested, no mask view).
TEST_P(Median3dGpu, ResultWaitsForItsCompute) {
  Params p;
  p.method = GetParam();
  p.temporal = 5;
  p.bins = 32;
  const int w = 160, h = 96;
  Status s;
  auto cpu = make_estimator(Backend::kCpu, &s);
  ASSERT_TRUE(cpu);
  ASSERT_TRUE(cpu->configure(p, w, h, PixelFormat::kGRAY8).ok());
  ASSERT_TRUE(est_->configure(p, w, h, PixelFormat::kGRAY8).ok());
  std::vector<HostImage> frames; // host frames, alive until the end
  size_t most = 0;
  for (int t = 0; t < 10; ++t) {
    frames.push_back(test::make_frame(PixelFormat::kGRAY8, w, h, 3, test::Content::kNoise, 41, t));
    const bool drop = t >= p.temporal;
    ASSERT_TRUE(cpu->push(frames.back().view(), drop, nullptr).ok());
    ASSERT_TRUE(est_->push(frames.back().view(), drop, stream_).ok());
    const int index = cpu->frames() / 2;
    HostImage mc(PixelFormat::kGRAY8, w, h);
    const ImageView vmc = mc.view();
    Request rc, rg;
    rc.mask = &vmc;
    rc.blobs = rg.blobs = test::blob_request(0); // every blob, min area 1
    ASSERT_TRUE(cpu->compute(index, rc, nullptr).ok());
    ASSERT_TRUE(est_->compute(index, rg, stream_).ok());
    FrameResult fc, fg;
    ASSERT_TRUE(cpu->result(&fc).ok());
    const Status r = est_->result(&fg);
    ASSERT_TRUE(r.ok()) << r.to_string();
    EXPECT_EQ(fc.threshold, fg.threshold) << "frame " << t;
    EXPECT_EQ(fc.foreground, fg.foreground) << "frame " << t;
    EXPECT_TRUE(fg.has_blobs);
    EXPECT_EQ(fc.blobs.size(), fg.blobs.size()) << "frame " << t;
    EXPECT_TRUE(fc.blobs == fg.blobs) << "frame " << t << ": blobs differ";
    most = std::max(most, fc.blobs.size());
  }
  EXPECT_GT(most, 256u) << "the case should need the labelling's second read-back";
}

INSTANTIATE_TEST_SUITE_P(Methods, Median3dGpu,
                         ::testing::Values(Method::kIntegralHistogram, Method::kSeparable,
                                           Method::kSlidingHistogram),
                         [](const auto& info) {
                           std::string s = method_name(info.param);
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

} // namespace
} // namespace cvis::median3d

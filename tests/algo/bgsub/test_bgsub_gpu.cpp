// CUDA backend vs CPU reference (suite gpu; CUDA builds only). Every test starts with
// CVIS_REQUIRE_GPU(). Tolerances are stated next to each comparison.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "bgsub/bgsub_internal.hpp"
#include "bgsub_test_util.hpp"

namespace cvis::bgsub::test {
namespace {

using cvis::test::HostImage;
using cvis::test::SyntheticSequence;

// Kernels whose arithmetic is the same IEEE operations on both sides (table lookups, no expf,
// no texture filter): bit-identical densities, hence identical masks in every frame.
bool bit_exact(Kernel k) {
  return k == Kernel::kManualUniform || k == Kernel::kManualOptimized || k == Kernel::kSlopeUniform;
}

// Relative density tolerance for the first classified frame (same model state on both sides):
// exact: CUDA expf (<= 2 ulp) vs glibc expf (<= 1 ulp), three per product, over sums of positive
// terms: < 1e-5. fast / fast-fused: the same float exponent, then the SFU's ex2.approx vs exp2f
// (~2 ulp): < 1e-5. texture: the filter's 8-bit weight is emulated; its internal rounding is not
// documented (cpwl_gpu measures <= 2^-20 per lookup), which can reach 1e-4 of small products.
double density_rel_tol(Kernel k) {
  if (bit_exact(k))
    return 0.0;
  if (k == Kernel::kTextureUniform || k == Kernel::kTextureOptimized)
    return 1e-4;
  return 1e-5;
}

class BgsubGpuParity : public ::testing::TestWithParam<int> {};

TEST_P(BgsubGpuParity, CudaMatchesTheCpuReference) {
  CVIS_REQUIRE_GPU();
  const Kernel k = static_cast<Kernel>(GetParam());
  Params p = small_params(k);
  // An odd size, padded frame and mask pitches, RGBx input.
  SyntheticSequence seq(small_spec(67, 45, 40, 100 + GetParam()));
  auto cpu = make(Backend::kCpu, p), gpu = make(Backend::kCuda, p);
  ASSERT_TRUE(cpu && gpu);
  auto conv = [](int, const HostImage& rgb, HostImage* out) {
    *out = rgb.converted(PixelFormat::kRGBx, 9);
    return out->view();
  };
  // The GPU on a non-blocking stream, as in the element.
  StreamHandle stream = nullptr;
  ASSERT_TRUE(stream_create(&stream).ok());
  // Under compute-sanitizer: 8 classified frames after the warm-up, 28 otherwise.
  const int frames = cvis::test::sanitizer_run() ? 20 : 40;
  const SeqRun c = run_sequence(*cpu, seq, frames, conv, 3);
  const SeqRun g = run_sequence(*gpu, seq, frames, conv, 5, stream);
  gpu.reset();
  stream_destroy(stream);
  ASSERT_EQ(c.masks.size(), g.masks.size());
  const size_t L = static_cast<size_t>(p.num_samples);

  // First classified frame: both models hold the same samples and bandwidths (warm-up stores
  // integers; medians are integer), so only the kernel arithmetic differs.
  const double rel = density_rel_tol(k), floor = p.threshold * 1e-3;
  size_t bad = 0;
  double worst = 0.0;
  for (size_t i = 0; i < c.density[L].size(); ++i) {
    const double a = c.density[L][i], b = g.density[L][i];
    const double err = std::fabs(a - b);
    worst = std::max(worst, err / std::max(std::fabs(a), floor));
    bad += err > rel * std::fabs(a) + (rel > 0 ? floor : 0.0);
  }
  std::printf("[parity] %s: first classified frame, max relative density difference %.3g\n",
              kernel_name(k), worst);
  EXPECT_EQ(bad, 0u) << kernel_name(k) << ": densities outside the tolerance";

  // Whole sequence: masks, blobs and counts.
  size_t differ = 0, total = 0;
  for (size_t t = 0; t < c.masks.size(); ++t) {
    size_t d = 0;
    for (size_t i = 0; i < c.masks[t].size(); ++i)
      d += c.masks[t][i] != g.masks[t][i];
    differ += d;
    total += c.masks[t].size();
    EXPECT_EQ(c.results[t].warming_up, g.results[t].warming_up);
    if (d == 0) { // the same mask must give the same blobs and counts
      EXPECT_EQ(c.results[t].blobs, g.results[t].blobs) << kernel_name(k) << " frame " << t;
      EXPECT_EQ(c.results[t].foreground_pixels, g.results[t].foreground_pixels);
    }
  }
  std::printf("[parity] %s: %zu of %zu mask pixel-frames differ\n", kernel_name(k), differ, total);
  if (bit_exact(k)) {
    EXPECT_EQ(differ, 0u) << kernel_name(k);
  } else {
    // Only pixels whose density is within ~1e-5 (1e-4 texture) of the threshold can flip; a flip
    // changes one of 108 samples of <= 9 pixels afterwards. 0.1% of pixel-frames bounds that.
    EXPECT_LE(static_cast<double>(differ) / total, 1e-3) << kernel_name(k);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, BgsubGpuParity, ::testing::Range(0, kKernelCount),
                         [](const ::testing::TestParamInfo<int>& i) {
                           std::string n = kernel_name(static_cast<Kernel>(i.param));
                           for (char& ch : n)
                             ch = ch == '-' ? '_' : ch;
                           return n;
                         });

// Without a density output the sum stops early (early_cut, kde_sums_r1 and kde_sums): every mask
// must be the full sum's on the GPU itself (bit for bit: the same device, the same operations), and
// the early-stopping CPU reference must stay within the parity tolerance above (0.1% of
// pixel-frames: the kernels' expf / ex2 differences, not the stop, which changes no bit).
TEST(BgsubGpu, StoppingTheSumEarlyChangesNoMask) {
  CVIS_REQUIRE_GPU();
  const int frames = cvis::test::sanitizer_run() ? 20 : 40;
  for (Kernel k : {Kernel::kExact, Kernel::kFast, Kernel::kFastFused}) {
    for (int radius : {1, 2}) {
      auto spec = small_spec(67, 45, frames, 300 + radius);
      spec.illumination_drift = 0.2f;
      SyntheticSequence seq(spec);
      Params p = small_params(k);
      p.neighborhood = radius;
      auto full = make(Backend::kCuda, p), early = make(Backend::kCuda, p);
      auto cpu = make(Backend::kCpu, p);
      ASSERT_TRUE(full && early && cpu);
      const SeqRun a = run_sequence(*full, seq, frames, nullptr);
      const SeqRun b = run_sequence(*early, seq, frames, nullptr, 0, nullptr, false);
      const SeqRun c = run_sequence(*cpu, seq, frames, nullptr, 0, nullptr, false);
      ASSERT_EQ(a.masks.size(), b.masks.size());
      ASSERT_EQ(a.masks.size(), c.masks.size());
      size_t differ = 0, total = 0;
      int64_t fg = 0;
      for (size_t t = 0; t < a.masks.size(); ++t) {
        EXPECT_EQ(a.masks[t], b.masks[t]) << kernel_name(k) << " r " << radius << " frame " << t;
        EXPECT_EQ(a.results[t].blobs, b.results[t].blobs) << t;
        for (size_t i = 0; i < b.masks[t].size(); ++i)
          differ += b.masks[t][i] != c.masks[t][i];
        total += b.masks[t].size();
        fg += a.results[t].foreground_pixels;
      }
      EXPECT_GT(fg, 0);
      EXPECT_LE(static_cast<double>(differ) / total, 1e-3) << kernel_name(k) << " r " << radius;
    }
  }
}

// Device frames and device masks (the element's CUDA-memory path) give the same results as host
// ones: the same kernels run on the same bytes.
struct DeviceImage {
  void* ptr[3] = {nullptr, nullptr, nullptr};
  size_t pitch[3] = {0, 0, 0};
  ~DeviceImage() {
    for (void* p : ptr)
      cudaFree(p);
  }
  // Copies `h` into pitched device planes (allocated on first use, 64 spare bytes per row so the
  // pitch differs from the host's).
  ImageView upload(const ImageView& h) {
    ImageView d = h;
    d.space = MemorySpace::kDevice;
    for (int p = 0; p < plane_count(h.format); ++p) {
      const size_t row = plane_row_bytes(h.format, p, h.width);
      const int rows = plane_rows(h.format, p, h.height);
      if (!ptr[p]) {
        EXPECT_EQ(cudaMallocPitch(&ptr[p], &pitch[p], row + 64, rows), cudaSuccess);
      }
      d.data[p] = static_cast<uint8_t*>(ptr[p]);
      d.pitch[p] = pitch[p];
      EXPECT_EQ(cudaMemcpy2D(d.data[p], d.pitch[p], h.data[p], h.pitch[p], row, rows,
                             cudaMemcpyHostToDevice),
                cudaSuccess);
    }
    // Pageable copies may return before their DMA ends; the model reads on a non-blocking stream.
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    return d;
  }
};

TEST(BgsubGpu, DeviceFramesAndMasksMatchHostOnes) {
  CVIS_REQUIRE_GPU();
  const int w = 53, h = 31, frames = cvis::test::sanitizer_run() ? 16 : 30;
  SyntheticSequence seq(small_spec(w, h, frames, 77));
  for (PixelFormat f : {PixelFormat::kRGBA, PixelFormat::kGRAY8}) {
    Params p = small_params(Kernel::kFast);
    auto host = make(Backend::kCuda, p), dev = make(Backend::kCuda, p);
    HostImage hmask(PixelFormat::kGRAY8, w, h);
    void* dmask_ptr = nullptr;
    size_t dpitch = 0;
    ASSERT_EQ(cudaMallocPitch(&dmask_ptr, &dpitch, w, h), cudaSuccess);
    ImageView dmask = hmask.view();
    dmask.space = MemorySpace::kDevice;
    dmask.data[0] = static_cast<uint8_t*>(dmask_ptr);
    dmask.pitch[0] = dpitch;
    DeviceImage dframe;
    std::vector<uint8_t> back(static_cast<size_t>(w) * h);
    for (int t = 0; t < frames; ++t) {
      HostImage rgb;
      std::vector<uint8_t> truth;
      seq.render(t, &rgb, &truth);
      const HostImage in =
          f == PixelFormat::kGRAY8 ? cvis::test::to_gray(rgb, 3) : rgb.converted(f, 3);
      FrameResult rh, rd;
      ASSERT_TRUE(host->process(in.view(), hmask.view(), &rh, nullptr).ok());
      const Status st = dev->process(dframe.upload(in.view()), dmask, &rd, nullptr);
      ASSERT_TRUE(st.ok()) << st.to_string();
      ASSERT_EQ(
          cudaMemcpy2D(back.data(), w, dmask.data[0], dmask.pitch[0], w, h, cudaMemcpyDeviceToHost),
          cudaSuccess);
      for (int y = 0; y < h; ++y)
        ASSERT_EQ(0, std::memcmp(back.data() + y * w, hmask.plane(0) + y * hmask.pitch(0), w))
            << pixel_format_name(f) << " frame " << t << " row " << y;
      EXPECT_EQ(rh.blobs, rd.blobs);
      EXPECT_EQ(rh.foreground_pixels, rd.foreground_pixels);
    }
    cudaFree(dmask_ptr);
  }
}

// GPU connected components against the CPU labelling on random masks: frames are random black /
// white patterns after a black warm-up, so the mask is the pattern itself (cleanup none).
TEST(BgsubGpu, ConnectedComponentsMatchTheCpuOnRandomMasks) {
  CVIS_REQUIRE_GPU();
  std::vector<std::pair<int, int>> sizes = {{97, 61}, {640, 480}};
  if (cvis::test::sanitizer_run())
    sizes.pop_back(); // under compute-sanitizer: the small one
  for (auto [w, h] : sizes) {
    Params p = small_params(Kernel::kManualUniform);
    p.num_samples = 4;
    p.cleanup = Cleanup::kNone;
    p.min_blob_area = 1;
    // The mask must be the pattern itself: no area filter, no cut restart at high densities.
    p.min_mask_area = 0;
    p.shot_change = false;
    auto gpu = make(Backend::kCuda, p);
    HostImage frame(PixelFormat::kGRAY8, w, h), mask(PixelFormat::kGRAY8, w, h);
    std::memset(frame.plane(0), 0, frame.pitch(0) * h);
    FrameResult r;
    for (int t = 0; t < 4; ++t)
      ASSERT_TRUE(gpu->process(frame.view(), mask.view(), &r, nullptr).ok());
    std::mt19937 rng(w);
    for (double density : {0.02, 0.2, 0.45, 0.6, 0.9}) {
      std::bernoulli_distribution on(density);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          frame.plane(0)[y * frame.pitch(0) + x] = on(rng) ? 255 : 0;
      ASSERT_TRUE(gpu->process(frame.view(), mask.view(), &r, nullptr).ok());
      for (int y = 0; y < h; ++y) // white on a black model: always foreground, black never
        ASSERT_EQ(0, std::memcmp(mask.plane(0) + y * mask.pitch(0),
                                 frame.plane(0) + y * frame.pitch(0), w));
      std::vector<Blob> ref;
      int64_t fg = 0;
      ccl::connected_blobs(mask.plane(0), mask.pitch(0), w, h, 1, &ref, &fg);
      EXPECT_EQ(r.foreground_pixels, fg) << w << "x" << h << " p=" << density;
      EXPECT_EQ(r.blobs, ref) << w << "x" << h << " p=" << density << ": " << r.blobs.size()
                              << " vs " << ref.size() << " blobs";
    }
  }
}

// The element's setting: a non-blocking stream, and parameters changed between frames (a
// property set in PLAYING). Each configure() takes effect at the next frame, whose kernels must
// read the new bandwidth LUT and CPWL table: they are uploaded in order on that stream. With the
// bit-exact kernels the masks, blobs and counts equal the CPU's in every frame.
TEST(BgsubGpu, ReconfiguredBetweenFramesOnANonBlockingStream) {
  CVIS_REQUIRE_GPU();
  StreamHandle stream = nullptr;
  ASSERT_TRUE(stream_create(&stream).ok());
  const int w = 61, h = 37, frames = 40;
  SyntheticSequence seq(small_spec(w, h, frames, 31));
  Params p = small_params(Kernel::kManualUniform);
  auto cpu = make(Backend::kCpu, p), gpu = make(Backend::kCuda, p);
  ASSERT_TRUE(cpu && gpu);
  // After the warm-up (12 frames): the table size, the partition, the bandwidths (the LUT), the
  // evaluator with another size and the threshold, and back.
  auto change = [](int t, Params* q) {
    switch (t) {
    case 15:
      q->cpwl_points = 32;
      return true;
    case 19:
      q->kernel = Kernel::kManualOptimized;
      return true;
    case 23:
      q->sigma_min = 4.0f, q->sigma_max = 25.0f;
      return true;
    case 27:
      q->kernel = Kernel::kSlopeUniform, q->cpwl_points = 100, q->threshold = 3e-6;
      return true;
    case 31:
      q->kernel = Kernel::kManualUniform, q->sigma_min = 2.0f, q->sigma_max = 40.0f;
      return true;
    default:
      return false;
    }
  };
  HostImage mc(PixelFormat::kGRAY8, w, h), mg(PixelFormat::kGRAY8, w, h, 5);
  for (int t = 0; t < frames; ++t) {
    if (change(t, &p)) {
      ASSERT_TRUE(cpu->configure(p).ok());
      ASSERT_TRUE(gpu->configure(p).ok());
    }
    HostImage rgb;
    std::vector<uint8_t> truth;
    seq.render(t, &rgb, &truth);
    FrameResult rc, rg;
    ASSERT_TRUE(cpu->process(rgb.view(), mc.view(), &rc, nullptr).ok());
    const Status st = gpu->process(rgb.view(), mg.view(), &rg, stream);
    ASSERT_TRUE(st.ok()) << st.to_string();
    int rows = 0;
    for (int y = 0; y < h; ++y)
      rows += std::memcmp(mc.plane(0) + y * mc.pitch(0), mg.plane(0) + y * mg.pitch(0), w) != 0;
    EXPECT_EQ(rows, 0) << "frame " << t << " (" << kernel_name(p.kernel) << ", " << p.cpwl_points
                       << " points): mask rows differ";
    EXPECT_EQ(rc.warming_up, rg.warming_up) << t;
    EXPECT_EQ(rc.foreground_pixels, rg.foreground_pixels) << t;
    EXPECT_EQ(rc.blobs, rg.blobs) << t;
  }
  gpu.reset();
  stream_destroy(stream);
}

TEST(BgsubGpu, ResetAndSizeChangeBehaveLikeTheCpu) {
  CVIS_REQUIRE_GPU();
  SyntheticSequence seq(small_spec(20, 14, 20, 8));
  auto s = make(Backend::kCuda, small_params());
  const SeqRun first = run_sequence(*s, seq, 20, nullptr);
  s->reset();
  const SeqRun second = run_sequence(*s, seq, 20, nullptr);
  for (size_t t = 0; t < first.masks.size(); ++t) {
    EXPECT_EQ(first.masks[t], second.masks[t]) << t;
    EXPECT_EQ(first.results[t].warming_up, second.results[t].warming_up) << t;
  }
  HostImage other(PixelFormat::kRGB, 10, 10), mask(PixelFormat::kGRAY8, 10, 10);
  FrameResult r;
  ASSERT_TRUE(s->process(other.view(), mask.view(), &r, nullptr).ok());
  EXPECT_TRUE(r.warming_up);
  EXPECT_EQ(r.frame, 1);
}

} // namespace
} // namespace cvis::bgsub::test

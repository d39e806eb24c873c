// CUDA backend vs the CPU reference (suite gpu). Every comparison is exact: levels equal and the
// normalised doubles bit-identical, because the kernels perform the reference's operations in the
// reference's order without FMA (README.md, "Exactness"). Each test starts with CVIS_REQUIRE_GPU().
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cedd/cedd.hpp"
#include "cedd_test_util.hpp"
#include "common/cuda/device_buffer.hpp"

namespace cvis::cedd {
namespace {

using test::HostImage;
using test::Pattern;

constexpr Pattern kPatterns[] = {Pattern::kNoise,   Pattern::kSmoothNoise, Pattern::kGradient,
                                 Pattern::kStripes, Pattern::kChecker,     Pattern::kGreyLevels,
                                 Pattern::kSolid};

// A device copy of a host image with the same pitch (padding bytes included).
class DeviceImage {
public:
  explicit DeviceImage(const ImageView& host) : view_(host) {
    view_.space = MemorySpace::kDevice;
    for (int p = 0; p < plane_count(host.format); ++p) {
      const size_t bytes =
          host.pitch[p] * static_cast<size_t>(plane_rows(host.format, p, host.height));
      ok_ =
          ok_ && planes_[p].reserve(bytes).ok() &&
          cudaMemcpy(planes_[p].get(), host.data[p], bytes, cudaMemcpyHostToDevice) == cudaSuccess;
      view_.data[p] = planes_[p].get();
    }
    // Pageable copies may return before their DMA ends; the backend may read on a non-blocking
    // stream that does not wait for the legacy default stream.
    ok_ = ok_ && cudaDeviceSynchronize() == cudaSuccess;
  }
  bool ok() const { return ok_; }
  ImageView view() const { return view_; }

private:
  cuda::DeviceArray<uint8_t> planes_[3];
  ImageView view_;
  bool ok_ = true;
};

std::unique_ptr<Extractor> extractor(Backend b, Mode mode = Mode::kGpuOnly) {
  Status st;
  auto e = make_extractor(b, &st);
  EXPECT_TRUE(st.ok()) << st.to_string();
  if (!e)
    return e;
  Params p;
  p.mode = mode;
  EXPECT_TRUE(e->configure(p).ok());
  return e;
}

#define EXPECT_SAME(a, b, what)                                                                    \
  do {                                                                                             \
    std::string why_;                                                                              \
    EXPECT_TRUE(test::same_result((a), (b), &why_)) << (what) << ": " << why_;                     \
  } while (0)

// Describes `v` with regions (or the whole image) and compares with the CPU reference.
void expect_matches_cpu(Extractor& gpu, Extractor& cpu, const ImageView& host, const ImageView& in,
                        const std::vector<Region>& regions, const std::string& what) {
  const int n = regions.empty() ? 1 : static_cast<int>(regions.size());
  const Region* r = regions.empty() ? nullptr : regions.data();
  std::vector<Result> want(n), got(n);
  ASSERT_TRUE(cpu.describe(host, r, n, want.data(), nullptr).ok()) << what;
  const Status st = gpu.describe(in, r, n, got.data(), nullptr);
  ASSERT_TRUE(st.ok()) << what << ": " << st.to_string();
  for (int i = 0; i < n; ++i)
    EXPECT_SAME(got[i], want[i], what + " region " + std::to_string(i));
}

// Random size in one of the three block modes of §2 (mode 0: 2x2 blocks, 1: 400, 2: 1600).
void random_size(std::mt19937& rng, int mode, int* w, int* h) {
  int small, large;
  if (mode == 0) {
    small = 1 + static_cast<int>(rng() % 39);
    large = 1 + static_cast<int>(rng() % 2000);
  } else if (mode == 1) {
    small = 40 + static_cast<int>(rng() % 40);
    large = 40 + static_cast<int>(rng() % 1961);
  } else {
    // One draw per statement: the order of draws inside an expression is unspecified.
    const bool wide_small = rng() % 10 == 0;
    small = 80 + static_cast<int>(rng() % (wide_small ? 1921 : 700));
    const bool wide_large = rng() % 10 == 0;
    large = 80 + static_cast<int>(rng() % (wide_large ? 1921 : 900));
  }
  if (rng() % 2)
    std::swap(small, large);
  if (cvis::test::sanitizer_run()) { // under compute-sanitizer: small images, same block modes
    small = std::min(small, 90);
    large = std::min(large, 150);
  }
  *w = small;
  *h = large;
}

std::vector<Region> random_regions(std::mt19937& rng, int w, int h) {
  std::vector<Region> r = {{0, 0, w, h}};
  const int k = 1 + static_cast<int>(rng() % 6);
  for (int i = 0; i < k; ++i) {
    Region g;
    g.w = 1 + static_cast<int>(rng() % w);
    g.h = 1 + static_cast<int>(rng() % h);
    g.x = static_cast<int>(rng() % (w - g.w + 1));
    g.y = static_cast<int>(rng() % (h - g.h + 1));
    r.push_back(g);
  }
  return r;
}

// 300 seeded images: all three block modes, sizes 1..2000 per side, all 13 formats (random alpha,
// every YUV colorimetry), padded pitch, host and device inputs, regions; GPU-only, and hybrid on
// every fifth.
TEST(CeddGpu, RandomImagesMatchCpu) {
  CVIS_REQUIRE_GPU();
  auto cpu = extractor(Backend::kCpu);
  auto gpu = extractor(Backend::kCuda);
  auto hybrid = extractor(Backend::kCuda, Mode::kHybrid);
  ASSERT_TRUE(gpu && hybrid);
  std::mt19937 rng(20240531);
  const int images = cvis::test::sanitizer_run() ? 13 : 300; // every format at least once
  for (int i = 0; i < images; ++i) {
    int w, h;
    random_size(rng, i % 3, &w, &h);
    const PixelFormat f = static_cast<PixelFormat>(i % 13);
    const size_t pad = rng() % 2 ? rng() % 9 : 0;
    const Pattern pattern = kPatterns[rng() % 7];
    const uint32_t seed = rng();
    const bool alpha = rng() % 2;
    HostImage img = test::make_image(f, pattern, w, h, seed, pad, alpha);
    ImageView host = img.view();
    host.yuv.matrix = static_cast<YuvColorimetry::Matrix>(rng() % 4);
    host.yuv.full_range = rng() % 2;
    DeviceImage dev(host);
    ASSERT_TRUE(dev.ok());
    ImageView dv = dev.view();
    dv.yuv = host.yuv;
    const bool on_device = i % 2 == 1;
    const ImageView in = on_device ? dv : host;
    const std::vector<Region> regions =
        i % 4 == 0 ? random_regions(rng, w, h) : std::vector<Region>{};
    const std::string what = "case " + std::to_string(i) + " " + test::image_name(in);
    expect_matches_cpu(*gpu, *cpu, host, in, regions, what);
    if (i % 5 == 0)
      expect_matches_cpu(*hybrid, *cpu, host, in, regions, what + " hybrid");
    if (HasFailure())
      return; // one clear failure is enough
  }
}

// The six test images, host and device inputs, both modes: the reference's own vectors.
TEST(CeddGpu, TestdataVectors) {
  CVIS_REQUIRE_GPU();
  std::vector<test::Expected> expected;
  std::string err;
  ASSERT_TRUE(test::load_expected(&expected, &err)) << err;
  for (Mode mode : {Mode::kGpuOnly, Mode::kHybrid}) {
    auto gpu = extractor(Backend::kCuda, mode);
    ASSERT_TRUE(gpu);
    for (const test::Expected& x : expected) {
      HostImage img;
      ASSERT_TRUE(cvis::test::load_png(cvis::test::testdata_dir() + "/cedd/" + x.file, &img, &err));
      Result want;
      want.levels = x.levels;
      want.normalized = x.normalized;
      DeviceImage dev(img.view());
      ASSERT_TRUE(dev.ok());
      for (const ImageView& v : {img.view(), dev.view()}) {
        Result got;
        ASSERT_TRUE(gpu->describe(v, nullptr, 1, &got, nullptr).ok());
        EXPECT_SAME(got, want,
                    x.file + " " + test::image_name(v) + (mode == Mode::kHybrid ? " hybrid" : ""));
      }
    }
  }
}

// describe_batch() with mixed sizes, formats and memory kinds (more host images than upload slots,
// growing and shrinking), GPU-only and hybrid, against one CPU describe() per image.
TEST(CeddGpu, BatchMixedMatchesCpu) {
  CVIS_REQUIRE_GPU();
  auto cpu = extractor(Backend::kCpu);
  std::mt19937 rng(77);
  for (Mode mode : {Mode::kGpuOnly, Mode::kHybrid}) {
    auto gpu = extractor(Backend::kCuda, mode);
    ASSERT_TRUE(gpu);
    for (int batch = 0; batch < (cvis::test::sanitizer_run() ? 1 : 3); ++batch) {
      // More host images than upload slots (4) in any case.
      const int n = cvis::test::sanitizer_run() ? 6 : 5 + static_cast<int>(rng() % 30);
      std::vector<HostImage> hosts;
      std::vector<std::unique_ptr<DeviceImage>> devs;
      std::vector<ImageView> in, ref;
      for (int i = 0; i < n; ++i) {
        int w, h;
        random_size(rng, static_cast<int>(rng() % 3), &w, &h);
        if (i == 0)
          w = h = 1; // no blocks
        const PixelFormat f = static_cast<PixelFormat>(rng() % 13);
        const Pattern pattern = kPatterns[rng() % 7];
        const uint32_t seed = rng();
        const size_t pad = rng() % 5;
        hosts.push_back(test::make_image(f, pattern, w, h, seed, pad, true));
        ref.push_back(hosts.back().view());
        if (rng() % 2) {
          devs.push_back(std::make_unique<DeviceImage>(ref.back()));
          ASSERT_TRUE(devs.back()->ok());
          in.push_back(devs.back()->view());
        } else {
          in.push_back(ref.back());
        }
      }
      std::vector<Result> got(n);
      const Status st = gpu->describe_batch(in.data(), n, got.data(), nullptr);
      ASSERT_TRUE(st.ok()) << st.to_string();
      for (int i = 0; i < n; ++i) {
        Result want;
        ASSERT_TRUE(cpu->describe(ref[i], nullptr, 1, &want, nullptr).ok());
        EXPECT_SAME(got[i], want,
                    "batch " + std::to_string(batch) + " image " + std::to_string(i) + " " +
                        test::image_name(in[i]) + (mode == Mode::kHybrid ? " hybrid" : ""));
      }
    }
  }
}

// Buffers are reused across calls of changing sizes, on the legacy default stream and on a created
// stream; grey levels whose luma lies just below v (§3) in all block modes.
TEST(CeddGpu, ReuseStreamsAndSpecialGreys) {
  CVIS_REQUIRE_GPU();
  auto cpu = extractor(Backend::kCpu);
  auto gpu = extractor(Backend::kCuda);
  ASSERT_TRUE(gpu);
  StreamHandle stream = nullptr;
  ASSERT_TRUE(stream_create(&stream).ok());
  std::vector<std::pair<int, int>> sizes = {{1920, 1080}, {37, 23}, {640, 480}, {3, 3},
                                            {1999, 1501}, {80, 79}, {79, 80}};
  if (cvis::test::sanitizer_run()) // under compute-sanitizer: growing, shrinking, all modes
    sizes = {{320, 200}, {37, 23}, {3, 3}, {161, 99}, {80, 79}, {79, 80}};
  uint32_t seed = 5;
  for (int round = 0; round < 2; ++round) {
    for (const auto& s : sizes) {
      HostImage img = test::make_image(PixelFormat::kRGB, Pattern::kGreyLevels, s.first, s.second,
                                       seed++, round, false);
      Result want, got;
      ASSERT_TRUE(cpu->describe(img.view(), nullptr, 1, &want, nullptr).ok());
      ASSERT_TRUE(gpu->describe(img.view(), nullptr, 1, &got, round ? stream : nullptr).ok());
      EXPECT_SAME(got, want, test::image_name(img.view()));
    }
  }
  stream_destroy(stream);
}

// 4-byte pixels at addresses that are not 4-byte aligned (odd pitch, odd base) take the byte path.
TEST(CeddGpu, UnalignedDeviceViews) {
  CVIS_REQUIRE_GPU();
  auto cpu = extractor(Backend::kCpu);
  auto gpu = extractor(Backend::kCuda);
  ASSERT_TRUE(gpu);
  HostImage img = test::make_image(PixelFormat::kBGRA, Pattern::kNoise, 321, 123, 9, 1, true);
  Result want;
  ASSERT_TRUE(cpu->describe(img.view(), nullptr, 1, &want, nullptr).ok());
  const size_t bytes = img.pitch(0) * 123;
  cuda::DeviceArray<uint8_t> buf;
  ASSERT_TRUE(buf.reserve(bytes + 1).ok());
  ASSERT_EQ(cudaMemcpy(buf.get() + 1, img.view().data[0], bytes, cudaMemcpyHostToDevice),
            cudaSuccess);
  ImageView v = img.view();
  v.space = MemorySpace::kDevice;
  v.data[0] = buf.get() + 1;
  Result got;
  ASSERT_TRUE(gpu->describe(v, nullptr, 1, &got, nullptr).ok());
  EXPECT_SAME(got, want, "odd base, odd pitch");
}

// Bad arguments are refused before any GPU work, and the extractor keeps working.
TEST(CeddGpu, InvalidArguments) {
  CVIS_REQUIRE_GPU();
  auto gpu = extractor(Backend::kCuda);
  ASSERT_TRUE(gpu);
  HostImage img = test::make_image(PixelFormat::kRGBA, Pattern::kNoise, 64, 48, 1, 0, false);
  Result out;
  const Region outside{60, 0, 10, 10};
  EXPECT_EQ(gpu->describe(img.view(), &outside, 1, &out, nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(gpu->describe(img.view(), nullptr, 0, &out, nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(gpu->describe_batch(nullptr, 1, &out, nullptr).code(), StatusCode::kInvalidArgument);
  auto cpu = extractor(Backend::kCpu);
  Result want;
  ASSERT_TRUE(cpu->describe(img.view(), nullptr, 1, &want, nullptr).ok());
  ASSERT_TRUE(gpu->describe(img.view(), nullptr, 1, &out, nullptr).ok());
  EXPECT_SAME(out, want, "after errors");
}

} // namespace
} // namespace cvis::cedd

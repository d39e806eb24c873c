// CPU backend behaviour (suite cpu): sizes and layouts against the literal transcription of the
// specification, formats, regions, batches, thread counts, errors. All comparisons are exact
// (levels equal, normalised doubles bit-identical): every path computes the same operations in the
// same order.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cedd/cedd.hpp"
#include "cedd_test_util.hpp"
#include "common/color.hpp"

namespace cvis::cedd {
namespace {

using test::HostImage;
using test::Pattern;

constexpr Pattern kPatterns[] = {Pattern::kNoise,   Pattern::kSmoothNoise, Pattern::kGradient,
                                 Pattern::kStripes, Pattern::kChecker,     Pattern::kGreyLevels,
                                 Pattern::kSolid};
constexpr PixelFormat kPacked[] = {PixelFormat::kRGBA, PixelFormat::kBGRA, PixelFormat::kRGBx,
                                   PixelFormat::kBGRx, PixelFormat::kxRGB, PixelFormat::kxBGR,
                                   PixelFormat::kARGB, PixelFormat::kABGR, PixelFormat::kRGB,
                                   PixelFormat::kBGR};

std::unique_ptr<Extractor> cpu_extractor(int threads = 0) {
  Status st;
  auto e = make_extractor(Backend::kCpu, &st);
  EXPECT_TRUE(st.ok()) << st.to_string();
  Params p;
  p.cpu_threads = threads;
  EXPECT_TRUE(e->configure(p).ok());
  return e;
}

Result describe(Extractor& e, const ImageView& v) {
  Result r;
  const Status st = e.describe(v, nullptr, 1, &r, nullptr);
  EXPECT_TRUE(st.ok()) << st.to_string() << " " << test::image_name(v);
  return r;
}

#define EXPECT_SAME(a, b, what)                                                                    \
  do {                                                                                             \
    std::string why_;                                                                              \
    EXPECT_TRUE(test::same_result((a), (b), &why_)) << (what) << ": " << why_;                     \
  } while (0)

// W < 2 or H < 2: no blocks, 144 zeros.
TEST(CeddEdge, NoBlocksGivesZeros) {
  auto e = cpu_extractor();
  const int sizes[][2] = {{1, 1}, {1, 2}, {2, 1}, {7, 1}, {1, 7}, {1, 1000}, {1000, 1}};
  for (const auto& s : sizes) {
    HostImage img = test::make_image(PixelFormat::kRGBA, Pattern::kNoise, s[0], s[1], 7, 3, false);
    const Result r = describe(*e, img.view());
    for (int i = 0; i < kBins; ++i) {
      EXPECT_EQ(r.levels[i], 0) << s[0] << "x" << s[1];
      EXPECT_EQ(r.normalized[i], 0.0) << s[0] << "x" << s[1];
    }
  }
}

// Edge and odd sizes in all three block modes, with and without row padding, against the literal
// transcription of the specification.
TEST(CeddEdge, SizesMatchLiteralSpec) {
  auto e = cpu_extractor();
  const int sizes[][2] = {{2, 2},    {3, 3},     {2, 1000},   {1000, 2},  {37, 23},    {39, 57},
                          {40, 40},  {41, 39},   {79, 80},    {80, 79},   {81, 80},    {79, 300},
                          {640, 40}, {511, 333}, {1024, 134}, {333, 211}, {1031, 1029}};
  uint32_t seed = 100;
  for (const auto& s : sizes) {
    for (size_t pad : {size_t{0}, size_t{1}, size_t{7}}) {
      const Pattern p = kPatterns[seed % 7];
      HostImage img = test::make_image(PixelFormat::kRGB, p, s[0], s[1], seed++, pad, false);
      const std::string what = test::image_name(img.view()) + " " + cvis::test::pattern_name(p);
      EXPECT_SAME(describe(*e, img.view()), test::literal_cedd(img.view()), what);
    }
  }
}

// Pixels right of / below the covered area (§2) do not matter.
TEST(CeddEdge, IgnoresUncoveredPixels) {
  auto e = cpu_extractor();
  const int sizes[][2] = {{511, 333}, {81, 80}, {37, 23}, {79, 300}, {1031, 1029}};
  for (const auto& s : sizes) {
    HostImage img =
        test::make_image(PixelFormat::kRGB, Pattern::kSmoothNoise, s[0], s[1], 5, 0, false);
    const Result before = describe(*e, img.view());
    const BlockLayout l = block_layout(s[0], s[1]);
    for (int y = 0; y < s[1]; ++y)
      for (int x = 0; x < s[0]; ++x)
        if (x >= l.nx * l.sx || y >= l.ny * l.sy)
          img.set_rgb(x, y, 255, 0, 255);
    EXPECT_SAME(describe(*e, img.view()), before,
                std::to_string(s[0]) + "x" + std::to_string(s[1]));
    // A covered pixel does matter: the last block's mean colour moves.
    std::vector<BlockDebug> a, b;
    ASSERT_TRUE(describe_blocks_cpu(img.view(), &a).ok());
    for (int y = (l.ny - 1) * l.sy; y < l.ny * l.sy; ++y)
      for (int x = (l.nx - 1) * l.sx; x < l.nx * l.sx; ++x)
        img.set_rgb(x, y, 0, 0, 0);
    ASSERT_TRUE(describe_blocks_cpu(img.view(), &b).ok());
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(b.back().mean_r + b.back().mean_g + b.back().mean_b, 0);
  }
}

// Every packed RGB format gives the RGB original's result; so does GRAY8 for replicated grey.
TEST(CeddFormats, PackedAndGrayMatchRgb) {
  auto e = cpu_extractor();
  const int sizes[][2] = {{37, 23}, {64, 48}, {333, 211}};
  uint32_t seed = 1;
  for (const auto& s : sizes) {
    HostImage rgba = cvis::test::make_rgba(Pattern::kSmoothNoise, s[0], s[1], seed++);
    const Result want = describe(*e, rgba.converted(PixelFormat::kRGB).view());
    for (PixelFormat f : kPacked) {
      for (size_t pad : {size_t{0}, size_t{3}}) {
        HostImage img = rgba.converted(f, pad);
        EXPECT_SAME(describe(*e, img.view()), want, test::image_name(img.view()));
      }
    }
    HostImage grey = cvis::test::make_rgba(Pattern::kGreyLevels, s[0], s[1], seed++);
    const Result want_grey = describe(*e, grey.converted(PixelFormat::kRGB, 1).view());
    HostImage g8 = grey.converted(PixelFormat::kGRAY8, 5);
    EXPECT_SAME(describe(*e, g8.view()), want_grey, test::image_name(g8.view()));
  }
}

// Alpha is composited over black with Java2D's rounding: round(a * c / 255).
TEST(CeddFormats, AlphaOverBlack) {
  auto e = cpu_extractor();
  const PixelFormat alpha[] = {PixelFormat::kRGBA, PixelFormat::kBGRA, PixelFormat::kARGB,
                               PixelFormat::kABGR};
  uint32_t seed = 40;
  for (PixelFormat f : alpha) {
    HostImage img = test::make_image(f, Pattern::kNoise, 99, 87, seed++, 2, true);
    HostImage rgb(PixelFormat::kRGB, 99, 87);
    const PackedLayout l = packed_layout(f);
    for (int y = 0; y < 87; ++y)
      for (int x = 0; x < 99; ++x) {
        const uint8_t* p = img.view().data[0] + y * img.pitch(0) + 4 * x;
        auto over = [&](int c) { return static_cast<uint8_t>((2 * p[l.a] * c + 255) / 510); };
        rgb.set_rgb(x, y, over(p[l.r]), over(p[l.g]), over(p[l.b]));
      }
    EXPECT_SAME(describe(*e, img.view()), describe(*e, rgb.view()), test::image_name(img.view()));
  }
}

// NV12 / I420: the descriptor of the RGB image the shared conversion produces, for every matrix and
// range, and the literal transcription agrees.
TEST(CeddFormats, YuvMatchesConvertedRgb) {
  auto e = cpu_extractor();
  uint32_t seed = 60;
  for (PixelFormat f : {PixelFormat::kNV12, PixelFormat::kI420}) {
    for (int m = 0; m < 4; ++m) {
      for (bool full : {false, true}) {
        const int w = 83 + 2 * m, h = 61 + m;
        HostImage img = test::make_image(f, Pattern::kSmoothNoise, w, h, seed++, m, false);
        ImageView v = img.view();
        v.yuv.matrix = static_cast<YuvColorimetry::Matrix>(m);
        v.yuv.full_range = full;
        const PixelSource src = make_pixel_source(v);
        HostImage rgb(PixelFormat::kRGB, w, h);
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) {
            const Rgb8 p = fetch_rgb(src, x, y);
            rgb.set_rgb(x, y, p.r, p.g, p.b);
          }
        const Result r = describe(*e, v);
        EXPECT_SAME(r, describe(*e, rgb.view()), test::image_name(v));
        EXPECT_SAME(r, test::literal_cedd(v), test::image_name(v));
      }
    }
  }
}

// A region's descriptor is the descriptor of the cropped image (several regions in one call).
TEST(CeddRegions, RegionEqualsCrop) {
  auto e = cpu_extractor();
  std::mt19937 rng(11);
  for (int it = 0; it < 6; ++it) {
    const int w = 50 + static_cast<int>(rng() % 500), h = 30 + static_cast<int>(rng() % 400);
    HostImage img = test::make_image(kPacked[it], kPatterns[it], w, h, 900 + it, it, true);
    std::vector<Region> regions = {{0, 0, w, h}, {w - 1, h - 1, 1, 1}, {1, 0, w - 1, h}};
    for (int k = 0; k < 6; ++k) {
      Region r;
      r.w = 1 + static_cast<int>(rng() % w);
      r.h = 1 + static_cast<int>(rng() % h);
      r.x = static_cast<int>(rng() % (w - r.w + 1));
      r.y = static_cast<int>(rng() % (h - r.h + 1));
      regions.push_back(r);
    }
    std::vector<Result> got(regions.size());
    ASSERT_TRUE(e->describe(img.view(), regions.data(), static_cast<int>(regions.size()),
                            got.data(), nullptr)
                    .ok());
    for (size_t k = 0; k < regions.size(); ++k) {
      const Region& r = regions[k];
      ImageView crop;
      ASSERT_TRUE(sub_view(img.view(), r.x, r.y, r.w, r.h, &crop).ok());
      const std::string what = test::image_name(img.view()) + " region " + std::to_string(r.x) +
                               "," + std::to_string(r.y) + " " + std::to_string(r.w) + "x" +
                               std::to_string(r.h);
      EXPECT_SAME(got[k], describe(*e, crop), what);
      EXPECT_SAME(got[k], test::literal_cedd(crop), what);
    }
  }
}

// describe_batch() of mixed sizes and formats equals one describe() per image.
TEST(CeddBatch, MatchesSingleImages) {
  auto e = cpu_extractor();
  std::vector<HostImage> imgs;
  const int sizes[][2] = {{1, 1}, {640, 480}, {37, 23}, {7, 1}, {80, 79}, {333, 211}, {2, 2}};
  uint32_t seed = 300;
  for (const auto& s : sizes) {
    imgs.push_back(test::make_image(kPacked[seed % 10], kPatterns[seed % 7], s[0], s[1], seed,
                                    seed % 4, true));
    ++seed;
  }
  std::vector<ImageView> views;
  for (const HostImage& i : imgs)
    views.push_back(i.view());
  std::vector<Result> got(views.size());
  ASSERT_TRUE(
      e->describe_batch(views.data(), static_cast<int>(views.size()), got.data(), nullptr).ok());
  for (size_t i = 0; i < views.size(); ++i) {
    EXPECT_SAME(got[i], describe(*e, views[i]), test::image_name(views[i]));
  }
}

// The result does not depend on the number of threads (per-block results, sequential accumulation).
TEST(CeddThreads, IndependentOfThreadCount) {
  HostImage big = test::make_image(PixelFormat::kBGRx, Pattern::kNoise, 1031, 1029, 77, 1, false);
  HostImage tall = test::make_image(PixelFormat::kRGB, Pattern::kStripes, 21, 3001, 78, 0, false);
  auto ref = cpu_extractor(1);
  const Result want_big = describe(*ref, big.view());
  const Result want_tall = describe(*ref, tall.view());
  const ImageView batch[] = {big.view(), tall.view(), big.view()};
  for (int threads : {2, 3, 7, 16, 0}) {
    auto e = cpu_extractor(threads);
    EXPECT_SAME(describe(*e, big.view()), want_big, "threads " + std::to_string(threads));
    EXPECT_SAME(describe(*e, tall.view()), want_tall, "threads " + std::to_string(threads));
    Result out[3];
    ASSERT_TRUE(e->describe_batch(batch, 3, out, nullptr).ok());
    EXPECT_SAME(out[0], want_big, "batch");
    EXPECT_SAME(out[1], want_tall, "batch");
    EXPECT_SAME(out[2], want_big, "batch");
  }
}

// Seeded random images: sizes 1..400 per side, every format, padded pitch, against the literal
// transcription of the specification.
TEST(CeddRandom, MatchesLiteralSpec) {
  auto e = cpu_extractor();
  std::mt19937 rng(2024);
  for (int it = 0; it < 80; ++it) {
    const int w = 1 + static_cast<int>(rng() % 400), h = 1 + static_cast<int>(rng() % 400);
    const PixelFormat f = static_cast<PixelFormat>(rng() % 13);
    const Pattern pattern = kPatterns[rng() % 7]; // one draw per statement (defined order)
    const uint32_t seed = rng();
    const size_t pad = rng() % 9;
    const bool alpha = rng() % 2;
    HostImage img = test::make_image(f, pattern, w, h, seed, pad, alpha);
    ImageView v = img.view();
    v.yuv.matrix = static_cast<YuvColorimetry::Matrix>(rng() % 4);
    v.yuv.full_range = rng() % 2;
    EXPECT_SAME(describe(*e, v), test::literal_cedd(v), test::image_name(v));
  }
}

TEST(CeddErrors, InvalidArguments) {
  auto e = cpu_extractor();
  HostImage img = test::make_image(PixelFormat::kRGBA, Pattern::kNoise, 64, 48, 1, 0, false);
  Result out[3];
  const Region inside{0, 0, 10, 10};
  const Region bad[] = {
      {-1, 0, 10, 10}, {0, 0, 0, 10}, {55, 0, 10, 10}, {0, 40, 10, 10}, {0, 0, 65, 48}};
  auto code = [](const Status& s) { return s.code(); };
  EXPECT_EQ(code(e->describe(img.view(), nullptr, 2, out, nullptr)), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(e->describe(img.view(), &inside, 0, out, nullptr)), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(e->describe(img.view(), nullptr, 1, nullptr, nullptr)),
            StatusCode::kInvalidArgument);
  for (const Region& r : bad) {
    EXPECT_EQ(code(e->describe(img.view(), &r, 1, out, nullptr)), StatusCode::kInvalidArgument)
        << r.x << "," << r.y << " " << r.w << "x" << r.h;
  }
  ImageView v = img.view();
  v.pitch[0] = 10;
  EXPECT_EQ(code(e->describe(v, nullptr, 1, out, nullptr)), StatusCode::kInvalidArgument);
  v = img.view();
  v.width = 40000;
  v.pitch[0] = 4 * 40000;
  EXPECT_EQ(code(e->describe(v, nullptr, 1, out, nullptr)), StatusCode::kInvalidArgument);
  v = img.view();
  v.space = MemorySpace::kDevice;
  EXPECT_EQ(code(e->describe(v, nullptr, 1, out, nullptr)), StatusCode::kUnsupportedFormat);
  EXPECT_EQ(code(e->describe_batch(&v, 1, out, nullptr)), StatusCode::kUnsupportedFormat);
  EXPECT_EQ(code(e->describe_batch(nullptr, 1, out, nullptr)), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(e->describe_batch(&v, 0, out, nullptr)), StatusCode::kInvalidArgument);
  Params p;
  p.cpu_threads = -1;
  EXPECT_EQ(code(e->configure(p)), StatusCode::kInvalidArgument);
  p.cpu_threads = 0;
  p.mode = static_cast<Mode>(7);
  EXPECT_EQ(code(e->configure(p)), StatusCode::kInvalidArgument);
  std::vector<BlockDebug> blocks;
  EXPECT_EQ(code(describe_blocks_cpu(v, &blocks)), StatusCode::kUnsupportedFormat);
}

TEST(CeddFactory, Backends) {
  Status st;
  auto c = make_extractor(Backend::kCpu, &st);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->backend(), Backend::kCpu);
  EXPECT_EQ(make_extractor(Backend::kAuto, &st), nullptr);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  auto g = make_extractor(Backend::kCuda, &st);
  if (cuda_device_count() == 0) {
    EXPECT_EQ(g, nullptr);
    EXPECT_EQ(st.code(), StatusCode::kNoDevice) << st.to_string();
  } else {
    ASSERT_NE(g, nullptr) << st.to_string();
    EXPECT_EQ(g->backend(), Backend::kCuda);
  }
}

} // namespace
} // namespace cvis::cedd

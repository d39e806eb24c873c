// Background subtraction building blocks (CPU suite): parameters, features, bandwidth medians,
// mask clean-up and connected components, each against a plain independent computation.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <vector>

#include "bgsub/bgsub.hpp"
#include "bgsub/bgsub_internal.hpp"

namespace cvis::bgsub {
namespace {

TEST(BgsubParams, DefaultsAreValidAndSizedLikeThePaper) {
  const Params p;
  EXPECT_TRUE(validate(p).ok());
  // "approximately 1300 times per pixel" (paper Sect. VI-A).
  EXPECT_EQ(evaluations_per_pixel(p), 1296);
}

TEST(BgsubParams, EveryBadFieldIsRefused) {
  std::vector<std::pair<const char*, Params>> bad;
  auto add = [&](const char* what, auto&& edit) {
    Params p;
    edit(p);
    bad.emplace_back(what, p);
  };
  add("samples 1", [](Params& p) { p.num_samples = 1; });
  add("samples 129", [](Params& p) { p.num_samples = kMaxSamples + 1; });
  add("radius -1", [](Params& p) { p.neighborhood = -1; });
  add("radius 4", [](Params& p) { p.neighborhood = kMaxRadius + 1; });
  add("period 0", [](Params& p) { p.update_period = 0; });
  add("threshold 0", [](Params& p) { p.threshold = 0.0; });
  add("threshold nan", [](Params& p) { p.threshold = std::nan(""); });
  add("kernel 8", [](Params& p) { p.kernel = static_cast<Kernel>(kKernelCount); });
  add("points 1", [](Params& p) { p.cpwl_points = 1; });
  add("points 1025", [](Params& p) { p.cpwl_points = cpwl::kMaxSegments + 1; });
  add("range 0", [](Params& p) { p.cpwl_range = 0.0f; });
  add("sigma min 0", [](Params& p) { p.sigma_min = 0.0f; });
  add("sigma max < min", [](Params& p) { p.sigma_max = p.sigma_min * 0.5f; });
  add("intensity scale 0", [](Params& p) { p.intensity_sigma_scale = 0.0f; });
  add("spatial 0", [](Params& p) { p.spatial_sigma = 0.0f; });
  add("blob area 0", [](Params& p) { p.min_blob_area = 0; });
  add("threads -1", [](Params& p) { p.cpu_threads = -1; });
  for (const auto& [what, p] : bad) {
    EXPECT_EQ(validate(p).code(), StatusCode::kInvalidArgument) << what;
    Status st;
    auto s = make_subtractor(Backend::kCpu, &st);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->configure(p).code(), StatusCode::kInvalidArgument) << what;
  }
}

TEST(BgsubParams, KernelNamesRoundTrip) {
  for (int i = 0; i < kKernelCount; ++i) {
    Kernel k;
    ASSERT_TRUE(parse_kernel(kernel_name(static_cast<Kernel>(i)), &k));
    EXPECT_EQ(static_cast<int>(k), i);
    // The table evaluators keep the cpwl names.
    if (i < cpwl::kEvaluatorCount) {
      EXPECT_STREQ(kernel_name(k), cpwl::evaluator_name(static_cast<cpwl::Evaluator>(i)));
    }
  }
  Kernel k;
  EXPECT_FALSE(parse_kernel("gauss", &k));
}

TEST(BgsubMath, FeaturesRgbAndChromaticity) {
  EXPECT_EQ(feature_of(Rgb8{10, 20, 30}, false), 10u | (20u << 8) | (30u << 16));
  // s = 60: r = round(255*10/60) = 43 (42.5 rounds up), g = 85, I = 20.
  EXPECT_EQ(feature_of(Rgb8{10, 20, 30}, true), 43u | (85u << 8) | (20u << 16));
  EXPECT_EQ(feature_of(Rgb8{0, 0, 0}, true), 85u | (85u << 8));
  EXPECT_EQ(feature_of(Rgb8{255, 255, 255}, true), 85u | (85u << 8) | (255u << 16));
  // A shadow (same chromaticity, half the intensity) moves only the third channel.
  const uint32_t lit = feature_of(Rgb8{200, 100, 50}, true);
  const uint32_t dark = feature_of(Rgb8{100, 50, 25}, true);
  EXPECT_EQ(lit & 0xffffu, dark & 0xffffu);
  EXPECT_NE(lit >> 16, dark >> 16);
}

TEST(BgsubMath, Median3IsTheLowerMedianOfEachChannel) {
  std::mt19937 rng(5);
  for (int count : {1, 2, 3, 11, 47, 127}) {
    for (int rep = 0; rep < 50; ++rep) {
      std::vector<uint32_t> d(count);
      std::vector<int> ch[3];
      std::uniform_int_distribution<int> v(0, rep % 2 ? 255 : 9); // also many ties
      for (auto& x : d) {
        const int a = v(rng), b = v(rng), c = v(rng);
        x = a | (b << 8) | (c << 16);
        ch[0].push_back(a);
        ch[1].push_back(b);
        ch[2].push_back(c);
      }
      const uint32_t m = median3(d.data(), count);
      for (int c = 0; c < 3; ++c) {
        std::sort(ch[c].begin(), ch[c].end());
        EXPECT_EQ(channel(m, c), ch[c][(count - 1) / 2]) << "count " << count << " channel " << c;
      }
      // The counting path (bits <= 7) on the differences saturated at 2^bits - 1: the median
      // saturated likewise.
      for (int bits = 1; bits <= 7; ++bits) {
        const int sat = (1 << bits) - 1;
        std::vector<uint32_t> capped(count);
        for (int k = 0; k < count; ++k)
          capped[k] = absdiff3(d[k], 0u, sat);
        const uint32_t mb = median3(capped.data(), count, bits);
        for (int k = 0; k < count; ++k) // the GPU's saturation (at 127) gives the same median
          capped[k] = absdiff3_sat127(d[k], 0u);
        const uint32_t m127 = median3(capped.data(), count, bits);
        for (int c = 0; c < 3; ++c) {
          EXPECT_EQ(channel(mb, c), std::min(ch[c][(count - 1) / 2], sat))
              << "count " << count << " bits " << bits;
          EXPECT_EQ(channel(m127, c), channel(mb, c)) << "count " << count << " bits " << bits;
        }
      }
    }
  }
}

TEST(BgsubMath, SaturatedDifferencesGiveTheSameBandwidths) {
  // median_bits() saturates the differences where sigma_max clamps the bandwidth anyway.
  std::mt19937 rng(8);
  for (float smax : {2.5f, 12.0f, 40.0f, 80.0f, 255.0f}) {
    Params p;
    p.sigma_max = smax;
    p.sigma_min = std::min(p.sigma_min, smax);
    const int bits = median_bits(p), sat = (1 << bits) - 1;
    const std::vector<float> lut = bandwidth_table(p);
    for (int rep = 0; rep < 200; ++rep) {
      std::vector<uint32_t> full(47), capped(47);
      std::uniform_int_distribution<int> v(0, rep % 3 == 0 ? 255 : 60);
      for (int k = 0; k < 47; ++k) {
        const uint32_t a = v(rng) | (v(rng) << 8) | (v(rng) << 16),
                       b = v(rng) | (v(rng) << 8) | (v(rng) << 16);
        full[k] = absdiff3(a, b);
        capped[k] = absdiff3(a, b, sat);
      }
      const uint32_t m8 = median3(full.data(), 47), mb = median3(capped.data(), 47, bits);
      for (int c = 0; c < 3; ++c) {
        EXPECT_EQ(lut[c * 256 + channel(m8, c)], lut[c * 256 + channel(mb, c)])
            << "sigma_max " << smax << " bits " << bits;
      }
    }
  }
  Params d;
  EXPECT_EQ(median_bits(d), 6); // the default sigma_max = 40 needs differences up to 40
}

TEST(BgsubMath, BandwidthTableFollowsTheMadRuleAndClamps) {
  Params p;
  p.sigma_min = 2.0f;
  p.sigma_max = 40.0f;
  const std::vector<float> t = bandwidth_table(p);
  // sigma = m / (0.68 sqrt 2): m = 20 -> 20.797
  EXPECT_NEAR(1.0 / t[20], 20.0 / (0.68 * std::sqrt(2.0)), 1e-4);
  EXPECT_FLOAT_EQ(1.0f / t[0], 2.0f);    // clamped to sigma_min
  EXPECT_FLOAT_EQ(1.0f / t[255], 40.0f); // clamped to sigma_max
  p.color = ColorSpace::kChromaticity;
  p.intensity_sigma_scale = 3.0f;
  const std::vector<float> c = bandwidth_table(p);
  EXPECT_FLOAT_EQ(c[256 + 20], t[20]);
  EXPECT_NEAR(c[512 + 20], t[20] / 3.0f, 1e-7);
}

// Reference connected components: breadth-first flood fill, 8-connectivity.
std::vector<Blob> flood_fill(const std::vector<uint8_t>& m, int w, int h, int min_area) {
  std::vector<int> seen(m.size(), 0);
  std::vector<Blob> out;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      if (!m[y * w + x] || seen[y * w + x])
        continue;
      Blob b{x, y, 0, 0, 0};
      int x0 = x, x1 = x, y0 = y, y1 = y;
      std::deque<int> q{y * w + x};
      seen[y * w + x] = 1;
      while (!q.empty()) {
        const int i = q.front();
        q.pop_front();
        const int cx = i % w, cy = i / w;
        ++b.area;
        x0 = std::min(x0, cx), x1 = std::max(x1, cx), y0 = std::min(y0, cy), y1 = std::max(y1, cy);
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int nx = cx + dx, ny = cy + dy;
            if (nx < 0 || ny < 0 || nx >= w || ny >= h || !m[ny * w + nx] || seen[ny * w + nx])
              continue;
            seen[ny * w + nx] = 1;
            q.push_back(ny * w + nx);
          }
      }
      b.x = x0, b.y = y0, b.width = x1 - x0 + 1, b.height = y1 - y0 + 1;
      if (b.area >= min_area)
        out.push_back(b);
    }
  }
  return out;
}

TEST(BgsubBlobs, MatchFloodFillOnRandomMasks) {
  std::mt19937 rng(17);
  for (int w : {1, 7, 64, 101}) {
    for (int h : {1, 5, 33}) {
      for (double density : {0.05, 0.3, 0.5, 0.7, 1.0}) {
        std::bernoulli_distribution on(density);
        std::vector<uint8_t> m(static_cast<size_t>(w) * h);
        for (auto& v : m)
          v = on(rng) ? 255 : 0;
        for (int min_area : {1, 4}) {
          std::vector<Blob> got;
          int64_t fg = 0;
          ccl::connected_blobs(m.data(), w, w, h, min_area, &got, &fg);
          EXPECT_EQ(got, flood_fill(m, w, h, min_area)) << w << "x" << h << " p=" << density;
          EXPECT_EQ(fg, std::count(m.begin(), m.end(), 255));
        }
      }
    }
  }
  // A spiral-like shape whose first pixel is not its top-left corner of the box.
  const int w = 6, h = 4;
  const std::vector<uint8_t> u = {0,   0,   0,   0,   0,   255, //
                                  255, 0,   0,   0,   255, 0,   //
                                  255, 0,   0,   0,   255, 0,   //
                                  0,   255, 255, 255, 0,   0};
  std::vector<Blob> got;
  int64_t fg = 0;
  ccl::connected_blobs(u.data(), w, w, h, 1, &got, &fg);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (Blob{0, 0, 6, 4, 8}));
}

TEST(BgsubCleanup, MedianAndMorphologyOnKnownPatterns) {
  const int w = 7, h = 7;
  std::vector<uint8_t> m(w * h, 0);
  m[5 * w + 1] = 255; // isolated pixel
  for (int y = 0; y < 3; ++y)
    for (int x = 4; x < 7; ++x)
      m[y * w + x] = 255; // 3x3 block at the top-right corner
  auto at = [&](int x, int y) { return m[y * w + x]; };
  EXPECT_EQ(median3x3(at, 1, 5, w, h), 0);         // isolated pixel removed
  EXPECT_EQ(median3x3(at, 5, 1, w, h), 255);       // block interior kept
  EXPECT_EQ(median3x3(at, 6, 0, w, h), 255);       // corner: clamped border replicates the block
  EXPECT_EQ(median3x3(at, 4, 2, w, h), 255);       // block corner: 4 of 9, kept (foreground bias)
  EXPECT_EQ(median3x3(at, 3, 1, w, h), 0);         // next to the block: 3 of 9
  EXPECT_EQ(morph3x3(at, 5, 1, w, h, false), 255); // erosion keeps the 3x3 centre
  EXPECT_EQ(morph3x3(at, 4, 1, w, h, false), 0);
  EXPECT_EQ(morph3x3(at, 1, 5, w, h, false), 0);
  EXPECT_EQ(morph3x3(at, 6, 0, w, h, false), 255); // clamped corner of the block survives
  EXPECT_EQ(morph3x3(at, 2, 4, w, h, true), 255);  // dilation grows the isolated pixel
  EXPECT_EQ(morph3x3(at, 0, 2, w, h, true), 0);
  // A background pixel is filled only with 5 of 9 set.
  m[3 * w + 2] = m[4 * w + 2] = m[4 * w + 4] = m[5 * w + 3] = 255;
  EXPECT_EQ(median3x3(at, 3, 4, w, h), 0);
  m[5 * w + 4] = 255;
  EXPECT_EQ(median3x3(at, 3, 4, w, h), 255);
  // Raw masks hold 1 for weak background: not foreground.
  std::fill(m.begin(), m.end(), 1);
  EXPECT_EQ(median3x3(at, 3, 3, w, h), 0);
  EXPECT_EQ(morph3x3(at, 3, 3, w, h, true), 0);
}

TEST(BgsubApi, BadViewsAreRefused) {
  Status st;
  auto s = make_subtractor(Backend::kCpu, &st);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->configure(Params()).ok());
  std::vector<uint8_t> frame(8 * 6 * 4, 0), mask(8 * 6, 0);
  ImageView f;
  f.format = PixelFormat::kRGBA;
  f.width = 8;
  f.height = 6;
  f.data[0] = frame.data();
  f.pitch[0] = 32;
  ImageView m;
  m.format = PixelFormat::kGRAY8;
  m.width = 8;
  m.height = 6;
  m.data[0] = mask.data();
  m.pitch[0] = 8;
  FrameResult r;
  EXPECT_TRUE(s->process(f, m, &r, nullptr).ok());
  ImageView bad = m;
  bad.width = 7;
  EXPECT_EQ(s->process(f, bad, &r, nullptr).code(), StatusCode::kInvalidArgument);
  bad = m;
  bad.format = PixelFormat::kRGBA;
  EXPECT_EQ(s->process(f, bad, &r, nullptr).code(), StatusCode::kInvalidArgument);
  bad = m;
  bad.space = MemorySpace::kDevice;
  EXPECT_EQ(s->process(f, bad, &r, nullptr).code(), StatusCode::kUnsupportedFormat);
  ImageView dev = f;
  dev.space = MemorySpace::kDevice;
  EXPECT_EQ(s->process(dev, m, &r, nullptr).code(), StatusCode::kUnsupportedFormat);
  ImageView short_pitch = f;
  short_pitch.pitch[0] = 16;
  EXPECT_EQ(s->process(short_pitch, m, &r, nullptr).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(make_subtractor(Backend::kAuto, &st), nullptr);
  EXPECT_FALSE(st.ok());
}

} // namespace
} // namespace cvis::bgsub

// cpu suite: the definitions (bins, Algorithm 1, Otsu), the window schedule, blob extraction, and
// every CPU method against the brute-force definition.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "median3d.hpp"
#include "median3d_cases.hpp"
#include "median3d_math.hpp"

namespace cvis::median3d {
namespace {

using test::Case;
using test::HostImage;

TEST(Median3dMath, BinsPartitionTheValues) {
  for (int bins = 8; bins <= 256; ++bins) {
    EXPECT_EQ(bin_low(0, bins), 0);
    EXPECT_EQ(bin_low(bins, bins), 256);
    for (int v = 0; v < 256; ++v) {
      const int k = quantize(v, bins);
      ASSERT_GE(k, 0);
      ASSERT_LT(k, bins);
      ASSERT_GE(v, bin_low(k, bins)) << bins << " " << v;
      ASSERT_LT(v, bin_low(k + 1, bins)) << bins << " " << v;
    }
    for (int k = 0; k < bins; ++k) {
      ASSERT_LT(bin_low(k, bins), bin_low(k + 1, bins)) << "empty bin " << k << " of " << bins;
      ASSERT_EQ(quantize(bin_value(k, bins), bins), k) << "value of bin " << k << " of " << bins;
    }
  }
  for (int v = 0; v < 256; ++v)
    EXPECT_EQ(bin_value(v, 256), v); // exact median at 256 bins
  EXPECT_EQ(bin_value(0, 16), 7);
  EXPECT_EQ(bin_value(15, 16), 247);
}

TEST(Median3dMath, MedianBinIsAlgorithm1) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 2000; ++iter) {
    const int n = 1 + rng() % 60;
    std::vector<int> v(n);
    for (int& x : v)
      x = rng() % (iter % 2 ? 4 : 256);
    uint32_t hist[256] = {0};
    for (int x : v)
      ++hist[x];
    std::sort(v.begin(), v.end());
    // Sorted definition: element n/2 (0-based) is the first whose rank exceeds n/2 (upper median).
    EXPECT_EQ(median_bin([&](int k) { return hist[k]; }, 256, n), v[n / 2]);
  }
}

// Otsu by exact rational comparison (small images only: 128-bit products).
int otsu_exact(const uint32_t h[256]) {
  int64_t n = 0, s = 0;
  int vmax = 0;
  for (int v = 0; v < 256; ++v) {
    n += h[v];
    s += static_cast<int64_t>(v) * h[v];
    if (h[v])
      vmax = v;
  }
  int best = vmax;
  __int128 bn = -1, bd = 1;
  int64_t w0 = 0, s0 = 0;
  for (int t = 0; t < 255; ++t) {
    w0 += h[t];
    s0 += static_cast<int64_t>(t) * h[t];
    if (w0 == 0 || w0 == n)
      continue;
    const __int128 num = static_cast<__int128>(s0 * n - s * w0) * (s0 * n - s * w0);
    const __int128 den = static_cast<__int128>(w0) * (n - w0);
    if (bn < 0 || num * bd > bn * den) {
      bn = num;
      bd = den;
      best = t;
    }
  }
  return best;
}

TEST(Median3dMath, OtsuMatchesExactArithmetic) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 3000; ++iter) {
    uint32_t h[256] = {0};
    const int kind = iter % 4;
    const int pixels = 1 + rng() % 4000;
    for (int i = 0; i < pixels; ++i) {
      int v;
      if (kind == 0)
        v = rng() % 256;
      else if (kind == 1)
        v = (rng() % 2) ? 20 + rng() % 10 : 200 + rng() % 30; // bimodal
      else if (kind == 2)
        v = rng() % 3; // few levels
      else
        v = std::min(255, static_cast<int>(std::abs(std::normal_distribution<>(0, 8)(rng))));
      ++h[v];
    }
    ASSERT_EQ(otsu_threshold(h), otsu_exact(h)) << "iteration " << iter;
  }
  uint32_t flat[256] = {0};
  flat[37] = 100;
  EXPECT_EQ(otsu_threshold(flat), 37); // no split: nothing is above the threshold
  uint32_t two[256] = {0};
  two[10] = 5;
  two[90] = 5;
  const int t = otsu_threshold(two);
  EXPECT_GE(t, 10);
  EXPECT_LT(t, 90);
}

TEST(Median3dWindow, CenteredAndCausalSchedules) {
  for (Timing timing : {Timing::kCentered, Timing::kCausal}) {
    for (int temporal = 1; temporal <= 9; ++temporal) {
      for (int frames = 0; frames <= 14; ++frames) {
        WindowTracker tr(temporal, timing);
        const int after = timing == Timing::kCentered ? (temporal - 1) / 2 : 0;
        const int before = temporal - 1 - after;
        EXPECT_EQ(tr.lag(), after);
        int in_window = 0, out = 0;
        auto take = [&](bool draining) {
          int pops, index;
          while (tr.next_output(draining, &pops, &index)) {
            in_window -= pops;
            const int first = std::max(0, out - before);
            const int last = std::min(frames - 1, out + after);
            ASSERT_EQ(in_window, last - first + 1) << temporal << " " << frames << " " << out;
            ASSERT_EQ(index, out - first);
            ++out;
          }
        };
        for (int k = 0; k < frames; ++k) {
          const bool drop = tr.arrive();
          ASSERT_EQ(drop, in_window == temporal);
          if (!drop)
            ++in_window;
          take(false);
          ASSERT_EQ(out, std::max(0, k + 1 - after));
        }
        EXPECT_EQ(tr.pending(), std::min(frames, after));
        take(true);
        EXPECT_EQ(out, frames);
        EXPECT_EQ(tr.pending(), 0);
      }
    }
  }
}

TEST(Median3dBlobs, ComponentsBoxesAndLimits) {
  HostImage m(PixelFormat::kGRAY8, 20, 12, 3);
  for (int y = 0; y < 12; ++y)
    std::fill_n(m.plane(0) + y * m.pitch(0), 20, 0);
  auto set = [&](int x, int y) { m.plane(0)[y * m.pitch(0) + x] = 255; };
  for (int y = 1; y <= 3; ++y)
    for (int x = 2; x <= 5; ++x)
      set(x, y); // 12 px
  set(6, 4);     // diagonal: same blob
  for (int x = 10; x <= 18; ++x)
    set(x, 8); // 9 px line
  set(18, 2);  // 1 px
  for (int y = 6; y <= 10; ++y)
    set(3, y); // 5 px, U-shape below
  set(4, 10);
  set(5, 10);
  set(5, 9); // joins the column through row 10: 8 px
  std::vector<Blob> b;
  ASSERT_TRUE(find_blobs(m.view(), 1, 100, &b).ok());
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].x, 2);
  EXPECT_EQ(b[0].y, 1);
  EXPECT_EQ(b[0].width, 5);
  EXPECT_EQ(b[0].height, 4);
  EXPECT_EQ(b[0].area, 13u);
  EXPECT_EQ(b[1].x, 18);
  EXPECT_EQ(b[1].y, 2);
  EXPECT_EQ(b[1].area, 1u);
  EXPECT_EQ(b[2].x, 3);
  EXPECT_EQ(b[2].y, 6);
  EXPECT_EQ(b[2].width, 3);
  EXPECT_EQ(b[2].height, 5);
  EXPECT_EQ(b[2].area, 8u);
  EXPECT_EQ(b[3].x, 10);
  EXPECT_EQ(b[3].y, 8);
  EXPECT_EQ(b[3].width, 9);
  EXPECT_EQ(b[3].height, 1);
  ASSERT_TRUE(find_blobs(m.view(), 9, 100, &b).ok());
  ASSERT_EQ(b.size(), 2u); // min area drops the 1 px and 8 px blobs
  ASSERT_TRUE(find_blobs(m.view(), 1, 2, &b).ok());
  ASSERT_EQ(b.size(), 2u); // the two largest, raster order kept
  EXPECT_EQ(b[0].area, 13u);
  EXPECT_EQ(b[1].area, 9u);
}

TEST(Median3dParams, ValidationRejectsOutOfRange) {
  Params ok;
  EXPECT_TRUE(validate(ok).ok());
  auto bad = [&](auto edit) {
    Params p;
    edit(p);
    const Status s = validate(p);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  };
  bad([](Params& p) { p.spatial_w = 4; });
  bad([](Params& p) { p.spatial_h = 33; });
  bad([](Params& p) { p.temporal = 0; });
  bad([](Params& p) { p.temporal = 256; });
  bad([](Params& p) { p.bins = 7; });
  bad([](Params& p) { p.bins = 257; });
  bad([](Params& p) {
    p.spatial_w = p.spatial_h = 17;
    p.temporal = 255;
  }); // > 65535 values

  Status s;
  auto e = make_estimator(Backend::kCpu, &s);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->configure(ok, 0, 5, PixelFormat::kGRAY8).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(e->configure(ok, 8, 6, PixelFormat::kGRAY8).ok());
  HostImage wrong(PixelFormat::kRGBA, 8, 6);
  EXPECT_EQ(e->push(wrong.view(), false, nullptr).code(), StatusCode::kInvalidArgument);
  HostImage f(PixelFormat::kGRAY8, 8, 6);
  EXPECT_FALSE(e->push(f.view(), true, nullptr).ok()); // nothing to drop
  EXPECT_FALSE(e->pop(nullptr).ok());
  EXPECT_FALSE(e->compute(0, Request(), nullptr).ok());
  ASSERT_TRUE(e->push(f.view(), false, nullptr).ok());
  EXPECT_FALSE(e->compute(1, Request(), nullptr).ok());
  EXPECT_TRUE(e->compute(0, Request(), nullptr).ok());
  e->reset();
  EXPECT_EQ(e->frames(), 0);
}

class Median3dCpuSweep : public ::testing::TestWithParam<Method> {};

TEST_P(Median3dCpuSweep, WindowShapesEqualTheDefinition) {
  Status s;
  auto e = make_estimator(Backend::kCpu, &s);
  ASSERT_TRUE(e) << s.to_string();
  for (const Case& c : test::sweep_cases(GetParam())) {
    test::run_and_check(*e, c, test::host_io());
    if (HasFailure())
      return;
  }
}

TEST_P(Median3dCpuSweep, FormatsSizesAndThresholdsEqualTheDefinition) {
  Status s;
  auto e = make_estimator(Backend::kCpu, &s);
  ASSERT_TRUE(e) << s.to_string();
  for (const Case& c : test::format_cases(GetParam())) {
    test::run_and_check(*e, c, test::host_io());
    if (HasFailure())
      return;
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, Median3dCpuSweep,
                         ::testing::Values(Method::kIntegralHistogram, Method::kSeparable,
                                           Method::kSlidingHistogram),
                         [](const auto& info) {
                           std::string n = method_name(info.param);
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// The background writer for every output format: luma replicated or neutral chroma, alpha 255.
TEST(Median3dMath, StoreBackgroundLayouts) {
  for (PixelFormat f :
       {PixelFormat::kRGBA, PixelFormat::kBGRx, PixelFormat::kxRGB, PixelFormat::kRGB,
        PixelFormat::kGRAY8, PixelFormat::kNV12, PixelFormat::kI420}) {
    for (bool luma : {true, false}) {
      HostImage img(f, 5, 3, 2);
      ImageView v = img.view();
      PixelDest d{};
      d.format = f;
      d.width = 5;
      d.height = 3;
      for (int p = 0; p < 3; ++p) {
        d.plane[p] = v.data[p];
        d.pitch[p] = v.pitch[p];
      }
      d.layout = is_yuv(f) ? PackedLayout{0, -1, -1, -1, -1} : packed_layout(f);
      for (int y = 0; y < 3; ++y) {
        for (int x = 0; x < 5; ++x) {
          const uint8_t val[3] = {static_cast<uint8_t>(10 * x + y), static_cast<uint8_t>(100 + x),
                                  static_cast<uint8_t>(200 + y)};
          store_background(d, x, y, luma, val);
        }
      }
      const PixelSource src = make_pixel_source(v);
      for (int y = 0; y < 3; ++y) {
        for (int x = 0; x < 5; ++x) {
          uint8_t got[3];
          fetch_channels(src, x, y, false, got);
          const bool gray = f == PixelFormat::kGRAY8;
          EXPECT_EQ(got[0], 10 * x + y);
          const int cx = is_yuv(f) ? (x & ~1) : x, cy = is_yuv(f) ? (y & ~1) : y;
          const int want1 = luma ? (is_yuv(f) ? 128 : 10 * x + y) : (gray ? 10 * x + y : 100 + cx);
          const int want2 = luma ? (is_yuv(f) ? 128 : 10 * x + y) : (gray ? 10 * x + y : 200 + cy);
          EXPECT_EQ(got[1], want1) << pixel_format_name(f) << " " << x << "," << y;
          EXPECT_EQ(got[2], want2) << pixel_format_name(f) << " " << x << "," << y;
          if (has_alpha(f)) {
            EXPECT_EQ(v.data[0][y * v.pitch[0] + x * 4 + packed_layout(f).a], 255);
          }
        }
      }
    }
  }
}

} // namespace
} // namespace cvis::median3d

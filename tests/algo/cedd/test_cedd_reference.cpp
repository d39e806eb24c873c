// CPU reference vs the reference implementation's test vectors, the specification's worked examples
// and its stated constants (suite cpu). Everything here is exact: levels are integers and the
// normalised doubles are compared bit for bit, because the reference's arithmetic is reproduced
// operation by operation (spec §12).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "cedd/cedd.hpp"
#include "cedd/cedd_core.hpp"
#include "cedd_test_util.hpp"

namespace cvis::cedd {
namespace {

using test::HostImage;

std::unique_ptr<Extractor> cpu_extractor() {
  Status st;
  auto e = make_extractor(Backend::kCpu, &st);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return e;
}

bool bits_equal(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

HostImage load(const std::string& file) {
  HostImage img;
  std::string err;
  EXPECT_TRUE(cvis::test::load_png(cvis::test::testdata_dir() + "/cedd/" + file, &img, &err))
      << err;
  return img;
}

// §2 table, every row.
TEST(CeddLayout, SpecTable) {
  struct Row {
    int w, h, nx, ny, sx, sy;
  };
  const Row rows[] = {
      {640, 480, 40, 40, 16, 12},   {511, 333, 40, 40, 12, 8},  {333, 211, 40, 40, 8, 4},
      {1031, 1029, 40, 40, 24, 24}, {1024, 134, 40, 40, 24, 2}, {81, 80, 40, 40, 2, 2},
      {80, 79, 20, 20, 4, 2},       {64, 48, 20, 20, 2, 2},     {79, 300, 20, 20, 2, 14},
      {640, 40, 20, 20, 32, 2},     {39, 57, 19, 28, 2, 2},     {37, 23, 18, 11, 2, 2},
      {7, 1, 0, 0, 0, 0},           {1, 7, 0, 0, 0, 0},         {2, 2, 1, 1, 2, 2},
      {3, 3, 1, 1, 2, 2},           {40, 40, 20, 20, 2, 2},     {79, 79, 20, 20, 2, 2},
  };
  for (const Row& r : rows) {
    const BlockLayout l = block_layout(r.w, r.h);
    EXPECT_EQ(l.nx, r.nx) << r.w << "x" << r.h;
    EXPECT_EQ(l.ny, r.ny) << r.w << "x" << r.h;
    EXPECT_EQ(l.sx, r.sx) << r.w << "x" << r.h;
    EXPECT_EQ(l.sy, r.sy) << r.w << "x" << r.h;
  }
}

// The hexadecimal constants are the doubles the reference's decimal literals parse to.
TEST(CeddConstants, HexLiteralsAreTheDecimalLiterals) {
  EXPECT_TRUE(bits_equal(core::kLumaB, std::strtod("0.114", nullptr)));
  EXPECT_TRUE(bits_equal(core::kLumaG, std::strtod("0.587", nullptr)));
  EXPECT_TRUE(bits_equal(core::kLumaR, std::strtod("0.299", nullptr)));
  EXPECT_TRUE(bits_equal(core::kT1, std::strtod("0.68", nullptr)));
  EXPECT_TRUE(bits_equal(core::kT2, std::strtod("0.98", nullptr)));
  EXPECT_TRUE(bits_equal(core::kT3, std::strtod("0.98", nullptr)));
  EXPECT_TRUE(bits_equal(core::kSqrt2, std::sqrt(2.0)));
  const char* q[4][8] = {
      {"180.19686541079636", "23730.024499150866", "61457.152912541605", "113918.55437576842",
       "179122.46400035513", "260980.3325940354", "341795.93301552488", "554729.98648386425"},
      {"209.25176965926232", "22490.5872862417345", "60250.8935141849988", "120705.788057580583",
       "181128.08709063051", "234132.081356900555", "325660.617733105708", "520702.175858657472"},
      {"405.4642173212585", "4877.9763319071481", "10882.170090625908", "18167.239081219657",
       "27043.385568785292", "38129.413201299016", "52675.221316293857", "79555.402607004813"},
      {"968.88475977695578", "10725.159033657819", "24161.205360376698", "41555.917344385321",
       "62895.628446402261", "93066.271379694881", "136976.13317822068", "262897.86056221306"}};
  for (int t = 0; t < 4; ++t) {
    for (int j = 0; j < 8; ++j) {
      EXPECT_TRUE(bits_equal(core::quant_literal(t, j), std::strtod(q[t][j], nullptr)))
          << "table " << t << " j " << j;
    }
  }
}

// §3: exactly these 16 grey levels have a double luma below v; all others give exactly v.
TEST(CeddLuma, SixteenGreyLevelsFallBelow) {
  const int special[] = {23, 46, 57, 59, 92, 114, 118, 127, 184, 205, 223, 228, 236, 241, 249, 254};
  for (int v = 0; v < 256; ++v) {
    const bool is_special =
        std::find(std::begin(special), std::end(special), v) != std::end(special);
    const double y = core::luma(v, v, v);
    if (is_special) {
      EXPECT_LT(y, v) << v;
      EXPECT_GT(y, v - 1e-9) << v;
    } else {
      EXPECT_EQ(y, static_cast<double>(v)) << v;
    }
  }
}

// §3: a uniform quadrant of a special grey has area v - 1 (and v otherwise), in all block modes.
TEST(CeddLuma, UniformQuadrantOfSpecialGrey) {
  const int special[] = {23, 46, 57, 59, 92, 114, 118, 127, 184, 205, 223, 228, 236, 241, 249, 254};
  const int sizes[][2] = {{4, 4}, {37, 23}, {64, 48}, {333, 211}, {640, 480}};
  for (const auto& sz : sizes) {
    for (int v = 0; v < 256; v += (v < 200 ? 1 : 3)) {
      const bool is_special =
          std::find(std::begin(special), std::end(special), v) != std::end(special);
      HostImage img(PixelFormat::kRGB, sz[0], sz[1]);
      for (int y = 0; y < sz[1]; ++y)
        for (int x = 0; x < sz[0]; ++x)
          img.set_rgb(x, y, v, v, v);
      std::vector<BlockDebug> blocks;
      ASSERT_TRUE(describe_blocks_cpu(img.view(), &blocks).ok());
      ASSERT_FALSE(blocks.empty());
      for (int q = 0; q < 4; ++q) {
        EXPECT_EQ(blocks[0].area[q], is_special ? v - 1 : v) << v << " " << sz[0] << "x" << sz[1];
      }
    }
  }
}

// §14, first example (block (0, 0) of tiny_37x23.png).
TEST(CeddWorkedExamples, BlueBlock) {
  const core::Hsv hsv = core::rgb_to_hsv(62, 44, 198);
  EXPECT_EQ(hsv.h, 246);
  EXPECT_EQ(hsv.s, 198);
  EXPECT_EQ(hsv.v, 198);
  core::BlockStats st{{64, 65, 69, 70}, 62, 44, 198, 0};
  double f24[24];
  core::BlockTrace trace;
  const uint32_t cls = core::block_features(st, f24, &trace);
  EXPECT_EQ(trace.max_mask, 10.0);
  EXPECT_EQ(cls, 1u); // non-edge only
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(trace.f10[i], i == 8 ? 1.0 : 0.0) << i;
  for (int j = 0; j < 24; ++j)
    EXPECT_EQ(f24[j], j == 19 ? 1.0 : 0.0) << j;
}

// §14, second example: a solid orange image is bin 7 = 1.0, level 7, everything else 0.
TEST(CeddWorkedExamples, SolidOrange) {
  const core::Hsv hsv = core::rgb_to_hsv(230, 120, 30);
  EXPECT_EQ(hsv.h, 27);
  EXPECT_EQ(hsv.s, 221);
  EXPECT_EQ(hsv.v, 230);
  HostImage img(PixelFormat::kRGB, 128, 96);
  for (int y = 0; y < 96; ++y)
    for (int x = 0; x < 128; ++x)
      img.set_rgb(x, y, 230, 120, 30);
  Result r;
  ASSERT_TRUE(cpu_extractor()->describe(img.view(), nullptr, 1, &r, nullptr).ok());
  for (int i = 0; i < kBins; ++i) {
    EXPECT_EQ(r.normalized[i], i == 7 ? 1.0 : 0.0) << i;
    EXPECT_EQ(r.levels[i], i == 7 ? 7 : 0) << i;
  }
}

// §14, third example: grey 200 is half white, half grey.
TEST(CeddWorkedExamples, Grey200) {
  core::BlockStats st{{200, 200, 200, 200}, 200, 200, 200, 0};
  double f24[24];
  core::BlockTrace trace;
  EXPECT_EQ(core::block_features(st, f24, &trace), 1u);
  EXPECT_EQ(trace.hsv.h, 0);
  EXPECT_EQ(trace.hsv.s, 0);
  EXPECT_EQ(trace.hsv.v, 200);
  for (int j = 0; j < 24; ++j)
    EXPECT_EQ(f24[j], j < 2 ? 0.5 : 0.0) << j;
}

// §10: the quantiser's boundaries and the empty-image case.
TEST(CeddQuantize, Levels) {
  EXPECT_EQ(core::quantize(std::nan(""), 0), 0);
  EXPECT_EQ(core::quantize(0.0, 0), 0);
  EXPECT_EQ(core::quantize(1.0, 0), 7);
  // Either side of the midpoint between neighbouring centres (margin far above double rounding).
  for (int t = 0; t < 4; ++t) {
    for (int j = 0; j + 1 < 8; ++j) {
      const double mid =
          (core::quant_literal(t, j) / 1000000 + core::quant_literal(t, j + 1) / 1000000) / 2;
      EXPECT_EQ(core::quantize(mid - 1e-12, t), j) << "table " << t << " j " << j;
      EXPECT_EQ(core::quantize(mid + 1e-12, t), j + 1) << "table " << t << " j " << j;
    }
  }
  EXPECT_EQ(core::quant_table_of_bin(23), 0);
  EXPECT_EQ(core::quant_table_of_bin(24), 1);
  EXPECT_EQ(core::quant_table_of_bin(95), 2);
  EXPECT_EQ(core::quant_table_of_bin(96), 3);
}

// The six test images: levels (exact) and normalised doubles (bit-exact) of the reference, from the
// library and from the literal transcription (which validates that oracle).
TEST(CeddTestdata, ReferenceVectors) {
  std::vector<test::Expected> expected;
  std::string err;
  ASSERT_TRUE(test::load_expected(&expected, &err)) << err;
  ASSERT_EQ(expected.size(), 6u);
  auto e = cpu_extractor();
  for (const test::Expected& x : expected) {
    HostImage img = load(x.file);
    ASSERT_EQ(img.width(), x.width);
    ASSERT_EQ(img.height(), x.height);
    Result want;
    want.levels = x.levels;
    want.normalized = x.normalized;
    Result got;
    ASSERT_TRUE(e->describe(img.view(), nullptr, 1, &got, nullptr).ok());
    std::string why;
    EXPECT_TRUE(test::same_result(got, want, &why)) << x.file << ": " << why;
    EXPECT_TRUE(test::same_result(test::literal_cedd(img.view()), want, &why))
        << "literal oracle, " << x.file << ": " << why;
  }
}

// Per-block intermediate values against debug_blocks_*.tsv.
TEST(CeddTestdata, DebugBlocks) {
  const char* stems[] = {"tiny_37x23", "checker_64x48", "noise_seed20240531_333x211"};
  for (const char* stem : stems) {
    std::vector<test::ExpectedBlock> want;
    std::string err;
    ASSERT_TRUE(test::load_debug_blocks(stem, &want, &err)) << err;
    HostImage img = load(std::string(stem) + ".png");
    std::vector<BlockDebug> got;
    ASSERT_TRUE(describe_blocks_cpu(img.view(), &got).ok());
    ASSERT_EQ(got.size(), want.size()) << stem;
    for (size_t i = 0; i < got.size(); ++i) {
      const BlockDebug& g = got[i];
      const test::ExpectedBlock& w = want[i];
      SCOPED_TRACE(std::string(stem) + " block " + std::to_string(i));
      EXPECT_EQ(g.x0, w.x0);
      EXPECT_EQ(g.y0, w.y0);
      for (int q = 0; q < 4; ++q)
        EXPECT_EQ(g.area[q], w.area[q]) << "A" << q + 1;
      EXPECT_TRUE(bits_equal(g.max_mask, w.max_mask)) << g.max_mask << " vs " << w.max_mask;
      EXPECT_EQ(g.classes, w.classes);
      EXPECT_EQ(g.mean_r, w.r);
      EXPECT_EQ(g.mean_g, w.g);
      EXPECT_EQ(g.mean_b, w.b);
      EXPECT_EQ(g.h, w.h);
      EXPECT_EQ(g.s, w.s);
      EXPECT_EQ(g.v, w.v);
      for (int k = 0; k < 10; ++k) {
        EXPECT_TRUE(bits_equal(g.fuzzy10[k], w.fuzzy10[k]))
            << "fuzzy10[" << k << "] " << g.fuzzy10[k] << " vs " << w.fuzzy10[k];
      }
    }
  }
}

} // namespace
} // namespace cvis::cedd

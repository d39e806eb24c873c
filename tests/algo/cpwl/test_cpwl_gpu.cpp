// GPU evaluators vs their CPU twins (suite gpu). Each test starts with CVIS_REQUIRE_GPU().
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "cpwl/cpwl.hpp"
#include "test_images.hpp"

namespace cvis::cpwl {
namespace {

uint32_t bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

// Abscissas: random in [a - 10%, b + 10%] plus every knot and segment midpoint (the points where
// the index arithmetic is most likely to round differently).
std::vector<float> abscissas(const Cpwl& g, uint32_t seed) {
  const double a = g.knots.front(), b = g.knots.back(), pad = 0.1 * (b - a);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(a - pad, b + pad);
  std::vector<float> x;
  const int count = cvis::test::sanitizer_run() ? 20000 : 200000; // small under compute-sanitizer
  for (int i = 0; i < count; ++i)
    x.push_back(static_cast<float>(d(rng)));
  for (size_t i = 0; i + 1 < g.knots.size(); ++i) {
    x.push_back(static_cast<float>(g.knots[i]));
    x.push_back(static_cast<float>(0.5 * (g.knots[i] + g.knots[i + 1])));
  }
  x.push_back(static_cast<float>(b));
  return x;
}

struct Comparison {
  size_t exact = 0; // bit-identical results
  double max_abs = 0.0;
  double max_ulps = 0.0; // |gpu - cpu| / ulp(cpu), for nonzero cpu values
};

Comparison compare(const std::vector<float>& gpu, const std::vector<float>& cpu) {
  Comparison c;
  for (size_t i = 0; i < gpu.size(); ++i) {
    if (bits(gpu[i]) == bits(cpu[i])) {
      ++c.exact;
      continue;
    }
    const double d = std::fabs(static_cast<double>(gpu[i]) - cpu[i]);
    c.max_abs = std::max(c.max_abs, d);
    if (cpu[i] != 0.0f) {
      const double ulp = std::nextafter(std::fabs(cpu[i]), INFINITY) - std::fabs(cpu[i]);
      c.max_ulps = std::max(c.max_ulps, d / ulp);
    }
  }
  return c;
}

std::vector<float> twin(Evaluator e, const Table& t, const std::vector<float>& x, TexRounding r) {
  std::vector<float> out(x.size());
  const TableView v = t.view();
  for (size_t i = 0; i < x.size(); ++i)
    out[i] = evaluate_twin(e, v, x[i], r);
  return out;
}

class CpwlGpuParity : public ::testing::TestWithParam<int> {};

TEST_P(CpwlGpuParity, ManualEvaluatorsAreBitExact) {
  CVIS_REQUIRE_GPU();
  const int n = GetParam();
  for (Partition p : {Partition::kUniform, Partition::kOptimized}) {
    Cpwl g;
    ASSERT_TRUE(approximate(gaussian(), n, p, Fit::kProjection, &g).ok());
    Table t;
    ASSERT_TRUE(make_table(g, p, &t).ok());
    const std::vector<float> x = abscissas(g, 7 + n);
    std::vector<Evaluator> evs = {Evaluator::kManualOptimized};
    if (p == Partition::kUniform)
      evs = {Evaluator::kManualUniform, Evaluator::kSlopeUniform};
    for (Evaluator e : evs) {
      std::vector<float> gpu(x.size());
      ASSERT_TRUE(evaluate_gpu(e, t, x.data(), static_cast<int>(x.size()), gpu.data()).ok());
      const Comparison c = compare(gpu, twin(e, t, x, TexRounding::kNearest));
      // Exact: same IEEE operations in the same order (mul_rn/add_rn forbid FMA contraction).
      EXPECT_EQ(c.exact, x.size())
          << evaluator_name(e) << " N=" << n << " max abs diff " << c.max_abs;
    }
  }
}

TEST_P(CpwlGpuParity, TextureMatchesEmulatedFixedPointWeights) {
  CVIS_REQUIRE_GPU();
  const int n = GetParam();
  for (Partition p : {Partition::kUniform, Partition::kOptimized}) {
    Cpwl g;
    ASSERT_TRUE(approximate(gaussian(), n, p, Fit::kProjection, &g).ok());
    Table t;
    ASSERT_TRUE(make_table(g, p, &t).ok());
    const Evaluator e =
        p == Partition::kUniform ? Evaluator::kTextureUniform : Evaluator::kTextureOptimized;
    const std::vector<float> x = abscissas(g, 11 + n);
    std::vector<float> gpu(x.size());
    ASSERT_TRUE(evaluate_gpu(e, t, x.data(), static_cast<int>(x.size()), gpu.data()).ok());
    const Comparison cn = compare(gpu, twin(e, t, x, TexRounding::kNearest));
    const Comparison ct = compare(gpu, twin(e, t, x, TexRounding::kTruncate));
    const bool nearest = cn.exact >= ct.exact;
    const Comparison& best = nearest ? cn : ct;
    std::printf("[texture] %s N=%d: weight rounding looks like %s; bit-exact %zu/%zu, max |diff| "
                "%.3g (other rule: %zu exact, max %.3g)\n",
                evaluator_name(e), n, nearest ? "round-to-nearest" : "truncation", best.exact,
                x.size(), best.max_abs, nearest ? ct.exact : cn.exact,
                nearest ? ct.max_abs : cn.max_abs);
    // Tolerance: with the right weight rule only the filter's internal rounding differs from our
    // float lerp; 2^-20 absolute on values <= 1 (8 ulp at 1) bounds it. A wrong weight rule would
    // show errors up to a segment's rise / 256 (~1e-3 at N=32).
    EXPECT_LE(best.max_abs, std::ldexp(1.0, -20)) << evaluator_name(e) << " N=" << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CpwlGpuParity, ::testing::Values(16, 32, 100, 512, 1024));

TEST(CpwlGpuAnalytic, ExactAndFastWithinStatedUlps) {
  CVIS_REQUIRE_GPU();
  Table none;
  std::vector<float> x;
  for (float v = 0.0f; v < 14.0f; v += 1.0f / 4096.0f)
    x.push_back(v);
  for (Evaluator e : {Evaluator::kExact, Evaluator::kFast}) {
    std::vector<float> gpu(x.size());
    ASSERT_TRUE(evaluate_gpu(e, none, x.data(), static_cast<int>(x.size()), gpu.data()).ok());
    const std::vector<float> cpu = twin(e, none, x, TexRounding::kNearest);
    const Comparison c = compare(gpu, cpu);
    std::printf("[analytic] %s: bit-exact %zu/%zu, max %.2f ulp\n", evaluator_name(e), c.exact,
                x.size(), c.max_ulps);
    // exact: CUDA expf is within 2 ulp, glibc expf within 1: 3 ulp apart at most.
    // fast: both compute exp2 of the same float product; ex2.approx.ftz has ~2 ulp relative
    // error (PTX ISA) against exp2f's 1: 4 ulp. Flushed subnormals (~1e-38) are absolute.
    const double ulps = e == Evaluator::kExact ? 3.0 : 4.0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double ulp = std::nextafter(std::fabs(cpu[i]), INFINITY) - std::fabs(cpu[i]);
      ASSERT_LE(std::fabs(static_cast<double>(gpu[i]) - cpu[i]), ulps * ulp + 1.2e-38)
          << evaluator_name(e) << " x=" << x[i];
    }
  }
}

} // namespace
} // namespace cvis::cpwl

// CPWL approximation (paper Sects. II-III) and the CPU twins of the evaluators (Sect. V).
// CPU only: runs in CI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cpwl/cpwl.hpp"

namespace cvis::cpwl {
namespace {

struct Case {
  Function fn;
  int n_min; // smallest N where the paper's asymptotics hold for this function (see README.md)
};

std::vector<Case> paper_functions() {
  // Measured: the Gaussian agrees within 2% from N = 16; the Lorentzian and J0 have 16-24%
  // deviations at N = 16 (too few segments for their peak / oscillations, as the paper notes for
  // J0) and agree within 10% from N = 32.
  return {{gaussian(), 16}, {lorentzian(), 32}, {bessel_j0(), 32}};
}

const Partition kPartitions[] = {Partition::kUniform, Partition::kOptimized};
const Fit kFits[] = {Fit::kInterpolant, Fit::kProjection};

double measured(const Function& fn, int n, Partition p, Fit f) {
  Cpwl g;
  EXPECT_TRUE(approximate(fn, n, p, f, &g).ok());
  return l2_error(fn, g);
}

TEST(CpwlErrors, MeasuredWithin15PercentOfPaperEstimates) {
  for (const Case& c : paper_functions()) {
    for (int n = c.n_min; n <= 512; n *= 2) {
      for (Partition p : kPartitions) {
        for (Fit f : kFits) {
          const double m = measured(c.fn, n, p, f), e = estimate(c.fn, n, p, f);
          // Tolerance: the 15%; the estimates are asymptotic (f'' constant per segment).
          EXPECT_NEAR(m / e, 1.0, 0.15)
              << c.fn.name << " N=" << n << " " << partition_name(p) << " " << fit_name(f)
              << " measured " << m << " estimate " << e;
        }
      }
    }
  }
}

TEST(CpwlErrors, ConvergenceRateIsNMinus2) {
  for (const Case& c : paper_functions()) {
    for (Partition p : kPartitions) {
      for (Fit f : kFits) {
        const double e64 = measured(c.fn, 64, p, f), e512 = measured(c.fn, 512, p, f);
        const double slope = std::log(e512 / e64) / std::log(512.0 / 64.0);
        // Tolerance 0.1: the rate is exactly -2 asymptotically (Eqs. 19, 23, 24).
        EXPECT_NEAR(slope, -2.0, 0.1)
            << c.fn.name << " " << partition_name(p) << " " << fit_name(f);
      }
    }
  }
}

TEST(CpwlErrors, ProjectionBeatsInterpolantBySqrt6) {
  for (const Case& c : paper_functions()) {
    for (int n = c.n_min; n <= 512; n *= 4) {
      for (Partition p : kPartitions) {
        const double ei = measured(c.fn, n, p, Fit::kInterpolant);
        const double ep = measured(c.fn, n, p, Fit::kProjection);
        // Eq. 7: the projection is the best CPWL on its partition, so never worse.
        EXPECT_LE(ep, ei);
        // Eq. 14: factor sqrt(6) asymptotically; 15% as for the estimates.
        EXPECT_NEAR(ei / ep / std::sqrt(6.0), 1.0, 0.15) << c.fn.name << " N=" << n;
      }
    }
  }
}

TEST(CpwlErrors, OptimizedPartitionBeatsUniformAsPredicted) {
  const Function fn = gaussian();
  for (int n : {32, 128, 512}) {
    const double gain = measured(fn, n, Partition::kUniform, Fit::kInterpolant) /
                        measured(fn, n, Partition::kOptimized, Fit::kInterpolant);
    const Estimates e = estimate_errors(fn, n);
    const double predicted = e.interpolant_uniform / e.interpolant_optimized;
    EXPECT_GT(gain, 1.5);
    // Same 15% as the estimates themselves (Eq. 19 / Eq. 24 does not depend on N).
    EXPECT_NEAR(gain / predicted, 1.0, 0.15) << "N=" << n;
  }
}

TEST(CpwlFit, InterpolantMatchesKnotsAndProjectionIsOrthogonal) {
  const Function fn = bessel_j0();
  std::vector<double> knots;
  ASSERT_TRUE(optimized_partition(fn, 40, &knots).ok());
  Cpwl gi, gp;
  ASSERT_TRUE(fit(fn, knots, Fit::kInterpolant, &gi).ok());
  ASSERT_TRUE(fit(fn, knots, Fit::kProjection, &gp).ok());
  for (size_t i = 0; i < knots.size(); ++i)
    EXPECT_DOUBLE_EQ(gi.values[i], fn.f(knots[i]));
  // <f - Pf, phi_i> = 0 for every hat function (Eq. 5), checked with a fine midpoint rule.
  for (size_t i = 0; i < knots.size(); ++i) {
    const double lo = i > 0 ? knots[i - 1] : knots[0];
    const double hi = i + 1 < knots.size() ? knots[i + 1] : knots[i];
    const int m = 20000;
    double s = 0.0, norm = 0.0;
    for (int k = 0; k < m; ++k) {
      const double x = lo + (hi - lo) * (k + 0.5) / m;
      const double phi = x < knots[i] ? (x - lo) / (knots[i] - lo) : (hi - x) / (hi - knots[i]);
      s += (fn.f(x) - gp(x)) * phi * (hi - lo) / m;
      norm += std::fabs(fn.f(x)) * phi * (hi - lo) / m;
    }
    // The midpoint rule's own error is O(h^2/m^2) of the integrand: far below 1e-6.
    EXPECT_LT(std::fabs(s), 1e-6 * (norm + 1e-3)) << "hat " << i;
  }
}

TEST(CpwlPartition, OptimizedKnotsEquidistributeTheDensity) {
  const Function fn = lorentzian();
  const int n = 64;
  std::vector<double> k;
  ASSERT_TRUE(optimized_partition(fn, n, &k).ok());
  ASSERT_EQ(k.size(), static_cast<size_t>(n + 1));
  EXPECT_EQ(k.front(), fn.a);
  EXPECT_EQ(k.back(), fn.b);
  std::vector<double> mass(n);
  double total = 0.0;
  for (int i = 0; i < n; ++i) {
    const int m = 2000;
    double s = 0.0;
    for (int j = 0; j < m; ++j) {
      const double x = k[i] + (k[i + 1] - k[i]) * (j + 0.5) / m;
      s += std::pow(std::fabs(fn.d2(x)), 0.4) * (k[i + 1] - k[i]) / m;
    }
    mass[i] = s;
    total += s;
  }
  // Eq. 17: every segment holds 1/N of the density mass; 1% covers the two quadratures.
  for (int i = 0; i < n; ++i)
    EXPECT_NEAR(mass[i] * n / total, 1.0, 0.01) << "segment " << i;
  // The peak (large |f''|) gets the short segments.
  EXPECT_LT(k[n / 2 + 1] - k[n / 2], k[1] - k[0]);
}

TEST(CpwlPartition, RejectsBadArguments) {
  std::vector<double> k;
  EXPECT_EQ(optimized_partition(gaussian(), 0, &k).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(optimized_partition(gaussian(1.0, 1.0), 8, &k).code(), StatusCode::kInvalidArgument);
  Cpwl g;
  EXPECT_EQ(fit(gaussian(), {0.0, 1.0, 1.0}, Fit::kInterpolant, &g).code(),
            StatusCode::kInvalidArgument);
  Table t;
  ASSERT_TRUE(approximate(gaussian(), 1, Partition::kUniform, Fit::kInterpolant, &g).ok());
  EXPECT_EQ(make_table(g, Partition::kUniform, &t).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(approximate(gaussian(), 2048, Partition::kUniform, Fit::kInterpolant, &g).ok());
  EXPECT_EQ(make_table(g, Partition::kUniform, &t).code(), StatusCode::kInvalidArgument);
}

TEST(CpwlEvaluators, NamesRoundTrip) {
  for (int i = 0; i < kEvaluatorCount; ++i) {
    Evaluator e;
    ASSERT_TRUE(parse_evaluator(evaluator_name(static_cast<Evaluator>(i)), &e));
    EXPECT_EQ(static_cast<int>(e), i);
  }
  Evaluator e;
  EXPECT_FALSE(parse_evaluator("texture", &e));
}

uint32_t bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

// Twins on random abscissas inside and around [a, b], for tables of a few sizes.
class CpwlTwins : public ::testing::TestWithParam<int> {};

TEST_P(CpwlTwins, TableEvaluatorsApproximateTheCpwl) {
  const int n = GetParam();
  const Function fn = gaussian();
  for (Partition p : kPartitions) {
    Cpwl g;
    ASSERT_TRUE(approximate(fn, n, p, Fit::kProjection, &g).ok());
    Table t;
    ASSERT_TRUE(make_table(g, p, &t).ok());
    const TableView v = t.view();
    std::mt19937 rng(1234 + n);
    std::uniform_real_distribution<float> dist(fn.a, fn.b);
    const Evaluator manual =
        p == Partition::kUniform ? Evaluator::kManualUniform : Evaluator::kManualOptimized;
    const Evaluator tex =
        p == Partition::kUniform ? Evaluator::kTextureUniform : Evaluator::kTextureOptimized;
    double max_slope = 0.0;
    for (int i = 0; i < n; ++i)
      max_slope = std::max(max_slope, std::fabs(g.values[i + 1] - g.values[i]));
    for (int i = 0; i < 20000; ++i) {
      const float x = dist(rng);
      const double ref = g(x);
      // Float table and float index arithmetic: a few ulp of values <= 1.
      EXPECT_NEAR(evaluate_twin(manual, v, x), ref, 2e-6) << "x=" << x;
      // The texture's 8-bit weight moves the result by at most half (nearest) or a whole
      // (truncate) 1/256 of a segment's rise.
      EXPECT_NEAR(evaluate_twin(tex, v, x, TexRounding::kNearest), ref, max_slope / 512.0 + 2e-6);
      EXPECT_NEAR(evaluate_twin(tex, v, x, TexRounding::kTruncate), ref, max_slope / 256.0 + 2e-6);
      if (p == Partition::kUniform) {
        // The {value, slope} table does the same float operations as the manual lerp.
        EXPECT_EQ(bits(evaluate_twin(Evaluator::kSlopeUniform, v, x)),
                  bits(evaluate_twin(manual, v, x)));
      }
    }
    // Zero border: half a segment past b the ramp is at half V_n; one segment past, zero.
    const float h_last = static_cast<float>(g.knots[n] - g.knots[n - 1]);
    EXPECT_NEAR(evaluate_twin(manual, v, fn.b + 0.5f * h_last), 0.5 * g.values[n], 1e-6);
    EXPECT_EQ(evaluate_twin(manual, v, fn.b + 1.01f * h_last), 0.0f);
    EXPECT_EQ(evaluate_twin(tex, v, fn.b + 3.0f * h_last), 0.0f);
    EXPECT_EQ(evaluate_twin(manual, v, 1e30f), 0.0f);
    EXPECT_EQ(evaluate_twin(manual, v, -1e30f), 0.0f);
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CpwlTwins, ::testing::Values(16, 37, 64, 512, 1024));

TEST(CpwlEvaluators, AnalyticTwinsAreAccurate) {
  for (float x = 0.0f; x < 6.0f; x += 0.001f) {
    const double ref = std::exp(-0.5 * static_cast<double>(x) * x);
    // expf is within 1 ulp; the exponent's own float rounding adds |x^2/2| * 2^-23 relative.
    EXPECT_NEAR(evaluate_twin(Evaluator::kExact, TableView(), x), ref, ref * (x * x + 2) * 1.2e-7);
    EXPECT_NEAR(evaluate_twin(Evaluator::kFast, TableView(), x), ref, ref * (x * x + 4) * 1.2e-7);
  }
}

TEST(CpwlEvaluators, OptimizedPathRefusesUniformTable) {
  Cpwl g;
  ASSERT_TRUE(approximate(gaussian(), 32, Partition::kUniform, Fit::kInterpolant, &g).ok());
  Table t;
  ASSERT_TRUE(make_table(g, Partition::kUniform, &t).ok());
  EXPECT_TRUE(std::isnan(evaluate_twin(Evaluator::kManualOptimized, t.view(), 1.0f)));
}

} // namespace
} // namespace cvis::cpwl

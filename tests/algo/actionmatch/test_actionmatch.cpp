// CPU tests of actionmatch: the energy terms against the math library, the pruning layout against
// the definition of the constraints, and the CPU backend's optimum against brute-force
// enumeration (every assignment) and a dense dynamic programme, exactly (integer energies),
// including ties. Seeded generators (actionmatch_test_util.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "actionmatch.hpp"
#include "actionmatch_layout.hpp"
#include "actionmatch_terms.hpp"
#include "actionmatch_test_util.hpp"

namespace cvis::actionmatch {
namespace {

using test::Rng;

std::unique_ptr<Matcher> cpu_matcher(int threads = 2) {
  Status s;
  auto m = make_matcher(Backend::kCpu, &s, threads);
  EXPECT_TRUE(s.ok()) << s.to_string();
  return m;
}

MatchResult match_one(Matcher* mt, const Params& p, const Model& m, const Graph& scene) {
  Status s = mt->configure(p, {m});
  EXPECT_TRUE(s.ok()) << s.to_string();
  std::vector<MatchResult> r;
  s = mt->match(&scene, 1, &r, nullptr, nullptr);
  EXPECT_TRUE(s.ok()) << s.to_string();
  return r.empty() ? MatchResult() : r[0];
}

// The arctangent against libm's atan2 (correctly rounded or nearly): a few ulp of pi.
TEST(ActionMatchTerms, DirectionMatchesAtan2) {
  Rng rng(1);
  std::uniform_real_distribution<double> u(-200, 200);
  double worst = 0;
  const double special[][2] = {{0, 0},   {1, 0},  {-1, 0},    {0, 1},     {0, -1},     {1, 1},
                               {-1, -1}, {3, -3}, {1e-30, 1}, {1, 1e-30}, {-5, 1e-300}};
  for (const auto& v : special) {
    worst = std::max(worst, std::fabs(terms::direction(v[0], v[1]) - std::atan2(v[1], v[0])));
  }
  for (int i = 0; i < 200000; ++i) {
    const double dx = u(rng), dy = i % 7 == 0 ? dx * 0.4142135623730950 : u(rng);
    worst = std::max(worst, std::fabs(terms::direction(dx, dy) - std::atan2(dy, dx)));
  }
  EXPECT_LE(worst, 2e-15) << "max |direction - atan2| " << worst;
  std::printf("max |direction - atan2| = %.3g\n", worst);
}

TEST(ActionMatchTerms, OrientedAngles) {
  // At the origin, from the ray to (1, 0) to the ray to (0, 1): +90 degrees; mirrored: -90.
  EXPECT_NEAR(terms::angle_at(terms::ray(0, 0, 1, 0), terms::ray(0, 0, 0, 1)), M_PI / 2, 1e-15);
  EXPECT_NEAR(terms::angle_at(terms::ray(0, 0, 1, 0), terms::ray(0, 0, 0, -1)), -M_PI / 2, 1e-15);
  // Across the +-pi cut: from 170 to -170 degrees is +20 degrees.
  const double a = 170 * M_PI / 180, b = -170 * M_PI / 180;
  EXPECT_NEAR(terms::angle_at(a, b), 20 * M_PI / 180, 1e-14);
  EXPECT_NEAR(terms::wrap(2 * M_PI - 0.1), -0.1, 1e-15);
  EXPECT_EQ(terms::wrap(M_PI), M_PI);             // (-pi, pi]
  EXPECT_EQ(terms::quantize(0.5 / 1048576.0), 0); // ties to even
  EXPECT_EQ(terms::quantize(1.5 / 1048576.0), 2);
}

// The branch-free magnitude that distortion_q squares is bit for bit |wrap(d)| over the whole
// input range [-2pi, 2pi], at the cut (+-pi and its neighbours) and at the ends.
TEST(ActionMatchTerms, WrapAbsIsTheMagnitudeOfWrap) {
  const double pi = terms::kPi, two = terms::kTwoPi;
  std::vector<double> v = {0.0, -0.0, pi, -pi, two, -two, 1e-300, -1e-300};
  for (double x : {pi, -pi, two, -two, 0.0})
    for (double to : {-4.0 * pi, 4.0 * pi}) {
      double y = x;
      for (int k = 0; k < 4; ++k) {
        y = std::nextafter(y, to);
        if (std::fabs(y) <= two)
          v.push_back(y);
      }
    }
  Rng rng(7);
  std::uniform_real_distribution<double> u(-two, two);
  for (int i = 0; i < 400000; ++i)
    v.push_back(u(rng));
  int bad = 0;
  for (double d : v) {
    const double w = std::fabs(terms::wrap(d)), a = terms::wrap_abs(d);
    bad += terms::double_bits(w) != terms::double_bits(a);
    if (bad == 1 && terms::double_bits(w) != terms::double_bits(a))
      ADD_FAILURE() << "d " << d << ": |wrap| " << w << ", wrap_abs " << a;
  }
  EXPECT_EQ(bad, 0);
}

// The CUDA trellis's settle test (cuda/actionmatch/README.md, "Folded trellis and settle tests") bounds a distortion term from below by
// its two frame-gap terms, each rounded on its own: distortion_q >= gap_q(d1) + gap_q(d2) - 1.
// Random and extreme gaps, angles and weights (lambda2 up to the limit 100, tiny ones whose terms
// round to a few grid steps, lambda3 0 included), and the equality cases with equal angles.
TEST(ActionMatchTerms, DistortionAtLeastItsGapTerms) {
  Rng rng(11);
  std::uniform_real_distribution<double> ang(-terms::kPi, terms::kPi), unit(0.0, 1.0);
  const double lambdas2[] = {0.0, 1e-7, 3e-7, 0.2, 0.3, 1.0 / 3.0, 7.7, 100.0};
  int checked = 0, tight = 0;
  for (int i = 0; i < 300000; ++i) {
    const double l2 = i % 3 ? lambdas2[i % 8] : 100.0 * unit(rng);
    const double l3 = i % 5 == 0 ? 0.0 : 1000.0 * unit(rng) * unit(rng);
    const int range = i % 4 == 0 ? (1 << 20) : 12;
    const auto gap = [&] { return static_cast<int>(rng() % static_cast<uint64_t>(range)); };
    const int g1 = gap(), g2 = gap(), s1 = gap(), s2 = gap();
    const double mm = ang(rng), ml = ang(rng);
    const bool same = i % 7 == 0; // equal angles: D is the frame term alone
    const double sm = same ? mm : ang(rng), sl = same ? ml : ang(rng);
    const int64_t d = terms::distortion_q(g1, g2, mm, ml, s1, s2, sm, sl, l2, l3);
    const int64_t lb = terms::gap_q(l2, g1 - s1) + terms::gap_q(l2, g2 - s2) - 1;
    ASSERT_GE(d, lb) << "lambda2 " << l2 << " lambda3 " << l3 << " gaps " << g1 << " " << g2
                     << " scene gaps " << s1 << " " << s2;
    ++checked;
    tight += d <= lb + 1;
  }
  EXPECT_EQ(checked, 300000);
  EXPECT_GT(tight, 1000); // the bound is met or nearly met often: the test is not vacuous
}

// The fixed-point energy of evaluate() against the same energy in double with libm (the paper's
// energy): every term is rounded to 2^-20, so they differ by at most (terms) * 2^-21, plus the
// arctangent's 1e-15 scaled by lambda2 lambda3 (negligible).
TEST(ActionMatchTerms, FixedPointWithinRoundingOfDouble) {
  Rng rng(2);
  for (int it = 0; it < 300; ++it) {
    test::GraphSpec ms{3 + static_cast<int>(rng() % 8), 16, 3};
    const Model m = test::random_model(rng, ms, "m");
    const Graph scene = test::scene_with_copy(rng, m, 20, 7, 3.f, -2.f);
    Params p = test::random_params(rng);
    p.T = 0;
    p.causality = Causality::kNonDecreasing;
    std::vector<int32_t> z(m.graph.size());
    int f = 0;
    for (int i = 0; i < m.graph.size(); ++i) { // a non-decreasing random assignment
      f = std::min(scene.size() - 1, f + static_cast<int>(rng() % 4));
      z[i] = (p.dummies && rng() % 5 == 0) ? kDummy : f;
    }
    Evaluation e;
    ASSERT_TRUE(evaluate(m, scene, p, z, &e).ok());
    ASSERT_TRUE(e.feasible);
    const double tol = (2.0 * m.graph.size()) * std::ldexp(1.0, -21) + 1e-9;
    EXPECT_NEAR(e.fixed.energy(), e.energy_double, tol);
    EXPECT_EQ(e.fixed.energy_q, e.fixed.appearance_q + e.fixed.distortion_q);
  }
}

// Fig. 6 of the paper: frames with several nodes and frames with none.
TEST(ActionMatchLayout, MinnodeAndBounds) {
  Graph s;
  s.dim = 1;
  const float d = 0;
  for (int f : {1, 2, 2, 3, 5, 5, 5, 8, 8, 8, 9})
    s.add(f, 0, 0, &d);
  Params p;
  p.T = 3;
  detail::SceneLayout L;
  ASSERT_TRUE(detail::scene_layout(s, p, &L).ok());
  EXPECT_EQ(L.frame0, 1);
  EXPECT_EQ(L.frames, 9);
  EXPECT_EQ(L.minnode, (std::vector<int32_t>{0, 1, 3, 4, 4, 7, 7, 7, 10, 11}));
  // b = node 7 (frame 8): c within frames 6..8 -> nodes 7..9; candidates a for c = 7: frames 8..10.
  EXPECT_EQ(L.seg_clo[7], 7);
  EXPECT_EQ(L.seg_cnt[7], 3);
  int first, end;
  detail::candidates(L, s.frame.data(), p, 7, 7, &first, &end);
  EXPECT_EQ(first, 7);
  EXPECT_EQ(end, 11);
}

// The pruned trellis holds exactly the states allowed by the constraints, and each cell's
// candidate range is exactly the set of z_i that keep the hyperedge feasible.
TEST(ActionMatchLayout, CellsAndCandidatesAreTheFeasibleSets) {
  Rng rng(3);
  for (int it = 0; it < 400; ++it) {
    test::GraphSpec spec{static_cast<int>(rng() % 14), 1, static_cast<int>(rng() % 4)};
    const Graph s = test::random_graph(rng, spec, false, static_cast<int>(rng() % 3) - 1);
    const Params p = test::random_params(rng);
    detail::SceneLayout L;
    ASSERT_TRUE(detail::scene_layout(s, p, &L).ok());
    const int S = s.size();
    int64_t cells = 0, evals = 0;
    const int top = p.dummies ? S : S - 1;
    for (int b = 0; b <= top; ++b) {
      for (int c = 0; c <= top; ++c) {
        const int zb = b == S ? kDummy : b, zc = c == S ? kDummy : c;
        if (!test::hyperedge_ok(s, p, kDummy, zb, zc))
          continue;
        ++cells;
        ASSERT_EQ(L.cell_b[L.cell(b, c)], b);
        int first, end;
        detail::candidates(L, s.frame.data(), p, b, c, &first, &end);
        for (int a = 0; a < S; ++a) {
          ASSERT_EQ(a >= first && a < end, test::hyperedge_ok(s, p, a, zb, zc))
              << "it " << it << " state (" << b << ", " << c << ") candidate " << a;
        }
        evals += end - first + (p.dummies ? 1 : 0);
      }
    }
    EXPECT_EQ(L.cells, cells) << "it " << it;
    EXPECT_EQ(L.evaluations, evals) << "it " << it;
    // The CUDA work order: a permutation of the cells, the three-node cells first, each group by
    // non-increasing candidate count (increasing cell among equals), the state (dummy, dummy) last.
    ASSERT_EQ(L.cell_order.size(), static_cast<size_t>(L.cells));
    std::vector<int> seen(L.cells, 0);
    const auto rank = [&](int cell) {
      const int b = L.cell_b[cell], k = cell - L.seg_off[b];
      const int c = k < L.seg_cnt[b] ? L.seg_clo[b] + k : S;
      int first, end;
      detail::candidates(L, s.frame.data(), p, b, c, &first, &end);
      const int group = b < S && c < S ? 0 : b == S && c == S ? 2 : 1;
      return std::make_tuple(group, -(end - first), cell);
    };
    for (int i = 0; i < L.cells; ++i) {
      const int cell = L.cell_order[i];
      ASSERT_TRUE(cell >= 0 && cell < L.cells && !seen[cell]++) << "it " << it;
      if (i > 0) {
        ASSERT_LT(rank(L.cell_order[i - 1]), rank(cell)) << "it " << it << " position " << i;
      }
    }
    if (p.dummies && L.cells > 0) {
      EXPECT_EQ(L.cell_order[L.cells - 1], L.cells - 1) << "it " << it;
    }
  }
}

// The headline check: the trellis optimum equals brute-force enumeration over hundreds of seeded
// problems (M <= 5, S <= 10), with and without pruning (T, causality) and dummies, many of them
// with several optimal assignments (ties broken to the lexicographically first one).
TEST(ActionMatchExact, EqualsBruteForce) {
  Rng rng(4);
  auto mt = cpu_matcher();
  int ties = 0, infeasible = 0, with_dummy = 0;
  const int kProblems = 600;
  for (int it = 0; it < kProblems; ++it) {
    const bool tie_rich = it % 2 == 1;
    test::GraphSpec ms{3 + static_cast<int>(rng() % 3), tie_rich ? 2 : 6, 2};
    test::GraphSpec ss{static_cast<int>(rng() % 11), ms.dim, static_cast<int>(rng() % 3)};
    if (tie_rich) {
      ms.grid = ss.grid = 3;
      ms.levels = ss.levels = 1;
      ss.duplicates = ss.nodes > 0 ? static_cast<int>(rng() % 3) : 0;
      ss.nodes = std::max(0, ss.nodes - ss.duplicates);
    }
    const Model m = test::random_model(rng, ms, "m" + std::to_string(it));
    const Graph scene = test::random_graph(rng, ss, false, static_cast<int>(rng() % 4));
    const Params p = test::random_params(rng);
    int64_t optima = 0;
    const MatchResult want = test::brute_force(m, scene, p, &optima);
    const MatchResult got = match_one(mt.get(), p, m, scene);
    ASSERT_EQ(got, want) << "problem " << it << ": trellis " << test::describe(got)
                         << ", brute force " << test::describe(want) << " (M " << m.graph.size()
                         << ", S " << scene.size() << ", T " << p.T << ", causality "
                         << causality_name(p.causality) << ", dummies " << p.dummies << ")";
    ties += optima > 1;
    infeasible += !want.feasible;
    with_dummy += want.dummies > 0;
  }
  // The generator must exercise what the test claims.
  EXPECT_GT(ties, kProblems / 5) << "ties";
  EXPECT_GT(infeasible, 10);
  EXPECT_GT(with_dummy, kProblems / 10);
  std::printf("%d problems: %d with tied optima, %d infeasible, %d optima using the dummy\n",
              kProblems, ties, infeasible, with_dummy);
}

// Medium sizes against the dense programme over all (S+1)^2 states (no layout, no pruning of the
// state space), several models and scene blocks in one call.
TEST(ActionMatchExact, EqualsDenseProgramme) {
  Rng rng(5);
  auto mt = cpu_matcher(3);
  for (int it = 0; it < 12; ++it) {
    const Params p = test::random_params(rng);
    std::vector<Model> models;
    for (int k = 0; k < 3; ++k) {
      test::GraphSpec ms{3 + static_cast<int>(rng() % 10), 5, 3, it % 3 == 0 ? 4 : 0,
                         it % 3 == 0 ? 2 : 0};
      models.push_back(test::random_model(rng, ms, "m" + std::to_string(k)));
    }
    std::vector<Graph> scenes;
    for (int k = 0; k < 3; ++k) {
      test::GraphSpec ss{
          static_cast<int>(rng() % 36), 5, 2, it % 3 == 0 ? 4 : 0, it % 3 == 0 ? 2 : 0,
          it % 3 == 0 ? 3 : 0};
      scenes.push_back(test::random_graph(rng, ss, false, static_cast<int>(rng() % 4)));
    }
    ASSERT_TRUE(mt->configure(p, models).ok());
    std::vector<MatchResult> got;
    MatchStats st;
    ASSERT_TRUE(mt->match(scenes.data(), 3, &got, &st, nullptr).ok());
    ASSERT_EQ(got.size(), 9u);
    EXPECT_EQ(st.pairs, 9);
    for (int s = 0; s < 3; ++s) {
      for (int m = 0; m < 3; ++m) {
        const MatchResult want = test::dense_dp(models[m], scenes[s], p);
        ASSERT_EQ(got[s * 3 + m], want)
            << "it " << it << " block " << s << " model " << m << ": "
            << test::describe(got[s * 3 + m]) << " vs " << test::describe(want);
      }
    }
  }
}

// The optimum of the fixed-point energy is optimal for the paper's double energy up to the
// rounding bound (2 x terms x 2^-21): no assignment is better by more.
TEST(ActionMatchExact, OptimalForTheDoubleEnergy) {
  Rng rng(6);
  auto mt = cpu_matcher(1);
  for (int it = 0; it < 20; ++it) {
    const Model m = test::random_model(rng, {4, 6, 2}, "m");
    const Graph scene = test::random_graph(rng, {6, 6, 1}, false);
    Params p = test::random_params(rng);
    const MatchResult got = match_one(mt.get(), p, m, scene);
    double best = INFINITY, mine = INFINITY;
    std::vector<int32_t> z(4, 0);
    const int digits = p.dummies ? 7 : 6; // scene nodes 0..5 and (digit 6) the dummy
    for (int code = 0; code < digits * digits * digits * digits; ++code) {
      for (int i = 0, c = code; i < 4; ++i, c /= digits)
        z[i] = c % digits == 6 ? kDummy : c % digits;
      Evaluation e;
      ASSERT_TRUE(evaluate(m, scene, p, z, &e).ok());
      if (!e.feasible)
        continue;
      best = std::min(best, e.energy_double);
      if (z == got.assignment)
        mine = e.energy_double;
    }
    if (!got.feasible) {
      EXPECT_EQ(best, INFINITY);
      continue;
    }
    EXPECT_LE(mine, best + 2 * 8 * std::ldexp(1.0, -21) + 1e-9) << "it " << it;
  }
}

// A model copied into clutter (translated, shifted in time) is found with energy 0 at the paper's
// sizes (30-node model, 60-node scene block, default parameters).
TEST(ActionMatchExact, FindsACopyOfTheModel) {
  Rng rng(7);
  auto mt = cpu_matcher();
  for (int it = 0; it < 5; ++it) {
    const Model m = test::random_model(rng, {30, kPaperDescriptorDim, 2}, "copy");
    const Graph scene = test::scene_with_copy(rng, m, 30, 100 + it, 5.5f * it, -3.f);
    const MatchResult r = match_one(mt.get(), Params(), m, scene);
    ASSERT_TRUE(r.feasible);
    // Translated float positions change the ray directions in their last bits (the float sums
    // are rounded): a few fixed-point units of Dg at most; exactly 0 without translation.
    EXPECT_LE(r.energy_q, it == 0 ? 0 : 30);
    EXPECT_EQ(r.dummies, 0);
    for (int i = 0; i < 30; ++i) {
      ASSERT_NE(r.assignment[i], kDummy);
      EXPECT_EQ(scene.frame[r.assignment[i]], m.graph.frame[i] + 100 + it);
      EXPECT_EQ(scene.x[r.assignment[i]], m.graph.x[i] + 5.5f * it);
    }
  }
}

TEST(ActionMatchExact, EmptySceneAndInfeasibility) {
  Rng rng(8);
  auto mt = cpu_matcher();
  const Model m = test::random_model(rng, {5, 4, 2}, "m");
  Graph empty;
  empty.dim = 4;
  Params p;
  MatchResult r = match_one(mt.get(), p, m, empty);
  ASSERT_TRUE(r.feasible);
  EXPECT_EQ(r.dummies, 5);
  EXPECT_EQ(r.energy_q, 5 * terms::dummy_q(p.lambda1, p.dummy_cost));
  EXPECT_EQ(r.assignment, std::vector<int32_t>(5, kDummy));
  p.dummies = false;
  EXPECT_FALSE(match_one(mt.get(), p, m, empty).feasible);
  // T = 1 puts a hyperedge's scene nodes in one frame: with one node per frame only the same node
  // repeated, which eq. (14) allows and strict causality does not.
  const Graph spread = test::random_graph(rng, {5, 4, 1}, true);
  p.T = 1;
  r = match_one(mt.get(), p, m, spread);
  ASSERT_TRUE(r.feasible);
  EXPECT_EQ(r.assignment, std::vector<int32_t>(5, r.assignment[0]));
  p.causality = Causality::kIncreasing;
  EXPECT_FALSE(match_one(mt.get(), p, m, spread).feasible);
  EXPECT_EQ(distance(MatchResult(), Distance::kEnergy), INFINITY);
}

TEST(ActionMatchExact, ThreadCountDoesNotMatter) {
  Rng rng(9);
  std::vector<Model> models;
  for (int k = 0; k < 7; ++k)
    models.push_back(test::random_model(rng, {12, 16, 2}, "m"));
  std::vector<Graph> scenes;
  for (int k = 0; k < 3; ++k)
    scenes.push_back(test::random_graph(rng, {40, 16, 1, 0, 0, 4}, false));
  std::vector<MatchResult> r1, r4;
  auto a = cpu_matcher(1), b = cpu_matcher(4);
  ASSERT_TRUE(a->configure(Params(), models).ok());
  ASSERT_TRUE(b->configure(Params(), models).ok());
  ASSERT_TRUE(a->match(scenes.data(), 3, &r1, nullptr, nullptr).ok());
  ASSERT_TRUE(b->match(scenes.data(), 3, &r4, nullptr, nullptr).ok());
  EXPECT_EQ(r1, r4);
}

} // namespace
} // namespace cvis::actionmatch

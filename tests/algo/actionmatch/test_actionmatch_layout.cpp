// The scene layout of scene_layout() (built in place, one pass per cell with hoisted rules: the
// host side of a small match() call) field for field against a plain construction from the
// definitions: per-cell candidates(), the angle-table offsets as a prefix sum, the work order as a
// stable sort. Over many seeded scenes and parameters, with one SceneLayout reused across scenes
// of different sizes (as the backends reuse theirs), so that a stale entry would show.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "actionmatch.hpp"
#include "actionmatch_internal.hpp"
#include "actionmatch_layout.hpp"
#include "actionmatch_terms.hpp"
#include "actionmatch_test_util.hpp"

namespace cvis::actionmatch {
namespace {

using test::Rng;

// The layout by the plain rules, independent of scene_layout's loops (a fresh object).
detail::SceneLayout plain_layout(const Graph& g, const Params& p) {
  detail::SceneLayout L;
  const int S = g.size();
  L.S = S;
  L.frame0 = S > 0 ? g.frame[0] : 0;
  L.frames = S > 0 ? g.frame[S - 1] - g.frame[0] + 1 : 0;
  // minnode: the first node at or after each frame (S past the last).
  for (int f = 0; f <= L.frames; ++f) {
    int n = 0;
    while (n < S && g.frame[n] < L.frame0 + f)
      ++n;
    L.minnode.push_back(n);
  }
  const int extra = p.dummies ? 1 : 0;
  L.segments = S + extra;
  for (int b = 0; b < L.segments; ++b) {
    int first = 0, end = S;
    if (b < S) {
      int lo, hi;
      terms::state_frames(g.frame[b], p.T, static_cast<int>(p.causality), &lo, &hi);
      terms::nodes_of_frames(lo, hi, L.minnode.data(), L.frame0, L.frames, S, &first, &end);
    }
    L.seg_off.push_back(L.cells);
    L.seg_clo.push_back(first);
    L.seg_cnt.push_back(end - first);
    L.cells += end - first + extra;
  }
  std::vector<std::tuple<int, int, int>> rank; // (group, -candidates, cell)
  for (int b = 0; b < L.segments; ++b) {
    for (int k = 0; k < L.seg_cnt[b] + extra; ++k) {
      const int cell = L.seg_off[b] + k, c = k < L.seg_cnt[b] ? L.seg_clo[b] + k : S;
      int first, end;
      detail::candidates(L, g.frame.data(), p, b, c, &first, &end);
      L.cell_b.push_back(static_cast<uint16_t>(b));
      L.evaluations += end - first + extra;
      const bool geometry = b < S && c < S;
      L.tri_off.push_back(geometry ? static_cast<int32_t>(L.triples) : 0);
      if (geometry)
        L.triples += end - first;
      rank.emplace_back(geometry ? 0 : b == S && c == S ? 2 : 1, -(end - first), cell);
    }
  }
  std::sort(rank.begin(), rank.end());
  for (const auto& r : rank)
    L.cell_order.push_back(std::get<2>(r));
  int64_t dirs = 0;
  for (int x = 0; x < S; ++x) {
    int first = 0, end = S;
    if (p.T > 0) {
      terms::nodes_of_frames(g.frame[x] - (p.T - 1), g.frame[x] + (p.T - 1), L.minnode.data(),
                             L.frame0, L.frames, S, &first, &end);
    }
    L.win_lo.push_back(first);
    L.win_cnt.push_back(end - first);
    L.dir_off.push_back(dirs);
    dirs += end - first;
  }
  L.dir_off.push_back(dirs);
  return L;
}

void expect_same(const detail::SceneLayout& a, const detail::SceneLayout& b, const std::string& w) {
  EXPECT_EQ(a.S, b.S) << w;
  EXPECT_EQ(a.frame0, b.frame0) << w;
  EXPECT_EQ(a.frames, b.frames) << w;
  EXPECT_EQ(a.minnode, b.minnode) << w;
  EXPECT_EQ(a.segments, b.segments) << w;
  EXPECT_EQ(a.seg_off, b.seg_off) << w;
  EXPECT_EQ(a.seg_clo, b.seg_clo) << w;
  EXPECT_EQ(a.seg_cnt, b.seg_cnt) << w;
  EXPECT_EQ(a.cells, b.cells) << w;
  EXPECT_EQ(a.cell_b, b.cell_b) << w;
  EXPECT_EQ(a.win_lo, b.win_lo) << w;
  EXPECT_EQ(a.win_cnt, b.win_cnt) << w;
  EXPECT_EQ(a.dir_off, b.dir_off) << w;
  EXPECT_EQ(a.evaluations, b.evaluations) << w;
  EXPECT_EQ(a.cell_order, b.cell_order) << w;
  EXPECT_EQ(a.tri_off, b.tri_off) << w;
  EXPECT_EQ(a.triples, b.triples) << w;
}

TEST(ActionMatchLayout, EqualsThePlainConstruction) {
  Rng rng(11);
  detail::SceneLayout reused; // one object for every scene, as the backends keep theirs
  for (int it = 0; it < 600; ++it) {
    Params p = test::random_params(rng);
    Graph g;
    if (it % 3 == 0) {
      // bench_actionmatch's 60-node blocks (random frames in 0..54, sorted), larger T too.
      g.dim = 1;
      std::vector<int32_t> f(60);
      for (int32_t& v : f)
        v = static_cast<int32_t>(rng() % 55);
      std::sort(f.begin(), f.end());
      const float d = 0;
      for (int32_t v : f)
        g.add(v, 0, 0, &d);
      p.T = static_cast<int>(rng() % 16);
    } else {
      test::GraphSpec spec{static_cast<int>(rng() % 40), 1, static_cast<int>(rng() % 4)};
      g = test::random_graph(rng, spec, false, static_cast<int>(rng() % 7) - 3);
    }
    const std::string w = "it " + std::to_string(it) + " S " + std::to_string(g.size()) + " T " +
                          std::to_string(p.T) + " causality " +
                          std::to_string(static_cast<int>(p.causality)) + " dummies " +
                          std::to_string(p.dummies);
    ASSERT_TRUE(detail::scene_layout(g, p, &reused).ok()) << w;
    detail::SceneLayout fresh;
    ASSERT_TRUE(detail::scene_layout(g, p, &fresh).ok()) << w;
    const detail::SceneLayout plain = plain_layout(g, p);
    expect_same(reused, plain, w + " (reused)");
    expect_same(fresh, plain, w + " (fresh)");
    if (::testing::Test::HasFailure())
      return;
  }
}

// prepare_scenes' statistics (now sums kept by prepare()) against the sums over the models.
TEST(ActionMatchLayout, PrepareScenesStatistics) {
  Rng rng(12);
  for (int it = 0; it < 50; ++it) {
    const Params p = test::random_params(rng);
    std::vector<Model> models;
    for (int k = 0; k < 1 + static_cast<int>(rng() % 5); ++k) {
      models.push_back(test::random_model(rng, {3 + static_cast<int>(rng() % 8), 2, 2},
                                          "m" + std::to_string(k)));
    }
    std::vector<Graph> scenes;
    for (int s = 0; s < 1 + static_cast<int>(rng() % 4); ++s)
      scenes.push_back(test::random_graph(rng, {static_cast<int>(rng() % 20), 2, 2}, false));
    detail::Prepared P;
    ASSERT_TRUE(detail::prepare(p, models, &P).ok());
    std::vector<detail::SceneLayout> layouts;
    MatchStats st;
    ASSERT_TRUE(
        detail::prepare_scenes(P, scenes.data(), static_cast<int>(scenes.size()), &layouts, &st)
            .ok());
    MatchStats want;
    for (size_t s = 0; s < scenes.size(); ++s) {
      const detail::SceneLayout L = plain_layout(scenes[s], p);
      for (const Model& m : models) {
        ++want.pairs;
        want.cells += static_cast<int64_t>(m.graph.size() - 2) * L.cells;
        want.evaluations += static_cast<int64_t>(m.graph.size() - 2) * L.evaluations;
      }
    }
    EXPECT_EQ(st.pairs, want.pairs) << "it " << it;
    EXPECT_EQ(st.cells, want.cells) << "it " << it;
    EXPECT_EQ(st.evaluations, want.evaluations) << "it " << it;
  }
}

} // namespace
} // namespace cvis::actionmatch

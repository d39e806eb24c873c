// GPU tests of actionmatch: the CUDA backend returns exactly the CPU backend's results (energy,
// parts, dummies, assignment: the same optimum with ties broken the same way) and the brute-force
// optimum, on seeded problems batched as the backend runs them (many models and scene blocks per
// call), at the paper's sizes, with alpha in shared and in global memory, and on edge cases.
// Skips without a GPU (fails instead with CVIS_REQUIRE_GPU=1).
#include <gtest/gtest.h>

#include <algorithm>

#include "actionmatch.hpp"
#include "actionmatch_layout.hpp"
#include "actionmatch_test_util.hpp"
#include "test_images.hpp"
#include <cuda_runtime_api.h>

namespace cvis::actionmatch {
namespace {

using test::Rng;

struct Pair {
  std::unique_ptr<Matcher> cpu, gpu;
};

Pair matchers() {
  Status s;
  Pair p;
  p.cpu = make_matcher(Backend::kCpu, &s, 0);
  p.gpu = make_matcher(Backend::kCuda, &s, 0, test::gpu_test_options());
  EXPECT_TRUE(s.ok()) << s.to_string();
  return p;
}

// Runs both backends on the same call and compares every result and the statistics. Returns the
// GPU's results.
std::vector<MatchResult> both(Pair& m, const Params& p, const std::vector<Model>& models,
                              const std::vector<Graph>& scenes, const std::string& what) {
  std::vector<MatchResult> rc, rg;
  MatchStats sc, sg;
  Status s = m.cpu->configure(p, models);
  EXPECT_TRUE(s.ok()) << s.to_string();
  s = m.gpu->configure(p, models);
  EXPECT_TRUE(s.ok()) << s.to_string();
  s = m.cpu->match(scenes.data(), static_cast<int>(scenes.size()), &rc, &sc, nullptr);
  EXPECT_TRUE(s.ok()) << s.to_string();
  s = m.gpu->match(scenes.data(), static_cast<int>(scenes.size()), &rg, &sg, nullptr);
  EXPECT_TRUE(s.ok()) << what << ": " << s.to_string();
  EXPECT_EQ(rc.size(), rg.size());
  EXPECT_EQ(sc.cells, sg.cells);
  EXPECT_EQ(sc.evaluations, sg.evaluations);
  for (size_t i = 0; i < std::min(rc.size(), rg.size()); ++i) {
    EXPECT_EQ(rg[i], rc[i]) << what << ": pair " << i << " (block " << i / models.size()
                            << ", model " << i % models.size() << "): gpu " << test::describe(rg[i])
                            << ", cpu " << test::describe(rc[i]);
  }
  return rg;
}

// Small problems (M <= 5, S <= 10), 16 pairs per call, against the CPU and the brute force.
TEST(ActionMatchGpu, SmallProblemsEqualCpuAndBruteForce) {
  CVIS_REQUIRE_GPU();
  Pair m = matchers();
  Rng rng(101);
  int ties = 0;
  const int iterations = cvis::test::sanitizer_run() ? 12 : 60;
  for (int it = 0; it < iterations; ++it) {
    const bool tie_rich = it % 2 == 1;
    const Params p = test::random_params(rng);
    std::vector<Model> models;
    std::vector<Graph> scenes;
    const int dim = tie_rich ? 2 : 6;
    for (int k = 0; k < 4; ++k) {
      test::GraphSpec ms{3 + static_cast<int>(rng() % 3), dim, 2};
      test::GraphSpec ss{static_cast<int>(rng() % 11), dim, static_cast<int>(rng() % 3)};
      if (tie_rich) {
        ms.grid = ss.grid = 3;
        ms.levels = ss.levels = 1;
        ss.duplicates = ss.nodes > 0 ? static_cast<int>(rng() % 3) : 0;
        ss.nodes = std::max(0, ss.nodes - ss.duplicates);
      }
      models.push_back(test::random_model(rng, ms, "m" + std::to_string(k)));
      scenes.push_back(test::random_graph(rng, ss, false, static_cast<int>(rng() % 4)));
    }
    const std::vector<MatchResult> r = both(m, p, models, scenes, "it " + std::to_string(it));
    ASSERT_EQ(r.size(), 16u);
    for (int s = 0; s < 4; ++s) {
      for (int k = 0; k < 4; ++k) {
        int64_t optima = 0;
        const MatchResult want = test::brute_force(models[k], scenes[s], p, &optima);
        ASSERT_EQ(r[s * 4 + k], want) << "it " << it << " block " << s << " model " << k;
        ties += optima > 1;
      }
    }
  }
  EXPECT_GT(ties, 100 * iterations / 60);
}

// The paper's sizes: 50 models of 30 nodes (162-dim descriptors) against a 754-node scene of 723
// frames and against 13 streaming blocks of 60 nodes in 55 frames, default parameters (under
// compute-sanitizer 8 models, a 300-node scene and 6 blocks: the same kernels and cluster sizes;
// under racecheck, which did not finish those in 370 s, nor 2 models with 120 nodes in 470 s:
// 1 model, 60 nodes and 2 blocks).
TEST(ActionMatchGpu, PaperSizesEqualCpu) {
  CVIS_REQUIRE_GPU();
  Pair m = matchers();
  Rng rng(102);
  std::vector<Model> models;
  const bool san = cvis::test::sanitizer_run(), race = cvis::test::sanitizer_tool("racecheck");
  for (int k = 0; k < (san ? 8 : 50); ++k) {
    models.push_back(test::random_model(rng, {30, kPaperDescriptorDim, 2, 0, 8}, "m"));
  }
  // The whole scene holds a copy of model 7 and block 5 one of model 3 (racecheck: model 7 only,
  // in both).
  const int whole_model = race ? 0 : 7, block_model = race ? 0 : 3, copy_block = race ? 1 : 5;
  if (race)
    models = {models[7]};
  const int nmodels = static_cast<int>(models.size()), nblocks = race ? 2 : san ? 6 : 13;
  const int whole_nodes = race ? 60 : san ? 300 : 754;
  const Graph whole =
      test::scene_with_copy(rng, models[whole_model], whole_nodes - 30, 40, 3.f, 1.f);
  both(m, Params(), models, {whole}, std::to_string(whole_nodes) + " nodes");
  std::vector<Graph> blocks;
  for (int b = 0; b < nblocks; ++b) {
    blocks.push_back(test::random_graph(rng, {60, kPaperDescriptorDim, 2, 0, 8, 0}, false, 55 * b));
  }
  blocks[copy_block] = test::scene_with_copy(rng, models[block_model], 30, 300, 0.f, 0.f);
  const auto r = both(m, Params(), models, blocks, "60-node blocks");
  ASSERT_EQ(r.size(), static_cast<size_t>(nblocks * nmodels));
  EXPECT_EQ(r[copy_block * nmodels + block_model].energy_q, 0); // the copy, found exactly
}

// A scene whose trellis rows do not fit in shared memory (global-memory alpha), and dense
// problems without pruning (T = 0, no causality: S^2 states per row, S candidates per cell).
TEST(ActionMatchGpu, LargeRowsAndNoPruning) {
  CVIS_REQUIRE_GPU();
  Pair m = matchers();
  Rng rng(103);
  std::vector<Model> models;
  // Under racecheck one model and smaller dense scenes (the whole test did not finish in 370 s).
  const bool race = cvis::test::sanitizer_tool("racecheck");
  for (int k = 0; k < 3; ++k)
    models.push_back(test::random_model(rng, {8, 16, 2}, "m"));
  if (race)
    models.resize(1);
  // 3000 nodes, about 3 per frame: ~31 states per node, 93k cells per row (1.5 MB of alpha); under
  // compute-sanitizer 700 nodes (about 22k cells, still past shared memory).
  const int nodes = cvis::test::sanitizer_run() ? 700 : 3000;
  const Graph big = test::random_graph(rng, {nodes, 16, 1, 0, 0, nodes * 2 / 3}, false);
  both(m, Params(), models, {big}, std::to_string(nodes) + " nodes");
  Params dense;
  dense.T = 0;
  dense.causality = Causality::kNone;
  std::vector<Graph> scenes;
  for (int k = 0; k < 3; ++k)
    scenes.push_back(test::random_graph(rng, {race ? 12 + 6 * k : 30 + 35 * k, 16, 1}, false));
  both(m, dense, models, scenes, "no pruning");
  dense.dummies = false;
  dense.causality = Causality::kIncreasing;
  both(m, dense, models, scenes, "no closeness, strict causality, no dummies");
}

// The trellis without the angle table (the path of calls whose table would pass
// CudaOptions::max_angle_entries, here 0): the same results, on small tie-rich problems and on
// 60-node blocks.
TEST(ActionMatchGpu, WithoutAngleTableEqualCpu) {
  CVIS_REQUIRE_GPU();
  Pair m = matchers();
  CudaOptions no_table = test::gpu_test_options();
  no_table.max_angle_entries = 0;
  Status st;
  m.gpu = make_matcher(Backend::kCuda, &st, 0, no_table);
  ASSERT_TRUE(st.ok()) << st.to_string();
  Rng rng(105);
  for (int it = 0; it < (cvis::test::sanitizer_tool("racecheck") ? 2 : 6); ++it) {
    const Params p = test::random_params(rng);
    std::vector<Model> models;
    std::vector<Graph> scenes;
    for (int k = 0; k < 3; ++k) {
      test::GraphSpec ms{3 + static_cast<int>(rng() % 3), 2, 2};
      test::GraphSpec ss{static_cast<int>(rng() % 11), 2, static_cast<int>(rng() % 3)};
      ms.grid = ss.grid = 3;
      ms.levels = ss.levels = 1;
      models.push_back(test::random_model(rng, ms, "m" + std::to_string(k)));
      scenes.push_back(test::random_graph(rng, ss, false, static_cast<int>(rng() % 4)));
    }
    const std::vector<MatchResult> r = both(m, p, models, scenes, "it " + std::to_string(it));
    for (int s = 0; s < 3; ++s) {
      for (int k = 0; k < 3; ++k) {
        int64_t optima = 0;
        ASSERT_EQ(r[s * 3 + k], test::brute_force(models[k], scenes[s], p, &optima))
            << "it " << it << " block " << s << " model " << k;
      }
    }
  }
  // Under racecheck one model against one block (4 x 3 did not finish in 370 s).
  const bool race = cvis::test::sanitizer_tool("racecheck");
  std::vector<Model> models;
  for (int k = 0; k < (race ? 1 : 4); ++k)
    models.push_back(test::random_model(rng, {30, kPaperDescriptorDim, 2, 0, 8}, "m"));
  std::vector<Graph> blocks;
  for (int b = 0; b < (race ? 1 : 3); ++b)
    blocks.push_back(test::random_graph(rng, {60, kPaperDescriptorDim, 2, 0, 8, 0}, false, 55 * b));
  both(m, Params(), models, blocks, "60-node blocks");
}

// The most cells of one trellis row over the blocks (the layouts' count, which the CUDA backend
// uses to choose the blocks per pair).
detail::SceneLayout layout_of(const Graph& g, const Params& p) {
  detail::SceneLayout L;
  EXPECT_TRUE(detail::scene_layout(g, p, &L).ok());
  return L;
}

int max_row_cells(const std::vector<Graph>& blocks, const Params& p) {
  int most = 0;
  for (const Graph& g : blocks)
    most = std::max(most, static_cast<int>(layout_of(g, p).cells));
  return most;
}

// The folded trellis (README.md, "Folded trellis and settle tests"): equal to the CPU on small
// tie-rich problems (random W_d from 0, so that the dummy ties and wins, and every causality and T)
// and on 60-node blocks with a cheap dummy (most cells settled by the per-b minima) and a dear one
// (few); the statistics say which kernel ran. One block per pair where the largest row fits one
// block; rows of more cells than a block's threads (several rounds) on a block that still fits
// shared memory, in clusters where the device launches them.
TEST(ActionMatchGpu, FoldedTrellisEqualCpu) {
  CVIS_REQUIRE_GPU();
  Pair m = matchers();
  int major = 0, clusters = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  if (cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, 0) != cudaSuccess)
    clusters = 0;
  cudaGetLastError();
  const bool race = cvis::test::sanitizer_tool("racecheck");
  Rng rng(107);
  for (int it = 0; it < (race ? 2 : cvis::test::sanitizer_run() ? 6 : 20); ++it) {
    const Params p = test::random_params(rng);
    std::vector<Model> models;
    std::vector<Graph> scenes;
    for (int k = 0; k < 3; ++k) {
      test::GraphSpec ms{3 + static_cast<int>(rng() % 4), 2, 2};
      test::GraphSpec ss{static_cast<int>(rng() % 12), 2, static_cast<int>(rng() % 3)};
      ms.grid = ss.grid = 3;
      ms.levels = ss.levels = 1;
      models.push_back(test::random_model(rng, ms, "m" + std::to_string(k)));
      scenes.push_back(test::random_graph(rng, ss, false, static_cast<int>(rng() % 4)));
    }
    const std::vector<MatchResult> r = both(m, p, models, scenes, "it " + std::to_string(it));
    for (int s = 0; s < 3; ++s) {
      for (int k = 0; k < 3; ++k) {
        int64_t optima = 0;
        ASSERT_EQ(r[s * 3 + k], test::brute_force(models[k], scenes[s], p, &optima))
            << "it " << it << " block " << s << " model " << k;
      }
    }
  }
  std::vector<Model> models;
  for (int k = 0; k < (race ? 1 : 4); ++k)
    models.push_back(test::random_model(rng, {30, kPaperDescriptorDim, 2, 0, 8}, "m"));
  std::vector<Graph> blocks;
  for (int b = 0; b < (race ? 1 : 2); ++b)
    blocks.push_back(test::random_graph(rng, {60, kPaperDescriptorDim, 2, 0, 8, 0}, false, 55 * b));
  // A block that shows model 0 (a copy among 30 random nodes): its pair's optimum is made of
  // real nodes, so its cells do not all settle, and the frame-gap settle test meets real
  // candidates near the optimum.
  if (!race)
    blocks.push_back(test::scene_with_copy(rng, models[0], 30, 3, 1.5f, -1.0f));
  // Exact ties at this size (positions on a 4 x 4 grid, duplicated nodes), with one lane per
  // cell (more than 512 cells: the solo kernel's frame-gap settle test and wide groups at work):
  // the first draw no larger than the random blocks (so that the folded trellis still fits
  // shared memory).
  if (!race) {
    const detail::SceneLayout L0 = layout_of(blocks[0], Params()),
                              L1 = layout_of(blocks[1], Params());
    bool drawn = false;
    for (int k = 0; k < 100 && !drawn; ++k) {
      const Graph g = test::random_graph(rng, {44, kPaperDescriptorDim, 2, 4, 4, 4}, false, 10);
      const detail::SceneLayout L = layout_of(g, Params());
      drawn = L.cells > 512 && L.cells <= std::max(L0.cells, L1.cells) &&
              L.triples <= std::max(L0.triples, L1.triples);
      if (drawn)
        blocks.push_back(g);
    }
    ASSERT_TRUE(drawn);
  }
  for (double w : {0.2, 1.0, 10.0}) {
    Params p;
    p.dummy_cost = w;
    std::vector<MatchResult> rc, rg;
    MatchStats sg;
    ASSERT_TRUE(m.cpu->configure(p, models).ok());
    ASSERT_TRUE(m.gpu->configure(p, models).ok());
    ASSERT_TRUE(
        m.cpu->match(blocks.data(), static_cast<int>(blocks.size()), &rc, nullptr, nullptr).ok());
    ASSERT_TRUE(
        m.gpu->match(blocks.data(), static_cast<int>(blocks.size()), &rg, &sg, nullptr).ok());
    EXPECT_EQ(sg.folded, 1) << "W_d " << w;
    // One block per pair when the largest row fits one block's threads.
    if (max_row_cells(blocks, p) <= 1024) {
      EXPECT_EQ(sg.blocks_per_pair, 1) << "W_d " << w;
    }
    ASSERT_EQ(rc.size(), rg.size());
    if (!race) {
      EXPECT_LT(rc[(blocks.size() - 2) * models.size()].dummies, 15) << "W_d " << w;
    }
    for (size_t i = 0; i < rc.size(); ++i) {
      EXPECT_EQ(rg[i], rc[i]) << "W_d " << w << " pair " << i << ": gpu " << test::describe(rg[i])
                              << ", cpu " << test::describe(rc[i]);
    }
  }
  // Rows of more than 1024 cells on small models (8 nodes, 16 values): a sparse 250-node block
  // (about 3 frames per node), whose tables still fit shared memory, so the folded trellis runs
  // several rounds per row, in clusters of several blocks on devices that launch them.
  models.clear();
  for (int k = 0; k < (race ? 1 : 3); ++k)
    models.push_back(test::random_model(rng, {8, 16, 2, 0, 4}, "s"));
  const Graph sparse = test::random_graph(rng, {250, 16, 6, 0, 4, 0}, false);
  const std::vector<Graph> one{sparse};
  ASSERT_GT(max_row_cells(one, Params()), 1024);
  for (double w : {0.2, 1.0, 10.0}) {
    Params p;
    p.dummy_cost = w;
    std::vector<MatchResult> rc, rg;
    MatchStats sg;
    ASSERT_TRUE(m.cpu->configure(p, models).ok());
    ASSERT_TRUE(m.gpu->configure(p, models).ok());
    ASSERT_TRUE(m.cpu->match(one.data(), 1, &rc, nullptr, nullptr).ok());
    ASSERT_TRUE(m.gpu->match(one.data(), 1, &rg, &sg, nullptr).ok());
    EXPECT_EQ(sg.folded, 1) << "250 nodes, W_d " << w;
    if (major >= 9 && clusters) {
      EXPECT_GT(sg.blocks_per_pair, 1) << "250 nodes, W_d " << w;
    }
    ASSERT_EQ(rc.size(), rg.size());
    for (size_t i = 0; i < rc.size(); ++i) {
      EXPECT_EQ(rg[i], rc[i]) << "250 nodes, W_d " << w << " model " << i << ": gpu "
                              << test::describe(rg[i]) << ", cpu " << test::describe(rc[i]);
    }
  }
}

// Empty blocks, infeasible pairs, models of several lengths, reconfiguration between calls.
TEST(ActionMatchGpu, EdgeCasesAndReconfiguration) {
  CVIS_REQUIRE_GPU();
  Pair m = matchers();
  Rng rng(104);
  std::vector<Model> models;
  for (int k = 0; k < 5; ++k)
    models.push_back(test::random_model(rng, {3 + 7 * k, 8, 3}, "m"));
  std::vector<Graph> scenes;
  Graph empty;
  empty.dim = 8;
  scenes.push_back(empty);
  scenes.push_back(test::random_graph(rng, {5, 8, 1}, true)); // one node per frame
  scenes.push_back(test::random_graph(rng, {50, 8, 1, 0, 0, 10}, false, 1000));
  scenes.push_back(empty);
  Params p;
  both(m, p, models, scenes, "dummies");
  p.dummies = false;
  p.T = 3;
  const auto r = both(m, p, models, scenes, "no dummies");
  EXPECT_FALSE(r[0].feasible);
  // A different dictionary (dimension, parameters) on the same matchers.
  std::vector<Model> other;
  for (int k = 0; k < 2; ++k)
    other.push_back(test::random_model(rng, {6, 3, 1}, "o"));
  Params q = test::random_params(rng);
  both(m, q, other, {test::random_graph(rng, {12, 3, 1}, false)}, "reconfigured");
  // A dimension mismatch is refused by both.
  std::vector<MatchResult> out;
  EXPECT_FALSE(m.gpu->match(scenes.data(), 1, &out, nullptr, nullptr).ok());
}

} // namespace
} // namespace cvis::actionmatch

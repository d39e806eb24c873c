// GPU tests of actionmatch's trellis row shapes: the CUDA backend returns exactly the CPU
// backend's results (energy, parts, dummies, assignment) for scene blocks whose rows take every
// mapping of lanes to cells the trellis kernel has (cuda/actionmatch/README.md, "Work order and
// lane groups"): many lanes per cell (G = 32), fewer (G = 16 .. 1), the wide groups that give a
// one-round row's largest cells 2G lanes, and rows of several rounds; on tie-rich problems
// (coarse descriptors, duplicated nodes, points on a small grid), so that a lane or group that
// kept a later minimum than the first would show. The CPU backend is the reference (it equals the
// brute force and a dense programme in the cpu suite). Skips without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "actionmatch.hpp"
#include "actionmatch_test_util.hpp"
#include "test_images.hpp"

namespace cvis::actionmatch {
namespace {

using test::Rng;

// Scene sizes from a few cells per row (G = 32) to more cells than a block has threads (several
// rounds without clusters); random parameters (causality, T, dummies, weights) per size.
TEST(ActionMatchGpuRows, RowShapesEqualCpu) {
  CVIS_REQUIRE_GPU();
  Status s;
  auto cpu = make_matcher(Backend::kCpu, &s, 0);
  ASSERT_TRUE(s.ok()) << s.to_string();
  auto gpu = make_matcher(Backend::kCuda, &s, 0, test::gpu_test_options());
  ASSERT_TRUE(s.ok()) << s.to_string();
  Rng rng(1019);
  const std::vector<int> sizes = cvis::test::sanitizer_run()
                                     ? std::vector<int>{6, 14, 24, 40, 60}
                                     : std::vector<int>{4, 8, 14, 20, 28, 40, 60, 80, 120};
  int checked = 0, feasible = 0;
  for (const int S : sizes) {
    for (int rep = 0; rep < 2; ++rep) {
      Params p = test::random_params(rng);
      // T from the generator is 0..4; larger windows make the cells of bigger scenes have many
      // candidates (long lane loops), as the paper's T = 10 does.
      if (p.T > 0 && rep == 1)
        p.T = 6 + static_cast<int>(rng() % 5);
      // Without a window the rows grow as S^2 cells of S candidates: the CPU reference's time.
      if (p.T == 0 && S > 40)
        p.T = 8;
      std::vector<Model> models;
      const int nm = 3 + static_cast<int>(rng() % 3);
      for (int k = 0; k < nm; ++k) {
        const int M = 4 + static_cast<int>(rng() % 7);
        models.push_back(test::random_model(rng, {M, 6, 2, 5, 2, 0}, "m" + std::to_string(k)));
      }
      std::vector<Graph> scenes;
      for (int b = 0; b < 3; ++b) {
        const int dup = static_cast<int>(rng() % 4);
        scenes.push_back(test::random_graph(rng, {S, 6, 1, 5, 2, dup}, false, 17 * b));
      }
      // One block holding a copy of a model among clutter: a non-trivial optimum.
      scenes.push_back(test::scene_with_copy(rng, models[0], S, 3, 1.f, 0.f));
      s = cpu->configure(p, models);
      ASSERT_TRUE(s.ok()) << s.to_string();
      s = gpu->configure(p, models);
      ASSERT_TRUE(s.ok()) << s.to_string();
      std::vector<MatchResult> rc, rg;
      MatchStats sc, sg;
      s = cpu->match(scenes.data(), static_cast<int>(scenes.size()), &rc, &sc, nullptr);
      ASSERT_TRUE(s.ok()) << s.to_string();
      s = gpu->match(scenes.data(), static_cast<int>(scenes.size()), &rg, &sg, nullptr);
      ASSERT_TRUE(s.ok()) << "S " << S << ": " << s.to_string();
      ASSERT_EQ(rc.size(), rg.size());
      EXPECT_EQ(sc.cells, sg.cells);
      for (size_t i = 0; i < rc.size(); ++i) {
        EXPECT_EQ(rg[i], rc[i]) << "S " << S << " rep " << rep << " T " << p.T << ": pair " << i
                                << " (block " << i / models.size() << ", model "
                                << i % models.size() << "): gpu " << test::describe(rg[i])
                                << ", cpu " << test::describe(rc[i]);
        ++checked;
        feasible += rc[i].feasible;
      }
    }
  }
  // Not only infeasible problems (which would compare nothing but the flags).
  EXPECT_GT(feasible, checked / 4) << feasible << " of " << checked << " pairs feasible";
}

} // namespace
} // namespace cvis::actionmatch

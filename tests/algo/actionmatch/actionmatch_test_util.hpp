// Seeded problem generators and independent oracles for the actionmatch tests and benchmark:
// brute-force enumeration of every assignment and a dense dynamic programme over all (S+1)^2
// states, both written from the definitions (README.md) without the library's trellis layout.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "actionmatch.hpp"

namespace cvis::actionmatch::test {

using Rng = std::mt19937_64;

// Generator settings for one graph.
struct GraphSpec {
  int nodes = 10;
  int dim = 8;
  int max_gap = 2;    // frame gap between consecutive nodes: 0..max_gap (scenes), 1.. (models)
  int grid = 0;       // > 0: positions on a grid x, y in 0..grid-1 (collinear/coincident points)
  int levels = 0;     // > 0: descriptor values in {0, 1/levels, ..., 1}, else uniform [0, 1)
  int duplicates = 0; // scenes: this many extra copies of random nodes (exact ties)
};

Graph random_graph(Rng& rng, const GraphSpec& spec, bool model, int first_frame = 0);
Model random_model(Rng& rng, const GraphSpec& spec, const std::string& label);

// A scene holding a copy of `m` (frames shifted by `shift`, positions moved by (dx, dy)) among
// `clutter` random nodes of the same frame range; node order sorted by frame (stable).
Graph scene_with_copy(Rng& rng, const Model& m, int clutter, int shift, float dx, float dy);

// Random parameters: every combination of causality (3), dummies, T (0 = none, 1..4) occurs;
// weights sometimes 0 (more ties), W_d around typical descriptor distances.
Params random_params(Rng& rng);

// The feasibility of one hyperedge (z_r, z_{r-1}, z_{r-2}) by the definition: the frames of its
// scene-node members (kDummy excluded) do not decrease (kNonDecreasing) or increase
// (kIncreasing) along the chain, and span fewer than T frames.
bool hyperedge_ok(const Graph& scene, const Params& p, int a, int b, int c);

// Exact optimum by enumerating all (S+1)^M (or S^M without dummies) assignments in lexicographic
// order (dummy after every scene node), keeping the first minimum. Terms from the library's term
// functions (actionmatch_terms.hpp), tabulated first. M <= 6 and S <= 12 (checked). `optima`
// (may be null) receives the number of optimal assignments (> 1: a tie was broken).
MatchResult brute_force(const Model& m, const Graph& scene, const Params& p,
                        int64_t* optima = nullptr);

// The same optimum by a dense dynamic programme over all states (b, c) in 0..S (no pruning of the
// state space, feasibility by hyperedge_ok): O(M S^3), for medium sizes.
MatchResult dense_dp(const Model& m, const Graph& scene, const Params& p);

// The CUDA backend's options for the gpu tests: the defaults, except under compute-sanitizer's
// racecheck (CVIS_SANITIZER_TOOL=racecheck, set by scripts/gpu/run.sh), whose cost grows with the
// blocks of a thread-block cluster: there at most 2 blocks per pair (the cluster code is the same
// for every cluster size; 8 blocks did not finish in 470 s).
CudaOptions gpu_test_options();

// "feasible E=123 (app 100 + dist 23) dummies 1 z=[3 4 - 7]" for failure messages.
std::string describe(const MatchResult& r);

} // namespace cvis::actionmatch::test

// Internal declarations shared by the library's sources (not installed, not for element code).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "actionmatch.hpp"
#include "actionmatch_layout.hpp"

namespace cvis::actionmatch::detail {

std::unique_ptr<Matcher> make_cpu_matcher(int threads);
#if defined(CVIS_HAVE_CUDA)
std::unique_ptr<Matcher> make_cuda_matcher(const CudaOptions& options);
#endif

// What configure() keeps: the parameters and the models with their rows.
struct Prepared {
  Params params;
  int dim = 0;
  std::vector<Model> models;
  std::vector<ModelRows> rows;
  // Per-call sums over the models, kept so that match() need not walk them for every block: the
  // largest model and the sum of (nodes - 2), the trellis rows of one block's pairs.
  int max_nodes = 0;
  int64_t model_rows = 0;
};
Status prepare(const Params& p, const std::vector<Model>& models, Prepared* out);

// The scene blocks of a match() call, validated, with their layouts and the call's statistics.
// Errors: kInvalidArgument (no models, bad scene, dimension mismatch, a trellis over the limit).
inline constexpr int64_t kMaxTrellisCells = int64_t{1} << 28; // per (block, model) pair
Status prepare_scenes(const Prepared& P, const Graph* scenes, int count,
                      std::vector<SceneLayout>* layouts, MatchStats* stats);

// "block 3: " when there are several blocks.
std::string block_prefix(int block, int count);

} // namespace cvis::actionmatch::detail

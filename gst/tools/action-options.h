/* cvis-action train and eval: their options (every option takes a value, --name VALUE or
 * --name=VALUE, except --verbose). */
#pragma once

#include <string>
#include <vector>

#include "actionlearn_models.hpp"
#include "common/backend.hpp"

namespace cvis::action_tool {

struct Options {
  std::vector<std::string> positional;
  std::string output, cache, distances;
  std::string clip_list; // eval: clips named in a file, distances from --distances (no decoding)
  std::string test, test_cache, test_distances; // eval --test: another dataset, its caches
  Backend backend = Backend::kAuto;
  actionmatch::Distance distance = actionmatch::Distance::kAppearance;
  int threads = 0;
  bool verbose = false;
  bool block_min = false; // clip distance: the best block (min) or the mean over blocks
  bool knn = false;       // eval: k-nearest class mean over all training candidates
  int knn_k = 0;          // its k; 0 = chosen per fold on the training subjects
  bool ridge = false;     // eval: ridge regression over the distances to all training candidates
  double ridge_alpha = 0; // its strength; 0 = chosen per fold on the training subjects
  // its features: the mean distance to each class's candidates (class-mean), or the distance to
  // every candidate (distance); with ridge_features_auto (the default, `auto`) chosen per fold by
  // leave-one-subject-out on the training subjects (choose_ridge_features)
  actionlearn::RidgeFeatures ridge_features = actionlearn::RidgeFeatures::kClassMean;
  bool ridge_features_auto = true;
  int hold_out = -1; // train: the subject left out (its clips and candidates); -1: none
  stip::FrontEndParams fp;
  actionlearn::LearnParams lp;
  actionmatch::Params mp;
};

// Parses train's (train = true) or eval's options into *o; false with *err set (or empty when a
// parameter is out of the library's range).
bool parse_options(int argc, char** argv, bool train, Options* o, std::string* err);

} // namespace cvis::action_tool

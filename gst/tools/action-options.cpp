/* cvis-action train and eval: option parsing. */
#include "action-options.h"

#include <cstdlib>

#include "stip.hpp"

namespace cvis::action_tool {

using namespace actionmatch;
using namespace stip;

namespace {

bool parse_number(const std::string& s, double lo, double hi, double* out) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end || !(v >= lo && v <= hi))
    return false;
  *out = v;
  return true;
}

} // namespace

bool parse_options(int argc, char** argv, bool train, Options* o, std::string* err) {
  o->mp.dummy_cost = 0.6;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i], value;
    if (s.rfind("-", 0) != 0 || s == "-") {
      o->positional.push_back(s);
      continue;
    }
    if (s == "--verbose") {
      o->verbose = true;
      continue;
    }
    const size_t eq = s.find('=');
    if (eq != std::string::npos) {
      value = s.substr(eq + 1);
      s = s.substr(0, eq);
    } else {
      if (i + 1 >= argc) {
        *err = "option " + s + " needs a value";
        return false;
      }
      value = argv[++i];
    }
    double v = 0;
    auto num = [&](double lo, double hi) {
      if (parse_number(value, lo, hi, &v))
        return true;
      *err = "option " + s + ": '" + value + "' is not a number in " + std::to_string(lo) + ".." +
             std::to_string(hi);
      return false;
    };
    if ((s == "-o" || s == "--output") && train) {
      o->output = value;
    } else if (s == "--cache") {
      o->cache = value;
    } else if (s == "--backend") {
      if (!parse_backend(value, &o->backend)) {
        *err = "--backend: auto, cpu or cuda";
        return false;
      }
    } else if (s == "--distance") {
      if (!parse_distance(value, &o->distance)) {
        *err = "--distance: energy or appearance";
        return false;
      }
    } else if (s == "--threads") {
      if (!num(0, 256))
        return false;
      o->threads = static_cast<int>(v);
    } else if (s == "--sigma") {
      if (!num(0.5, 8))
        return false;
      o->fp.sigma = v;
    } else if (s == "--tau") {
      if (!num(0.5, 8))
        return false;
      o->fp.tau = v;
    } else if (s == "--threshold") {
      if (!num(0, 1e6))
        return false;
      o->fp.threshold = v;
    } else if (s == "--max-points") {
      if (!num(1, 64))
        return false;
      o->fp.max_points = static_cast<int>(v);
    } else if (s == "--cell-size") {
      if (!num(2, 64))
        return false;
      o->fp.cell_size = v;
    } else if (s == "--cell-frames") {
      if (!num(1, 16))
        return false;
      o->fp.cell_frames = static_cast<int>(v);
    } else if (s == "--flow-histogram") {
      if (!parse_flow_histogram(value, &o->fp.flow_histogram)) {
        *err = "--flow-histogram: paper or speed";
        return false;
      }
    } else if (s == "--speed-split") {
      if (!num(kMinSpeedSplit, kMaxSpeedSplit))
        return false;
      o->fp.speed_split = v;
    } else if (s == "--detector") {
      if (!parse_detector(value, &o->fp.detector)) {
        *err = "--detector: periodic or harris";
        return false;
      }
    } else if (s == "--harris-k") {
      if (!num(0, 0.1))
        return false;
      o->fp.harris_k = v;
    } else if (s == "--harris-scale") {
      if (!num(1, 4))
        return false;
      o->fp.harris_scale = v;
    } else if (s == "--model-frames") {
      if (!num(3, 200))
        return false;
      o->lp.model_frames = static_cast<int>(v);
    } else if (s == "--windows") {
      if (!num(1, 16))
        return false;
      o->lp.windows_per_clip = static_cast<int>(v);
    } else if (s == "--block-frames") {
      if (!num(10, 10000))
        return false;
      o->lp.block_frames = static_cast<int>(v);
    } else if (s == "--overlap") {
      if (!num(0, 9999))
        return false;
      o->lp.block_step = std::max(1, o->lp.block_frames - static_cast<int>(v));
    } else if (s == "--prototypes") {
      if (!num(1, 1000))
        return false;
      o->lp.prototypes_per_class = static_cast<int>(v);
    } else if (s == "--aggregate") {
      if (value != "mean" && value != "min") {
        *err = "--aggregate: mean or min";
        return false;
      }
      o->block_min = value == "min";
    } else if (s == "--distances") {
      o->distances = value;
    } else if (s == "--classifier") {
      if (value != "prototypes" && value != "knn" && value != "ridge") {
        *err = "--classifier: prototypes, knn or ridge";
        return false;
      }
      if (train && value == "knn") {
        *err = "--classifier knn is for eval only (a dictionary holds prototypes or ridge)";
        return false;
      }
      o->knn = value == "knn";
      o->ridge = value == "ridge";
    } else if (s == "--knn") {
      if (!num(0, 1000))
        return false;
      o->knn_k = static_cast<int>(v);
    } else if (s == "--ridge") {
      if (!num(0, 1e6))
        return false;
      o->ridge_alpha = v;
    } else if (s == "--ridge-features") {
      if (value != "auto" && value != "class-mean" && value != "distance") {
        *err = "--ridge-features: auto, class-mean or distance";
        return false;
      }
      o->ridge_features_auto = value == "auto";
      o->ridge_features = value == "class-mean" ? actionlearn::RidgeFeatures::kClassMean
                                                : actionlearn::RidgeFeatures::kDistance;
    } else if (s == "--hold-out" && train) {
      if (!num(0, 99))
        return false;
      o->hold_out = static_cast<int>(v);
    } else if (s == "--test" && !train) {
      o->test = value;
    } else if (s == "--test-cache" && !train) {
      o->test_cache = value;
    } else if (s == "--test-distances" && !train) {
      o->test_distances = value;
    } else if (s == "--clip-list" && !train) {
      o->clip_list = value;
    } else if (s == "--dummy-cost") {
      if (!num(0, 1e6))
        return false;
      o->mp.dummy_cost = v;
    } else if (s == "--lambda2") {
      if (!num(0, 100))
        return false;
      o->mp.lambda2 = v;
    } else if (s == "--T") {
      if (!num(0, 1 << 20))
        return false;
      o->mp.T = static_cast<int>(v);
    } else {
      *err = "unknown option " + s;
      return false;
    }
  }
  if (!o->test.empty() && !o->clip_list.empty()) {
    *err = "--test needs the training clips (not --clip-list)";
    return false;
  }
  if (!o->clip_list.empty()) {
    if (!o->positional.empty()) {
      *err = "--clip-list replaces the dataset folder";
      return false;
    }
    if (o->distances.empty()) {
      *err = "--clip-list needs --distances (a table computed from the clips)";
      return false;
    }
  } else if (o->positional.size() != 1) {
    *err = "expected one dataset folder";
    return false;
  }
  if (train && o->output.empty()) {
    *err = "train needs -o DICT";
    return false;
  }
  if (train && o->ridge && o->block_min) {
    *err = "--classifier ridge: the element averages its blocks' distances (--aggregate mean)";
    return false;
  }
  return validate(o->fp).ok() && validate(o->mp).ok();
}

} // namespace cvis::action_tool

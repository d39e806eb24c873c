/* cvis-action train and eval: clips -> points -> candidate models and scene blocks -> the distance
 * of every clip to every candidate (the exact matcher) -> prototype selection and the
 * nearest-prototype classifier; eval does it leave-one-subject-out. */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "action-commands.h"
#include "action-dataset.h"
#include "actionlearn.hpp"
#include "actionlearn_models.hpp"
#include "actionlearn_ridge.hpp"

namespace cvis::action_tool {

namespace {

using namespace actionmatch;
using namespace actionlearn;
using namespace stip;

int fail(const std::string& why) {
  std::fprintf(stderr, "cvis-action: %s\n", why.c_str());
  return kExitFailure;
}

int usage(const std::string& why) {
  std::fprintf(stderr, "cvis-action: %s; try --help\n", why.c_str());
  return kExitUsage;
}

struct Options {
  std::vector<std::string> positional;
  std::string output, cache, distances;
  std::string clip_list; // eval: clips named in a file, distances from --distances (no decoding)
  Backend backend = Backend::kAuto;
  Distance distance = Distance::kAppearance;
  int threads = 0;
  bool verbose = false;
  bool block_min = false; // clip distance: the best block (min) or the mean over blocks
  bool knn = false;       // eval: k-nearest class mean over all training candidates
  int knn_k = 0;          // its k; 0 = chosen per fold on the training subjects
  bool ridge = false;     // eval: ridge regression over the distances to all training candidates
  double ridge_alpha = 0; // its strength; 0 = chosen per fold on the training subjects
  FrontEndParams fp;
  LearnParams lp;
  Params mp;
};

bool parse_number(const std::string& s, double lo, double hi, double* out) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end || !(v >= lo && v <= hi))
    return false;
  *out = v;
  return true;
}

// Every option takes a value (--name VALUE or --name=VALUE) except --verbose.
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
      if (train && value != "prototypes") {
        *err = "--classifier " + value +
               " is for eval only (dictionaries and the element use the nearest prototype)";
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
  return validate(o->fp).ok() && validate(o->mp).ok();
}

// Everything both commands compute: points, candidates, blocks and the clip x candidate distances.
struct Work {
  std::vector<ClipFile> files;
  std::vector<std::string> classes;
  std::vector<ClipPoints> clips;
  std::vector<int> clip_class, clip_subject;
  std::vector<Model> cands;
  std::vector<int> cand_class, cand_subject, cand_clip; // cands may be empty (--clip-list)
  std::vector<std::vector<double>> dist;                // [clip][candidate]
  size_t num_clips() const { return clip_class.size(); }
  size_t num_cands() const { return cand_class.size(); }
};

// The clips (rows) and candidates of every subject but `held_out` (-1: all): a fold's training set.
void fold_rows(const Work& w, int held_out, std::vector<int>* rows, std::vector<int>* cands) {
  rows->clear();
  cands->clear();
  for (size_t i = 0; i < w.num_clips(); ++i)
    if (w.clip_subject[i] != held_out)
      rows->push_back(static_cast<int>(i));
  for (size_t k = 0; k < w.num_cands(); ++k)
    if (w.cand_subject[k] != held_out)
      cands->push_back(static_cast<int>(k));
}

int class_index(const std::vector<std::string>& classes, const std::string& label) {
  return static_cast<int>(std::find(classes.begin(), classes.end(), label) - classes.begin());
}

// What the clip x candidate distances depend on (front end, models, blocks, matcher, distance,
// aggregation, the clips themselves), as the first line of a --distances file.
std::string distances_key(const Options& o, const Work& w) {
  const FrontEndParams& f = o.fp;
  char b[1024];
  std::snprintf(b, sizeof b,
                "cvis-action-distances 1 fe %d %.9g %.9g %.9g %.9g %d %d %.9g %d %d %d %d %.9g %d "
                "%.9g %d %.9g %.9g lp %d %d %d %d %d mp %.9g %.9g %.9g %d %d %.9g d %d %d",
                static_cast<int>(f.normalise_gain), f.sigma, f.tau, f.omega, f.threshold,
                f.nms_radius, f.max_points, f.cell_size, f.cell_frames, f.flow_levels,
                f.flow_iterations, f.flow_radius, f.flow_min, static_cast<int>(f.flow_histogram),
                f.speed_split, static_cast<int>(f.detector), f.harris_k, f.harris_scale,
                o.lp.model_frames, o.lp.min_model_nodes, o.lp.windows_per_clip, o.lp.block_frames,
                o.lp.block_step, o.mp.lambda1, o.mp.lambda2, o.mp.lambda3, o.mp.T,
                static_cast<int>(o.mp.causality), o.mp.dummy_cost, static_cast<int>(o.distance),
                static_cast<int>(o.block_min));
  std::string names;
  for (const ClipFile& c : w.files)
    names += c.label + "/" + c.name + ";";
  return std::string(b) + " clips " + std::to_string(w.files.size()) + " " +
         std::to_string(std::hash<std::string>()(names));
}

// Reads the distances of a previous run with the same key (the matching is the eval's cost; the
// classifiers after it are cheap, so they can be compared on one matrix). `cands` 0: any count
// (--clip-list, where the candidates are not cut). After the table, the clip of each candidate
// (uint64 count, int32 each; absent in files of older builds: then the candidates must be
// windows_per_clip per clip, in clip order, the only way their count can be clips x windows).
bool read_distances(const std::string& path, const std::string& key, size_t clips, size_t cands,
                    int windows_per_clip, std::vector<std::vector<double>>* dist,
                    std::vector<int>* cand_clip) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line) || line != key)
    return false;
  uint64_t n = 0, c = 0;
  in.read(reinterpret_cast<char*>(&n), 8);
  in.read(reinterpret_cast<char*>(&c), 8);
  if (!in || n != clips || (cands && c != cands) || c == 0 || c > (1u << 24))
    return false;
  dist->assign(clips, std::vector<double>(c));
  for (auto& row : *dist)
    in.read(reinterpret_cast<char*>(row.data()), static_cast<std::streamsize>(8 * c));
  if (!in)
    return false;
  uint64_t m = 0;
  cand_clip->assign(c, 0);
  if (in.read(reinterpret_cast<char*>(&m), 8) && m == c) {
    in.read(reinterpret_cast<char*>(cand_clip->data()), static_cast<std::streamsize>(4 * c));
    if (!in)
      return false;
    for (int k : *cand_clip)
      if (k < 0 || static_cast<uint64_t>(k) >= n)
        return false;
    return true;
  }
  if (c != n * static_cast<uint64_t>(windows_per_clip))
    return false;
  for (size_t k = 0; k < c; ++k)
    (*cand_clip)[k] = static_cast<int>(k / static_cast<size_t>(windows_per_clip));
  return true;
}

// Written to a temporary name and renamed, so that a concurrent eval never reads half a table.
void write_distances(const std::string& path, const std::string& key,
                     const std::vector<std::vector<double>>& dist,
                     const std::vector<int>& cand_clip) {
  const std::string tmp = path + "." + std::to_string(::getpid()) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << key << "\n";
    const uint64_t n = dist.size(), c = dist.empty() ? 0 : dist[0].size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.write(reinterpret_cast<const char*>(&c), 8);
    for (const auto& row : dist)
      out.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(8 * c));
    const uint64_t m = cand_clip.size();
    out.write(reinterpret_cast<const char*>(&m), 8);
    out.write(reinterpret_cast<const char*>(cand_clip.data()), static_cast<std::streamsize>(4 * m));
    if (!out) {
      std::fprintf(stderr, "cvis-action: could not write %s\n", tmp.c_str());
      return;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    std::fprintf(stderr, "cvis-action: could not rename %s to %s\n", tmp.c_str(), path.c_str());
}

// --clip-list: the clips' names and the distances file alone (nothing decoded or matched).
bool prepare_from_list(const Options& o, Work* w, std::string* err) {
  if (!read_clip_list(o.clip_list, &w->files, &w->classes, err))
    return false;
  for (const ClipFile& c : w->files) {
    w->clip_class.push_back(class_index(w->classes, c.label));
    w->clip_subject.push_back(c.subject);
  }
  if (!read_distances(o.distances, distances_key(o, *w), w->files.size(), 0, o.lp.windows_per_clip,
                      &w->dist, &w->cand_clip)) {
    *err = o.distances + ": no table for these clips and settings (the options must be those "
                         "of the run that wrote it)";
    return false;
  }
  for (int k : w->cand_clip) {
    w->cand_class.push_back(w->clip_class[k]);
    w->cand_subject.push_back(w->clip_subject[k]);
  }
  std::fprintf(stderr, "cvis-action: %zu clips, %zu candidate models; distances read from %s\n",
               w->files.size(), w->cand_clip.size(), o.distances.c_str());
  return true;
}

bool prepare(const Options& o, Work* w, std::string* err) {
  if (!o.clip_list.empty())
    return prepare_from_list(o, w, err);
  if (!scan_dataset(o.positional[0], &w->files, &w->classes, err))
    return false;
  Backend backend = Backend::kCpu;
  Status st = resolve_backend(o.backend, &backend);
  if (!st.ok()) {
    *err = st.to_string();
    return false;
  }
  const int threads = o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  const auto t0 = std::chrono::steady_clock::now();
  if (!all_clip_points(w->files, o.fp, backend, o.cache, threads, &w->clips, err))
    return false;
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<std::vector<Graph>> blocks;
  size_t nodes = 0;
  for (const ClipPoints& c : w->clips) {
    const int k = class_index(w->classes, c.label);
    w->clip_class.push_back(k);
    w->clip_subject.push_back(c.subject);
    nodes += c.graph.size();
    for (Model& m : cut_models(c, o.lp, o.lp.windows_per_clip)) {
      w->cands.push_back(std::move(m));
      w->cand_class.push_back(k);
      w->cand_subject.push_back(c.subject);
      w->cand_clip.push_back(static_cast<int>(w->clip_class.size() - 1));
    }
    blocks.push_back(cut_blocks(c, o.lp));
  }
  if (w->cands.empty()) {
    *err = "no clip has enough interest points for a model (lower --threshold?)";
    return false;
  }
  std::fprintf(stderr, "cvis-action: %zu clips, %zu points, %zu candidate models (%.1f s)\n",
               w->clips.size(), nodes, w->cands.size(),
               std::chrono::duration<double>(t1 - t0).count());
  const std::string dkey = o.distances.empty() ? "" : distances_key(o, *w);
  std::vector<int> file_cand_clip;
  if (!o.distances.empty() &&
      read_distances(o.distances, dkey, w->clips.size(), w->cands.size(), o.lp.windows_per_clip,
                     &w->dist, &file_cand_clip) &&
      file_cand_clip == w->cand_clip) {
    std::fprintf(stderr, "cvis-action: distances read from %s\n", o.distances.c_str());
    return true;
  }
  auto matcher = make_matcher(backend, &st, threads);
  if (st.ok())
    st = matcher->configure(o.mp, w->cands);
  if (!st.ok()) {
    *err = st.to_string();
    return false;
  }
  const size_t C = w->cands.size();
  w->dist.assign(w->clips.size(), std::vector<double>(C, 0.0));
  std::vector<MatchResult> res;
  for (size_t i = 0; i < w->clips.size(); ++i) {
    const std::vector<Graph>& b = blocks[i];
    st = matcher->match(b.data(), static_cast<int>(b.size()), &res, nullptr, nullptr);
    if (!st.ok()) {
      *err = w->clips[i].name + ": " + st.to_string();
      return false;
    }
    for (size_t k = 0; k < C; ++k) {
      double sum = 0, best = std::numeric_limits<double>::infinity();
      for (size_t j = 0; j < b.size(); ++j) {
        const double d = node_distance(res[j * C + k], o.distance, w->cands[k].graph.size());
        sum += d;
        best = std::min(best, d);
      }
      w->dist[i][k] = o.block_min ? best : sum / static_cast<double>(b.size());
    }
    if ((i + 1) % 50 == 0 || i + 1 == w->clips.size())
      std::fprintf(stderr, "cvis-action: matched %zu/%zu clips (%.1f s)\n", i + 1, w->clips.size(),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
  }
  if (!o.distances.empty())
    write_distances(o.distances, dkey, w->dist, w->cand_clip);
  return true;
}

// The rows of `w` whose subject is not `held_out` (-1: all), as the selection's inputs.
std::vector<int> select_without(const Work& w, int held_out, const LearnParams& lp) {
  std::vector<int> rows, cands;
  fold_rows(w, held_out, &rows, &cands);
  std::vector<std::vector<double>> D(rows.size(), std::vector<double>(cands.size()));
  std::vector<int> cc, cs, vc, vs;
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t k = 0; k < cands.size(); ++k)
      D[r][k] = w.dist[rows[r]][cands[k]];
    vc.push_back(w.clip_class[rows[r]]);
    vs.push_back(w.clip_subject[rows[r]]);
  }
  for (int k : cands) {
    cc.push_back(w.cand_class[k]);
    cs.push_back(w.cand_subject[k]);
  }
  std::vector<int> chosen = select_prototypes(D, vc, vs, cc, cs, static_cast<int>(w.classes.size()),
                                              lp.prototypes_per_class);
  for (int& c : chosen)
    c = cands[c];
  return chosen;
}

// The k-nearest class mean classifier of fold `held_out`: k given, or chosen by
// leave-one-subject-out among the other subjects' clips and candidates; `allowed` gets the
// candidates of the other subjects.
int knn_fold(const Work& w, int held_out, int given_k, std::vector<int>* allowed) {
  std::vector<int> rows;
  fold_rows(w, held_out, &rows, allowed);
  if (given_k > 0)
    return given_k;
  std::vector<std::vector<double>> D;
  std::vector<int> vc, vs, cc, cs;
  for (int i : rows) {
    D.emplace_back();
    for (int k : *allowed)
      D.back().push_back(w.dist[i][k]);
    vc.push_back(w.clip_class[i]);
    vs.push_back(w.clip_subject[i]);
  }
  for (int k : *allowed) {
    cc.push_back(w.cand_class[k]);
    cs.push_back(w.cand_subject[k]);
  }
  return choose_knn_k(D, vc, vs, cc, cs, static_cast<int>(w.classes.size()),
                      {1, 2, 3, 4, 6, 8, 12});
}

// The ridge classifier of fold `held_out`, trained on the other subjects' clips over the other
// subjects' candidates; alpha given, or chosen among them (choose_ridge_alpha).
RidgeClassifier ridge_fold(const Work& w, int held_out, double given_alpha, double* alpha) {
  std::vector<int> rows, cands;
  fold_rows(w, held_out, &rows, &cands);
  const int K = static_cast<int>(w.classes.size());
  *alpha = given_alpha > 0 ? given_alpha
                           : choose_ridge_alpha(w.dist, rows, w.clip_class, w.clip_subject, cands,
                                                w.cand_subject, K, {0.1, 0.3, 1, 3, 10}, 5);
  RidgeClassifier rc;
  train_ridge(w.dist, rows, w.clip_class, w.clip_subject, cands, w.cand_subject, K, *alpha, &rc);
  return rc;
}

} // namespace

int cmd_train(int argc, char** argv) {
  Options o;
  std::string err;
  if (!parse_options(argc, argv, true, &o, &err))
    return usage(err.empty() ? "bad parameters" : err);
  Work w;
  if (!prepare(o, &w, &err))
    return fail(err);
  const std::vector<int> chosen = select_without(w, -1, o.lp);
  Dictionary d;
  describe(o.fp, &d);
  d.params = o.mp;
  for (int k : chosen)
    d.models.push_back(w.cands[k]);
  const Status st = save_dictionary(o.output, d);
  if (!st.ok())
    return fail(st.to_string());
  std::printf("%zu prototypes (of %zu candidates) for %zu classes written to %s\n", d.models.size(),
              w.cands.size(), w.classes.size(), o.output.c_str());
  return kExitOk;
}

int cmd_eval(int argc, char** argv) {
  Options o;
  std::string err;
  if (!parse_options(argc, argv, false, &o, &err))
    return usage(err.empty() ? "bad parameters" : err);
  Work w;
  if (!prepare(o, &w, &err))
    return fail(err);
  std::vector<int> subjects = w.clip_subject;
  std::sort(subjects.begin(), subjects.end());
  subjects.erase(std::unique(subjects.begin(), subjects.end()), subjects.end());
  if (subjects.size() < 2)
    return fail("leave-one-subject-out needs clips of at least 2 subjects");
  const int K = static_cast<int>(w.classes.size());
  std::vector<std::vector<int>> confusion(K, std::vector<int>(K + 1, 0));
  int correct = 0, total = 0;
  for (int s : subjects) {
    std::vector<int> chosen;
    int k = 0;
    double alpha = 0;
    RidgeClassifier rc;
    if (o.ridge)
      rc = ridge_fold(w, s, o.ridge_alpha, &alpha);
    else if (o.knn)
      k = knn_fold(w, s, o.knn_k, &chosen);
    else
      chosen = select_without(w, s, o.lp);
    int fold_ok = 0, fold_n = 0;
    for (size_t i = 0; i < w.num_clips(); ++i) {
      if (w.clip_subject[i] != s)
        continue;
      const int pred = o.ridge ? ridge_class(rc, w.dist[i])
                       : o.knn ? knn_class(w.dist[i], chosen, w.cand_class, K, k)
                               : nearest_class(w.dist[i], chosen, w.cand_class);
      ++confusion[w.clip_class[i]][pred < 0 ? K : pred];
      fold_ok += pred == w.clip_class[i];
      ++fold_n;
    }
    correct += fold_ok;
    total += fold_n;
    if (o.verbose && o.ridge)
      std::printf("subject %02d: %d/%d (ridge, alpha %g, %zu candidates)\n", s, fold_ok, fold_n,
                  alpha, rc.cands.size());
    else if (o.verbose && o.knn)
      std::printf("subject %02d: %d/%d (k-nearest class mean, k = %d, %zu candidates)\n", s,
                  fold_ok, fold_n, k, chosen.size());
    else if (o.verbose)
      std::printf("subject %02d: %d/%d (%zu prototypes)\n", s, fold_ok, fold_n, chosen.size());
  }
  std::printf("confusion (rows: true class, columns: recognised; '-': none)\n%14s", "");
  for (int k = 0; k < K; ++k)
    std::printf(" %6.6s", w.classes[k].c_str());
  std::printf(" %6s\n", "-");
  for (int r = 0; r < K; ++r) {
    std::printf("%14.14s", w.classes[r].c_str());
    for (int c = 0; c <= K; ++c)
      std::printf(" %6d", confusion[r][c]);
    std::printf("\n");
  }
  std::printf("accuracy: %d/%d (%.1f%%)\n", correct, total, total ? 100.0 * correct / total : 0.0);
  return kExitOk;
}

} // namespace cvis::action_tool

/* cvis-action train and eval: clips -> points -> candidate models and scene blocks -> the distance
 * of every clip to every candidate (the exact matcher) -> a classifier (prototype selection and
 * the nearest prototype, the k-nearest class mean or ridge); eval does it leave-one-subject-out, or
 * trains on one dataset and tests on another (--test). */
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
#include "action-options.h"
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
                    std::vector<int>* cand_clip, size_t cand_clips = 0) {
  if (cand_clips == 0)
    cand_clips = clips; // the candidates' clips are the rows'; else another clip list's
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
      if (k < 0 || static_cast<uint64_t>(k) >= cand_clips)
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

// dist[clip][candidate]: the mean (or --aggregate min) over the clip's blocks of node_distance.
bool match_table(const Options& o, Backend backend, int threads, const std::vector<Model>& cands,
                 const std::vector<ClipPoints>& clips,
                 const std::vector<std::vector<Graph>>& blocks,
                 std::vector<std::vector<double>>* dist, std::string* err) {
  const auto t1 = std::chrono::steady_clock::now();
  Status st;
  auto matcher = make_matcher(backend, &st, threads);
  if (st.ok())
    st = matcher->configure(o.mp, cands);
  if (!st.ok()) {
    *err = st.to_string();
    return false;
  }
  const size_t C = cands.size();
  dist->assign(clips.size(), std::vector<double>(C, 0.0));
  std::vector<MatchResult> res;
  for (size_t i = 0; i < clips.size(); ++i) {
    const std::vector<Graph>& b = blocks[i];
    st = matcher->match(b.data(), static_cast<int>(b.size()), &res, nullptr, nullptr);
    if (!st.ok()) {
      *err = clips[i].name + ": " + st.to_string();
      return false;
    }
    for (size_t k = 0; k < C; ++k) {
      double sum = 0, best = std::numeric_limits<double>::infinity();
      for (size_t j = 0; j < b.size(); ++j) {
        const double d = node_distance(res[j * C + k], o.distance, cands[k].graph.size());
        sum += d;
        best = std::min(best, d);
      }
      (*dist)[i][k] = o.block_min ? best : sum / static_cast<double>(b.size());
    }
    if ((i + 1) % 50 == 0 || i + 1 == clips.size())
      std::fprintf(stderr, "cvis-action: matched %zu/%zu clips (%.1f s)\n", i + 1, clips.size(),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
  }
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
  if (!match_table(o, backend, threads, w->cands, w->clips, blocks, &w->dist, err))
    return false;
  if (!o.distances.empty())
    write_distances(o.distances, dkey, w->dist, w->cand_clip);
  return true;
}

// --test DIR: the clips of another dataset (t) against every candidate of the training set w:
// t->dist[clip][candidate]; t->clip_class in w's class order (w's class count for a class w lacks).
bool prepare_test(const Options& o, const Work& w, Work* t, std::string* err) {
  if (!scan_dataset(o.test, &t->files, &t->classes, err))
    return false;
  Backend backend = Backend::kCpu;
  const Status st = resolve_backend(o.backend, &backend);
  if (!st.ok()) {
    *err = st.to_string();
    return false;
  }
  const int threads = o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  if (!all_clip_points(t->files, o.fp, backend, o.test_cache, threads, &t->clips, err))
    return false;
  std::vector<std::vector<Graph>> blocks;
  for (const ClipPoints& c : t->clips) {
    t->clip_class.push_back(class_index(w.classes, c.label));
    t->clip_subject.push_back(c.subject);
    blocks.push_back(cut_blocks(c, o.lp));
  }
  std::string train_names;
  for (const ClipFile& c : w.files)
    train_names += c.label + "/" + c.name + ";";
  const std::string key =
      distances_key(o, *t) + " against " + std::to_string(std::hash<std::string>()(train_names));
  std::vector<int> file_cand_clip;
  if (!o.test_distances.empty() &&
      read_distances(o.test_distances, key, t->clips.size(), w.cands.size(), 0, &t->dist,
                     &file_cand_clip, w.clips.size()) &&
      file_cand_clip == w.cand_clip) {
    std::fprintf(stderr, "cvis-action: test distances read from %s\n", o.test_distances.c_str());
    return true;
  }
  if (!match_table(o, backend, threads, w.cands, t->clips, blocks, &t->dist, err))
    return false;
  if (!o.test_distances.empty())
    write_distances(o.test_distances, key, t->dist, w.cand_clip);
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
// subjects' candidates; alpha given, or chosen among them (choose_ridge_alpha); the features
// given, or chosen by leave-one-subject-out among them (choose_ridge_features; with --ridge A at
// that alpha). *correct (optional) gets the two kinds' inner counts (-1 when not chosen).
RidgeClassifier ridge_fold(const Options& o, const Work& w, int held_out, double* alpha,
                           int* correct = nullptr) {
  const double given_alpha = o.ridge_alpha;
  const std::vector<double> alphas =
      given_alpha > 0 ? std::vector<double>{given_alpha} : std::vector<double>{0.1, 0.3, 1, 3, 10};
  std::vector<int> rows, cands;
  fold_rows(w, held_out, &rows, &cands);
  const int K = static_cast<int>(w.classes.size());
  RidgeFeatures features = o.ridge_features;
  int counts[2] = {-1, -1};
  if (o.ridge_features_auto)
    features = choose_ridge_features(w.dist, rows, w.clip_class, w.clip_subject, cands,
                                     w.cand_subject, K, alphas, 5, w.cand_class, alpha, counts);
  else
    *alpha = alphas.size() == 1
                 ? alphas[0]
                 : choose_ridge_alpha(w.dist, rows, w.clip_class, w.clip_subject, cands,
                                      w.cand_subject, K, alphas, 5, features, &w.cand_class);
  if (correct) {
    correct[0] = counts[0];
    correct[1] = counts[1];
  }
  RidgeClassifier rc;
  train_ridge(w.dist, rows, w.clip_class, w.clip_subject, cands, w.cand_subject, K, *alpha, &rc,
              features, &w.cand_class);
  return rc;
}

void print_confusion(const std::vector<std::string>& classes,
                     const std::vector<std::vector<int>>& confusion, int correct, int total) {
  const int K = static_cast<int>(classes.size());
  std::printf("confusion (rows: true class, columns: recognised; '-': none)\n%14s", "");
  for (int k = 0; k < K; ++k)
    std::printf(" %6.6s", classes[k].c_str());
  std::printf(" %6s\n", "-");
  for (int r = 0; r < K; ++r) {
    std::printf("%14.14s", classes[r].c_str());
    for (int c = 0; c <= K; ++c)
      std::printf(" %6d", confusion[r][c]);
    std::printf("\n");
  }
  std::printf("accuracy: %d/%d (%.1f%%)\n", correct, total, total ? 100.0 * correct / total : 0.0);
}

// eval --test DIR: the classifier trained on every subject of w, applied to the clips of DIR.
int run_test(const Options& o, const Work& w) {
  Work t;
  std::string err;
  if (!prepare_test(o, w, &t, &err))
    return fail(err);
  const int K = static_cast<int>(w.classes.size());
  std::vector<int> chosen;
  int k = 0;
  double alpha = 0;
  RidgeClassifier rc;
  if (o.ridge)
    rc = ridge_fold(o, w, -1, &alpha);
  else if (o.knn)
    k = knn_fold(w, -1, o.knn_k, &chosen);
  else
    chosen = select_without(w, -1, o.lp);
  std::vector<std::vector<int>> confusion(K, std::vector<int>(K + 1, 0));
  std::map<int, std::pair<int, int>> per_subject;
  int correct = 0, total = 0;
  for (size_t i = 0; i < t.num_clips(); ++i) {
    const int truth = t.clip_class[i];
    if (truth >= K)
      return fail("--test: clip " + t.files[i].name + " is of a class the training set lacks");
    const int pred = o.ridge ? ridge_class(rc, t.dist[i])
                     : o.knn ? knn_class(t.dist[i], chosen, w.cand_class, K, k)
                             : nearest_class(t.dist[i], chosen, w.cand_class);
    ++confusion[truth][pred < 0 ? K : pred];
    correct += pred == truth;
    ++total;
    auto& ps = per_subject[t.clip_subject[i]];
    ps.first += pred == truth;
    ++ps.second;
  }
  if (o.verbose) {
    const std::string how = o.ridge ? "ridge, alpha " + std::to_string(alpha) + ", features " +
                                          ridge_features_name(rc.features)
                            : o.knn ? "k-nearest class mean, k " + std::to_string(k)
                                    : std::to_string(chosen.size()) + " prototypes";
    std::printf("trained on %zu clips (%zu candidates; %s)\n", w.num_clips(), w.num_cands(),
                how.c_str());
    for (const auto& [s, ps] : per_subject)
      std::printf("test subject %02d: %d/%d\n", s, ps.first, ps.second);
  }
  print_confusion(w.classes, confusion, correct, total);
  return kExitOk;
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
  std::vector<int> rows, cands; // the training clips and candidates (all but --hold-out's)
  fold_rows(w, o.hold_out, &rows, &cands);
  if (rows.size() == w.num_clips() && o.hold_out >= 0)
    return fail("--hold-out " + std::to_string(o.hold_out) + ": no clip of that subject");
  std::vector<int> chosen = select_without(w, o.hold_out, o.lp);
  Dictionary d;
  describe(o.fp, &d);
  d.params = o.mp;
  if (o.ridge) {
    // Every training candidate is a model (the classifier's features, in candidate order), the
    // prototypes a subset of them (model indices, sorted).
    double alpha = 0;
    int inner[2];
    d.ridge = ridge_fold(o, w, o.hold_out, &alpha, inner);
    std::vector<int> model_of(w.num_cands(), -1);
    for (size_t m = 0; m < cands.size(); ++m) {
      model_of[cands[m]] = static_cast<int>(m);
      d.models.push_back(w.cands[cands[m]]);
      d.ridge.cands[m] = static_cast<int>(m);
    }
    for (int& k : chosen)
      k = model_of[k];
    std::sort(chosen.begin(), chosen.end());
    d.classes = w.classes;
    d.ridge_distance = o.distance;
    d.ridge_alpha = alpha;
    d.prototypes = chosen;
    const Status st = save_dictionary(o.output, d);
    if (!st.ok())
      return fail(st.to_string());
    std::printf("ridge classifier (alpha %g, features %s) over %zu candidate models, %zu "
                "prototypes, for %zu classes written to %s\n",
                alpha, ridge_features_name(d.ridge.features), d.models.size(), chosen.size(),
                w.classes.size(), o.output.c_str());
    if (inner[0] >= 0)
      std::printf("features chosen by leave-one-subject-out on the %zu training clips: distance "
                  "%d, class-mean %d correct\n",
                  rows.size(), inner[0], inner[1]);
    return kExitOk;
  }
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
  if (!o.test.empty())
    return run_test(o, w);
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
    int inner[2] = {-1, -1};
    RidgeClassifier rc;
    if (o.ridge)
      rc = ridge_fold(o, w, s, &alpha, inner);
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
      std::printf("subject %02d: %d/%d (ridge, alpha %g, %zu candidates) features %s%s\n", s,
                  fold_ok, fold_n, alpha, rc.cands.size(), ridge_features_name(rc.features),
                  inner[0] < 0
                      ? ""
                      : (" (inner leave-one-subject-out: distance " + std::to_string(inner[0]) +
                         ", class-mean " + std::to_string(inner[1]) + ")")
                            .c_str());
    else if (o.verbose && o.knn)
      std::printf("subject %02d: %d/%d (k-nearest class mean, k = %d, %zu candidates)\n", s,
                  fold_ok, fold_n, k, chosen.size());
    else if (o.verbose)
      std::printf("subject %02d: %d/%d (%zu prototypes)\n", s, fold_ok, fold_n, chosen.size());
  }
  print_confusion(w.classes, confusion, correct, total);
  return kExitOk;
}

} // namespace cvis::action_tool

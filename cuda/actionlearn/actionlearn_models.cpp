// Model windows, scene blocks, the nearest-prototype rule and prototype selection
// (actionmatch_learn.hpp).
#include "actionlearn_models.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cvis::actionlearn {

using namespace actionmatch;
using namespace stip;

void append_points(const std::vector<FramePoints>& frames, ClipPoints* clip) {
  if (!frames.empty())
    clip->graph.dim = frames.front().dim;
  const int dim = clip->graph.dim;
  for (const FramePoints& fp : frames) {
    for (size_t i = 0; i < fp.points.size(); ++i) {
      const InterestPoint& ip = fp.points[i];
      clip->graph.add(static_cast<int32_t>(ip.frame), static_cast<float>(ip.x),
                      static_cast<float>(ip.y), fp.desc.data() + i * dim);
      clip->response.push_back(ip.response);
    }
    clip->frames = std::max<int>(clip->frames, static_cast<int>(fp.frame) + 1);
  }
}

std::vector<Model> cut_models(const ClipPoints& clip, const LearnParams& lp, int count) {
  const Graph& g = clip.graph;
  const int F = std::max(clip.frames, 1);
  // Most salient point of each frame (the first in frame order among equals).
  std::vector<int> best(F, -1);
  for (int n = 0; n < g.size(); ++n) {
    const int f = g.frame[n];
    if (f < 0 || f >= F)
      continue;
    if (best[f] < 0 || clip.response[n] > clip.response[best[f]])
      best[f] = n;
  }
  // Score of every window start: summed best responses; then greedy picks without heavy overlap.
  const int W = std::min(lp.model_frames, F);
  std::vector<std::pair<double, int>> starts;
  for (int s = 0; s + W <= F; ++s) {
    double score = 0;
    int nodes = 0;
    for (int f = s; f < s + W; ++f)
      if (best[f] >= 0) {
        score += clip.response[best[f]];
        ++nodes;
      }
    if (nodes >= std::max(lp.min_model_nodes, kMinModelNodes))
      starts.push_back({-score, s});
  }
  std::sort(starts.begin(), starts.end());
  std::vector<int> chosen;
  for (const auto& st : starts) {
    if (static_cast<int>(chosen.size()) >= count)
      break;
    bool overlaps = false;
    for (int c : chosen)
      overlaps |= std::abs(c - st.second) < W / 2;
    if (!overlaps)
      chosen.push_back(st.second);
  }
  std::vector<Model> out;
  for (int s : chosen) {
    Model m;
    m.label = clip.label;
    m.source = clip.name + " frames " + std::to_string(s) + "-" + std::to_string(s + W - 1);
    m.graph.dim = g.dim;
    for (int f = s; f < s + W; ++f)
      if (best[f] >= 0)
        m.graph.add(g.frame[best[f]], g.x[best[f]], g.y[best[f]], g.descriptor(best[f]));
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<Graph> cut_blocks(const ClipPoints& clip, const LearnParams& lp) {
  std::vector<Graph> out;
  const int F = clip.frames, B = lp.block_frames, step = std::max(1, lp.block_step);
  std::vector<int> starts;
  if (F <= B) {
    starts.push_back(0);
  } else {
    for (int s = 0; s + B <= F; s += step)
      starts.push_back(s);
    if (starts.back() + B < F)
      starts.push_back(F - B);
  }
  const Graph& g = clip.graph;
  for (int s : starts) {
    Graph b;
    b.dim = g.dim;
    for (int n = 0; n < g.size(); ++n)
      if (g.frame[n] >= s && g.frame[n] < s + B)
        b.add(g.frame[n], g.x[n], g.y[n], g.descriptor(n));
    out.push_back(std::move(b));
  }
  return out;
}

double node_distance(const MatchResult& r, Distance d, int model_nodes) {
  const double v = distance(r, d);
  return std::isfinite(v) ? v / std::max(1, model_nodes) : v;
}

int nearest_class(const std::vector<double>& dist, const std::vector<int>& allowed,
                  const std::vector<int>& cand_class) {
  int best = -1;
  double bd = std::numeric_limits<double>::infinity();
  for (int c : allowed)
    if (dist[c] < bd) {
      bd = dist[c];
      best = c;
    }
  return best < 0 ? -1 : cand_class[best];
}

int knn_class(const std::vector<double>& dist, const std::vector<int>& allowed,
              const std::vector<int>& cand_class, int classes, int k) {
  std::vector<std::vector<double>> per(classes);
  for (int c : allowed)
    if (std::isfinite(dist[c]))
      per[cand_class[c]].push_back(dist[c]);
  int best = -1;
  double bs = std::numeric_limits<double>::infinity();
  for (int q = 0; q < classes; ++q) {
    std::vector<double>& d = per[q];
    if (d.empty())
      continue;
    const size_t n = std::min(d.size(), static_cast<size_t>(k));
    std::partial_sort(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(n), d.end());
    double sum = 0;  // in increasing order: the same sum whatever the candidates' order
    for (size_t i = 0; i < n; ++i)
      sum += d[i];
    const double score = sum / static_cast<double>(n);
    if (score < bs) {
      bs = score;
      best = q;
    }
  }
  return best;
}

int choose_knn_k(const std::vector<std::vector<double>>& D, const std::vector<int>& clip_class,
                 const std::vector<int>& clip_subject, const std::vector<int>& cand_class,
                 const std::vector<int>& cand_subject, int classes, const std::vector<int>& ks) {
  int best_k = ks.front(), best = -1;
  std::vector<int> allowed;
  for (int k : ks) {
    int correct = 0;
    for (size_t v = 0; v < D.size(); ++v) {
      allowed.clear();
      for (size_t c = 0; c < cand_class.size(); ++c)
        if (cand_subject[c] != clip_subject[v])
          allowed.push_back(static_cast<int>(c));
      correct += knn_class(D[v], allowed, cand_class, classes, k) == clip_class[v];
    }
    if (correct > best) {
      best = correct;
      best_k = k;
    }
  }
  return best_k;
}

namespace {

// Nearest-prototype accuracy (count) and a margin score of a prototype set on the validation
// clips; each clip ignores candidates of its own subject.
struct SetScore {
  int correct = 0;
  double margin = 0;
  bool operator>(const SetScore& o) const {
    return correct != o.correct ? correct > o.correct : margin > o.margin + 1e-12;
  }
};

SetScore score_set(const std::vector<std::vector<double>>& D, const std::vector<int>& clip_class,
                   const std::vector<int>& clip_subject, const std::vector<int>& cand_class,
                   const std::vector<int>& cand_subject, const std::vector<int>& set) {
  SetScore s;
  const double inf = std::numeric_limits<double>::infinity();
  for (size_t v = 0; v < D.size(); ++v) {
    double right = inf, wrong = inf;
    for (int c : set) {
      if (cand_subject[c] == clip_subject[v])
        continue;
      double& slot = cand_class[c] == clip_class[v] ? right : wrong;
      slot = std::min(slot, D[v][c]);
    }
    if (right < wrong)
      ++s.correct;
    if (std::isfinite(right) && std::isfinite(wrong))
      s.margin += std::clamp(wrong - right, -1.0, 1.0);
  }
  return s;
}

} // namespace

std::vector<int> select_prototypes(const std::vector<std::vector<double>>& D,
                                   const std::vector<int>& clip_class,
                                   const std::vector<int>& clip_subject,
                                   const std::vector<int>& cand_class,
                                   const std::vector<int>& cand_subject, int classes,
                                   int per_class) {
  const int C = static_cast<int>(cand_class.size());
  std::vector<int> set, count(classes, 0);
  std::vector<char> in(C, 0);
  SetScore cur = score_set(D, clip_class, clip_subject, cand_class, cand_subject, set);
  const int limit = classes * per_class;
  const double inf = std::numeric_limits<double>::infinity();
  int stall = 0;
  while (static_cast<int>(set.size()) < limit && stall < 3) {
    // Forward: the candidate whose addition scores best (classes below their quota only). The
    // nearest right/wrong distances of the current set make each trial O(clips).
    std::vector<double> right(D.size(), inf), wrong(D.size(), inf);
    for (size_t v = 0; v < D.size(); ++v)
      for (int c : set)
        if (cand_subject[c] != clip_subject[v]) {
          double& slot = cand_class[c] == clip_class[v] ? right[v] : wrong[v];
          slot = std::min(slot, D[v][c]);
        }
    int best = -1;
    SetScore best_score;
    best_score.correct = -1;
    for (int c = 0; c < C; ++c) {
      if (in[c] || count[cand_class[c]] >= per_class)
        continue;
      SetScore s;
      for (size_t v = 0; v < D.size(); ++v) {
        double r = right[v], w = wrong[v];
        if (cand_subject[c] != clip_subject[v]) {
          double& slot = cand_class[c] == clip_class[v] ? r : w;
          slot = std::min(slot, D[v][c]);
        }
        if (r < w)
          ++s.correct;
        if (std::isfinite(r) && std::isfinite(w))
          s.margin += std::clamp(w - r, -1.0, 1.0);
      }
      if (s > best_score) {
        best_score = s;
        best = c;
      }
    }
    if (best < 0)
      break;
    stall = best_score > cur ? 0 : stall + 1;
    set.push_back(best);
    in[best] = 1;
    ++count[cand_class[best]];
    cur = best_score;
    // Floating: drop any earlier member whose removal improves the score.
    bool removed = true;
    while (removed && set.size() > 1) {
      removed = false;
      for (size_t i = 0; i + 1 < set.size(); ++i) {
        std::vector<int> trial = set;
        trial.erase(trial.begin() + static_cast<long>(i));
        const SetScore s = score_set(D, clip_class, clip_subject, cand_class, cand_subject, trial);
        if (s > cur) {
          in[set[i]] = 0;
          --count[cand_class[set[i]]];
          set = trial;
          cur = s;
          removed = true;
          break;
        }
      }
    }
  }
  // Every class keeps at least one prototype: the best single candidate of a class left empty.
  for (int k = 0; k < classes; ++k) {
    if (count[k] > 0)
      continue;
    int best = -1;
    SetScore bs;
    bs.correct = -1;
    for (int c = 0; c < C; ++c) {
      if (cand_class[c] != k)
        continue;
      set.push_back(c);
      const SetScore s = score_set(D, clip_class, clip_subject, cand_class, cand_subject, set);
      set.pop_back();
      if (s > bs) {
        bs = s;
        best = c;
      }
    }
    if (best >= 0) {
      set.push_back(best);
      ++count[k];
    }
  }
  std::sort(set.begin(), set.end());
  return set;
}

} // namespace cvis::actionlearn

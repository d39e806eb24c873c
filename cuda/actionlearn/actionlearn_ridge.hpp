// A linear classifier over a clip's distances to a fixed set of candidate models (a
// "dissimilarity space"): the clip is described by the vector of its distances to every training
// candidate, and one-vs-rest ridge regression (standardised features, +1/-1 targets) scores the
// classes. Unlike the nearest prototype or k-nearest class mean, it learns which candidates'
// matches (and which failures to match) speak for a class, from all of them at once. Pure host
// code (no CUDA): cvis-action eval uses it; the element could apply it after its matcher (a
// dictionary holding every candidate and the weights), on either backend.
#pragma once

#include <vector>

namespace cvis::actionlearn {

struct RidgeClassifier {
  int classes = 0;
  std::vector<int> cands;           // the candidates (features), in the caller's index space
  std::vector<double> fill;         // per feature: stands for a non-finite distance (training max)
  std::vector<double> mean, inv_sd; // per feature: standardisation (inv_sd 0: constant feature)
  std::vector<double> weights;      // [feature * classes + class]
  std::vector<double> bias;         // [class]
};

// Trains on clips `rows` of clip_dist[clip][candidate] with features `cands`. A clip's distance
// to a candidate of its own subject is treated as missing (a test clip never has one) and
// replaced by the feature's mean over the other rows. Ridge strength: alpha times the number of
// features (the trace of the standardised Gram matrix over its size), so alpha means the same for
// any candidate count. Returns false when rows or cands are empty or alpha <= 0.
bool train_ridge(const std::vector<std::vector<double>>& clip_dist, const std::vector<int>& rows,
                 const std::vector<int>& clip_class, const std::vector<int>& clip_subject,
                 const std::vector<int>& cands, const std::vector<int>& cand_subject, int classes,
                 double alpha, RidgeClassifier* out);

// The class with the highest score (ties: the lower class) for dist[candidate] (the caller's
// index space, as cands); -1 for an untrained classifier. `scores` (optional) gets every class's.
int ridge_class(const RidgeClassifier& rc, const std::vector<double>& dist,
                std::vector<double>* scores = nullptr);

// Chooses alpha from `alphas` by cross-validation over the subjects of `rows` alone: the subjects
// (sorted) are dealt into min(groups, subjects) groups round-robin; each group's clips are
// classified by a classifier trained on the other groups' clips with the candidates of the other
// groups' subjects. Returns the alpha with the most correct clips (ties: the larger alpha, the
// smoother classifier); alphas not empty.
double choose_ridge_alpha(const std::vector<std::vector<double>>& clip_dist,
                          const std::vector<int>& rows, const std::vector<int>& clip_class,
                          const std::vector<int>& clip_subject, const std::vector<int>& cands,
                          const std::vector<int>& cand_subject, int classes,
                          const std::vector<double>& alphas, int groups);

} // namespace cvis::actionlearn

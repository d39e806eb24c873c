// A linear classifier over a clip's distances to a fixed set of candidate models (a
// "dissimilarity space"): the clip is described by its distances to every training candidate (or
// their means per class), and one-vs-rest ridge regression (standardised features, +1/-1
// targets) scores the classes. Unlike the nearest prototype or k-nearest class mean, it learns
// which matches (and which failures to match) speak for a class, from all of them at once. Pure
// host code (no CUDA): cvis-action eval uses it, and the element applies it after its matcher (a
// ridge dictionary: every candidate and the classifier), on either backend.
#pragma once

#include <cstddef>
#include <vector>

namespace cvis::actionlearn {

// What the classifier's features are (before their standardisation).
enum class RidgeFeatures : int {
  // One per candidate: the distance to it (dictionary version 3).
  kDistance = 0,
  // One per class: the mean distance to the candidates of that class. Six features instead of a
  // hundred or more: with a few dozen training clips, a weight per candidate fits which
  // candidates the training subjects happened to match; the class means keep what generalises to
  // a new subject (how well, on average, the clip matches each action's models, and how poorly
  // the others'), and a candidate's chance match moves its class's feature by 1 / (candidates of
  // the class) only.
  kClassMean = 1,
};

// "distance" or "class-mean" (the tool's --ridge-features values).
const char* ridge_features_name(RidgeFeatures f);

struct RidgeClassifier {
  int classes = 0;
  RidgeFeatures features = RidgeFeatures::kDistance;
  std::vector<int> cands;      // the candidates, in the caller's index space
  std::vector<int> cand_class; // kClassMean: the class of each of cands (else empty)
  std::vector<double> fill;    // per candidate: stands for a non-finite distance (training max)
  std::vector<double> mean, inv_sd; // per feature: standardisation (inv_sd 0: constant feature)
  std::vector<double> weights;      // [feature * classes + class]
  std::vector<double> bias;         // [class]

  // Features: cands.size() (kDistance) or classes (kClassMean).
  std::size_t feature_count() const;
};

// Trains on clips `rows` of clip_dist[clip][candidate] over the candidates `cands`. A clip's
// distance to a candidate of its own subject is treated as missing (a test clip never has one):
// kDistance replaces it by the feature's mean over the other rows, kClassMean leaves it out of the
// class's mean. Ridge strength: alpha times the number of features (the trace of the standardised
// Gram matrix over its size), so alpha means the same for any feature count. kClassMean needs
// cand_class (the class, 0..classes-1, of every candidate in clip_dist's index space). Returns
// false when rows or cands are empty, alpha <= 0, or kClassMean lacks cand_class or a class has
// no candidate in `cands`.
bool train_ridge(const std::vector<std::vector<double>>& clip_dist, const std::vector<int>& rows,
                 const std::vector<int>& clip_class, const std::vector<int>& clip_subject,
                 const std::vector<int>& cands, const std::vector<int>& cand_subject, int classes,
                 double alpha, RidgeClassifier* out,
                 RidgeFeatures features = RidgeFeatures::kDistance,
                 const std::vector<int>* cand_class = nullptr);

// The class with the highest score (ties: the lower class) for dist[candidate] (the caller's
// index space, as cands); -1 for an untrained classifier. `scores` (optional) gets every class's.
int ridge_class(const RidgeClassifier& rc, const std::vector<double>& dist,
                std::vector<double>* scores = nullptr);

// Chooses alpha from `alphas` by cross-validation over the subjects of `rows` alone: the subjects
// (sorted) are dealt into min(groups, subjects) groups round-robin; each group's clips are
// classified by a classifier trained on the other groups' clips with the candidates of the other
// groups' subjects (features and cand_class as train_ridge's). Returns the alpha with the most
// correct clips (ties: the larger alpha, the smoother classifier); alphas not empty.
double choose_ridge_alpha(const std::vector<std::vector<double>>& clip_dist,
                          const std::vector<int>& rows, const std::vector<int>& clip_class,
                          const std::vector<int>& clip_subject, const std::vector<int>& cands,
                          const std::vector<int>& cand_subject, int classes,
                          const std::vector<double>& alphas, int groups,
                          RidgeFeatures features = RidgeFeatures::kDistance,
                          const std::vector<int>* cand_class = nullptr);

// Chooses the kind of features for a classifier trained on `rows` by leave-one-subject-out over
// the subjects of `rows` alone: for each kind, alpha as choose_ridge_alpha(alphas, groups) chooses
// it on all of `rows`, then each subject's clips are classified by a classifier of that alpha
// trained on the other subjects' clips over their candidates. Which kind generalises depends on
// the training set (a weight per candidate needs many training clips per candidate; the class
// means suit a few subjects). Returns the kind with more correct clips (ties: kClassMean, six
// features); *alpha (optional) gets its alpha, correct[2] (optional) the counts of kDistance and
// kClassMean. A single subject gives no fold: kClassMean.
RidgeFeatures choose_ridge_features(
    const std::vector<std::vector<double>>& clip_dist, const std::vector<int>& rows,
    const std::vector<int>& clip_class, const std::vector<int>& clip_subject,
    const std::vector<int>& cands, const std::vector<int>& cand_subject, int classes,
    const std::vector<double>& alphas, int groups, const std::vector<int>& cand_class,
    double* alpha = nullptr, int* correct = nullptr);

} // namespace cvis::actionlearn

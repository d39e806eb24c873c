// The classifiers after the matching (actionlearn_models.hpp): the k-nearest class mean and the
// choice of its k by leave-one-subject-out, on hand-made distance tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "actionlearn_models.hpp"

namespace {

namespace al = cvis::actionlearn;
const double kInf = std::numeric_limits<double>::infinity();

std::vector<int> all(size_t n) {
  std::vector<int> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<int>(i);
  return v;
}

TEST(ActionMatchKnn, KOneIsTheNearestNeighbour) {
  const std::vector<double> dist = {0.7, 0.3, 0.5, 0.2, 0.9, 0.25};
  const std::vector<int> cls = {0, 1, 2, 1, 0, 2};
  EXPECT_EQ(al::knn_class(dist, all(6), cls, 3, 1), 1);
  EXPECT_EQ(al::knn_class(dist, all(6), cls, 3, 1), al::nearest_class(dist, all(6), cls));
  // Only some candidates allowed: the nearest among them.
  const std::vector<int> some = {0, 2, 4, 5};
  EXPECT_EQ(al::knn_class(dist, some, cls, 3, 1), 2);
  EXPECT_EQ(al::knn_class(dist, some, cls, 3, 1), al::nearest_class(dist, some, cls));
}

TEST(ActionMatchKnn, OneChanceMatchIsOutvoted) {
  // Class 0 has one very near candidate and far ones; class 1 three fairly near ones.
  const std::vector<double> dist = {0.10, 0.90, 0.95, 0.20, 0.25, 0.30};
  const std::vector<int> cls = {0, 0, 0, 1, 1, 1};
  EXPECT_EQ(al::knn_class(dist, all(6), cls, 2, 1), 0);
  EXPECT_EQ(al::knn_class(dist, all(6), cls, 2, 2), 1); // 0.50 against 0.225
  EXPECT_EQ(al::knn_class(dist, all(6), cls, 2, 3), 1);
}

TEST(ActionMatchKnn, FewCandidatesInfinityAndTies) {
  // Class 1 has one candidate: its mean is that one (not penalised for having fewer than k).
  const std::vector<double> dist = {0.4, 0.6, 0.45};
  const std::vector<int> cls = {0, 0, 1};
  EXPECT_EQ(al::knn_class(dist, all(3), cls, 2, 2), 1); // 0.5 against 0.45
  // Infinite distances (infeasible matches) do not count; a class with only those has no score.
  const std::vector<double> inf_dist = {kInf, 0.6, kInf};
  EXPECT_EQ(al::knn_class(inf_dist, all(3), cls, 2, 2), 0);
  EXPECT_EQ(al::knn_class({kInf, kInf, kInf}, all(3), cls, 2, 1), -1);
  EXPECT_EQ(al::knn_class(dist, {}, cls, 2, 1), -1);
  // A tie goes to the lower class, whatever the candidates' order.
  const std::vector<double> tie = {0.3, 0.3};
  EXPECT_EQ(al::knn_class(tie, {1, 0}, {1, 0}, 2, 1), 0);
  EXPECT_EQ(al::knn_class(tie, {0, 1}, {1, 0}, 2, 1), 0);
}

TEST(ActionMatchKnn, CandidateOrderDoesNotMatter) {
  const std::vector<double> dist = {0.31, 0.12, 0.77, 0.45, 0.18, 0.52, 0.29, 0.66, 0.11};
  const std::vector<int> cls = {0, 1, 2, 0, 1, 2, 0, 1, 2};
  std::vector<int> order = all(9);
  for (int k = 1; k <= 4; ++k) {
    const int want = al::knn_class(dist, order, cls, 3, k);
    std::vector<int> perm = order;
    std::reverse(perm.begin(), perm.end());
    EXPECT_EQ(al::knn_class(dist, perm, cls, 3, k), want) << k;
    std::rotate(perm.begin(), perm.begin() + 4, perm.end());
    EXPECT_EQ(al::knn_class(dist, perm, cls, 3, k), want) << k;
  }
}

TEST(ActionMatchKnn, ChoosesKByLeaveOneSubjectOut) {
  // Three subjects, two classes, two candidates per (subject, class). For every clip the
  // nearest other-subject candidate is a chance match of the wrong class, the rest of its own
  // class are nearer on average: k = 1 gets none right, k >= 2 all.
  const int S = 3;
  std::vector<int> cand_class, cand_subject;
  for (int s = 0; s < S; ++s)
    for (int c = 0; c < 2; ++c)
      for (int j = 0; j < 2; ++j) {
        cand_class.push_back(c);
        cand_subject.push_back(s);
      }
  std::vector<std::vector<double>> D;
  std::vector<int> clip_class, clip_subject;
  for (int s = 0; s < S; ++s)
    for (int c = 0; c < 2; ++c) {
      std::vector<double> row;
      bool chance = false;
      for (size_t k = 0; k < cand_class.size(); ++k) {
        if (cand_class[k] == c) {
          row.push_back(0.3);
        } else if (!chance && cand_subject[k] != s) {
          row.push_back(0.1);  // one chance match of the other class
          chance = true;
        } else {
          row.push_back(0.9);
        }
      }
      D.push_back(row);
      clip_class.push_back(c);
      clip_subject.push_back(s);
    }
  EXPECT_EQ(al::choose_knn_k(D, clip_class, clip_subject, cand_class, cand_subject, 2, {1, 2, 3}),
            2); // 2 and 3 both get all right: the earlier
  EXPECT_EQ(al::choose_knn_k(D, clip_class, clip_subject, cand_class, cand_subject, 2, {3, 1, 2}),
            3);
  EXPECT_EQ(al::choose_knn_k(D, clip_class, clip_subject, cand_class, cand_subject, 2, {1}), 1);
  // The clip's own subject is never used: with the chance matches in its own subject only,
  // k = 1 is right everywhere and is chosen.
  for (size_t v = 0; v < D.size(); ++v)
    for (size_t k = 0; k < cand_class.size(); ++k)
      D[v][k] = cand_class[k] == clip_class[v] ? 0.3 : (cand_subject[k] == clip_subject[v] ? 0.0 : 0.9);
  EXPECT_EQ(al::choose_knn_k(D, clip_class, clip_subject, cand_class, cand_subject, 2, {1, 2, 3}),
            1);
}

}  // namespace

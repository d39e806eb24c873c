// The ridge classifier over clip-to-candidate distances (actionlearn_ridge.hpp) on hand-made
// distance tables: it learns from which candidates a class fails to match, where the nearest
// candidate misleads; a clip's own-subject distances and non-finite distances do not leak in.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "actionlearn_models.hpp"
#include "actionlearn_ridge.hpp"

namespace {

namespace al = cvis::actionlearn;
const double kInf = std::numeric_limits<double>::infinity();

// Six subjects, two classes, two clips per (subject, class), one candidate of each class per
// subject. Every clip's nearest candidates are of class 1 (distance 0.2); what tells the classes
// apart is the distance to the class-0 candidates: 0.3 for class-0 clips, 0.5 for class-1 clips.
// A small deterministic jitter keeps every feature's spread non-zero.
struct Table {
  std::vector<std::vector<double>> D;
  std::vector<int> clip_class, clip_subject, cand_class, cand_subject;
};

Table misleading_nearest() {
  Table t;
  const int S = 6;
  for (int s = 0; s < S; ++s)
    for (int c = 0; c < 2; ++c) {
      t.cand_class.push_back(c);
      t.cand_subject.push_back(s);
    }
  unsigned h = 12345;
  auto jitter = [&] {
    h = h * 1103515245u + 12345u;
    return ((h >> 16) % 1000) * 2e-5; // 0 .. 0.02
  };
  for (int s = 0; s < S; ++s)
    for (int c = 0; c < 2; ++c)
      for (int j = 0; j < 2; ++j) {
        std::vector<double> row;
        for (size_t k = 0; k < t.cand_class.size(); ++k)
          row.push_back((t.cand_class[k] == 1 ? 0.2 : (c == 0 ? 0.3 : 0.5)) + jitter());
        t.D.push_back(row);
        t.clip_class.push_back(c);
        t.clip_subject.push_back(s);
      }
  return t;
}

// Rows and candidates of every subject but `held_out`.
void split(const Table& t, int held_out, std::vector<int>* rows, std::vector<int>* cands) {
  for (size_t i = 0; i < t.D.size(); ++i)
    if (t.clip_subject[i] != held_out)
      rows->push_back(static_cast<int>(i));
  for (size_t k = 0; k < t.cand_class.size(); ++k)
    if (t.cand_subject[k] != held_out)
      cands->push_back(static_cast<int>(k));
}

TEST(ActionMatchRidge, LearnsWhatTheNearestCandidateMisses) {
  const Table t = misleading_nearest();
  for (int held_out = 0; held_out < 6; ++held_out) {
    std::vector<int> rows, cands;
    split(t, held_out, &rows, &cands);
    al::RidgeClassifier rc;
    ASSERT_TRUE(al::train_ridge(t.D, rows, t.clip_class, t.clip_subject, cands, t.cand_subject, 2,
                                1.0, &rc));
    EXPECT_EQ(rc.cands, cands);
    for (size_t i = 0; i < t.D.size(); ++i) {
      if (t.clip_subject[i] != held_out)
        continue;
      std::vector<double> scores;
      EXPECT_EQ(al::ridge_class(rc, t.D[i], &scores), t.clip_class[i]) << held_out << " " << i;
      ASSERT_EQ(scores.size(), 2u);
      // The nearest candidate and the k-nearest class mean call every clip class 1.
      EXPECT_EQ(al::nearest_class(t.D[i], cands, t.cand_class), 1);
      EXPECT_EQ(al::knn_class(t.D[i], cands, t.cand_class, 2, 3), 1);
    }
  }
}

TEST(ActionMatchRidge, OwnSubjectDistancesAreIgnored) {
  // A training clip never sees its own subject's candidates at test time, so the values there
  // (here: 0, as a clip matched against its own models) must not change the classifier.
  Table t = misleading_nearest();
  std::vector<int> rows, cands;
  split(t, 5, &rows, &cands);
  al::RidgeClassifier a, b;
  ASSERT_TRUE(
      al::train_ridge(t.D, rows, t.clip_class, t.clip_subject, cands, t.cand_subject, 2, 1.0, &a));
  for (size_t i = 0; i < t.D.size(); ++i)
    for (size_t k = 0; k < t.cand_class.size(); ++k)
      if (t.cand_subject[k] == t.clip_subject[i])
        t.D[i][k] = (i % 2) ? 0.0 : kInf;
  ASSERT_TRUE(
      al::train_ridge(t.D, rows, t.clip_class, t.clip_subject, cands, t.cand_subject, 2, 1.0, &b));
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.fill, b.fill);
  EXPECT_EQ(a.bias, b.bias);
}

TEST(ActionMatchRidge, InfeasibleMatchesTakeTheLargestTrainingDistance) {
  Table t = misleading_nearest();
  std::vector<int> rows, cands;
  split(t, 5, &rows, &cands);
  t.D[rows[3]][cands[2]] = kInf; // an infeasible match in training
  al::RidgeClassifier rc;
  ASSERT_TRUE(
      al::train_ridge(t.D, rows, t.clip_class, t.clip_subject, cands, t.cand_subject, 2, 1.0, &rc));
  double largest = 0;
  for (int r : rows)
    if (t.clip_subject[r] != t.cand_subject[cands[2]] && std::isfinite(t.D[r][cands[2]]))
      largest = std::max(largest, t.D[r][cands[2]]);
  EXPECT_EQ(rc.fill[2], largest);
  std::vector<double> row = t.D.back(), same = row, s1, s2;
  row[cands[2]] = kInf;
  same[cands[2]] = largest;
  EXPECT_EQ(al::ridge_class(rc, row, &s1), al::ridge_class(rc, same, &s2));
  EXPECT_EQ(s1, s2);
  for (double v : s1)
    EXPECT_TRUE(std::isfinite(v));
}

TEST(ActionMatchRidge, BadInputsAndUntrained) {
  const Table t = misleading_nearest();
  std::vector<int> rows, cands;
  split(t, 5, &rows, &cands);
  al::RidgeClassifier rc;
  EXPECT_FALSE(
      al::train_ridge(t.D, {}, t.clip_class, t.clip_subject, cands, t.cand_subject, 2, 1.0, &rc));
  EXPECT_FALSE(
      al::train_ridge(t.D, rows, t.clip_class, t.clip_subject, {}, t.cand_subject, 2, 1.0, &rc));
  EXPECT_FALSE(
      al::train_ridge(t.D, rows, t.clip_class, t.clip_subject, cands, t.cand_subject, 2, 0.0, &rc));
  EXPECT_EQ(al::ridge_class(al::RidgeClassifier{}, t.D[0]), -1);
}

TEST(ActionMatchRidge, ChoosesAlphaOnTheTrainingSubjectsOnly) {
  Table t = misleading_nearest();
  std::vector<int> rows, cands;
  split(t, 5, &rows, &cands);
  // Every alpha separates this table: the tie goes to the largest.
  EXPECT_EQ(al::choose_ridge_alpha(t.D, rows, t.clip_class, t.clip_subject, cands, t.cand_subject,
                                   2, {0.1, 1, 10}, 5),
            10);
  EXPECT_EQ(al::choose_ridge_alpha(t.D, rows, t.clip_class, t.clip_subject, cands, t.cand_subject,
                                   2, {3}, 5),
            3);
  // Whatever the held-out subject's clips say, the choice is the same: they are not used.
  const double before = al::choose_ridge_alpha(t.D, rows, t.clip_class, t.clip_subject, cands,
                                               t.cand_subject, 2, {0.01, 0.1, 1, 10, 100}, 5);
  for (size_t i = 0; i < t.D.size(); ++i)
    if (t.clip_subject[i] == 5)
      for (double& v : t.D[i])
        v = 1.0 - v;
  EXPECT_EQ(al::choose_ridge_alpha(t.D, rows, t.clip_class, t.clip_subject, cands, t.cand_subject,
                                   2, {0.01, 0.1, 1, 10, 100}, 5),
            before);
}

} // namespace

// A table whose candidates are `per` for every (subject, class), subjects x classes.
Table with_candidates(int subjects, int classes, int per) {
  Table t;
  for (int s = 0; s < subjects; ++s)
    for (int c = 0; c < classes; ++c)
      for (int k = 0; k < per; ++k) {
        t.cand_class.push_back(c);
        t.cand_subject.push_back(s);
      }
  return t;
}

// 0..1 from a 64-bit LCG's high bits: the same seeded tables on every platform.
struct Lcg {
  uint64_t h;
  double uniform() {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(h >> 11) / 9007199254740992.0;
  }
};

// Six subjects, three classes, two clips per (subject, class), four candidates per (subject,
// class). Distances saturate at 0.36 (every node the dummy), as most of a real table does: a clip
// matches each candidate of its own class with probability 1/2 (0.36 - 0.02..0.06) and each
// candidate of another class by chance with probability 1/6, sometimes more closely
// (0.36 - 0.02..0.08). Which candidates a clip matches is random, so a weight per candidate
// learns the training clips' chance matches; the class means keep what holds for every clip.
Table chance_matches(uint32_t seed) {
  const int S = 6, C = 3;
  Table t = with_candidates(S, C, 4);
  Lcg rng{seed};
  auto uniform = [&] { return rng.uniform(); };
  for (int s = 0; s < S; ++s)
    for (int c = 0; c < C; ++c)
      for (int j = 0; j < 2; ++j) {
        std::vector<double> row;
        for (size_t k = 0; k < t.cand_class.size(); ++k) {
          const bool own = t.cand_class[k] == c;
          const bool matched = uniform() < (own ? 0.5 : 1.0 / 6);
          const double depth = own ? 0.02 + 0.04 * uniform() : 0.02 + 0.06 * uniform();
          row.push_back(matched ? 0.36 - depth : 0.36);
        }
        t.D.push_back(row);
        t.clip_class.push_back(c);
        t.clip_subject.push_back(s);
      }
  return t;
}

// Leave-one-subject-out clips right with the given features, alpha chosen per fold.
int loso_correct(const Table& t, al::RidgeFeatures features) {
  int correct = 0;
  for (int held_out = 0; held_out < 6; ++held_out) {
    std::vector<int> rows, cands;
    split(t, held_out, &rows, &cands);
    const double alpha =
        al::choose_ridge_alpha(t.D, rows, t.clip_class, t.clip_subject, cands, t.cand_subject, 3,
                               {0.1, 0.3, 1, 3, 10}, 5, features, &t.cand_class);
    al::RidgeClassifier rc;
    EXPECT_TRUE(al::train_ridge(t.D, rows, t.clip_class, t.clip_subject, cands, t.cand_subject, 3,
                                alpha, &rc, features, &t.cand_class));
    for (size_t i = 0; i < t.D.size(); ++i)
      if (t.clip_subject[i] == held_out)
        correct += al::ridge_class(rc, t.D[i]) == t.clip_class[i];
  }
  return correct;
}

TEST(ActionMatchRidge, ClassMeansOutlastChanceMatches) {
  // Over five tables (180 held-out clips) the class means get 166 right, the distances
  // themselves 140 (weights on the training clips' chance matches). Floor 160: the tables are
  // fixed by their seeds; the margin only absorbs rounding that flips a near-tie or two.
  int by_class = 0, by_distance = 0;
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    const Table t = chance_matches(seed);
    by_class += loso_correct(t, al::RidgeFeatures::kClassMean);
    by_distance += loso_correct(t, al::RidgeFeatures::kDistance);
  }
  std::printf("class means %d/180, distances %d/180\n", by_class, by_distance);
  EXPECT_GE(by_class, 160);
  EXPECT_LT(by_distance, 160);
}

namespace {

// Six subjects, two classes, two clips per (subject, class), four candidates per (subject,
// class). What tells the classes apart is which candidates a clip matches, not how well it
// matches a class on average: a class-0 clip is at 0.3 from the even-numbered candidates of each
// class and 0.5 from the odd ones, a class-1 clip the reverse, so every class mean is 0.4 for
// both classes (plus jitter) and only a weight per candidate separates them.
Table per_candidate_signal(uint32_t seed) {
  const int S = 6, C = 2;
  Table t = with_candidates(S, C, 4);
  Lcg rng{seed};
  auto jitter = [&] { return 0.04 * rng.uniform(); }; // 0..0.04
  for (int s = 0; s < S; ++s)
    for (int c = 0; c < C; ++c)
      for (int j = 0; j < 2; ++j) {
        std::vector<double> row;
        for (size_t k = 0; k < t.cand_class.size(); ++k)
          row.push_back(((k % 2 == 0) == (c == 0) ? 0.3 : 0.5) + jitter());
        t.D.push_back(row);
        t.clip_class.push_back(c);
        t.clip_subject.push_back(s);
      }
  return t;
}

al::RidgeFeatures choose(const Table& t, int classes, const std::vector<int>& rows,
                         const std::vector<int>& cands, int* correct) {
  return al::choose_ridge_features(t.D, rows, t.clip_class, t.clip_subject, cands, t.cand_subject,
                                   classes, {0.1, 0.3, 1, 3, 10}, 5, t.cand_class, nullptr,
                                   correct);
}

} // namespace

TEST(ActionMatchRidge, ChoosesTheFeaturesThatGeneraliseAcrossSubjects) {
  // Chance matches: the class means win the inner leave-one-subject-out (as they win the outer
  // one, ClassMeansOutlastChanceMatches); per-candidate signal: the distances win. Both on the
  // five subjects of a fold (subject 0 held out), the choice never sees the held-out subject.
  int cm_counts[2] = {0, 0};
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    std::vector<int> rows, cands;
    const Table cm = chance_matches(seed);
    split(cm, 0, &rows, &cands);
    int correct[2];
    EXPECT_EQ(choose(cm, 3, rows, cands, correct), al::RidgeFeatures::kClassMean) << seed;
    EXPECT_GE(correct[1], correct[0]) << seed; // a tie goes to the class means
    cm_counts[0] += correct[0];
    cm_counts[1] += correct[1];
    const Table pc = per_candidate_signal(seed);
    rows.clear();
    cands.clear();
    split(pc, 0, &rows, &cands);
    EXPECT_EQ(choose(pc, 2, rows, cands, correct), al::RidgeFeatures::kDistance) << seed;
    // 20 training clips; the distances separate them all (margin 0.2 against 0.04 of jitter),
    // the class means, which carry no signal, at most by chance.
    EXPECT_EQ(correct[0], 20) << seed;
    EXPECT_LT(correct[1], 16) << seed;
    // The held-out subject's clips do not take part: reversing them changes nothing.
    Table flipped = pc;
    for (size_t i = 0; i < flipped.D.size(); ++i)
      if (flipped.clip_subject[i] == 0)
        flipped.clip_class[i] = 1 - flipped.clip_class[i];
    int again[2];
    EXPECT_EQ(choose(flipped, 2, rows, cands, again), al::RidgeFeatures::kDistance);
    EXPECT_EQ(again[0], correct[0]);
    EXPECT_EQ(again[1], correct[1]);
  }
  // Over the five tables (150 inner clips) the class means win clearly: 134 against 117; the
  // margin of 5 only absorbs rounding that flips a near-tie or two.
  std::printf("chance matches, inner leave-one-subject-out: distance %d/150, class-mean %d/150\n",
              cm_counts[0], cm_counts[1]);
  EXPECT_GT(cm_counts[1], cm_counts[0] + 5);
  // One subject: no fold, the class means.
  const Table one = per_candidate_signal(1);
  std::vector<int> rows, cands;
  for (size_t i = 0; i < one.D.size(); ++i)
    if (one.clip_subject[i] == 0)
      rows.push_back(static_cast<int>(i));
  for (size_t k = 0; k < one.cand_class.size(); ++k)
    if (one.cand_subject[k] != 0)
      cands.push_back(static_cast<int>(k));
  int correct[2];
  EXPECT_EQ(choose(one, 2, rows, cands, correct), al::RidgeFeatures::kClassMean);
  EXPECT_EQ(correct[0], 0);
  EXPECT_EQ(correct[1], 0);
}

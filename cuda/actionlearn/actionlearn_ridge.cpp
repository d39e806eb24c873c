// Ridge classifier over clip-to-candidate distances (actionmatch_ridge.hpp). Solved in the dual
// ((X X^T + lambda I) A = Y, W = X^T A): there are fewer training clips than candidates.
#include "actionlearn_ridge.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cvis::actionlearn {

namespace {

// Standardised training features, their Gram matrix and centred targets: what every alpha shares.
struct Prepared {
  size_t n = 0, f = 0;
  int classes = 0;
  RidgeClassifier base;        // cands, fill, mean, inv_sd, bias
  std::vector<double> X, K, Y; // n x f, n x n, n x classes (centred)
};

// Mean over the classes' candidates of x (one value per candidate; NaN: missing, left out), into
// out[class]; NaN for a class with no value.
void class_means(const double* x, const std::vector<int>& cand_class, int classes, double* out) {
  std::vector<double> sum(classes, 0.0);
  std::vector<int> count(classes, 0);
  for (size_t j = 0; j < cand_class.size(); ++j)
    if (!std::isnan(x[j])) {
      sum[cand_class[j]] += x[j];
      ++count[cand_class[j]];
    }
  for (int q = 0; q < classes; ++q)
    out[q] = count[q] ? sum[q] / count[q] : std::numeric_limits<double>::quiet_NaN();
}

bool prepare(const std::vector<std::vector<double>>& D, const std::vector<int>& rows,
             const std::vector<int>& clip_class, const std::vector<int>& clip_subject,
             const std::vector<int>& cands, const std::vector<int>& cand_subject, int classes,
             RidgeFeatures features, const std::vector<int>* cand_class, Prepared* p) {
  if (rows.empty() || cands.empty() || classes < 1)
    return false;
  const bool by_class = features == RidgeFeatures::kClassMean;
  const size_t n = rows.size(), nc = cands.size(), f = by_class ? size_t(classes) : nc;
  RidgeClassifier& b = p->base;
  b.classes = classes;
  b.features = features;
  b.cands = cands;
  b.cand_class.clear();
  if (by_class) {
    if (!cand_class)
      return false;
    std::vector<int> per_class(classes, 0);
    for (int c : cands) {
      const int q = (*cand_class)[c];
      if (q < 0 || q >= classes)
        return false;
      b.cand_class.push_back(q);
      ++per_class[q];
    }
    for (int k : per_class)
      if (k == 0)
        return false;
  }
  p->n = n;
  p->f = f;
  p->classes = classes;
  b.fill.assign(nc, 0.0);
  b.mean.assign(f, 0.0);
  b.inv_sd.assign(f, 0.0);
  // Per candidate: the distances, NaN where missing (own subject).
  std::vector<double> V(n * nc, 0.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (size_t j = 0; j < nc; ++j) {
    const int c = cands[j];
    // Fill for infeasible matches: the largest finite distance (no match is the worst match).
    double fill = -std::numeric_limits<double>::infinity();
    for (size_t r = 0; r < n; ++r)
      if (cand_subject[c] != clip_subject[rows[r]] && std::isfinite(D[rows[r]][c]))
        fill = std::max(fill, D[rows[r]][c]);
    if (!std::isfinite(fill))
      fill = 0;
    b.fill[j] = fill;
    for (size_t r = 0; r < n; ++r)
      V[r * nc + j] = cand_subject[c] == clip_subject[rows[r]] ? nan
                      : std::isfinite(D[rows[r]][c])           ? D[rows[r]][c]
                                                               : fill;
  }
  if (by_class) {
    p->X.assign(n * f, 0.0);
    for (size_t r = 0; r < n; ++r)
      class_means(&V[r * nc], b.cand_class, classes, &p->X[r * f]);
  } else {
    p->X = std::move(V);
  }
  for (size_t j = 0; j < f; ++j) {
    double sum = 0;
    size_t count = 0;
    for (size_t r = 0; r < n; ++r)
      if (!std::isnan(p->X[r * f + j])) {
        sum += p->X[r * f + j];
        ++count;
      }
    const double impute = count ? sum / static_cast<double>(count) : by_class ? 0.0 : b.fill[j];
    for (size_t r = 0; r < n; ++r)
      if (std::isnan(p->X[r * f + j]))
        p->X[r * f + j] = impute;
    double mean = 0, var = 0;
    for (size_t r = 0; r < n; ++r)
      mean += p->X[r * f + j];
    mean /= static_cast<double>(n);
    for (size_t r = 0; r < n; ++r)
      var += (p->X[r * f + j] - mean) * (p->X[r * f + j] - mean);
    const double sd = std::sqrt(var / static_cast<double>(n));
    b.mean[j] = mean;
    b.inv_sd[j] = sd > 1e-12 ? 1.0 / sd : 0.0;
    for (size_t r = 0; r < n; ++r)
      p->X[r * f + j] = (p->X[r * f + j] - mean) * b.inv_sd[j];
  }
  p->K.assign(n * n, 0.0);
  for (size_t r = 0; r < n; ++r) {
    const double* xr = &p->X[r * f];
    for (size_t s = 0; s <= r; ++s) {
      const double* xs = &p->X[s * f];
      double dot = 0;
      for (size_t j = 0; j < f; ++j)
        dot += xr[j] * xs[j];
      p->K[r * n + s] = p->K[s * n + r] = dot;
    }
  }
  b.bias.assign(classes, 0.0);
  for (size_t r = 0; r < n; ++r)
    for (int q = 0; q < classes; ++q)
      b.bias[q] += clip_class[rows[r]] == q ? 1.0 : -1.0;
  for (int q = 0; q < classes; ++q)
    b.bias[q] /= static_cast<double>(n);
  p->Y.assign(n * classes, 0.0);
  for (size_t r = 0; r < n; ++r)
    for (int q = 0; q < classes; ++q)
      p->Y[r * classes + q] = (clip_class[rows[r]] == q ? 1.0 : -1.0) - b.bias[q];
  return true;
}

// Solves (K + lambda I) A = Y by Cholesky (K is positive semi-definite, lambda > 0) and returns
// the classifier with W = X^T A.
RidgeClassifier solve(const Prepared& p, double alpha) {
  const size_t n = p.n, f = p.f;
  const int m = p.classes;
  const double lambda = alpha * static_cast<double>(f);
  std::vector<double> L(p.K);
  for (size_t i = 0; i < n; ++i)
    L[i * n + i] += lambda;
  for (size_t j = 0; j < n; ++j) {
    double d = L[j * n + j];
    for (size_t k = 0; k < j; ++k)
      d -= L[j * n + k] * L[j * n + k];
    d = std::sqrt(std::max(d, 1e-300));
    L[j * n + j] = d;
    for (size_t i = j + 1; i < n; ++i) {
      double s = L[i * n + j];
      const double* li = &L[i * n];
      const double* lj = &L[j * n];
      for (size_t k = 0; k < j; ++k)
        s -= li[k] * lj[k];
      L[i * n + j] = s / d;
    }
  }
  std::vector<double> A(p.Y);
  for (int q = 0; q < m; ++q) {
    for (size_t i = 0; i < n; ++i) { // L z = y
      double s = A[i * m + q];
      for (size_t k = 0; k < i; ++k)
        s -= L[i * n + k] * A[k * m + q];
      A[i * m + q] = s / L[i * n + i];
    }
    for (size_t i = n; i-- > 0;) { // L^T a = z
      double s = A[i * m + q];
      for (size_t k = i + 1; k < n; ++k)
        s -= L[k * n + i] * A[k * m + q];
      A[i * m + q] = s / L[i * n + i];
    }
  }
  RidgeClassifier rc = p.base;
  rc.weights.assign(f * m, 0.0);
  for (size_t r = 0; r < n; ++r)
    for (size_t j = 0; j < f; ++j) {
      const double x = p.X[r * f + j];
      for (int q = 0; q < m; ++q)
        rc.weights[j * m + q] += x * A[r * m + q];
    }
  return rc;
}

} // namespace

bool train_ridge(const std::vector<std::vector<double>>& clip_dist, const std::vector<int>& rows,
                 const std::vector<int>& clip_class, const std::vector<int>& clip_subject,
                 const std::vector<int>& cands, const std::vector<int>& cand_subject, int classes,
                 double alpha, RidgeClassifier* out, RidgeFeatures features,
                 const std::vector<int>* cand_class) {
  Prepared p;
  if (!(alpha > 0) || !prepare(clip_dist, rows, clip_class, clip_subject, cands, cand_subject,
                               classes, features, cand_class, &p))
    return false;
  *out = solve(p, alpha);
  return true;
}

const char* ridge_features_name(RidgeFeatures f) {
  return f == RidgeFeatures::kClassMean ? "class-mean" : "distance";
}

size_t RidgeClassifier::feature_count() const {
  return features == RidgeFeatures::kClassMean ? static_cast<size_t>(classes) : cands.size();
}

int ridge_class(const RidgeClassifier& rc, const std::vector<double>& dist,
                std::vector<double>* scores) {
  const int m = rc.classes;
  const size_t nc = rc.cands.size(), f = rc.feature_count();
  if (m < 1 || rc.weights.size() != f * static_cast<size_t>(m) || rc.fill.size() != nc ||
      (rc.features == RidgeFeatures::kClassMean && rc.cand_class.size() != nc))
    return -1;
  std::vector<double> x(nc);
  for (size_t j = 0; j < nc; ++j) {
    const double d = dist[rc.cands[j]];
    x[j] = std::isfinite(d) ? d : rc.fill[j];
  }
  if (rc.features == RidgeFeatures::kClassMean) {
    std::vector<double> means(m);
    class_means(x.data(), rc.cand_class, m, means.data());
    x = std::move(means);
  }
  std::vector<double> s(rc.bias);
  for (size_t j = 0; j < f; ++j) {
    const double z = (x[j] - rc.mean[j]) * rc.inv_sd[j];
    for (int q = 0; q < m; ++q)
      s[q] += z * rc.weights[j * m + q];
  }
  const int best = static_cast<int>(std::max_element(s.begin(), s.end()) - s.begin());
  if (scores)
    *scores = std::move(s);
  return best;
}

namespace {

// Correct clips per alpha when the subjects of `rows` (sorted) are dealt into min(groups,
// subjects) groups round-robin and each group is classified by a classifier trained on the other
// groups' clips over the other groups' subjects' candidates.
std::vector<int> grouped_correct(const std::vector<std::vector<double>>& clip_dist,
                                 const std::vector<int>& rows, const std::vector<int>& clip_class,
                                 const std::vector<int>& clip_subject,
                                 const std::vector<int>& cands,
                                 const std::vector<int>& cand_subject, int classes,
                                 const std::vector<double>& alphas, int groups,
                                 RidgeFeatures features, const std::vector<int>* cand_class) {
  std::vector<int> subjects;
  for (int r : rows)
    subjects.push_back(clip_subject[r]);
  std::sort(subjects.begin(), subjects.end());
  subjects.erase(std::unique(subjects.begin(), subjects.end()), subjects.end());
  const int G = std::max(1, std::min<int>(groups, static_cast<int>(subjects.size())));
  auto group_of = [&](int subject) {
    return static_cast<int>(std::lower_bound(subjects.begin(), subjects.end(), subject) -
                            subjects.begin()) %
           G;
  };
  std::vector<int> correct(alphas.size(), 0);
  for (int g = 0; G > 1 && g < G; ++g) {
    std::vector<int> tr, te, cc;
    for (int r : rows)
      (group_of(clip_subject[r]) == g ? te : tr).push_back(r);
    for (int c : cands)
      if (group_of(cand_subject[c]) != g)
        cc.push_back(c);
    Prepared p;
    if (!prepare(clip_dist, tr, clip_class, clip_subject, cc, cand_subject, classes, features,
                 cand_class, &p))
      continue;
    for (size_t a = 0; a < alphas.size(); ++a) {
      const RidgeClassifier rc = solve(p, alphas[a]);
      for (int r : te)
        correct[a] += ridge_class(rc, clip_dist[r]) == clip_class[r];
    }
  }
  return correct;
}

} // namespace

double choose_ridge_alpha(const std::vector<std::vector<double>>& clip_dist,
                          const std::vector<int>& rows, const std::vector<int>& clip_class,
                          const std::vector<int>& clip_subject, const std::vector<int>& cands,
                          const std::vector<int>& cand_subject, int classes,
                          const std::vector<double>& alphas, int groups, RidgeFeatures features,
                          const std::vector<int>* cand_class) {
  const std::vector<int> correct =
      grouped_correct(clip_dist, rows, clip_class, clip_subject, cands, cand_subject, classes,
                      alphas, groups, features, cand_class);
  size_t best = 0;
  for (size_t a = 1; a < alphas.size(); ++a)
    if (correct[a] > correct[best] || (correct[a] == correct[best] && alphas[a] > alphas[best]))
      best = a;
  return alphas[best];
}

RidgeFeatures
choose_ridge_features(const std::vector<std::vector<double>>& clip_dist,
                      const std::vector<int>& rows, const std::vector<int>& clip_class,
                      const std::vector<int>& clip_subject, const std::vector<int>& cands,
                      const std::vector<int>& cand_subject, int classes,
                      const std::vector<double>& alphas, int groups,
                      const std::vector<int>& cand_class, double* alpha, int* correct) {
  const RidgeFeatures kinds[2] = {RidgeFeatures::kDistance, RidgeFeatures::kClassMean};
  double kind_alpha[2];
  int ok[2];
  for (int k = 0; k < 2; ++k) {
    kind_alpha[k] =
        choose_ridge_alpha(clip_dist, rows, clip_class, clip_subject, cands, cand_subject, classes,
                           alphas, groups, kinds[k], &cand_class);
    // One group per subject: leave-one-subject-out at the alpha the kind would be trained with.
    ok[k] =
        grouped_correct(clip_dist, rows, clip_class, clip_subject, cands, cand_subject, classes,
                        {kind_alpha[k]}, std::numeric_limits<int>::max(), kinds[k], &cand_class)[0];
    if (correct)
      correct[k] = ok[k];
  }
  const int pick = ok[0] > ok[1] ? 0 : 1; // ties: the class means (six features, smoother)
  if (alpha)
    *alpha = kind_alpha[pick];
  return kinds[pick];
}

} // namespace cvis::actionlearn

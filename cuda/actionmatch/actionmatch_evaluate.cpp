// evaluate(): the energy of one assignment by the definitions (eq. 1-8), without the trellis: the
// oracle of the tests, and the paper's energy in double for tolerance checks.
#include <cmath>
#include <string>

#include "actionmatch.hpp"
#include "actionmatch_layout.hpp"
#include "actionmatch_terms.hpp"

namespace cvis::actionmatch {

namespace {

double wrap_double(double d) {
  if (d > terms::kPi)
    return d - terms::kTwoPi;
  if (d <= -terms::kPi)
    return d + terms::kTwoPi;
  return d;
}

double ray_double(const Graph& g, int from, int to) {
  return std::atan2(static_cast<double>(g.y[to]) - g.y[from],
                    static_cast<double>(g.x[to]) - g.x[from]);
}

} // namespace

Status evaluate(const Model& m, const Graph& scene, const Params& p, const std::vector<int32_t>& z,
                Evaluation* out) {
  CVIS_RETURN_IF_ERROR(validate(p));
  CVIS_RETURN_IF_ERROR(validate_model(m));
  CVIS_RETURN_IF_ERROR(validate_scene(scene));
  const Graph& g = m.graph;
  const int M = g.size(), S = scene.size();
  if (scene.dim != g.dim)
    return invalid_argument("scene dim differs from the model's");
  if (static_cast<int>(z.size()) != M) {
    return invalid_argument("assignment of " + std::to_string(z.size()) + " values for " +
                            std::to_string(M) + " model nodes");
  }
  for (int i = 0; i < M; ++i) {
    if (z[i] != kDummy && (z[i] < 0 || z[i] >= S)) {
      return invalid_argument("assignment of node " + std::to_string(i) + " (" +
                              std::to_string(z[i]) + ") is neither a scene node nor kDummy");
    }
  }
  *out = Evaluation();
  // Constraints of each hyperedge on its scene-node members (eq. 7, 8, 14; README.md).
  for (int i = 0; i < M; ++i) {
    if (z[i] == kDummy && !p.dummies)
      return Status::Ok();
  }
  for (int r = 2; r < M; ++r) {
    int frames[3], n = 0;
    for (int k = r - 2; k <= r; ++k) {
      if (z[k] != kDummy)
        frames[n++] = scene.frame[z[k]];
    }
    for (int k = 1; k < n; ++k) {
      if (p.causality == Causality::kNonDecreasing && frames[k] < frames[k - 1])
        return Status::Ok();
      if (p.causality == Causality::kIncreasing && frames[k] <= frames[k - 1])
        return Status::Ok();
    }
    int lo = 0, hi = 0;
    for (int k = 0; k < n; ++k) {
      if (k == 0 || frames[k] < lo)
        lo = frames[k];
      if (k == 0 || frames[k] > hi)
        hi = frames[k];
    }
    if (p.T > 0 && n > 0 && hi - lo >= p.T)
      return Status::Ok();
  }
  out->feasible = true;
  MatchResult& f = out->fixed;
  f.feasible = true;
  f.assignment = z;
  const detail::ModelRows rows = detail::model_rows(g);
  double e = 0;
  for (int i = 0; i < M; ++i) {
    if (z[i] == kDummy) {
      f.appearance_q += terms::dummy_q(p.lambda1, p.dummy_cost);
      e += p.lambda1 * p.dummy_cost;
      ++f.dummies;
      continue;
    }
    f.appearance_q += terms::unary_q(g.descriptor(i), scene.descriptor(z[i]), g.dim, p.lambda1);
    double s = 0;
    for (int k = 0; k < g.dim; ++k) {
      const double d = static_cast<double>(g.descriptor(i)[k]) - scene.descriptor(z[i])[k];
      s += d * d;
    }
    e += p.lambda1 * std::sqrt(s);
  }
  for (int r = 2; r < M; ++r) {
    const int a = z[r], b = z[r - 1], c = z[r - 2];
    if (a == kDummy || b == kDummy || c == kDummy)
      continue; // D = 0 with a dummy (README.md)
    const int sg1 = scene.frame[a] - scene.frame[b], sg2 = scene.frame[b] - scene.frame[c];
    const double smid = terms::angle_at(terms::ray(scene.x[b], scene.y[b], scene.x[a], scene.y[a]),
                                        terms::ray(scene.x[b], scene.y[b], scene.x[c], scene.y[c]));
    const double slast =
        terms::angle_at(terms::ray(scene.x[a], scene.y[a], scene.x[b], scene.y[b]),
                        terms::ray(scene.x[a], scene.y[a], scene.x[c], scene.y[c]));
    f.distortion_q += terms::distortion_q(rows.gap1[r], rows.gap2[r], rows.mid[r], rows.last[r],
                                          sg1, sg2, smid, slast, p.lambda2, p.lambda3);
    // The paper's D in double with the math library's atan2 (no rounding of the terms).
    const double dt = std::abs(rows.gap1[r] - sg1) + std::abs(rows.gap2[r] - sg2);
    const double mmid = wrap_double(ray_double(g, r - 1, r - 2) - ray_double(g, r - 1, r));
    const double mlast = wrap_double(ray_double(g, r, r - 2) - ray_double(g, r, r - 1));
    const double dmid = wrap_double(ray_double(scene, b, c) - ray_double(scene, b, a));
    const double dlast = wrap_double(ray_double(scene, a, c) - ray_double(scene, a, b));
    const double e1 = wrap_double(mmid - dmid), e2 = wrap_double(mlast - dlast);
    e += p.lambda2 * (dt + p.lambda3 * std::sqrt(e1 * e1 + e2 * e2));
  }
  f.energy_q = f.appearance_q + f.distortion_q;
  out->energy_double = e;
  return Status::Ok();
}

} // namespace cvis::actionmatch

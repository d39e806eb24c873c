// The classifier section of the dictionary file, versions 3 and 4 (FORMAT.md).
#include "actionlearn_dict_ridge.hpp"

#include <cmath>
#include <map>
#include <set>

namespace cvis::actionlearn::detail {

namespace {

constexpr uint32_t kClassifierRidge = 1;
constexpr uint32_t kMaxClasses = 255;
constexpr double kMaxAlpha = 1e6;

bool printable(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f)
      return false;
  return true;
}

bool all_finite(const std::vector<double>& v) {
  for (double x : v)
    if (!std::isfinite(x))
      return false;
  return true;
}

} // namespace

Status validate_ridge(const Dictionary& d) {
  const RidgeClassifier& r = d.ridge;
  if (!d.has_ridge()) {
    if (!d.classes.empty() || !d.prototypes.empty() || !r.cands.empty() || !r.weights.empty())
      return invalid_argument("classifier fields without a ridge classifier (classes 0)");
    return Status::Ok();
  }
  const size_t M = d.models.size(), C = static_cast<size_t>(r.classes);
  if (r.classes < 1 || C > kMaxClasses)
    return invalid_argument("ridge: " + std::to_string(r.classes) +
                            " classes, out of range 1..255");
  if (d.classes.size() != C)
    return invalid_argument("ridge: " + std::to_string(d.classes.size()) + " class names for " +
                            std::to_string(C) + " classes");
  std::set<std::string> names;
  for (const std::string& c : d.classes) {
    if (c.empty() || c.size() > 255 || !printable(c))
      return invalid_argument("ridge: class name '" + c +
                              "' (1..255 bytes, no control characters)");
    if (!names.insert(c).second)
      return invalid_argument("ridge: class '" + c + "' named twice");
  }
  for (size_t m = 0; m < M; ++m)
    if (!names.count(d.models[m].label))
      return invalid_argument("ridge: model " + std::to_string(m) + " ('" + d.models[m].label +
                              "') is of no class of the classifier");
  if (r.features != RidgeFeatures::kDistance && r.features != RidgeFeatures::kClassMean)
    return invalid_argument("ridge: unknown features");
  if (r.cands.size() != M)
    return invalid_argument("ridge: " + std::to_string(r.cands.size()) + " candidates for " +
                            std::to_string(M) + " models (one per model)");
  for (size_t m = 0; m < M; ++m)
    if (r.cands[m] != static_cast<int>(m))
      return invalid_argument("ridge: candidate " + std::to_string(m) + " is model " +
                              std::to_string(r.cands[m]) +
                              " (the candidates are the models in order)");
  if (r.features == RidgeFeatures::kClassMean) {
    if (r.cand_class.size() != M)
      return invalid_argument("ridge: class means need the class of every model");
    std::vector<int> per_class(C, 0);
    for (size_t m = 0; m < M; ++m) {
      const int q = r.cand_class[m];
      if (q < 0 || static_cast<size_t>(q) >= C || d.classes[q] != d.models[m].label)
        return invalid_argument("ridge: model " + std::to_string(m) +
                                "'s class differs from its label");
      ++per_class[q];
    }
    for (size_t q = 0; q < C; ++q)
      if (per_class[q] == 0)
        return invalid_argument("ridge: class '" + d.classes[q] + "' has no model to average");
  } else if (!r.cand_class.empty()) {
    return invalid_argument("ridge: model classes without class-mean features");
  }
  const size_t F = r.feature_count();
  if (r.fill.size() != M || r.mean.size() != F || r.inv_sd.size() != F ||
      r.weights.size() != F * C || r.bias.size() != C)
    return invalid_argument("ridge: array sizes differ from features x classes");
  if (!all_finite(r.fill) || !all_finite(r.mean) || !all_finite(r.inv_sd) ||
      !all_finite(r.weights) || !all_finite(r.bias))
    return invalid_argument("ridge: a value is not finite");
  for (double s : r.inv_sd)
    if (s < 0)
      return invalid_argument("ridge: negative inverse deviation");
  if (!(d.ridge_alpha > 0 && d.ridge_alpha <= kMaxAlpha))
    return invalid_argument("ridge: alpha " + std::to_string(d.ridge_alpha) +
                            " out of range (0, 1e6]");
  if (d.ridge_distance != actionmatch::Distance::kEnergy &&
      d.ridge_distance != actionmatch::Distance::kAppearance)
    return invalid_argument("ridge: unknown distance");
  if (d.prototypes.empty())
    return invalid_argument("ridge: no prototypes");
  for (size_t i = 0; i < d.prototypes.size(); ++i) {
    const int p = d.prototypes[i];
    if (p < 0 || static_cast<size_t>(p) >= M || (i > 0 && p <= d.prototypes[i - 1]))
      return invalid_argument("ridge: prototype " + std::to_string(i) + " (model " +
                              std::to_string(p) + ") out of range or not increasing");
  }
  return Status::Ok();
}

void write_ridge(const Dictionary& d, uint32_t version, io::Writer* w) {
  const RidgeClassifier& r = d.ridge;
  const size_t C = static_cast<size_t>(r.classes);
  w->u32(kClassifierRidge);
  if (version >= 4)
    w->u32(static_cast<uint32_t>(r.features));
  w->u32(static_cast<uint32_t>(d.ridge_distance));
  w->f64(d.ridge_alpha);
  w->u32(static_cast<uint32_t>(C));
  for (const std::string& c : d.classes) {
    w->u32(static_cast<uint32_t>(c.size()));
    w->bytes(c);
  }
  for (double b : r.bias)
    w->f64(b);
  if (r.features == RidgeFeatures::kClassMean)
    for (double f : r.fill)
      w->f64(f);
  for (size_t j = 0; j < r.feature_count(); ++j) {
    if (r.features == RidgeFeatures::kDistance)
      w->f64(r.fill[j]);
    w->f64(r.mean[j]);
    w->f64(r.inv_sd[j]);
    for (size_t q = 0; q < C; ++q)
      w->f64(r.weights[j * C + q]);
  }
  w->u32(static_cast<uint32_t>(d.prototypes.size()));
  for (int p : d.prototypes)
    w->u32(static_cast<uint32_t>(p));
}

Status parse_ridge(io::Reader* rd, uint32_t version, Dictionary* d) {
  CVIS_RETURN_IF_ERROR(rd->need(version >= 4 ? 24 : 20, "classifier header"));
  const uint32_t kind = rd->u32();
  if (kind != kClassifierRidge)
    return io_error("classifier " + std::to_string(kind) + " unknown (1: ridge)");
  RidgeFeatures features = RidgeFeatures::kDistance;
  if (version >= 4) {
    const uint32_t f = rd->u32();
    if (f > 1)
      return io_error("classifier: features " + std::to_string(f) + " unknown (0..1)");
    features = static_cast<RidgeFeatures>(f);
  }
  const uint32_t distance = rd->u32();
  if (distance > 1)
    return io_error("classifier: distance " + std::to_string(distance) + " unknown (0..1)");
  d->ridge_distance = static_cast<actionmatch::Distance>(distance);
  d->ridge_alpha = rd->f64();
  const uint32_t C = rd->u32();
  if (C < 1 || C > kMaxClasses)
    return io_error("classifier: " + std::to_string(C) + " classes, out of range 1..255");
  d->classes.clear();
  for (uint32_t q = 0; q < C; ++q) {
    const std::string who = "classifier: class " + std::to_string(q);
    CVIS_RETURN_IF_ERROR(rd->need(4, who + " name length"));
    const uint32_t len = rd->u32();
    if (len < 1 || len > 255)
      return io_error(who + ": name length " + std::to_string(len) + " out of range 1..255");
    CVIS_RETURN_IF_ERROR(rd->need(len, who + " name"));
    d->classes.push_back(rd->str(len));
  }
  const size_t M = d->models.size();
  CVIS_RETURN_IF_ERROR(rd->need(8 * size_t{C}, "classifier: biases"));
  RidgeClassifier& r = d->ridge;
  r = RidgeClassifier();
  r.classes = static_cast<int>(C);
  r.features = features;
  for (uint32_t q = 0; q < C; ++q)
    r.bias.push_back(rd->f64());
  for (size_t m = 0; m < M; ++m)
    r.cands.push_back(static_cast<int>(m));
  if (features == RidgeFeatures::kClassMean) {
    CVIS_RETURN_IF_ERROR(rd->need(8 * M, "classifier: " + std::to_string(M) + " model fills"));
    for (size_t m = 0; m < M; ++m)
      r.fill.push_back(rd->f64());
    // The class of each model: its label's place among the class names (validated later).
    std::map<std::string, int> index;
    for (uint32_t q = 0; q < C; ++q)
      index.emplace(d->classes[q], static_cast<int>(q));
    for (const actionmatch::Model& model : d->models) {
      const auto it = index.find(model.label);
      r.cand_class.push_back(it == index.end() ? -1 : it->second);
    }
  }
  const size_t F = r.feature_count();
  const bool per_model = features == RidgeFeatures::kDistance;
  CVIS_RETURN_IF_ERROR(rd->need(F * 8 * ((per_model ? 3 : 2) + static_cast<size_t>(C)),
                                "classifier: " + std::to_string(F) + " feature weights"));
  for (size_t j = 0; j < F; ++j) {
    if (per_model)
      r.fill.push_back(rd->f64());
    r.mean.push_back(rd->f64());
    r.inv_sd.push_back(rd->f64());
    for (uint32_t q = 0; q < C; ++q)
      r.weights.push_back(rd->f64());
  }
  CVIS_RETURN_IF_ERROR(rd->need(4, "classifier: prototype count"));
  const uint32_t P = rd->u32();
  if (P < 1 || P > M)
    return io_error("classifier: " + std::to_string(P) + " prototypes, out of range 1.." +
                    std::to_string(M));
  CVIS_RETURN_IF_ERROR(rd->need(size_t{4} * P, "classifier: prototypes"));
  d->prototypes.clear();
  for (uint32_t i = 0; i < P; ++i)
    d->prototypes.push_back(static_cast<int>(rd->u32()));
  return Status::Ok();
}

} // namespace cvis::actionlearn::detail

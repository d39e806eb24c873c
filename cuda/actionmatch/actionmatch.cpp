// Validation, distances, the factory, and the preparation shared by both backends.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "actionmatch_internal.hpp"
#include "actionmatch_terms.hpp"

namespace cvis::actionmatch {

namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

Status check_range(const char* name, double v, double lo, double hi) {
  if (!std::isfinite(v) || v < lo || v > hi) {
    return invalid_argument(std::string(name) + " " + num(v) + " out of range " + num(lo) + ".." +
                            num(hi));
  }
  return Status::Ok();
}

// Text fields: printable (no control characters), bounded length.
Status check_text(const std::string& what, const std::string& s, size_t min_len, size_t max_len) {
  if (s.size() < min_len || s.size() > max_len) {
    return invalid_argument(what + " of " + std::to_string(s.size()) + " bytes (allowed " +
                            std::to_string(min_len) + ".." + std::to_string(max_len) + ")");
  }
  for (unsigned char ch : s) {
    if (ch < 0x20 || ch == 0x7f)
      return invalid_argument(what + " contains a control character");
  }
  return Status::Ok();
}

// Sizes, positions, descriptors and frame limits common to models and scenes.
Status check_graph(const std::string& who, const Graph& g) {
  if (g.dim < 1 || g.dim > kMaxDim) {
    return invalid_argument(who + "dim " + std::to_string(g.dim) + " out of range 1.." +
                            std::to_string(kMaxDim));
  }
  const size_t n = g.frame.size();
  if (g.x.size() != n || g.y.size() != n || g.desc.size() != n * static_cast<size_t>(g.dim)) {
    return invalid_argument(who + "array sizes do not match (" + std::to_string(n) + " frames, " +
                            std::to_string(g.x.size()) + " x, " + std::to_string(g.y.size()) +
                            " y, " + std::to_string(g.desc.size()) + " descriptor values of dim " +
                            std::to_string(g.dim) + ")");
  }
  for (size_t i = 0; i < n; ++i) {
    // Messages are built only on failure: this runs for every scene block of a stream.
    const auto node = [&] { return who + "node " + std::to_string(i) + ": "; };
    if (g.frame[i] < -kMaxFrame || g.frame[i] > kMaxFrame) {
      return invalid_argument(node() + "frame " + std::to_string(g.frame[i]) + " beyond +-" +
                              std::to_string(kMaxFrame));
    }
    if (!(std::fabs(g.x[i]) <= kMaxCoordinate) || !(std::fabs(g.y[i]) <= kMaxCoordinate)) {
      return invalid_argument(node() + "position (" + num(g.x[i]) + ", " + num(g.y[i]) +
                              ") not finite or beyond +-" + num(kMaxCoordinate));
    }
  }
  // Descriptors: one pass over all values, the culprit found after. |v| <= max exactly when the
  // bit pattern of |v| (sign cleared, a non-negative int32) is <= max's, since non-negative floats
  // order as their bit patterns and infinity and NaN have larger ones than every finite value.
  // Eight flags of fixed count, so that the compiler can use vector compares (signed 32-bit
  // compares exist in every x86-64 and AArch64 vector set, unsigned maxima not in SSE2): this pass
  // over every scene block's values (9,720 for a 60-node block) took about 40% of a small match()
  // call's validation and layouts (callgrind: about 8 instructions per value as a fabs-and-compare
  // chain, 1.8 now).
  const float* dv = g.desc.data();
  const size_t nv = g.desc.size();
  const auto abs_bits = [](const float* v) {
    uint32_t b;
    std::memcpy(&b, v, sizeof b);
    return static_cast<int32_t>(b & 0x7FFFFFFFu);
  };
  const float limit = static_cast<float>(kMaxDescriptorValue);
  const int32_t lim = abs_bits(&limit);
  int32_t over[8] = {};
  size_t k8 = 0;
  for (; k8 + 8 <= nv; k8 += 8) {
    for (int j = 0; j < 8; ++j)
      over[j] |= abs_bits(dv + k8 + j) > lim;
  }
  for (; k8 < nv; ++k8)
    over[0] |= abs_bits(dv + k8) > lim;
  bool ok = true;
  for (int j = 0; j < 8; ++j)
    ok &= over[j] == 0;
  for (size_t i = 0; !ok && i < n; ++i) {
    const float* d = g.descriptor(static_cast<int>(i));
    for (int k = 0; k < g.dim; ++k) {
      if (!(std::fabs(d[k]) <= static_cast<float>(kMaxDescriptorValue))) {
        return invalid_argument(who + "node " + std::to_string(i) + ": descriptor value " +
                                std::to_string(k) + " (" + num(d[k]) + ") not finite or beyond +-" +
                                num(kMaxDescriptorValue));
      }
    }
  }
  if (n > 0 && static_cast<int64_t>(g.frame[n - 1]) - g.frame[0] > kMaxFrameSpan) {
    return invalid_argument(who + "frames span " +
                            std::to_string(static_cast<int64_t>(g.frame[n - 1]) - g.frame[0]) +
                            " frames (limit " + std::to_string(kMaxFrameSpan) + ")");
  }
  return Status::Ok();
}

std::string model_name(const Model& m) {
  return "model '" + m.label + "': ";
}

} // namespace

void Graph::add(int32_t f, float px, float py, const float* d) {
  frame.push_back(f);
  x.push_back(px);
  y.push_back(py);
  desc.insert(desc.end(), d, d + dim);
}

const char* causality_name(Causality c) {
  switch (c) {
  case Causality::kNone:
    return "none";
  case Causality::kNonDecreasing:
    return "non-decreasing";
  case Causality::kIncreasing:
    return "increasing";
  }
  return "?";
}

bool parse_causality(const std::string& s, Causality* out) {
  for (Causality c : {Causality::kNone, Causality::kNonDecreasing, Causality::kIncreasing}) {
    if (s == causality_name(c)) {
      *out = c;
      return true;
    }
  }
  return false;
}

Status validate(const Params& p) {
  const int c = static_cast<int>(p.causality);
  if (c < 0 || c > 2)
    return invalid_argument("causality " + std::to_string(c) + " unknown");
  CVIS_RETURN_IF_ERROR(check_range("lambda1", p.lambda1, 0, 100));
  CVIS_RETURN_IF_ERROR(check_range("lambda2", p.lambda2, 0, 100));
  CVIS_RETURN_IF_ERROR(check_range("lambda3", p.lambda3, 0, 1000));
  CVIS_RETURN_IF_ERROR(check_range("dummy cost W_d", p.dummy_cost, 0, 1e6));
  if (p.T < 0 || p.T > kMaxFrameSpan) {
    return invalid_argument("T " + std::to_string(p.T) + " out of range 0.." +
                            std::to_string(kMaxFrameSpan) + " (0 = no limit)");
  }
  return Status::Ok();
}

Status validate_model(const Model& m) {
  CVIS_RETURN_IF_ERROR(check_text("model label", m.label, 1, 255));
  const std::string who = model_name(m);
  CVIS_RETURN_IF_ERROR(check_text(who + "source", m.source, 0, 1023));
  const int M = m.graph.size();
  if (M < kMinModelNodes || M > kMaxModelNodes) {
    return invalid_argument(who + std::to_string(M) + " nodes (allowed " +
                            std::to_string(kMinModelNodes) + ".." + std::to_string(kMaxModelNodes) +
                            ")");
  }
  CVIS_RETURN_IF_ERROR(check_graph(who, m.graph));
  for (int i = 1; i < M; ++i) {
    if (m.graph.frame[i] <= m.graph.frame[i - 1]) {
      return invalid_argument(who + "node " + std::to_string(i) + ": frame " +
                              std::to_string(m.graph.frame[i]) + " not after frame " +
                              std::to_string(m.graph.frame[i - 1]) + " of node " +
                              std::to_string(i - 1) + " (one node per model frame)");
    }
  }
  return Status::Ok();
}

Status validate_scene(const Graph& g) {
  if (g.size() > kMaxSceneNodes) {
    return invalid_argument("scene of " + std::to_string(g.size()) + " nodes (limit " +
                            std::to_string(kMaxSceneNodes) + ")");
  }
  CVIS_RETURN_IF_ERROR(check_graph("scene: ", g));
  for (int i = 1; i < g.size(); ++i) {
    if (g.frame[i] < g.frame[i - 1]) {
      return invalid_argument("scene: node " + std::to_string(i) + ": frame " +
                              std::to_string(g.frame[i]) + " before frame " +
                              std::to_string(g.frame[i - 1]) + " of node " + std::to_string(i - 1) +
                              " (nodes must be sorted by frame)");
    }
  }
  return Status::Ok();
}

bool MatchResult::operator==(const MatchResult& o) const {
  return feasible == o.feasible && energy_q == o.energy_q && appearance_q == o.appearance_q &&
         distortion_q == o.distortion_q && dummies == o.dummies && assignment == o.assignment;
}

const char* distance_name(Distance d) {
  return d == Distance::kAppearance ? "appearance" : "energy";
}

bool parse_distance(const std::string& s, Distance* out) {
  if (s == "energy")
    *out = Distance::kEnergy;
  else if (s == "appearance")
    *out = Distance::kAppearance;
  else
    return false;
  return true;
}

double distance(const MatchResult& r, Distance d) {
  if (!r.feasible)
    return std::numeric_limits<double>::infinity();
  return d == Distance::kAppearance ? r.appearance() : r.energy();
}

Status validate(const CudaOptions& o) {
  if (o.max_blocks_per_pair < 1 || o.max_blocks_per_pair > kMaxBlocksPerPair)
    return invalid_argument("max_blocks_per_pair " + std::to_string(o.max_blocks_per_pair) +
                            " not in 1.." + std::to_string(kMaxBlocksPerPair));
  if (o.max_angle_entries < 0)
    return invalid_argument("max_angle_entries " + std::to_string(o.max_angle_entries) +
                            " is negative");
  return Status::Ok();
}

std::unique_ptr<Matcher> make_matcher(Backend backend, Status* status, int cpu_threads,
                                      const CudaOptions& cuda) {
  *status = validate(cuda);
  if (!status->ok())
    return nullptr;
  if (backend == Backend::kCpu)
    return detail::make_cpu_matcher(cpu_threads);
  if (backend == Backend::kCuda) {
#if defined(CVIS_HAVE_CUDA)
    return detail::make_cuda_matcher(cuda);
#else
    *status = Status(StatusCode::kNoDevice, "actionmatch: this build has no CUDA backend");
    return nullptr;
#endif
  }
  *status = invalid_argument("actionmatch: resolve the backend (auto) before make_matcher");
  return nullptr;
}

namespace detail {

Status prepare(const Params& p, const std::vector<Model>& models, Prepared* out) {
  CVIS_RETURN_IF_ERROR(validate(p));
  if (models.empty())
    return invalid_argument("no models");
  Prepared P;
  P.params = p;
  P.dim = models[0].graph.dim;
  for (const Model& m : models) {
    CVIS_RETURN_IF_ERROR(validate_model(m));
    if (m.graph.dim != P.dim) {
      return invalid_argument(model_name(m) + "dim " + std::to_string(m.graph.dim) +
                              " differs from the first model's " + std::to_string(P.dim));
    }
    P.rows.push_back(model_rows(m.graph));
    P.max_nodes = std::max(P.max_nodes, m.graph.size());
    P.model_rows += m.graph.size() - 2;
  }
  P.models = models;
  *out = std::move(P);
  return Status::Ok();
}

std::string block_prefix(int block, int count) {
  return count > 1 ? "block " + std::to_string(block) + ": " : std::string();
}

Status prepare_scenes(const Prepared& P, const Graph* scenes, int count,
                      std::vector<SceneLayout>* layouts, MatchStats* stats) {
  if (P.models.empty())
    return invalid_argument("match before configure (no models)");
  if (count < 0 || (count > 0 && !scenes))
    return invalid_argument("bad scene block array");
  layouts->resize(count);
  MatchStats st;
  const int max_nodes = P.max_nodes;
  const int64_t nm = static_cast<int64_t>(P.models.size());
  // Messages (and their "block s: " prefix) are built only on failure: this runs per call.
  for (int s = 0; s < count; ++s) {
    Status v = validate_scene(scenes[s]);
    if (!v.ok())
      return invalid_argument(block_prefix(s, count) + v.message());
    if (scenes[s].dim != P.dim) {
      return invalid_argument(block_prefix(s, count) + "scene descriptors of dim " +
                              std::to_string(scenes[s].dim) + ", models of dim " +
                              std::to_string(P.dim));
    }
    v = scene_layout(scenes[s], P.params, &(*layouts)[s]);
    if (!v.ok())
      return invalid_argument(block_prefix(s, count) + v.message());
    const SceneLayout& L = (*layouts)[s];
    if (static_cast<int64_t>(max_nodes - 2) * L.cells > kMaxTrellisCells) {
      return invalid_argument(block_prefix(s, count) + "trellis of " +
                              std::to_string(static_cast<int64_t>(max_nodes - 2) * L.cells) +
                              " cells for one model (limit " + std::to_string(kMaxTrellisCells) +
                              "): use a smaller T, scene block or model");
    }
    // The sums over the models of (M - 2) x cells and (M - 2) x evaluations, as one product each
    // (integers: the same values).
    st.pairs += nm;
    st.cells += P.model_rows * L.cells;
    st.evaluations += P.model_rows * L.evaluations;
  }
  if (stats)
    *stats = st;
  return Status::Ok();
}

} // namespace detail

} // namespace cvis::actionmatch

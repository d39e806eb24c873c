// Generators and oracles of actionmatch_test_util.hpp.
#include "actionmatch_test_util.hpp"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "actionmatch_terms.hpp"
#include "test_images.hpp"

namespace cvis::actionmatch::test {

namespace {

float descriptor_value(Rng& rng, int levels) {
  if (levels > 0)
    return static_cast<float>(rng() % (levels + 1)) / static_cast<float>(levels);
  return std::uniform_real_distribution<float>(0.f, 1.f)(rng);
}

float coordinate(Rng& rng, int grid) {
  if (grid > 0)
    return static_cast<float>(rng() % grid);
  return std::uniform_real_distribution<float>(0.f, 160.f)(rng);
}

// Tabulated terms of one (model, scene) pair: index S is the dummy.
struct Terms {
  int M, S;
  std::vector<int64_t> u;  // M x (S + 1)
  std::vector<int64_t> d;  // M x (S + 1)^3, -1: hyperedge infeasible
  std::vector<uint8_t> ok; // M x (S + 1)^3 (r >= 2)

  int64_t U(int r, int a) const { return u[static_cast<size_t>(r) * (S + 1) + a]; }
  size_t idx(int r, int a, int b, int c) const {
    const size_t n = S + 1;
    return ((static_cast<size_t>(r) * n + a) * n + b) * n + c;
  }
};

Terms tabulate(const Model& m, const Graph& scene, const Params& p) {
  const Graph& g = m.graph;
  Terms t;
  t.M = g.size();
  t.S = scene.size();
  const int M = t.M, S = t.S;
  t.u.resize(static_cast<size_t>(M) * (S + 1));
  for (int r = 0; r < M; ++r) {
    for (int a = 0; a < S; ++a) {
      t.u[static_cast<size_t>(r) * (S + 1) + a] =
          terms::unary_q(g.descriptor(r), scene.descriptor(a), g.dim, p.lambda1);
    }
    t.u[static_cast<size_t>(r) * (S + 1) + S] = terms::dummy_q(p.lambda1, p.dummy_cost);
  }
  const size_t n = S + 1;
  t.d.assign(static_cast<size_t>(M) * n * n * n, 0);
  t.ok.assign(t.d.size(), 0);
  for (int r = 2; r < M; ++r) {
    const auto ray = [&](const Graph& G, int from, int to) {
      return terms::ray(G.x[from], G.y[from], G.x[to], G.y[to]);
    };
    const double mmid = terms::angle_at(ray(g, r - 1, r), ray(g, r - 1, r - 2));
    const double mlast = terms::angle_at(ray(g, r, r - 1), ray(g, r, r - 2));
    for (int a = 0; a <= S; ++a) {
      for (int b = 0; b <= S; ++b) {
        for (int c = 0; c <= S; ++c) {
          const size_t k = t.idx(r, a, b, c);
          const int za = a == S ? kDummy : a, zb = b == S ? kDummy : b, zc = c == S ? kDummy : c;
          if ((a == S || b == S || c == S) && !p.dummies)
            continue;
          t.ok[k] = hyperedge_ok(scene, p, za, zb, zc);
          if (!t.ok[k] || a == S || b == S || c == S)
            continue;
          t.d[k] = terms::distortion_q(
              g.frame[r] - g.frame[r - 1], g.frame[r - 1] - g.frame[r - 2], mmid, mlast,
              scene.frame[a] - scene.frame[b], scene.frame[b] - scene.frame[c],
              terms::angle_at(ray(scene, b, a), ray(scene, b, c)),
              terms::angle_at(ray(scene, a, b), ray(scene, a, c)), p.lambda2, p.lambda3);
        }
      }
    }
  }
  return t;
}

MatchResult result_of(const Terms& t, const std::vector<int>& z, int64_t energy) {
  MatchResult r;
  if (energy == terms::kInf)
    return r;
  r.feasible = true;
  r.energy_q = energy;
  r.assignment.resize(t.M);
  for (int i = 0; i < t.M; ++i) {
    r.appearance_q += t.U(i, z[i]);
    if (i >= 2)
      r.distortion_q += t.d[t.idx(i, z[i], z[i - 1], z[i - 2])];
    r.dummies += z[i] == t.S;
    r.assignment[i] = z[i] == t.S ? kDummy : z[i];
  }
  return r;
}

} // namespace

Graph random_graph(Rng& rng, const GraphSpec& spec, bool model, int first_frame) {
  Graph g;
  g.dim = spec.dim;
  int f = first_frame;
  std::vector<float> d(spec.dim);
  for (int i = 0; i < spec.nodes; ++i) {
    if (i > 0) {
      const int lo = model ? 1 : 0, hi = std::max(lo, spec.max_gap);
      f += lo + static_cast<int>(rng() % (hi - lo + 1));
    }
    for (float& v : d)
      v = descriptor_value(rng, spec.levels);
    g.add(f, coordinate(rng, spec.grid), coordinate(rng, spec.grid), d.data());
  }
  if (!model && spec.duplicates > 0 && spec.nodes > 0) {
    Graph h;
    h.dim = g.dim;
    std::vector<int> order(g.size());
    std::iota(order.begin(), order.end(), 0);
    for (int k = 0; k < spec.duplicates; ++k)
      order.push_back(static_cast<int>(rng() % g.size()));
    std::stable_sort(order.begin(), order.end());
    for (int n : order)
      h.add(g.frame[n], g.x[n], g.y[n], g.descriptor(n));
    g = std::move(h);
  }
  return g;
}

Model random_model(Rng& rng, const GraphSpec& spec, const std::string& label) {
  Model m;
  m.label = label;
  m.source = "generated";
  m.graph = random_graph(rng, spec, true, static_cast<int>(rng() % 5));
  return m;
}

Graph scene_with_copy(Rng& rng, const Model& m, int clutter, int shift, float dx, float dy) {
  const Graph& g = m.graph;
  struct Node {
    int32_t frame;
    float x, y;
    std::vector<float> d;
  };
  std::vector<Node> nodes;
  for (int i = 0; i < g.size(); ++i) {
    nodes.push_back({g.frame[i] + shift, g.x[i] + dx, g.y[i] + dy,
                     std::vector<float>(g.descriptor(i), g.descriptor(i) + g.dim)});
  }
  const int f0 = g.frame[0] + shift, span = g.frame[g.size() - 1] - g.frame[0] + 1;
  for (int k = 0; k < clutter; ++k) {
    Node n{f0 + static_cast<int>(rng() % span), coordinate(rng, 0), coordinate(rng, 0),
           std::vector<float>(g.dim)};
    for (float& v : n.d)
      v = descriptor_value(rng, 0);
    nodes.push_back(std::move(n));
  }
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](const Node& a, const Node& b) { return a.frame < b.frame; });
  Graph s;
  s.dim = g.dim;
  for (const Node& n : nodes)
    s.add(n.frame, n.x, n.y, n.d.data());
  return s;
}

Params random_params(Rng& rng) {
  Params p;
  p.causality = static_cast<Causality>(rng() % 3);
  p.dummies = rng() % 2;
  p.T = static_cast<int>(rng() % 5); // 0 = no limit
  const double w[] = {0.0, 0.2, 0.6, 1.0, 2.5};
  p.lambda1 = w[1 + rng() % 4];
  p.lambda2 = w[rng() % 5];
  p.lambda3 = rng() % 4 == 0 ? 0.0 : 5.0;
  p.dummy_cost = 0.25 * static_cast<double>(rng() % 8);
  return p;
}

bool hyperedge_ok(const Graph& scene, const Params& p, int a, int b, int c) {
  std::vector<int> f; // frames of the scene-node members in model order (c, b, a)
  for (int z : {c, b, a}) {
    if (z != kDummy)
      f.push_back(scene.frame[z]);
  }
  for (size_t k = 1; k < f.size(); ++k) {
    if (p.causality == Causality::kNonDecreasing && f[k] < f[k - 1])
      return false;
    if (p.causality == Causality::kIncreasing && f[k] <= f[k - 1])
      return false;
  }
  if (p.T > 0 && !f.empty()) {
    const auto [lo, hi] = std::minmax_element(f.begin(), f.end());
    if (*hi - *lo >= p.T)
      return false;
  }
  return true;
}

MatchResult brute_force(const Model& m, const Graph& scene, const Params& p, int64_t* optima) {
  const int M = m.graph.size(), S = scene.size();
  if (M > 6 || S > 12)
    throw std::invalid_argument("brute_force: problem too large");
  const Terms t = tabulate(m, scene, p);
  const int top = p.dummies ? S : S - 1; // largest digit (S = dummy)
  if (optima)
    *optima = 0;
  if (top < 0)
    return MatchResult();
  std::vector<int> z(M, 0), best_z;
  int64_t best = terms::kInf, count = 0;
  for (;;) {
    bool ok = true;
    int64_t e = 0;
    for (int i = 0; i < M && ok; ++i) {
      e += t.U(i, z[i]);
      if (i >= 2) {
        const size_t k = t.idx(i, z[i], z[i - 1], z[i - 2]);
        ok = t.ok[k];
        e += t.d[k];
      }
    }
    if (ok && e < best) { // enumeration in lexicographic order: the first minimum is kept
      best = e;
      best_z = z;
      count = 0;
    }
    count += ok && e == best;
    int i = M - 1;
    while (i >= 0 && z[i] == top)
      z[i--] = 0;
    if (i < 0)
      break;
    ++z[i];
  }
  if (optima)
    *optima = best == terms::kInf ? 0 : count;
  return result_of(t, best_z, best);
}

MatchResult dense_dp(const Model& m, const Graph& scene, const Params& p) {
  const int M = m.graph.size(), S = scene.size(), n = S + 1;
  const Terms t = tabulate(m, scene, p);
  const int top = p.dummies ? S : S - 1;
  if (top < 0)
    return MatchResult();
  // alpha[b][c] for row r, beta[r][b][c].
  std::vector<int64_t> next(static_cast<size_t>(n) * n, 0), cur(next.size());
  std::vector<int> beta(static_cast<size_t>(M) * n * n, -1);
  for (int r = M - 1; r >= 2; --r) {
    for (int b = 0; b <= top; ++b) {
      for (int c = 0; c <= top; ++c) {
        int64_t best = terms::kInf;
        int arg = -1;
        for (int a = 0; a <= top; ++a) {
          const size_t k = t.idx(r, a, b, c);
          if (!t.ok[k])
            continue;
          const int64_t nx = r == M - 1 ? 0 : next[static_cast<size_t>(a) * n + b];
          if (nx == terms::kInf)
            continue;
          const int64_t v = t.U(r, a) + t.d[k] + nx;
          if (v < best) {
            best = v;
            arg = a;
          }
        }
        cur[static_cast<size_t>(b) * n + c] = best;
        beta[(static_cast<size_t>(r) * n + b) * n + c] = arg;
      }
    }
    next.swap(cur);
  }
  int64_t best = terms::kInf;
  std::vector<int> z(M);
  for (int c = 0; c <= top; ++c) { // lexicographic in (z_1, z_2) = (c, b)
    for (int b = 0; b <= top; ++b) {
      const int64_t a = next[static_cast<size_t>(b) * n + c];
      if (a == terms::kInf)
        continue;
      const int64_t v = t.U(0, c) + t.U(1, b) + a;
      if (v < best) {
        best = v;
        z[0] = c;
        z[1] = b;
      }
    }
  }
  if (best == terms::kInf)
    return MatchResult();
  for (int r = 2; r < M; ++r)
    z[r] = beta[(static_cast<size_t>(r) * n + z[r - 1]) * n + z[r - 2]];
  return result_of(t, z, best);
}

std::string describe(const MatchResult& r) {
  std::ostringstream o;
  if (!r.feasible)
    return "infeasible";
  o << "E=" << r.energy_q << " (app " << r.appearance_q << " + dist " << r.distortion_q
    << ") dummies " << r.dummies << " z=[";
  for (size_t i = 0; i < r.assignment.size(); ++i) {
    o << (i ? " " : "");
    if (r.assignment[i] == kDummy)
      o << "-";
    else
      o << r.assignment[i];
  }
  o << "]";
  return o.str();
}

CudaOptions gpu_test_options() {
  CudaOptions o;
  if (cvis::test::sanitizer_tool("racecheck"))
    o.max_blocks_per_pair = 2;
  return o;
}

} // namespace cvis::actionmatch::test

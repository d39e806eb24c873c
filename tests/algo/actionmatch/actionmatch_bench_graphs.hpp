// The generated graphs of bench_actionmatch (the paper's sizes), shared with the host-cost timer
// time_actionmatch_host so that both see the same graphs from the same seed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "actionmatch.hpp"

namespace cvis::actionmatch::bench {

// A model (one node per frame, frames 1 or 2 apart) or a scene block of `nodes` nodes over
// `frames` frames (random frames, sorted), positions in a 160x120 frame, descriptor values
// uniform in [0, 1).
inline Graph random_graph(std::mt19937_64& rng, int nodes, int frames, bool model) {
  Graph g;
  g.dim = kPaperDescriptorDim;
  std::vector<int32_t> f(nodes);
  if (model) {
    int t = static_cast<int>(rng() % 3);
    for (int i = 0; i < nodes; ++i)
      f[i] = t += (i ? 1 + static_cast<int>(rng() % 4 == 0) : 0);
  } else {
    for (int i = 0; i < nodes; ++i)
      f[i] = static_cast<int>(rng() % frames);
    std::sort(f.begin(), f.end());
  }
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> d(g.dim);
  for (int i = 0; i < nodes; ++i) {
    for (float& v : d)
      v = u(rng);
    g.add(f[i], 160.f * u(rng), 120.f * u(rng), d.data());
  }
  return g;
}

// Block `g` with an instance of `m` planted (see --planted): g keeps its size; m's nodes replace
// as many of g's random ones, with frames shifted into g's span.
inline Graph plant(std::mt19937_64& rng, const Graph& g, const Graph& m, int frames) {
  const int n = g.size(), k = std::min(m.size(), n / 2);
  const int span = m.frame[k - 1] - m.frame[0];
  const int shift = static_cast<int>(rng() % static_cast<uint64_t>(std::max(1, frames - span))) -
                    m.frame[0];
  std::uniform_real_distribution<float> jitter(-2.f, 2.f), noise(-0.1f, 0.1f);
  struct Node {
    int frame;
    float x, y;
    std::vector<float> d;
  };
  std::vector<Node> nodes;
  for (int i = 0; i < k; ++i) {
    Node v{m.frame[i] + shift, m.x[i] + jitter(rng), m.y[i] + jitter(rng),
           std::vector<float>(m.descriptor(i), m.descriptor(i) + m.dim)};
    for (float& x : v.d)
      x += noise(rng);
    nodes.push_back(std::move(v));
  }
  // n - k of g's nodes: the odd ones, then the even ones, so that they spread over its whole span.
  std::vector<int> keep;
  for (int start : {1, 0})
    for (int j = start; j < n; j += 2)
      keep.push_back(j);
  keep.resize(static_cast<size_t>(n - k));
  for (int j : keep)
    nodes.push_back({g.frame[j], g.x[j], g.y[j],
                     std::vector<float>(g.descriptor(j), g.descriptor(j) + g.dim)});
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](const Node& a, const Node& b) { return a.frame < b.frame; });
  Graph out;
  out.dim = g.dim;
  for (const Node& v : nodes)
    out.add(v.frame, v.x, v.y, v.d.data());
  return out;
}

} // namespace cvis::actionmatch::bench

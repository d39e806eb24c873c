// time_actionmatch_host: the host work of one Matcher::match() call of bench_actionmatch's setup C
// (50 models of 30 nodes against one 60-node block, the benchmark's generator and seed) before the
// GPU: prepare_scenes (validation and layouts, shared by both backends), timed directly, and split
// into validate_scene and scene_layout. In an emulator build (tests/emu, CVIS_HAVE_CUDA) it also
// runs the CUDA backend and prints the medians of its profiled host steps (validation + layouts,
// packing); the emulator's kernels are slow, so use a small --runs there.
// Usage: time_actionmatch_host [--runs N] [--dummy-cost W] [--blocks B] (medians of N calls, 4
// inputs in turn; --blocks 32: setup D's shape, 32 blocks per call)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "actionmatch_bench_graphs.hpp"
#include "actionmatch_internal.hpp"
#if defined(CVIS_HAVE_CUDA)
#include "actionmatch_profile.hpp"
#endif

using namespace cvis;
using namespace cvis::actionmatch;
using bench::random_graph;

namespace {

using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Times fn() runs times (after 100 warm-up calls), input r % 4 in turn; the median in us.
template <typename Fn> double time_us(int runs, Fn fn) {
  for (int r = 0; r < 100; ++r)
    fn(r % 4);
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = Clock::now();
    fn(r % 4);
    t.push_back(us_since(t0));
  }
  return median(t);
}

} // namespace

int main(int argc, char** argv) {
  int runs = 20000, blocks = 1;
  Params params;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc)
      runs = std::max(3, std::atoi(argv[++i]));
    else if (a == "--dummy-cost" && i + 1 < argc)
      params.dummy_cost = std::atof(argv[++i]);
    else if (a == "--blocks" && i + 1 < argc)
      blocks = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr,
                   "usage: time_actionmatch_host [--runs N] [--dummy-cost W] [--blocks B]\n");
      return 1;
    }
  }
  // As bench_actionmatch --only C (or D with --blocks 32): the 50 models, then four inputs.
  std::mt19937_64 rng(2024);
  std::vector<Model> models;
  for (int m = 0; m < 50; ++m) {
    models.push_back(
        {"action" + std::to_string(m % 6), "generated", random_graph(rng, 30, 0, true)});
  }
  std::vector<std::vector<Graph>> inputs(4);
  for (auto& in : inputs) {
    for (int b = 0; b < blocks; ++b)
      in.push_back(random_graph(rng, 60, 55, false));
  }
  detail::Prepared P;
  Status s = detail::prepare(params, models, &P);
  if (!s.ok()) {
    std::fprintf(stderr, "prepare: %s\n", s.to_string().c_str());
    return 1;
  }
  std::vector<detail::SceneLayout> layouts;
  MatchStats stats;
  bool ok = true;
  const double prep = time_us(runs, [&](int i) {
    ok &= detail::prepare_scenes(P, inputs[i].data(), blocks, &layouts, &stats).ok();
  });
  const double val = time_us(runs, [&](int i) { ok &= validate_scene(inputs[i][0]).ok(); });
  detail::SceneLayout L;
  const double lay =
      time_us(runs, [&](int i) { ok &= detail::scene_layout(inputs[i][0], params, &L).ok(); });
  if (!ok) {
    std::fprintf(stderr, "a call failed\n");
    return 1;
  }
  std::printf(
      "60-node blocks x %d per call (C: 1, D: 32), medians of %d calls (us): prepare_scenes "
      "%.3f (per block: validate_scene %.3f, scene_layout %.3f); cells %d, evaluations "
      "%lld\n",
      blocks, runs, prep, val, lay, layouts[0].cells,
      static_cast<long long>(layouts[0].evaluations));
#if defined(CVIS_HAVE_CUDA)
  Status st;
  auto gpu = make_matcher(Backend::kCuda, &st);
  if (!(st = gpu->configure(params, models)).ok()) {
    std::fprintf(stderr, "configure: %s\n", st.to_string().c_str());
    return 1;
  }
  detail::CudaMatchProfile p;
  detail::set_cuda_match_profile(&p);
  std::vector<MatchResult> res;
  std::vector<double> prep_ms, pack_ms;
  for (int r = -2; r < runs; ++r) {
    if (!(st = gpu->match(inputs[(r + 2) % 4].data(), blocks, &res, nullptr, nullptr)).ok()) {
      std::fprintf(stderr, "match: %s\n", st.to_string().c_str());
      return 1;
    }
    if (r >= 0) {
      prep_ms.push_back(p.prepare_ms);
      pack_ms.push_back(p.pack_ms);
    }
  }
  detail::set_cuda_match_profile(nullptr);
  std::printf("CUDA backend (emulated), profiled medians of %d calls (us): validation + layouts "
              "%.3f, packing %.3f\n",
              runs, 1e3 * median(prep_ms), 1e3 * median(pack_ms));
#endif
  return 0;
}

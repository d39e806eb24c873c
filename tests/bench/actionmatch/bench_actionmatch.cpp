// Benchmark of the exact hypergraph matcher on the paper's setups (Tables 2 and 3), with generated
// graphs of the paper's sizes: models of 30 nodes (one per frame, 162-dim descriptors), scenes of
// 754 nodes over 723 frames and streaming blocks of 60 nodes over 55 frames (random frames, so
// 0..5 nodes per frame), positions in a 160x120 frame (KTH), default parameters (T 10, dummies).
//   A  1 model  vs 754 nodes     (paper: 178 ms on a GTX 580)
//   B  50 models vs 754 nodes    (target: < 2 ms)
//   C  50 models vs one 60-node block per call        (target: < 0.1 ms per block)
//   D  50 models vs 32 60-node blocks in one call     (throughput per block)
// GPU: wall time of Matcher::match() (upload, two launches, results back, sync) and the stream
// time between CUDA events around it, medians of --runs calls after warm-up, rotating among 4
// different inputs. Then as many profiled calls (the backend records events between its steps):
// the medians of each step, host (validation and layouts, packing, enqueueing, waiting,
// unpacking) and device (upload, prologue kernel, trellis kernel, download), in a second table.
// (The trellis kernel writes the results into pinned host memory itself: "download" is then the
// empty stretch after it, about 0, and its KiB are the bytes the kernel wrote to the host.)
// CPU: the CPU backend on the same inputs in the same run (all cores, or
// --cpu-threads), as the ratio CPU / GPU; every GPU result is compared with the CPU's (exact).
// Work: trellis cells and candidate evaluations (MatchStats), evaluations per second, and that
// rate against the device's FP64 limit (SMs x FP64 lanes per clock x clock / FP64 instructions per
// evaluation, kFp64PerEvaluation below), the thread blocks per pair (a cluster on sm_90, 1 before)
// and the SMs a launch can occupy (pairs x blocks per pair, at most all).
// Usage: bench_actionmatch [--out FILE.md] [--runs N] [--quick] [--no-cpu] [--cpu-threads N]
//                          [--only ABCD] (a subset of the setups) [--dummy-cost W] [--planted]
//                          [--models N] (at most N models per setup, for profiles of one pair)
//                          [--max-blocks-per-pair K] [--max-angle-entries N]
// --max-blocks-per-pair, --max-angle-entries: the CUDA backend's CudaOptions (actionmatch.hpp;
// defaults there), printed on the first line: K = 1 times one block per pair, N = 0 the trellis
// without the angle table.
// --dummy-cost: W_d (default 1, Params). With W_d = 1 every optimum of these random graphs is all
// dummies (random 162-value descriptors are about 5 apart), so the trellis's bound skips almost
// every distortion term (cuda/actionmatch/README.md, "The candidate bound"); W_d = 10 gives optima
// with real nodes (17% dummies) and a bound that skips about 12% of them: the other regime.
// --planted: every scene block also holds one model's instance (its 30 nodes, frames shifted,
// positions jittered by up to 2 px, descriptor values by up to 0.1, the rest of the block random,
// models in turn), as a block of a stream that shows an action: at W_d = 1 the pair of that model
// then has an optimum of real nodes (its cells do not settle early), the other pairs are as
// without it. The line after each setup gives the optima's mean dummies per pair.
// The trellis kernel: the folded one where it applies (cuda/actionmatch/README.md; "folded
// trellis" after the setup's times). "K n" is the blocks per pair of the last call (1 where a row
// fits one block, C and D).
// Exit status: 0 when every check passed, 1 on an error or mismatch.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "actionmatch.hpp"
#include "actionmatch_bench_graphs.hpp"
#include "actionmatch_profile.hpp"
#include "common/backend.hpp"

using namespace cvis;
using namespace cvis::actionmatch;
using bench::plant;
using bench::random_graph;

namespace {

using Clock = std::chrono::steady_clock;

// FP64-pipe instructions of one candidate evaluation of the trellis kernel, from its PTX (sm_90,
// --fmad=false): 4 sub, 5 mul, 6 add (plus 4 conditional wrap adds, rarely taken), 8 compares,
// 1 sqrt.rn.f64 (about 10 instructions in SASS), 2 conversions: about 36. An estimate: the
// fraction of the FP64 limit below is only as good as this count.
constexpr double kFp64PerEvaluation = 36;

// FP64 lanes per SM per clock (CUDA programming guide, arithmetic instruction throughput).
int fp64_per_sm_clock(int major, int minor) {
  if (major == 9 && minor == 0)
    return 64; // H100
  if ((major == 8 || major == 7 || major == 6) && minor == 0)
    return 32; // A100, V100, P100
  return 2;    // consumer and embedded GPUs: 1/64 of FP32
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Setup {
  const char* name;
  int models, blocks, scene_nodes, scene_frames;
  const char* target; // per block
  double target_ms;
};

struct Row {
  std::string name;
  MatchStats stats;
  double wall_ms = 0, stream_ms = 0, cpu_ms = 0;
  detail::CudaMatchProfile prof; // medians of the profiled calls, field by field
  int blocks = 0;
  bool exact = true;
  std::string target;
  double target_ms = 0;
};

} // namespace

int main(int argc, char** argv) {
  std::string out;
  int runs = 30, cpu_threads = 0;
  bool quick = false, cpu = true, planted = false;
  int max_models = 0;
  std::string only = "ABCD";
  Params params;
  CudaOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc)
      out = argv[++i];
    else if (a == "--runs" && i + 1 < argc)
      runs = std::max(3, std::atoi(argv[++i]));
    else if (a == "--cpu-threads" && i + 1 < argc)
      cpu_threads = std::atoi(argv[++i]);
    else if (a == "--quick")
      quick = true;
    else if (a == "--no-cpu")
      cpu = false;
    else if (a == "--only" && i + 1 < argc)
      only = argv[++i];
    else if (a == "--dummy-cost" && i + 1 < argc)
      params.dummy_cost = std::atof(argv[++i]);
    else if (a == "--planted")
      planted = true;
    else if (a == "--models" && i + 1 < argc)
      max_models = std::max(1, std::atoi(argv[++i]));
    else if (a == "--max-blocks-per-pair" && i + 1 < argc)
      options.max_blocks_per_pair = std::atoi(argv[++i]);
    else if (a == "--max-angle-entries" && i + 1 < argc)
      options.max_angle_entries = std::atoll(argv[++i]);
    else {
      std::fprintf(stderr, "usage: bench_actionmatch [--out FILE.md] [--runs N] [--quick] "
                           "[--no-cpu] [--cpu-threads N] [--only ABCD] [--dummy-cost W] "
                           "[--planted] [--models N] [--max-blocks-per-pair K] "
                           "[--max-angle-entries N]\n");
      return 1;
    }
  }
  if (quick)
    runs = 3;
  Status s = select_cuda_device(0);
  if (!s.ok()) {
    std::fprintf(stderr, "bench_actionmatch: %s\n", s.message().c_str());
    return 1;
  }
  cudaDeviceProp prop{};
  int clock_khz = 0;
  cudaGetDeviceProperties(&prop, 0);
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  const double fp64_limit = static_cast<double>(prop.multiProcessorCount) *
                            fp64_per_sm_clock(prop.major, prop.minor) * clock_khz * 1e3;
  const int host_threads =
      cpu_threads > 0 ? cpu_threads : static_cast<int>(std::thread::hardware_concurrency());
  std::printf("device: %s, sm_%d%d, %d SMs, %.0f MHz; FP64 limit %.2f T instr/s; CPU: %d threads; "
              "W_d %g%s\n",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount, clock_khz / 1e3,
              fp64_limit / 1e12, host_threads, params.dummy_cost,
              planted ? ", a model planted in every block" : "");
  std::printf("CudaOptions: max_blocks_per_pair %d, max_angle_entries %lld\n",
              options.max_blocks_per_pair, static_cast<long long>(options.max_angle_entries));

  const Setup setups[] = {
      {"A: 1 model vs 754 nodes", 1, 1, 754, 723, "", 0},
      {"B: 50 models vs 754 nodes", 50, 1, 754, 723, "< 2 ms", 2.0},
      {"C: 50 models vs one 60-node block", 50, 1, 60, 55, "< 0.1 ms", 0.1},
      {"D: 50 models vs 32 60-node blocks", 50, 32, 60, 55, "< 0.1 ms", 0.1},
  };
  std::mt19937_64 rng(2024);
  std::vector<Model> models;
  for (int m = 0; m < 50; ++m) {
    models.push_back(
        {"action" + std::to_string(m % 6), "generated", random_graph(rng, 30, 0, true)});
  }
  Status st;
  auto gpu = make_matcher(Backend::kCuda, &st, 0, options);
  if (!gpu) {
    std::fprintf(stderr, "bench_actionmatch: %s\n", st.to_string().c_str());
    return 1;
  }
  auto ref = make_matcher(Backend::kCpu, &st, cpu_threads);
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<Row> rows;
  bool all_ok = true;
  for (const Setup& su : setups) {
    if (only.find(su.name[0]) == std::string::npos)
      continue;
    const int nmodels = max_models > 0 ? std::min(su.models, max_models) : su.models;
    const std::vector<Model> ms(models.begin(), models.begin() + nmodels);
    // Four different inputs of this setup, used in turn.
    std::vector<std::vector<Graph>> inputs(4);
    int planted_model = 0;
    for (auto& in : inputs) {
      for (int b = 0; b < su.blocks; ++b) {
        in.push_back(random_graph(rng, su.scene_nodes, su.scene_frames, false));
        if (planted)
          in.back() = plant(rng, in.back(), ms[planted_model++ % ms.size()].graph, su.scene_frames);
      }
    }
    Row row;
    row.name = su.name;
    row.blocks = su.blocks;
    row.target = su.target;
    row.target_ms = su.target_ms;
    if (!(s = gpu->configure(params, ms)).ok() || !(s = ref->configure(params, ms)).ok()) {
      std::fprintf(stderr, "configure: %s\n", s.to_string().c_str());
      return 1;
    }
    std::vector<MatchResult> rg, rc;
    std::vector<double> wall, stream_ms;
    for (int r = -2; r < runs; ++r) { // two warm-up calls
      const std::vector<Graph>& in = inputs[(r + 2) % 4];
      cudaEventRecord(e0, stream);
      const auto t0 = Clock::now();
      s = gpu->match(in.data(), su.blocks, &rg, &row.stats, stream);
      const double w = ms_since(t0);
      cudaEventRecord(e1, stream);
      cudaEventSynchronize(e1);
      if (!s.ok()) {
        std::fprintf(stderr, "%s: gpu: %s\n", su.name, s.to_string().c_str());
        return 1;
      }
      float ev = 0;
      cudaEventElapsedTime(&ev, e0, e1);
      if (r >= 0) {
        wall.push_back(w);
        stream_ms.push_back(ev);
      }
    }
    row.wall_ms = median(wall);
    row.stream_ms = median(stream_ms);
    // The profiled calls, after the timed ones (the events they add are not in the times above).
    {
      std::vector<detail::CudaMatchProfile> ps;
      detail::CudaMatchProfile p;
      detail::set_cuda_match_profile(&p);
      std::vector<MatchResult> rp; // rg stays the last timed call's, for the CPU comparison
      for (int r = 0; r < runs; ++r) {
        s = gpu->match(inputs[r % 4].data(), su.blocks, &rp, nullptr, stream);
        if (!s.ok())
          break;
        ps.push_back(p);
      }
      detail::set_cuda_match_profile(nullptr);
      if (!s.ok()) {
        std::fprintf(stderr, "%s: gpu (profiled): %s\n", su.name, s.to_string().c_str());
        return 1;
      }
      const auto med = [&](auto field) {
        std::vector<double> v;
        for (const detail::CudaMatchProfile& q : ps)
          v.push_back(static_cast<double>(q.*field));
        return median(v);
      };
      detail::CudaMatchProfile& m = row.prof;
      m.prepare_ms = med(&detail::CudaMatchProfile::prepare_ms);
      m.pack_ms = med(&detail::CudaMatchProfile::pack_ms);
      m.enqueue_ms = med(&detail::CudaMatchProfile::enqueue_ms);
      m.wait_ms = med(&detail::CudaMatchProfile::wait_ms);
      m.unpack_ms = med(&detail::CudaMatchProfile::unpack_ms);
      m.upload_ms = static_cast<float>(med(&detail::CudaMatchProfile::upload_ms));
      m.prologue_ms = static_cast<float>(med(&detail::CudaMatchProfile::prologue_ms));
      m.trellis_ms = static_cast<float>(med(&detail::CudaMatchProfile::trellis_ms));
      m.download_ms = static_cast<float>(med(&detail::CudaMatchProfile::download_ms));
      m.launches = ps.empty() ? 0 : ps.back().launches;
      m.upload_kb = ps.empty() ? 0 : ps.back().upload_kb;
      m.download_kb = ps.empty() ? 0 : ps.back().download_kb;
    }
    if (cpu) {
      // The CPU on the last input, compared with the GPU's results of the same input.
      const std::vector<Graph>& in = inputs[(runs + 1) % 4];
      std::vector<double> t;
      for (int r = 0; r < (quick ? 1 : 3); ++r) {
        const auto t0 = Clock::now();
        s = ref->match(in.data(), su.blocks, &rc, nullptr, nullptr);
        t.push_back(ms_since(t0));
      }
      row.cpu_ms = median(t);
      row.exact = s.ok() && rc == rg;
      all_ok = all_ok && row.exact;
    }
    char optima[96] = "";
    double dummies = 0;
    for (const MatchResult& r : rg)
      dummies += r.dummies;
    const size_t nres = std::max<size_t>(rg.size(), 1);
    std::snprintf(optima, sizeof optima, ", optima %.1f dummies per pair",
                  dummies / static_cast<double>(nres));
    std::printf("%-36s %6.3f ms/call (stream %6.3f ms), %lld cells, %lld evaluations%s, K %d%s%s\n",
                su.name, row.wall_ms, row.stream_ms, static_cast<long long>(row.stats.cells),
                static_cast<long long>(row.stats.evaluations),
                row.stats.folded ? ", folded trellis" : "", row.stats.blocks_per_pair, optima,
                cpu ? (row.exact ? ", CPU identical" : ", CPU MISMATCH") : "");
    const detail::CudaMatchProfile& q = row.prof;
    std::printf("  host: layouts %.3f, pack %.3f, enqueue %.3f, wait %.3f, unpack %.3f ms; device: "
                "upload %.3f (%.0f KiB), prologue %.3f, trellis %.3f, download %.3f (%.0f KiB) ms; "
                "%d launches\n",
                q.prepare_ms, q.pack_ms, q.enqueue_ms, q.wait_ms, q.unpack_ms, q.upload_ms,
                q.upload_kb, q.prologue_ms, q.trellis_ms, q.download_ms, q.download_kb, q.launches);
    rows.push_back(row);
  }

  // The table, last.
  std::string md;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "Device: %s (sm_%d%d, %d SMs, %.0f MHz), FP64 limit %.2f T instructions/s, %.0f "
                "FP64 instructions per evaluation (estimate). CPU reference: %d threads. Medians "
                "of %d calls. CudaOptions: max_blocks_per_pair %d, max_angle_entries %lld.\n\n",
                prop.name, prop.major, prop.minor, prop.multiProcessorCount, clock_khz / 1e3,
                fp64_limit / 1e12, kFp64PerEvaluation, host_threads, runs,
                options.max_blocks_per_pair, static_cast<long long>(options.max_angle_entries));
  md += buf;
  md +=
      "| setup | pairs | trellis cells | evaluations | GPU ms/call | stream ms | ms per block "
      "(target) | G eval/s | % FP64 limit | blocks/pair | SMs busy | CPU ms | CPU/GPU | exact |\n";
  md += "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const Row& r : rows) {
    const double evals_s = r.stats.evaluations / (r.stream_ms * 1e-3);
    const double frac = evals_s * kFp64PerEvaluation / fp64_limit;
    const int per_pair = std::max(1, r.stats.blocks_per_pair);
    const double busy =
        std::min<double>(static_cast<double>(r.stats.pairs) * per_pair, prop.multiProcessorCount) /
        prop.multiProcessorCount;
    std::snprintf(
        buf, sizeof buf,
        "| %s | %lld | %lld | %lld | %.3f | %.3f | %.4f%s%s%s | %.2f | %.1f%% | %d | %.0f%% | "
        "%s | %s | %s |\n",
        r.name.c_str(), static_cast<long long>(r.stats.pairs),
        static_cast<long long>(r.stats.cells), static_cast<long long>(r.stats.evaluations),
        r.wall_ms, r.stream_ms, r.wall_ms / r.blocks, r.target.empty() ? "" : " (",
        r.target.c_str(), r.target.empty() ? "" : ")", evals_s / 1e9, 100 * frac, per_pair,
        100 * busy, cpu ? std::to_string(r.cpu_ms).substr(0, 8).c_str() : "-",
        cpu ? std::to_string(r.cpu_ms / r.wall_ms).substr(0, 6).c_str() : "-",
        cpu ? (r.exact ? "yes" : "NO") : "-");
    md += buf;
  }
  md += "\nWhere a call's time goes (medians of as many profiled calls; host steps by the wall "
        "clock, "
        "device steps between CUDA events on the stream; ms):\n\n"
        "| setup | host: validation + layouts | packing | enqueue | wait | unpack | upload (KiB) | "
        "prologue kernel | trellis kernel | download (KiB) | launches |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const Row& r : rows) {
    const detail::CudaMatchProfile& q = r.prof;
    std::snprintf(
        buf, sizeof buf,
        "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f (%.0f) | %.3f | %.3f | %.3f (%.0f) "
        "| %d |\n",
        r.name.c_str(), q.prepare_ms, q.pack_ms, q.enqueue_ms, q.wait_ms, q.unpack_ms, q.upload_ms,
        q.upload_kb, q.prologue_ms, q.trellis_ms, q.download_ms, q.download_kb, q.launches);
    md += buf;
  }
  std::printf("\n%s", md.c_str());
  if (!out.empty()) {
    FILE* f = std::fopen(out.c_str(), "w");
    if (f) {
      std::fputs(md.c_str(), f);
      std::fclose(f);
    }
  }
  return all_ok ? 0 : 1;
}

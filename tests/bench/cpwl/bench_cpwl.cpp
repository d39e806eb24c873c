// bench_cpwl: the paper's Table I (mean time per evaluation of the Gaussian exp(-x^2/2), in
// picoseconds) for every evaluator, N = 32..512 segments, on the GPU and on this CPU (one core).
//
//   bench_cpwl [--quick] [--out FILE] [--device N]
//
// GPU: every variant runs the same loop in kernels with the same block size, grid and shared-memory
// reservation, compiled for the same resident blocks per SM (printed), over quasi-random abscissas
// in [0, 4) scattered within each warp; a "baseline" row runs the loop without evaluating. Times
// are CUDA events over repeated launches after a warm-up launch. CPU: the twins over 2^20
// abscissas, one thread (as the paper's CPU rows). Each row also reports its max error against exp
// in double. Exit status 1 on any error or when a variant's sum disagrees with the exact one
// (broken kernel).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "cpwl/cpwl.hpp"
#include "cpwl_bench.hpp"

namespace {

using namespace cvis::cpwl;
using bench::benchmark_gpu;
using bench::GpuTiming;

struct Options {
  bool quick = false;
  std::string out;
  int device = 0;
};

struct Row {
  std::string where, name;
  int n = 0; // 0: not a table evaluator
  double ps = 0, net_ps = 0, max_err = 0;
  int blocks_per_sm = 0;
};

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "bench_cpwl: %s\n", m.c_str());
  std::exit(1);
}

void check(const cvis::Status& s, const char* what) {
  if (!s.ok())
    die(std::string(what) + ": " + s.to_string());
}

const Evaluator kTableEvaluators[] = {Evaluator::kTextureUniform, Evaluator::kManualUniform,
                                      Evaluator::kSlopeUniform, Evaluator::kTextureOptimized,
                                      Evaluator::kManualOptimized};

Table make(int n, Partition p) {
  Cpwl g;
  check(approximate(gaussian(0.0, 4.0), n, p, Fit::kProjection, &g), "approximate");
  Table t;
  check(make_table(g, p, &t), "make_table");
  return t;
}

// Max |twin(x) - exp(-x^2/2)| over a fine grid of [0, 4].
double max_error(Evaluator e, const Table& t) {
  double m = 0;
  const TableView v = t.view();
  for (int i = 0; i <= 400000; ++i) {
    const float x = 4.0f * i / 400000;
    m = std::max(m, std::fabs(evaluate_twin(e, v, x) - std::exp(-0.5 * double(x) * x)));
  }
  return m;
}

template <typename F> double time_loop(const std::vector<float>& xs, int reps, F&& g) {
  volatile float sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) {
    float acc = 0;
    for (float x : xs)
      acc += g(x);
    sink = sink + acc;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s * 1e12 / (double(xs.size()) * reps);
}

// One thread, each evaluator's inline twin in its own loop (no per-call dispatch).
double cpu_ps(Evaluator e, const Table& t, const std::vector<float>& xs, int reps) {
  const TableView v = t.view();
  const TexRounding r = TexRounding::kNearest;
  switch (e) {
  case Evaluator::kExact:
    return time_loop(xs, reps, [](float x) { return std::exp(gaussian_exponent(x)); });
  case Evaluator::kFast:
    return time_loop(xs, reps, [](float x) {
      return std::exp2(cvis::mul_rn(gaussian_exponent(x), 1.44269504088896341f));
    });
  case Evaluator::kTextureUniform:
    return time_loop(xs, reps, [&](float x) {
      return lookup_texture_emulated(v.values, v.n, uniform_index(v.a, v.scale, x), r);
    });
  case Evaluator::kManualUniform:
    return time_loop(xs, reps, [&](float x) {
      return lookup_manual(v.values, v.n, uniform_index(v.a, v.scale, x));
    });
  case Evaluator::kSlopeUniform:
    return time_loop(xs, reps, [&](float x) {
      return lookup_slope(v.slope, v.n, uniform_index(v.a, v.scale, x));
    });
  case Evaluator::kTextureOptimized:
    return time_loop(xs, reps, [&](float x) {
      return lookup_texture_emulated(v.values, v.n, optimized_index_rt(v.knots, v.inv_h, v.pow2, x),
                                     r);
    });
  case Evaluator::kManualOptimized:
    return time_loop(xs, reps, [&](float x) {
      return lookup_manual(v.values, v.n, optimized_index_rt(v.knots, v.inv_h, v.pow2, x));
    });
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      o.quick = true;
    } else if (a == "--out" && i + 1 < argc) {
      o.out = argv[++i];
    } else if (a == "--device" && i + 1 < argc) {
      o.device = std::atoi(argv[++i]);
    } else {
      die("usage: bench_cpwl [--quick] [--out FILE] [--device N]");
    }
  }
  const std::vector<int> sizes = {32, 64, 128, 256, 512};
  std::vector<Row> rows;
  bool failed = false;

  // ---- GPU
  const bool gpu = cvis::cuda_device_count() > 0;
  std::string device = gpu ? cvis::cuda_device_description(o.device) : "none";
  if (gpu) {
    check(cvis::select_cuda_device(o.device), "select device");
    const int iters = o.quick ? 256 : 2048, repeats = o.quick ? 3 : 10;
    const Table uni32 = make(32, Partition::kUniform);
    GpuTiming base, exact;
    check(benchmark_gpu(-1, uni32, iters, repeats, &base), "baseline");
    rows.push_back({"GPU", "baseline (loop only)", 0, base.ps_per_eval, 0, 0, base.blocks_per_sm});
    for (Evaluator e : {Evaluator::kExact, Evaluator::kFast}) {
      GpuTiming g;
      check(benchmark_gpu(static_cast<int>(e), uni32, iters, repeats, &g), evaluator_name(e));
      if (e == Evaluator::kExact)
        exact = g;
      rows.push_back({"GPU", evaluator_name(e), 0, g.ps_per_eval, g.ps_per_eval - base.ps_per_eval,
                      max_error(e, uni32), g.blocks_per_sm});
      if (std::fabs(g.checksum / exact.checksum - 1) > 1e-4) {
        std::fprintf(stderr, "%s: sum %.9g vs exact %.9g\n", evaluator_name(e), g.checksum,
                     exact.checksum);
        failed = true;
      }
    }
    for (int n : sizes) {
      const Table tu = make(n, Partition::kUniform), to = make(n, Partition::kOptimized);
      for (Evaluator e : kTableEvaluators) {
        const Table& t = evaluator_partition(e) == Partition::kUniform ? tu : to;
        GpuTiming g;
        check(benchmark_gpu(static_cast<int>(e), t, iters, repeats, &g), evaluator_name(e));
        rows.push_back({"GPU", evaluator_name(e), n, g.ps_per_eval,
                        g.ps_per_eval - base.ps_per_eval, max_error(e, t), g.blocks_per_sm});
        // The sums differ from exact's by the approximation error only (< 1e-3 relative at N=32).
        if (std::fabs(g.checksum / exact.checksum - 1) > 2e-3) {
          std::fprintf(stderr, "%s N=%d: sum %.9g vs exact %.9g\n", evaluator_name(e), n,
                       g.checksum, exact.checksum);
          failed = true;
        }
      }
    }
  }

  // ---- CPU (one thread, the twins; texture rows are the software emulation)
  {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> d(0.0f, 4.0f);
    std::vector<float> xs(1 << 20);
    for (float& x : xs)
      x = d(rng);
    const int reps = o.quick ? 1 : 5;
    const Table uni32 = make(32, Partition::kUniform);
    for (Evaluator e : {Evaluator::kExact, Evaluator::kFast}) {
      rows.push_back(
          {"CPU", evaluator_name(e), 0, cpu_ps(e, uni32, xs, reps), 0, max_error(e, uni32), 0});
    }
    for (int n : sizes) {
      const Table tu = make(n, Partition::kUniform), to = make(n, Partition::kOptimized);
      for (Evaluator e : kTableEvaluators) {
        const Table& t = evaluator_partition(e) == Partition::kUniform ? tu : to;
        const std::string name =
            std::string(evaluator_name(e)) +
            (e == Evaluator::kTextureUniform || e == Evaluator::kTextureOptimized ? " (emulated)"
                                                                                  : "");
        rows.push_back({"CPU", name, n, cpu_ps(e, t, xs, reps), 0, max_error(e, t), 0});
      }
    }
  }

  // ---- report
  std::string md = "# bench_cpwl: Table I, ps per evaluation of exp(-x^2/2) on [0, 4)\n\n";
  md += "GPU: " + device + "\n\n";
  md += "| where | evaluator | N | ps/eval | net of loop | max abs error | blocks/SM |\n";
  md += "|---|---|---|---|---|---|---|\n";
  char line[256];
  for (const Row& r : rows) {
    char net[32] = "-", n[16] = "-", blocks[16] = "-";
    if (r.where == "GPU" && r.name.rfind("baseline", 0) != 0)
      std::snprintf(net, sizeof net, "%.2f", r.net_ps);
    if (r.n)
      std::snprintf(n, sizeof n, "%d", r.n);
    if (r.blocks_per_sm)
      std::snprintf(blocks, sizeof blocks, "%d", r.blocks_per_sm);
    std::snprintf(line, sizeof line, "| %s | %s | %s | %.2f | %s | %.2e | %s |\n", r.where.c_str(),
                  r.name.c_str(), n, r.ps, net, r.max_err, blocks);
    md += line;
  }
  // The fastest GPU variant (per N for the table ones).
  std::string summary = "\nTable I summary (ps/eval; rows: evaluator, columns: N)\n";
  for (const char* where : {"GPU", "CPU"}) {
    if (std::string(where) == "GPU" && !gpu)
      continue;
    std::snprintf(line, sizeof line, "%-4s %-28s", where, "evaluator");
    summary += line;
    for (int n : sizes) {
      std::snprintf(line, sizeof line, " %8d", n);
      summary += line;
    }
    summary += "\n";
    std::vector<std::string> names;
    for (const Row& r : rows)
      if (r.where == where && std::find(names.begin(), names.end(), r.name) == names.end())
        names.push_back(r.name);
    for (const std::string& nm : names) {
      std::snprintf(line, sizeof line, "%-4s %-28s", where, nm.c_str());
      summary += line;
      for (int n : sizes) {
        double v = -1;
        for (const Row& r : rows)
          if (r.where == where && r.name == nm && (r.n == n || r.n == 0))
            v = r.ps;
        std::snprintf(line, sizeof line, " %8.2f", v);
        summary += line;
      }
      summary += "\n";
    }
  }
  if (gpu) {
    const Row* best = nullptr;
    for (const Row& r : rows)
      if (r.where == "GPU" && r.name.rfind("baseline", 0) != 0 && (!best || r.ps < best->ps))
        best = &r;
    std::snprintf(line, sizeof line, "fastest GPU evaluator: %s%s (%.2f ps/eval)\n",
                  best->name.c_str(), best->n ? (" N=" + std::to_string(best->n)).c_str() : "",
                  best->ps);
    summary += line;
  } else {
    summary += "no usable GPU: CPU rows only\n";
  }
  md += "\n```\n" + summary + "```\n";
  if (!o.out.empty()) {
    if (FILE* f = std::fopen(o.out.c_str(), "w")) {
      std::fputs(md.c_str(), f);
      std::fclose(f);
    } else {
      die("cannot write " + o.out);
    }
  }
  std::fputs(summary.c_str(), stdout);
  if (failed)
    std::puts("FAILED: a GPU variant's results disagree with the exact evaluator");
  return failed ? 1 : 0;
}

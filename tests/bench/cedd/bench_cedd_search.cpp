// bench_cedd_search: Tanimoto top-k search over stored CEDD descriptors, GPU against the CPU scan,
// in the same run.
//
//   bench_cedd_search [--quick] [--out FILE] [--device N] [--rows 1000000,10000000] [--k 10]
//                     [--runs 200] [--queries 16] [--cpu-runs 3] [--chunk-rows N]
//
// Per set size: N descriptors drawn from a seeded generator (sparse levels, like real CEDD
// descriptors) with ids 1..N, in a CUDA set and a CPU set (all cores). Queries: `--queries`
// descriptors (half new, half stored rows: exact matches and ties at the top), rotated search by
// search. GPU rows: each search bracketed by CUDA events on the set's stream (kernels and the copy
// of the k results) and by the host clock (the whole call); medians and p10/p90 over `--runs`
// searches after warm-up. CPU rows: the host clock, median over `--cpu-runs`. Every query's GPU
// result is compared with the CPU's (ids and similarity bits); a difference makes the exit status
// non-zero. Goal (docs/benchmarks.md): top-10 of 10 M in at most 2 ms.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "cedd/cedd_search.hpp"
#include "common/backend.hpp"

namespace {

using cvis::cedd::DescriptorSet;
using cvis::cedd::SearchHit;

struct Options {
  bool quick = false;
  std::string out;
  int device = 0;
  std::vector<size_t> rows = {1000000, 10000000};
  int k = 10;
  int runs = 200;
  int queries = 16;
  int cpu_runs = 3;
  uint32_t chunk_rows = 1u << 20;
};

struct Row {
  size_t rows = 0;
  std::string name;
  int runs = 0;
  double median_ms = 0, p10_ms = 0, p90_ms = 0, gb_s = 0, vs_cpu = 0;
};

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "bench_cedd_search: %s\n", msg.c_str());
  std::exit(1);
}

void check(const cvis::Status& s, const char* what) {
  if (!s.ok())
    die(std::string(what) + ": " + s.to_string());
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    die(std::string(what) + ": " + cudaGetErrorName(e));
}

uint64_t next(uint64_t* s) { // xorshift64*
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

// Levels of row `i`: about a quarter of the bins non-zero, values 1..7.
void make_levels(uint64_t i, uint8_t* levels) {
  uint64_t s = 0x9E3779B97F4A7C15ull * (i + 1) + 12345;
  for (int b = 0; b < 144; b += 21) {
    const uint64_t v = next(&s), keep = next(&s);
    for (int j = 0; j < 21 && b + j < 144; ++j) {
      const uint8_t l = static_cast<uint8_t>((v >> (3 * j)) & 7);
      levels[b + j] = ((keep >> (3 * j)) & 3) == 0 ? l : 0;
    }
  }
}

void pack(const uint8_t* levels, uint8_t* packed) {
  for (int i = 0; i < cvis::cedd::kPackedBytes; ++i)
    packed[i] = 0;
  for (int i = 0; i < 144; ++i) {
    const int bit = 3 * i;
    const uint32_t v = static_cast<uint32_t>(levels[i] & 7u) << (bit & 7);
    packed[bit >> 3] |= static_cast<uint8_t>(v);
    if (v > 0xffu)
      packed[(bit >> 3) + 1] |= static_cast<uint8_t>(v >> 8);
  }
}

double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--quick") {
      o.quick = true;
      o.rows = {100000, 1000000};
      o.runs = 50;
    } else if (a == "--out") {
      o.out = value();
    } else if (a == "--device") {
      o.device = std::atoi(value().c_str());
    } else if (a == "--rows") {
      o.rows.clear();
      const std::string v = value();
      for (size_t p = 0; p < v.size();) {
        const size_t c = v.find(',', p);
        o.rows.push_back(std::strtoull(v.substr(p, c - p).c_str(), nullptr, 10));
        p = c == std::string::npos ? v.size() : c + 1;
      }
    } else if (a == "--k") {
      o.k = std::atoi(value().c_str());
    } else if (a == "--runs") {
      o.runs = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--queries") {
      o.queries = std::max(2, std::atoi(value().c_str()));
    } else if (a == "--cpu-runs") {
      o.cpu_runs = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--chunk-rows") {
      o.chunk_rows = static_cast<uint32_t>(std::strtoul(value().c_str(), nullptr, 10));
    } else {
      die("unknown argument " + a +
          " (--quick --out FILE --device N --rows A,B --k K --runs N --queries N --cpu-runs N "
          "--chunk-rows N)");
    }
  }
  return o;
}

} // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  check(cvis::select_cuda_device(opt.device), "select device");
  const std::string device = cvis::cuda_device_description(opt.device);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  cvis::StreamHandle stream = nullptr;
  check(cvis::stream_create(&stream), "stream");
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  cudaEvent_t start, stop;
  check_cuda(cudaEventCreate(&start), "event");
  check_cuda(cudaEventCreate(&stop), "event");
  int mismatches = 0;
  std::vector<Row> table;

  for (size_t n : opt.rows) {
    // The rows, appended in pieces (a store is read that way too).
    cvis::Status st;
    auto gpu = cvis::cedd::make_descriptor_set(cvis::Backend::kCuda, &st);
    check(st, "cuda set");
    auto cpu = cvis::cedd::make_descriptor_set(cvis::Backend::kCpu, &st);
    check(st, "cpu set");
    cvis::cedd::SearchParams p;
    p.chunk_rows = opt.chunk_rows;
    check(gpu->configure(p), "configure");
    const size_t piece = 1 << 20;
    std::vector<uint8_t> levels(144), packed(piece * cvis::cedd::kPackedBytes);
    std::vector<int64_t> ids(piece);
    double append_s = 0;
    for (size_t off = 0; off < n; off += piece) {
      const size_t m = std::min(piece, n - off);
      for (size_t i = 0; i < m; ++i) {
        make_levels(off + i, levels.data());
        pack(levels.data(), &packed[i * cvis::cedd::kPackedBytes]);
        ids[i] = static_cast<int64_t>(off + i + 1);
      }
      const auto t0 = std::chrono::steady_clock::now();
      check(gpu->append(packed.data(), ids.data(), m, stream), "gpu append");
      append_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      check(cpu->append(packed.data(), ids.data(), m, nullptr), "cpu append");
    }
    // Queries: even ones new descriptors, odd ones stored rows.
    std::vector<std::vector<uint8_t>> queries(opt.queries, std::vector<uint8_t>(144));
    for (int q = 0; q < opt.queries; ++q)
      make_levels(q % 2 ? (static_cast<uint64_t>(q) * 7919) % n : n + 1000 + q, queries[q].data());
    // Verification: every query, GPU against CPU.
    for (int q = 0; q < opt.queries; ++q) {
      std::vector<SearchHit> a, b;
      check(gpu->search(queries[q].data(), opt.k, &a, stream), "gpu search");
      check(cpu->search(queries[q].data(), opt.k, &b, nullptr), "cpu search");
      bool same = a.size() == b.size();
      for (size_t i = 0; same && i < a.size(); ++i)
        same = a[i].id == b[i].id && a[i].similarity == b[i].similarity;
      if (!same) {
        ++mismatches;
        std::fprintf(stderr, "MISMATCH rows=%zu query %d\n", n, q);
      }
    }
    // GPU: warm-up, then rotated queries.
    std::vector<SearchHit> hits;
    for (int w = 0; w < 5; ++w)
      check(gpu->search(queries[w % opt.queries].data(), opt.k, &hits, stream), "warm-up");
    std::vector<double> gpu_ms, wall_ms;
    for (int r = 0; r < opt.runs; ++r) {
      check_cuda(cudaEventRecord(start, s), "record");
      const auto t0 = std::chrono::steady_clock::now();
      check(gpu->search(queries[r % opt.queries].data(), opt.k, &hits, stream), "gpu search");
      const auto t1 = std::chrono::steady_clock::now();
      check_cuda(cudaEventRecord(stop, s), "record");
      check_cuda(cudaEventSynchronize(stop), "sync");
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, start, stop), "elapsed");
      gpu_ms.push_back(ms);
      wall_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::vector<double> cpu_ms;
    for (int r = 0; r < opt.cpu_runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      check(cpu->search(queries[r % opt.queries].data(), opt.k, &hits, nullptr), "cpu search");
      cpu_ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    const double bytes = static_cast<double>(n) * (cvis::cedd::kPackedBytes + 4);
    Row c{n,
          "cpu scan, " + std::to_string(cores) + " threads",
          opt.cpu_runs,
          pct(cpu_ms, 0.5),
          pct(cpu_ms, 0.1),
          pct(cpu_ms, 0.9),
          0,
          1};
    c.gb_s = bytes / (c.median_ms * 1e6);
    Row g{n,
          "gpu search, CUDA events",
          opt.runs,
          pct(gpu_ms, 0.5),
          pct(gpu_ms, 0.1),
          pct(gpu_ms, 0.9),
          0,
          0};
    g.gb_s = bytes / (g.median_ms * 1e6);
    g.vs_cpu = c.median_ms / g.median_ms;
    Row h{n,
          "gpu search, whole call (host clock)",
          opt.runs,
          pct(wall_ms, 0.5),
          pct(wall_ms, 0.1),
          pct(wall_ms, 0.9),
          0,
          0};
    h.gb_s = bytes / (h.median_ms * 1e6);
    h.vs_cpu = c.median_ms / h.median_ms;
    table.push_back(c);
    table.push_back(g);
    table.push_back(h);
    std::printf("rows %zu: gpu append %.0f rows/s\n", n, n / std::max(append_s, 1e-9));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cvis::stream_destroy(stream);

  std::printf("\nbench_cedd_search: %s; k = %d; %d queries rotated; descriptors 54 B + 4 B norms "
              "read per row\n",
              device.c_str(), opt.k, opt.queries);
  std::printf("%10s %-38s %5s %10s %10s %10s %8s %9s\n", "rows", "row", "runs", "median ms",
              "p10 ms", "p90 ms", "GB/s", "x cpu");
  for (const Row& r : table)
    std::printf("%10zu %-38s %5d %10.3f %10.3f %10.3f %8.1f %9.1f\n", r.rows, r.name.c_str(),
                r.runs, r.median_ms, r.p10_ms, r.p90_ms, r.gb_s, r.vs_cpu);
  for (const Row& r : table)
    if (r.rows == 10000000 && opt.k == 10 && r.name.rfind("gpu search, whole", 0) == 0)
      std::printf("goal: top-10 of 10 M in at most 2 ms: %.3f ms %s\n", r.median_ms,
                  r.median_ms <= 2.0 ? "met" : "NOT MET");
  std::printf("verification: %s (%d mismatching queries)\n",
              mismatches ? "FAILED" : "every GPU result equals the CPU's", mismatches);
  if (!opt.out.empty()) {
    FILE* f = std::fopen(opt.out.c_str(), "w");
    if (!f)
      die("cannot write " + opt.out);
    std::fprintf(f, "# bench_cedd_search; device\t%s\n# k\t%d\n# cpu_threads\t%d\n", device.c_str(),
                 opt.k, cores);
    std::fprintf(f, "rows\trow\truns\tmedian_ms\tp10_ms\tp90_ms\tgb_per_s\tspeedup_vs_cpu\n");
    for (const Row& r : table)
      std::fprintf(f, "%zu\t%s\t%d\t%.4f\t%.4f\t%.4f\t%.2f\t%.2f\n", r.rows, r.name.c_str(), r.runs,
                   r.median_ms, r.p10_ms, r.p90_ms, r.gb_s, r.vs_cpu);
    std::fprintf(f, "# mismatches\t%d\n", mismatches);
    std::fclose(f);
  }
  return mismatches == 0 ? 0 : 1;
}

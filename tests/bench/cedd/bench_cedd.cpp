// bench_cedd: CEDD descriptors per second of the CUDA backend (GPU-only single frames and batches,
// hybrid, host frames) against the CPU reference, on the same frames in the same run.
//
//   bench_cedd [--quick] [--out FILE] [--device N] [--sizes 640x480,1920x1080] [--batch N]
//
// GPU-resident inputs: at least 8 distinct device frames per size (as many as the batch, so batches
// never re-read a cached frame), rotated call by call. GPU rows are timed with CUDA events on the
// extractor's stream after warm-up calls; CPU rows with a steady clock. Reported: the median over
// calls. Every output descriptor is compared with the CPU reference's (levels and normalised
// doubles, exact); any mismatch or error makes the exit status non-zero.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cedd/cedd.hpp"
#include "common/backend.hpp"
#include "common/cuda/device_buffer.hpp"

namespace {

using cvis::cedd::Result;

struct Options {
  bool quick = false;
  std::string out;
  int device = 0;
  int batch = 0; // 0: 64 up to 1080p, 32 above
  std::vector<std::pair<int, int>> sizes = {{640, 480}, {1280, 720}, {1920, 1080}, {3840, 2160}};
};

struct Row {
  std::string size, name;
  int batch = 1, calls = 0;
  double median_us = 0, p10_us = 0, p90_us = 0;
  double us_per_desc = 0, per_s = 0, vs_cpu_all = 0, vs_cpu_1 = 0;
};

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "bench_cedd: %s\n", msg.c_str());
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

// Frame content: random colour cells with soft noise and a diagonal ramp (edges in all directions,
// every hue), from a cheap integer hash so that large frames are made quickly.
uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

void fill_frame(std::vector<uint8_t>* buf, int w, int h, uint32_t seed) {
  buf->resize(static_cast<size_t>(w) * h * 4);
  const int cell = 8 + static_cast<int>(mix(seed) % 40);
  for (int y = 0; y < h; ++y) {
    uint8_t* row = buf->data() + static_cast<size_t>(y) * w * 4;
    for (int x = 0; x < w; ++x) {
      const uint32_t c =
          mix(seed * 7919u + static_cast<uint32_t>((x / cell) * 131 + (y / cell) * 977));
      const uint32_t n = mix(seed ^ static_cast<uint32_t>(y * w + x));
      const int ramp = (x + y) * 64 / (w + h);
      for (int k = 0; k < 3; ++k) {
        const int v = static_cast<int>((c >> (8 * k)) & 255) / 2 + ramp +
                      static_cast<int>((n >> (8 * k)) & 31);
        row[4 * x + k] = static_cast<uint8_t>(std::min(v, 255));
      }
      row[4 * x + 3] = 255;
    }
  }
}

cvis::ImageView rgba_view(uint8_t* p, int w, int h, size_t pitch, cvis::MemorySpace space) {
  cvis::ImageView v;
  v.format = cvis::PixelFormat::kRGBA;
  v.space = space;
  v.width = w;
  v.height = h;
  v.data[0] = p;
  v.pitch[0] = pitch;
  return v;
}

bool same(const Result& a, const Result& b) {
  return a.levels == b.levels && std::memcmp(a.normalized.data(), b.normalized.data(),
                                             sizeof(double) * a.normalized.size()) == 0;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * (v.size() - 1) + 0.5))];
}

std::unique_ptr<cvis::cedd::Extractor> make(cvis::Backend b, cvis::cedd::Mode mode, int threads) {
  cvis::Status st;
  auto e = cvis::cedd::make_extractor(b, &st);
  check(st, "make_extractor");
  cvis::cedd::Params p;
  p.mode = mode;
  p.cpu_threads = threads;
  check(e->configure(p), "configure");
  return e;
}

int g_mismatches = 0;

// Times `calls` calls of fn(call) (after `warmup` untimed ones), each producing `per_call`
// descriptors; fn returns the frame indices it described so that outputs can be verified.
Row measure(const std::string& size, const std::string& name, int per_call, int warmup, int calls,
            bool gpu, cudaStream_t stream, const std::vector<Result>& refs,
            const std::function<std::vector<int>(int, std::vector<Result>*)>& fn) {
  cvis::cuda::Event start, stop;
  check(start.create(true), "event");
  check(stop.create(true), "event");
  std::vector<Result> out(per_call);
  std::vector<double> us;
  for (int i = 0; i < warmup + calls; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    if (gpu)
      check_cuda(cudaEventRecord(start.get(), stream), "cudaEventRecord");
    const std::vector<int> frames = fn(i, &out);
    if (gpu)
      check_cuda(cudaEventRecord(stop.get(), stream), "cudaEventRecord");
    const auto t1 = std::chrono::steady_clock::now();
    if (gpu)
      check_cuda(cudaEventSynchronize(stop.get()), "cudaEventSynchronize");
    for (size_t k = 0; k < frames.size(); ++k) {
      if (!same(out[k], refs[frames[k]])) {
        if (g_mismatches++ < 10) {
          std::fprintf(stderr, "MISMATCH %s %s: call %d output %zu (frame %d)\n", size.c_str(),
                       name.c_str(), i, k, frames[k]);
        }
      }
    }
    if (i < warmup)
      continue;
    float ms = 0;
    if (gpu) {
      check_cuda(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime");
      us.push_back(1000.0 * ms);
    } else {
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
  }
  Row r;
  r.size = size;
  r.name = name;
  r.batch = per_call;
  r.calls = calls;
  r.median_us = percentile(us, 0.5);
  r.p10_us = percentile(us, 0.1);
  r.p90_us = percentile(us, 0.9);
  r.us_per_desc = r.median_us / per_call;
  r.per_s = 1e6 / r.us_per_desc;
  std::fprintf(stderr, "  %-44s %8.1f us/descriptor\n", name.c_str(), r.us_per_desc);
  return r;
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
    } else if (a == "--out") {
      o.out = value();
    } else if (a == "--device") {
      o.device = std::atoi(value().c_str());
    } else if (a == "--batch") {
      o.batch = std::atoi(value().c_str());
      if (o.batch < 1)
        die("--batch must be >= 1");
    } else if (a == "--sizes") {
      o.sizes.clear();
      std::string s = value();
      size_t pos = 0;
      while (pos < s.size()) {
        const size_t end = std::min(s.find(',', pos), s.size());
        int w = 0, h = 0;
        if (std::sscanf(s.substr(pos, end - pos).c_str(), "%dx%d", &w, &h) != 2 || w < 1 || h < 1) {
          die("bad size in --sizes: " + s.substr(pos, end - pos));
        }
        o.sizes.emplace_back(w, h);
        pos = end + 1;
      }
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "usage: bench_cedd [--quick] [--out FILE] [--device N] [--sizes WxH,...] [--batch N]\n");
      std::exit(0);
    } else {
      die("unknown option " + a + " (try --help)");
    }
  }
  return o;
}

} // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  if (cvis::cuda_device_count() <= 0)
    die("no CUDA device: " + cvis::cuda_device_description(0));
  check(cvis::select_cuda_device(opt.device), "select_cuda_device");
  const std::string device = cvis::cuda_device_description(opt.device);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  cvis::StreamHandle stream_handle = nullptr;
  check(cvis::stream_create(&stream_handle), "stream_create");
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
  using cvis::Backend;
  using cvis::cedd::Mode;
  auto cpu_all = make(Backend::kCpu, Mode::kGpuOnly, 0);
  auto cpu_1 = make(Backend::kCpu, Mode::kGpuOnly, 1);
  auto gpu = make(Backend::kCuda, Mode::kGpuOnly, 0);
  auto hybrid = make(Backend::kCuda, Mode::kHybrid, 0);
  std::fprintf(stderr, "bench_cedd on %s, %d CPU threads%s\n", device.c_str(), cores,
               opt.quick ? " (quick)" : "");

  std::vector<Row> rows;
  for (const auto& [w, h] : opt.sizes) {
    const std::string size = std::to_string(w) + "x" + std::to_string(h);
    const double mpix = static_cast<double>(w) * h / 1e6;
    const int batch = opt.batch > 0 ? opt.batch : (opt.quick ? 16 : (mpix > 2.1 ? 32 : 64));
    const int host_batch = std::min(batch, 16);
    const int nframes = std::max(8, batch);
    const int nhost = 8;
    std::fprintf(stderr, "%s: %d device frames, %d host frames, batch %d\n", size.c_str(), nframes,
                 nhost, batch);
    // Frames: host copies of the first 8, device copies of all (pitch aligned like a GstCudaMemory
    // plane), CPU reference results of all.
    const size_t pitch = (static_cast<size_t>(w) * 4 + 255) / 256 * 256;
    std::vector<std::vector<uint8_t>> host(nhost);
    std::vector<cvis::cuda::DeviceArray<uint8_t>> dev(nframes);
    std::vector<cvis::ImageView> host_views, dev_views;
    std::vector<Result> refs(nframes);
    std::vector<uint8_t> scratch;
    for (int f = 0; f < nframes; ++f) {
      std::vector<uint8_t>& buf = f < nhost ? host[f] : scratch;
      fill_frame(&buf, w, h, 1000u * static_cast<uint32_t>(w) + static_cast<uint32_t>(f));
      const cvis::ImageView hv =
          rgba_view(buf.data(), w, h, static_cast<size_t>(w) * 4, cvis::MemorySpace::kHost);
      check(dev[f].reserve(pitch * h), "device frame");
      check_cuda(cudaMemcpy2D(dev[f].get(), pitch, buf.data(), static_cast<size_t>(w) * 4,
                              static_cast<size_t>(w) * 4, h, cudaMemcpyHostToDevice),
                 "upload frame");
      // A pageable copy may return before its DMA ends; the backend reads on a non-blocking stream.
      check_cuda(cudaDeviceSynchronize(), "upload frame");
      dev_views.push_back(rgba_view(dev[f].get(), w, h, pitch, cvis::MemorySpace::kDevice));
      if (f < nhost)
        host_views.push_back(hv);
      check(cpu_all->describe(hv, nullptr, 1, &refs[f], nullptr), "cpu reference");
    }
    // Iterations: the CPU reference rows dominate the run time, so they get few.
    const bool q = opt.quick;
    const int cpu_calls = q ? 2 : std::max(3, static_cast<int>(12 / mpix));
    const int cpu1_calls = q ? 1 : std::max(2, static_cast<int>(3 / mpix));
    const int gpu_calls = q ? 30 : 300;
    const int batch_calls = q ? 5 : 30;
    const int host_calls = q ? 10 : std::max(20, static_cast<int>(100 / mpix));
    const size_t first = rows.size();

    auto batched = [&](cvis::cedd::Extractor& e, const std::vector<cvis::ImageView>& views, int n) {
      return [&e, &views, n, stream](int i, std::vector<Result>* out) {
        std::vector<cvis::ImageView> in(n);
        std::vector<int> frames(n);
        for (int k = 0; k < n; ++k) {
          frames[k] = (i * n + k) % static_cast<int>(views.size());
          in[k] = views[frames[k]];
        }
        check(e.describe_batch(in.data(), n, out->data(), stream), "describe_batch");
        return frames;
      };
    };
    auto single_on = [&](cvis::cedd::Extractor& e, const std::vector<cvis::ImageView>& views) {
      return [&e, &views, stream](int i, std::vector<Result>* out) {
        const int f = i % static_cast<int>(views.size());
        check(e.describe(views[f], nullptr, 1, out->data(), stream), "describe");
        return std::vector<int>{f};
      };
    };
    rows.push_back(measure(size, "cpu reference, " + std::to_string(cores) + " threads", 1, 1,
                           cpu_calls, false, stream, refs, single_on(*cpu_all, host_views)));
    rows.push_back(measure(size, "cpu reference, 1 thread", 1, 0, cpu1_calls, false, stream, refs,
                           single_on(*cpu_1, host_views)));
    rows.push_back(measure(size, "cuda gpu-only describe, device frames", 1, 10, gpu_calls, true,
                           stream, refs, single_on(*gpu, dev_views)));
    rows.push_back(measure(size, "cuda gpu-only describe_batch, device frames", batch, 2,
                           batch_calls, true, stream, refs, batched(*gpu, dev_views, batch)));
    rows.push_back(measure(size, "cuda hybrid describe_batch, host frames", host_batch, 1,
                           batch_calls / 2 + 2, true, stream, refs,
                           batched(*hybrid, host_views, host_batch)));
    rows.push_back(measure(size, "cuda hybrid describe, host frames", 1, 2, host_calls, true,
                           stream, refs, single_on(*hybrid, host_views)));
    rows.push_back(measure(size, "cuda gpu-only describe, host frames", 1, 3, host_calls, true,
                           stream, refs, single_on(*gpu, host_views)));
    rows.push_back(measure(size, "cuda gpu-only describe_batch, host frames", host_batch, 1,
                           batch_calls / 2 + 2, true, stream, refs,
                           batched(*gpu, host_views, host_batch)));
    for (size_t r = first; r < rows.size(); ++r) {
      rows[r].vs_cpu_all = rows[first].us_per_desc / rows[r].us_per_desc;
      rows[r].vs_cpu_1 = rows[first + 1].us_per_desc / rows[r].us_per_desc;
    }
  }
  cvis::stream_destroy(stream_handle);

  std::printf(
      "\nbench_cedd: %s; CPU reference with %d threads; medians of CUDA-event (GPU rows) or "
      "wall-clock (CPU rows) times per call\n",
      device.c_str(), cores);
  std::printf("%-10s %-44s %5s %5s %11s %10s %11s %8s %8s\n", "size", "row", "batch", "calls",
              "us/call", "us/desc", "desc/s", "x cpu", "x cpu(1)");
  for (const Row& r : rows) {
    std::printf("%-10s %-44s %5d %5d %11.1f %10.2f %11.0f %8.1f %8.1f\n", r.size.c_str(),
                r.name.c_str(), r.batch, r.calls, r.median_us, r.us_per_desc, r.per_s, r.vs_cpu_all,
                r.vs_cpu_1);
  }
  // The library-level targets (GPU-resident frames, batching allowed).
  for (const Row& r : rows) {
    if (r.name != "cuda gpu-only describe_batch, device frames")
      continue;
    const double target = r.size == "640x480" ? 20000 : r.size == "1920x1080" ? 5000 : 0;
    if (target > 0) {
      std::printf("target %s >= %.0f descriptors/s: %.0f/s %s\n", r.size.c_str(), target, r.per_s,
                  r.per_s >= target ? "met" : "NOT MET");
    }
  }
  std::printf("verification: %s (%d mismatching descriptors)\n",
              g_mismatches ? "FAILED" : "all outputs equal the CPU reference", g_mismatches);

  if (!opt.out.empty()) {
    FILE* f = std::fopen(opt.out.c_str(), "w");
    if (!f)
      die("cannot write " + opt.out);
    std::fprintf(f, "# bench_cedd; device\t%s\n# cpu_threads\t%d\n", device.c_str(), cores);
    std::fprintf(f,
                 "size\trow\tbatch\tcalls\tmedian_us_per_call\tp10_us\tp90_us\tus_per_descriptor\t"
                 "descriptors_per_s\tspeedup_vs_cpu_all\tspeedup_vs_cpu_1\n");
    for (const Row& r : rows) {
      std::fprintf(f, "%s\t%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.4f\t%.1f\t%.3f\t%.3f\n", r.size.c_str(),
                   r.name.c_str(), r.batch, r.calls, r.median_us, r.p10_us, r.p90_us, r.us_per_desc,
                   r.per_s, r.vs_cpu_all, r.vs_cpu_1);
    }
    std::fprintf(f, "# mismatches\t%d\n", g_mismatches);
    std::fclose(f);
  }
  return g_mismatches == 0 ? 0 : 1;
}

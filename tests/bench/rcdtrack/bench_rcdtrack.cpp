// Benchmark of cuda/rcdtrack on the GPU (exit 1 without one):
// A. integral images of every plane of a 2048x1152 frame at full resolution: the engine's two
//    kernels against a CUB scan-transpose-scan build (the scheme the thesis replaced), checked
//    equal, with the DRAM bytes each moves against the device's peak bandwidth;
// B. the thesis's setup: 2048x1152 frames, 8 scales (0.5x-2x of a 128x96 template), whole-frame
//    search (Detector), at the automatic step and at step 4, one part (the thesis) and five;
// C. tracking at 1920x1080 in CUDA memory: 1 target (the >= 2,000 frames/s target), 8 and 64.
// GPU-resident frames are rotated; CUDA events around each call after a warm-up, median of the
// runs (process() synchronises its stream, so the wall time per call is reported too). The CPU
// reference runs the same calls on a few frames (ratio), and its results must equal the GPU's.
// Usage: bench_rcdtrack [--out FILE.md] [--quick] [--cpu-frames N] [--runs N]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_rcdtrack_cub.hpp"
#include "common/backend.hpp"
#include "rcdtrack.hpp"
#include "rcdtrack_engine.hpp"
#include "rcdtrack_kernels.hpp"
#include "rcdtrack_plan.hpp"
#include "rcdtrack_scene.hpp"

using namespace cvis;
using namespace cvis::rcdtrack;
namespace scene = cvis::rcdtrack::test;
using cvis::test::HostImage;
using Clock = std::chrono::steady_clock;

namespace {

bool g_ok = true;
#define CHECK(x)                                                                                   \
  do {                                                                                             \
    if (!(x)) {                                                                                    \
      std::fprintf(stderr, "FAILED: %s (%s:%d)\n", #x, __FILE__, __LINE__);                        \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

template <typename T> void dev_alloc(T** p, size_t bytes) {
  void* v = nullptr;
  CHECK(cudaMalloc(&v, bytes) == cudaSuccess);
  *p = static_cast<T*>(v);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// A device copy of a host RGBA image.
struct DevFrame {
  HostImage host;
  ImageView dev{};
  explicit DevFrame(HostImage h) : host(std::move(h)) {
    dev = host.view();
    dev.space = MemorySpace::kDevice;
    size_t pitch = 0;
    void* p = nullptr;
    CHECK(cudaMallocPitch(&p, &pitch, static_cast<size_t>(host.width()) * 4, host.height()) ==
          cudaSuccess);
    CHECK(cudaMemcpy2D(p, pitch, host.view().data[0], host.pitch(0),
                       static_cast<size_t>(host.width()) * 4, host.height(),
                       cudaMemcpyHostToDevice) == cudaSuccess);
    dev.data[0] = static_cast<uint8_t*>(p);
    dev.pitch[0] = pitch;
  }
  DevFrame(DevFrame&& o) noexcept : host(std::move(o.host)), dev(o.dev) { o.dev.data[0] = nullptr; }
  ~DevFrame() {
    if (dev.data[0])
      cudaFree(dev.data[0]);
  }
};

// Frames with `targets` textured objects moving; truth boxes of frame 0 in *boxes.
std::vector<DevFrame> make_frames(int w, int h, int count, int targets, int size,
                                  std::vector<Box>* boxes) {
  HostImage bg = scene::make_background(w, h, 1);
  std::vector<HostImage> tex;
  for (int k = 0; k < targets; ++k)
    tex.push_back(scene::make_texture(size, size * 3 / 4, 10 + k, k % 4));
  std::vector<DevFrame> frames;
  const int cols = std::max(1, static_cast<int>(std::ceil(std::sqrt(targets * 16.0 / 9.0))));
  for (int t = 0; t < count; ++t) {
    HostImage f = scene::copy_image(bg);
    for (int k = 0; k < targets; ++k) {
      const double cx = (k % cols + 0.5) * w / cols + 2.0 * t,
                   cy = (k / cols + 0.5) * h / ((targets + cols - 1) / cols) + 1.0 * t;
      const Box b = scene::draw_object(&f, tex[k], cx, cy, 1.0 + 0.004 * t, 0.0);
      if (t == 0 && boxes)
        boxes->push_back(b);
    }
    frames.emplace_back(std::move(f));
  }
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  return frames;
}

double peak_bandwidth() {
  int clock_khz = 0, bus_bits = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
  return 2.0 * clock_khz * 1e3 * bus_bits / 8.0; // bytes/s (DDR)
}

struct Row {
  std::string what, gpu, cpu, note;
};
std::vector<Row> g_rows;

// Times fn (which must end with its stream synchronised): median of events and of wall time.
template <typename F>
void time_calls(int warm, int runs, cudaStream_t s, F fn, double* ev_ms, double* wall_ms) {
  for (int i = 0; i < warm; ++i)
    fn(i);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<double> ev, wall;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    cudaEventRecord(a, s);
    fn(warm + i);
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    ev.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  *ev_ms = median(ev);
  *wall_ms = median(wall);
}

// printf into a string; the arguments keep their types (ints for %d).
template <typename... A> std::string fmt(const char* f, A... a) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

// ---------------------------------------------------------------------------------------------
void bench_integrals(int runs) {
  const int w = 2048, h = 1152;
  std::vector<Box> boxes;
  std::vector<DevFrame> frames = make_frames(w, h, 2, 1, 128, &boxes);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  for (const char* fsname : {"thesis", "x,y,r,g,b,ix,iy"}) {
    FeatureSet fs;
    std::string err;
    CHECK(parse_features(fsname, &fs, &err));
    const Layout L = make_layout(fs, 1.0, 1);
    const int P = L.planes;
    kernels::DevIntegral di{};
    di.cols = w;
    di.rows = h;
    di.cell = 1;
    di.plane_stride = static_cast<int64_t>(w + 1) * (h + 1);
    const int64_t total_cols = static_cast<int64_t>(P) * (w + 1);
    kernels::DevIntegral* ddi = nullptr;
    int64_t *eng = nullptr, *a = nullptr, *b = nullptr;
    unsigned long long* bad = nullptr;
    const size_t plane_in = static_cast<size_t>(w) * h;
    dev_alloc(&ddi, sizeof di);
    CHECK(cudaMemcpy(ddi, &di, sizeof di, cudaMemcpyHostToDevice) == cudaSuccess);
    dev_alloc(&eng, sizeof(int64_t) * P * di.plane_stride);
    dev_alloc(&a, sizeof(int64_t) * P * plane_in);
    dev_alloc(&b, sizeof(int64_t) * P * plane_in);
    dev_alloc(&bad, sizeof *bad);
    size_t temp_bytes = 0;
    const PixelSource src = make_pixel_source(frames[0].dev);
    CHECK(bench::cub_integrals(src, L, a, b, nullptr, &temp_bytes, s) == cudaSuccess);
    void* temp = nullptr;
    dev_alloc(&temp, temp_bytes);
    double ev_ours, wall_ours, ev_cub, wall_cub;
    time_calls(
        3, runs, s,
        [&](int i) {
          const PixelSource fsrc = make_pixel_source(frames[i % 2].dev);
          CHECK(kernels::launch_integrals(fsrc, L, ddi, 1, h, total_cols, eng, s).ok());
          cudaStreamSynchronize(s);
        },
        &ev_ours, &wall_ours);
    time_calls(
        3, runs, s,
        [&](int i) {
          const PixelSource fsrc = make_pixel_source(frames[i % 2].dev);
          CHECK(bench::cub_integrals(fsrc, L, a, b, temp, &temp_bytes, s) == cudaSuccess);
          cudaStreamSynchronize(s);
        },
        &ev_cub, &wall_cub);
    // Both builds of frame 0, compared entry by entry.
    CHECK(kernels::launch_integrals(src, L, ddi, 1, h, total_cols, eng, s).ok());
    CHECK(bench::cub_integrals(src, L, a, b, temp, &temp_bytes, s) == cudaSuccess);
    CHECK(cudaMemsetAsync(bad, 0, sizeof *bad, s) == cudaSuccess);
    CHECK(bench::count_mismatches(a, eng, w, h, P, bad, s) == cudaSuccess);
    unsigned long long mism = 1;
    CHECK(cudaMemcpyAsync(&mism, bad, sizeof mism, cudaMemcpyDeviceToHost, s) == cudaSuccess);
    CHECK(cudaStreamSynchronize(s) == cudaSuccess);
    if (mism) {
      std::fprintf(stderr, "integrals: %llu entries differ between the builds\n", mism);
      g_ok = false;
    }
    // DRAM bytes: ours reads the frame and writes the row prefixes (8 P per pixel), the column
    // pass reads and writes them again; CUB: planes written, each scan reads and writes, each
    // transpose reads and writes (the keys are computed).
    const double px = static_cast<double>(w) * h;
    const double ours_bytes = px * 4 + px * P * 8 * 3, cub_bytes = px * 4 + px * P * 8 * 9;
    const double bw = peak_bandwidth();
    g_rows.push_back({std::string("integrals 2048x1152, ") + std::to_string(P) + " planes (" +
                          fsname + "): ours, 2 kernels",
                      fmt("%.3f ms", ev_ours), "",
                      fmt("%.2f GB moved, %.0f%% of peak", ours_bytes / 1e9,
                          100.0 * ours_bytes / (ev_ours * 1e-3) / bw)});
    g_rows.push_back({std::string("integrals 2048x1152, ") + std::to_string(P) +
                          " planes: CUB scan-transpose-scan",
                      fmt("%.3f ms", ev_cub), "",
                      fmt("%.2f GB moved, %.0f%% of peak; ", cub_bytes / 1e9,
                          100.0 * cub_bytes / (ev_cub * 1e-3) / bw) +
                          (mism ? "MISMATCH" : "equal to ours")});
    cudaFree(temp);
    cudaFree(bad);
    cudaFree(b);
    cudaFree(a);
    cudaFree(eng);
    cudaFree(ddi);
  }
  cudaStreamDestroy(s);
}

// FP64 operations of one window part (covariance, two LDL^T, JBLD), an estimate for the table.
double part_flops(int n) {
  const double t = n * (n + 1) / 2.0;
  double ldl = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < i; ++j)
      ldl += 3.0 * j + 1; // s - a*b*d per k, one division
    ldl += 3.0 * i + 4;   // diagonal, frexp product
  }
  return 4 * t + t + 2 * (ldl + 30);
}

// ---------------------------------------------------------------------------------------------
void bench_thesis(int runs, int cpu_frames) {
  const int w = 2048, h = 1152;
  std::vector<Box> boxes;
  std::vector<DevFrame> frames = make_frames(w, h, 4, 1, 128, &boxes);
  // The template: the target cut from frame 0.
  ImageView tv;
  CHECK(sub_view(frames[0].host.view(), boxes[0].x, boxes[0].y, boxes[0].w, boxes[0].h, &tv).ok());
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  for (int parts : {1, 5}) {
    for (int step : {0, 4}) {
      Params p; // thesis features, 8 scales 0.5-2, JBLD
      p.parts = parts;
      p.step = step;
      p.threshold = 0.5 * parts;
      Model m;
      CHECK(model_from_image(tv, p.features, parts, &m).ok());
      Status st;
      auto gpu = make_detector(Backend::kCuda, &st);
      CHECK(gpu && gpu->configure(p, m, w, h, PixelFormat::kRGBA).ok());
      std::vector<Detection> dg;
      double ev, wall;
      time_calls(
          3, runs, s,
          [&](int i) { CHECK(gpu->process(frames[i % frames.size()].dev, s, &dg).ok()); }, &ev,
          &wall);
      // CPU reference on the same frames; equal detections.
      std::string cpu_txt = "-";
      const int ncpu = step == 0 ? cpu_frames : std::min(cpu_frames, 1);
      if (ncpu > 0) {
        auto cpu = make_detector(Backend::kCpu, &st);
        CHECK(cpu->configure(p, m, w, h, PixelFormat::kRGBA).ok());
        std::vector<double> ms;
        for (int i = 0; i < ncpu; ++i) {
          std::vector<Detection> dc;
          const auto t0 = Clock::now();
          CHECK(cpu->process(frames[i].host.view(), nullptr, &dc).ok());
          ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
          CHECK(gpu->process(frames[i].dev, s, &dg).ok());
          bool same = dc.size() == dg.size();
          for (size_t k = 0; same && k < dc.size(); ++k)
            same = dc[k].box == dg[k].box;
          if (!same) {
            std::fprintf(stderr,
                         "thesis setup parts %d step %d frame %d: CPU and GPU detections "
                         "differ\n",
                         parts, step, i);
            g_ok = false;
          }
        }
        cpu_txt = fmt("%.0f ms (x%.0f)", median(ms), median(ms) / wall);
      }
      // Windows of the coarse pass, and a count of what they cost.
      const int st_px = step ? step : coarse_step(0, m.width, m.height);
      double windows = 0;
      for (int k = 0; k < 8; ++k) {
        const double f = 0.5 * std::pow(4.0, k / 7.0);
        const double ww = std::round(f * m.width), wh = std::round(f * m.height);
        windows += std::floor((w - ww) / st_px + 1.0) * std::floor((h - wh) / st_px + 1.0);
      }
      const double flops = windows * parts * part_flops(5);
      g_rows.push_back(
          {fmt("thesis setup 2048x1152, 8 scales, whole frame, %d part(s), step %d", parts, st_px),
           fmt("%.3f ms = %.0f frames/s (wall %.3f ms)", ev, 1e3 / wall, wall), cpu_txt,
           fmt("%.2fM windows, ~%.0f GFLOP64 (%.1f TFLOP/s)", windows / 1e6, flops / 1e9,
               flops / (ev * 1e-3) / 1e12)});
    }
  }
  cudaStreamDestroy(s);
}

// ---------------------------------------------------------------------------------------------
void bench_tracking(int runs, int cpu_frames, bool quick) {
  const int w = 1920, h = 1080;
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  std::vector<int> counts = {1, 8, 64};
  if (quick)
    counts = {1, 8};
  for (int n : counts) {
    std::vector<Box> boxes;
    const int size = n == 64 ? 64 : 96;
    std::vector<DevFrame> frames = make_frames(w, h, 8, n, size, &boxes);
    Params p;
    Status st;
    auto gpu = make_tracker(Backend::kCuda, &st);
    CHECK(gpu && gpu->configure(p, w, h, PixelFormat::kRGBA).ok());
    std::vector<TargetResult> rg;
    // Targets start on frame 0; the timed frames then run forward and back (a smooth motion).
    for (int k = 0; k < n; ++k)
      CHECK(gpu->add_target(k, boxes[k]).ok());
    CHECK(gpu->process(frames[0].dev, s, &rg).ok());
    auto frame_of = [&](int i) {
      const int c = i % 14;
      return c < 8 ? c : 14 - c;
    };
    double ev, wall;
    time_calls(
        5, runs, s, [&](int i) { CHECK(gpu->process(frames[frame_of(i + 1)].dev, s, &rg).ok()); },
        &ev, &wall);
    std::string cpu_txt = "-";
    if (cpu_frames > 0 && n <= 8) {
      // Same targets from frame 0 on both backends: same boxes on every frame.
      auto cpu = make_tracker(Backend::kCpu, &st);
      auto g2 = make_tracker(Backend::kCuda, &st);
      CHECK(cpu->configure(p, w, h, PixelFormat::kRGBA).ok());
      CHECK(g2->configure(p, w, h, PixelFormat::kRGBA).ok());
      for (int k = 0; k < n; ++k) {
        CHECK(cpu->add_target(k, boxes[k]).ok());
        CHECK(g2->add_target(k, boxes[k]).ok());
      }
      std::vector<double> ms;
      for (int i = 0; i <= cpu_frames; ++i) {
        std::vector<TargetResult> rc, r2;
        const auto t0 = Clock::now();
        CHECK(cpu->process(frames[frame_of(i)].host.view(), nullptr, &rc).ok());
        if (i > 0)
          ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        CHECK(g2->process(frames[frame_of(i)].dev, s, &r2).ok());
        for (int k = 0; k < n; ++k)
          if (!(rc[k].box == r2[k].box)) {
            std::fprintf(stderr, "tracking %d targets, frame %d, target %d: CPU and GPU differ\n",
                         n, i, k);
            g_ok = false;
          }
      }
      cpu_txt = fmt("%.1f ms (x%.0f)", median(ms), median(ms) / wall);
    }
    g_rows.push_back({fmt("tracking 1920x1080 in CUDA memory, %d target(s), default settings", n),
                      fmt("%.3f ms = %.0f frames/s (wall %.3f ms)", ev, 1e3 / wall, wall), cpu_txt,
                      fmt("targets %dx%d pixels", size, size * 3 / 4)});
  }
  cudaStreamDestroy(s);
}

} // namespace

int main(int argc, char** argv) {
  std::string out;
  bool quick = false;
  int cpu_frames = 2, runs = 50;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc)
      out = argv[++i];
    else if (a == "--quick")
      quick = true;
    else if (a == "--cpu-frames" && i + 1 < argc)
      cpu_frames = std::atoi(argv[++i]);
    else if (a == "--runs" && i + 1 < argc)
      runs = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--out FILE.md] [--quick] [--cpu-frames N] [--runs N]\n",
                   argv[0]);
      return 1;
    }
  }
  if (quick)
    runs = std::min(runs, 10);
  if (!select_cuda_device(0).ok()) {
    std::fprintf(stderr, "bench_rcdtrack: no usable CUDA device\n");
    return 1;
  }
  const std::string dev = cuda_device_description(0);
  bench_integrals(runs);
  bench_thesis(runs, cpu_frames);
  bench_tracking(runs, cpu_frames, quick);
  std::string table =
      "| case | GPU (median) | CPU reference | count |\n| --- | --- | --- | --- |\n";
  for (const Row& r : g_rows)
    table += "| " + r.what + " | " + r.gpu + " | " + r.cpu + " | " + r.note + " |\n";
  std::string text = "bench_rcdtrack on " + dev + " (peak DRAM " +
                     fmt("%.0f GB/s", peak_bandwidth() / 1e9) + "), " + std::to_string(runs) +
                     " runs per row\n\n" + table;
  std::printf("%s%s\n", text.c_str(), g_ok ? "all checks passed" : "CHECKS FAILED");
  if (!out.empty()) {
    FILE* f = std::fopen(out.c_str(), "w");
    if (f) {
      std::fputs(text.c_str(), f);
      std::fclose(f);
    }
  }
  return g_ok ? 0 : 1;
}

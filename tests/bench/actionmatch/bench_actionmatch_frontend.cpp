// Benchmark of the action front end (FrontEnd::push) with default parameters: the CUDA backend on
// frames resident in device memory and on host (pageable) frames, and the CPU reference on fewer
// frames in the same run, as a ratio. 16 distinct generated frames (shapes moving over texture)
// are pushed in rotation after a warm-up of 2 x lag pushes (steady state: every push returns a
// final frame); each push is timed alone, by the wall clock (push returns after its one wait) and
// by CUDA events around it on the stream; medians are printed. Before timing, the CUDA output of
// a sequence is compared with the CPU's (exact). A rough cost model (bytes moved and float
// operations per frame, counted per kernel as if each image were read once) shows the distance
// to the device's memory bandwidth.
// Usage: bench_actionmatch_frontend [--sizes WxH,WxH] [--runs N] [--cpu-frames N] [--quick]
// (--quick: tiny sizes and few runs, for the CPU emulation). Exit status 1 on an error or a
// mismatch.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "stip.hpp"
#include "common/backend.hpp"

using namespace cvis;
using namespace cvis::stip;

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kFrames = 16;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// kFrames packed GRAY8 frames: texture, a bar swinging sideways, a blinking disc.
std::vector<uint8_t> make_frames(int w, int h) {
  std::mt19937 rng(3);
  std::vector<uint8_t> tex(static_cast<size_t>(w) * h);
  for (uint8_t& t : tex)
    t = static_cast<uint8_t>(40 + rng() % 60);
  std::vector<uint8_t> f(tex.size() * kFrames);
  for (int t = 0; t < kFrames; ++t) {
    uint8_t* p = f.data() + tex.size() * t;
    const int bx = static_cast<int>(w * (0.3 + 0.2 * std::sin(t * 0.9)));
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const size_t i = static_cast<size_t>(y) * w + x;
        const double dx = x - 0.7 * w, dy = y - 0.6 * h;
        uint8_t v = tex[i];
        if (x >= bx && x < bx + w / 10 && y > h / 4 && y < 3 * h / 4)
          v = 210;
        if (t % 4 < 2 && dx * dx + dy * dy < h * h / 100.0)
          v = 240;
        p[i] = v;
      }
  }
  return f;
}

ImageView view(uint8_t* data, int w, int h, MemorySpace space) {
  ImageView v;
  v.format = PixelFormat::kGRAY8;
  v.space = space;
  v.width = w;
  v.height = h;
  v.data[0] = data;
  v.pitch[0] = static_cast<size_t>(w);
  return v;
}

// Bytes and float operations per frame by the launch sequence of actionmatch_frontend_cuda.cpp
// (default parameters, steady state), each kernel counted as reading each input image once.
struct CostModel {
  double bytes = 0, flops = 0;
  int launches = 0;
};
CostModel cost_model(int w, int h, const FrontEndParams& p) {
  CostModel m;
  auto k = [&](double pixels, double read_floats, double write_floats, double ops) {
    m.bytes += pixels * 4 * (read_floats + write_floats);
    m.flops += pixels * ops;
    ++m.launches;
  };
  const double N = static_cast<double>(w) * h;
  const int gt = 2 * static_cast<int>(std::ceil(3 * p.sigma)) + 1;
  const int r = p.temporal_radius(), bt = 2 * p.flow_radius + 1;
  if (p.normalise_gain) {
    m.bytes += N;
    m.launches += 2; // memset + sum
  }
  k(N, 0.25, 2, 2 * gt + 10);  // load + Gaussian and binomial rows
  k(N, 2, 2, 2 * gt + 10);     // their columns
  double level = N;
  for (int l = 1; l < p.flow_levels; ++l) {
    k(level / 2, 2, 1, 10); // decimating rows
    level /= 4;
    k(level, 2, 1, 10); // decimating columns
  }
  level = N;
  for (int l = 0; l < p.flow_levels; ++l, level /= 4) {
    k(level, 1.25, 5, 8 + 6 * bt); // prolongation, gradient products and their row sums
    k(level, 3, 3, 6 * bt);        // their column sums
    for (int it = 0; it < p.flow_iterations; ++it) {
      k(level, 4 + 2, 2, 24 + 4 * bt); // warp, mismatch and row sums: P, C (bilinear), u, v
      k(level, 7, 2, 4 * bt + 20);     // column sums + update
    }
  }
  k(N, 3, 2 + 2 * 0.25, 20);            // votes (bins are bytes)
  k(N, 2 * r + 1, 1, 4 * (2 * r + 1) + 3); // Gabor response
  const double win = (2 * p.nms_radius + 1) * (2 * p.nms_radius + 1);
  k(N, 3, 0, 3 * win);                  // NMS (window reads come from cache: 3 frames once)
  m.launches += 4;                      // memset, rank, descriptors, copies
  return m;
}

struct Timing {
  double wall_ms = 0, gpu_ms = 0;
  int runs = 0;
};

// `runs` pushes of views in rotation after a warm-up, each timed alone.
bool time_pushes(FrontEnd& fe, const std::vector<ImageView>& views, int runs, StreamHandle s,
                 Timing* t) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<FramePoints> out;
  Status st;
  for (int i = 0; i < 2 * fe.lag() + 2 && st.ok(); ++i)
    st = fe.push(views[i % views.size()], s, &out);
  std::vector<double> wall, gpu;
  for (int i = 0; i < runs && st.ok(); ++i) {
    out.clear();
    const cudaStream_t cs = static_cast<cudaStream_t>(s);
    cudaEventRecord(a, cs);
    const auto t0 = Clock::now();
    st = fe.push(views[i % views.size()], s, &out);
    wall.push_back(ms_since(t0));
    cudaEventRecord(b, cs);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    gpu.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  if (!st.ok()) {
    std::fprintf(stderr, "push failed: %s\n", st.to_string().c_str());
    return false;
  }
  t->wall_ms = median(wall);
  t->gpu_ms = median(gpu);
  t->runs = runs;
  return true;
}

bool same(const std::vector<FramePoints>& a, const std::vector<FramePoints>& b, int* points) {
  if (a.size() != b.size())
    return false;
  *points = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].frame != b[i].frame || a[i].points.size() != b[i].points.size() ||
        a[i].desc.size() != b[i].desc.size())
      return false;
    for (size_t k = 0; k < a[i].points.size(); ++k) {
      const InterestPoint &p = a[i].points[k], &q = b[i].points[k];
      if (p.x != q.x || p.y != q.y || std::memcmp(&p.response, &q.response, 4) != 0)
        return false;
    }
    if (!a[i].desc.empty() &&
        std::memcmp(a[i].desc.data(), b[i].desc.data(), a[i].desc.size() * 4) != 0)
      return false;
    *points += static_cast<int>(a[i].points.size());
  }
  return true;
}

} // namespace

int main(int argc, char** argv) {
  std::vector<std::pair<int, int>> sizes = {{640, 480}, {1920, 1080}};
  int runs = 200, cpu_frames = 6;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(3, std::atoi(argv[++i]));
    } else if (a == "--cpu-frames" && i + 1 < argc) {
      cpu_frames = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--quick") {
      sizes = {{64, 48}, {37, 29}};
      runs = 5;
      cpu_frames = 2;
    } else if (a == "--sizes" && i + 1 < argc) {
      sizes.clear();
      const std::string s = argv[++i];
      for (size_t at = 0; at < s.size();) {
        const size_t end = std::min(s.find(',', at), s.size());
        int w = 0, h = 0;
        if (std::sscanf(s.substr(at, end - at).c_str(), "%dx%d", &w, &h) == 2)
          sizes.push_back({w, h});
        at = end + 1;
      }
    } else {
      std::fprintf(stderr, "usage: bench_actionmatch_frontend [--sizes WxH,WxH] [--runs N] "
                           "[--cpu-frames N] [--quick]\n");
      return 2;
    }
  }
  if (cuda_device_count() < 1) {
    std::fprintf(stderr, "no usable CUDA device\n");
    return 1;
  }
  std::printf("device: %s\n", cuda_device_description(0).c_str());
  int mem_khz = 0, bus_bits = 0;
  cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
  const double bandwidth = 2.0 * mem_khz * 1e3 * bus_bits / 8; // bytes/s (DDR)
  StreamHandle stream = nullptr;
  Status st = stream_create(&stream);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  const FrontEndParams p; // defaults
  bool ok = true;
  for (const auto& [w, h] : sizes) {
    std::vector<uint8_t> host = make_frames(w, h);
    uint8_t* dev = nullptr;
    if (cudaMalloc(reinterpret_cast<void**>(&dev), host.size()) != cudaSuccess ||
        cudaMemcpy(dev, host.data(), host.size(), cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaDeviceSynchronize() != cudaSuccess) {
      std::fprintf(stderr, "device frames: allocation or copy failed\n");
      return 1;
    }
    std::vector<ImageView> dv, hv;
    for (int t = 0; t < kFrames; ++t) {
      dv.push_back(view(dev + static_cast<size_t>(w) * h * t, w, h, MemorySpace::kDevice));
      hv.push_back(view(host.data() + static_cast<size_t>(w) * h * t, w, h, MemorySpace::kHost));
    }
    auto gpu = make_frontend(Backend::kCuda, &st);
    auto cpu = make_frontend(Backend::kCpu, &st);
    if (!gpu || !cpu || !(st = gpu->configure(w, h, p)).ok() || !(st = cpu->configure(w, h, p)).ok()) {
      std::fprintf(stderr, "configure: %s\n", st.to_string().c_str());
      return 1;
    }
    // Exact check: one rotation of the frames plus the flush, both backends.
    std::vector<FramePoints> a, b;
    for (int t = 0; t < kFrames && st.ok(); ++t) {
      st = cpu->push(hv[t], nullptr, &a);
      if (st.ok())
        st = gpu->push(dv[t], stream, &b);
    }
    if (st.ok())
      st = cpu->finish(nullptr, &a);
    if (st.ok())
      st = gpu->finish(stream, &b);
    int points = 0;
    const bool equal = st.ok() && same(a, b, &points);
    std::printf("frontend %dx%d: CUDA == CPU on %d frames (%d points): %s\n", w, h, kFrames, points,
                equal ? "yes" : "NO");
    ok = ok && equal;

    Timing td, th;
    ok = ok && time_pushes(*gpu, dv, runs, stream, &td);
    gpu->reset();
    ok = ok && time_pushes(*gpu, hv, runs, stream, &th);
    // CPU: a warm-up to the steady state, then cpu_frames pushes.
    cpu->reset();
    std::vector<FramePoints> out;
    std::vector<double> cpu_ms;
    for (int i = 0; i < cpu->lag() + 1 + cpu_frames && st.ok(); ++i) {
      const auto t0 = Clock::now();
      st = cpu->push(hv[i % kFrames], nullptr, &out);
      if (i > cpu->lag())
        cpu_ms.push_back(ms_since(t0));
    }
    ok = ok && st.ok();
    const double cpu_med = median(cpu_ms);
    std::printf("frontend cuda %dx%d device: %.0f frames/s (median of %d: %.3f ms wall, %.3f ms "
                "between events)\n",
                w, h, 1e3 / td.wall_ms, td.runs, td.wall_ms, td.gpu_ms);
    std::printf("frontend cuda %dx%d host: %.0f frames/s (median of %d: %.3f ms wall, %.3f ms "
                "between events)\n",
                w, h, 1e3 / th.wall_ms, th.runs, th.wall_ms, th.gpu_ms);
    std::printf("frontend cpu %dx%d: %.1f frames/s (median of %d: %.1f ms); cuda device / cpu: "
                "%.1fx\n",
                w, h, 1e3 / cpu_med, static_cast<int>(cpu_ms.size()), cpu_med,
                cpu_med / td.wall_ms);
    const CostModel m = cost_model(w, h, p);
    const double bound = bandwidth > 0 ? bandwidth / m.bytes : 0;
    std::printf("model %dx%d: %.1f MB and %.0f Mflop per frame, %d launches; at %.0f GB/s the "
                "bytes alone allow %.0f frames/s (cuda device reaches %.0f%% of it)\n",
                w, h, m.bytes / 1e6, m.flops / 1e6, m.launches, bandwidth / 1e9, bound,
                bound > 0 ? 100.0 * (1e3 / td.wall_ms) / bound : 0.0);
    cudaFree(dev);
  }
  stream_destroy(stream);
  std::printf("%s\n", ok ? "all checks passed" : "FAILED");
  return ok ? 0 : 1;
}

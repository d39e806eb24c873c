// Benchmark of cudamedian3d's motion detector (mode=motion, motion.hpp) at 1920x1080 (and 768x576):
// NV12 frames resident on the GPU (8 rotated), the defaults (31 samples every 4 frames, Y/U/V,
// shadows, gain, 3x3 clean-up, area filter, blobs) and luma only (chroma=false). Per frame: one
// process() call, which ends with a stream synchronisation (the element's path: the shot-change
// rule and the blobs are read back), timed with CUDA events after a warm-up past the initial fill;
// the median over the frames is reported. The CPU backend runs the same frames (fewer) as the
// ratio, and its last mask and background must equal the GPU's (exact).
// Modelled DRAM traffic per frame (bytes per pixel, see model_bytes) against the peak bandwidth.
// Usage: bench_motion [--out FILE] [--quick] [--no-cpu] [--frames N]
// Exit status: 0 when every check passed, 1 on an error or mismatch.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "motion.hpp"

using namespace cvis;
using namespace cvis::median3d;

namespace {

// An owned NV12 frame (host) with moving blocks over a textured background, and its device copy.
struct Frame {
  std::vector<uint8_t> y, uv;
  ImageView host{}, dev{};
  ~Frame() {
    for (uint8_t* p : dev.data)
      if (p)
        cudaFree(p);
  }
};

void make_frame(Frame* f, int w, int h, int t) {
  f->y.resize(static_cast<size_t>(w) * h);
  f->uv.resize(static_cast<size_t>((w + 1) / 2) * 2 * ((h + 1) / 2));
  uint32_t r = 12345u + 7919u * t;
  for (int yy = 0; yy < h; ++yy) {
    for (int xx = 0; xx < w; ++xx) {
      r = r * 1664525u + 1013904223u;
      int v = (xx / 7 + yy / 5) % 180 + 30 + static_cast<int>(r >> 29) - 4;
      const int ox = (t * 17) % w, oy = (t * 11) % h;
      if (xx >= ox && xx < ox + w / 8 && yy >= oy && yy < oy + h / 8)
        v = 240;
      f->y[static_cast<size_t>(yy) * w + xx] = static_cast<uint8_t>(std::clamp(v, 0, 255));
    }
  }
  for (size_t i = 0; i < f->uv.size(); ++i)
    f->uv[i] = static_cast<uint8_t>(120 + (i / 2 + t) % 16);
  f->host.format = PixelFormat::kNV12;
  f->host.space = MemorySpace::kHost;
  f->host.width = w;
  f->host.height = h;
  f->host.data[0] = f->y.data();
  f->host.pitch[0] = w;
  f->host.data[1] = f->uv.data();
  f->host.pitch[1] = static_cast<size_t>((w + 1) / 2) * 2;
}

bool upload(Frame* f) {
  f->dev = f->host;
  f->dev.space = MemorySpace::kDevice;
  for (int p = 0; p < 2; ++p) {
    const size_t bytes = f->host.pitch[p] * plane_rows(PixelFormat::kNV12, p, f->host.height);
    void* d = nullptr;
    if (cudaMalloc(&d, bytes) != cudaSuccess ||
        cudaMemcpy(d, f->host.data[p], bytes, cudaMemcpyHostToDevice) != cudaSuccess)
      return false;
    f->dev.data[p] = static_cast<uint8_t*>(d);
  }
  // A pageable copy may return before its DMA ends; the detector reads on a non-blocking stream.
  return cudaDeviceSynchronize() == cudaSuccess;
}

// Modelled DRAM bytes per pixel of one steady-state frame (nc channels, K samples padded to
// S = sample_stride(K) bytes per pixel and channel, period P), each kernel's reads and writes
// counted once (no reuse through L2 between kernels); the passes read the NV12 frame (1.5)
// themselves: gain votes (every other row: 32-byte sectors fetch the whole row) 2; offset votes
// 1 + (nc - 1); own and neighbour tests (one kernel) frame 1.5, model and threshold 2 nc, prev
// read and written 2, cnt 1, written raw, shadow, cnt, adopt 4; majority and adoption: raw, cnt,
// shadow, adopt read, mask and hold written 6; labelling ~29 (the area filter runs in the update
// pass); update: mask and hold 2, the device mask output 1, and for the pixels on their turn (one
// in P, but every sector of the per-pixel planes): frame 1.5, head 2, previous medians nc, median
// and threshold written 2 nc, and the samples (reading and writing the S-byte block per channel,
// contiguous in the [c][y][x mod P][x / P] layout: 2 nc S / P). Ages only with absorption on.
double model_bytes_per_pixel(int nc, int K, int P) {
  const int S = (K + 15) / 16 * 16;
  return 2 + (1 + (nc - 1)) + (2.0 * nc + 8.5) + 6 + 29 + (6.5 + 3.0 * nc + 2.0 * nc * S / P);
}

struct Row {
  std::string name;
  int w = 0, h = 0;
  double gpu_ms = 0, cpu_ms = 0, mb = 0;
  bool checked = false, ok = true;
  std::string error;
};

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// `earlier`: tau_max 48 and adopt_tight off, the defaults before tight adoption (their cost).
Row run(const char* name, int w, int h, bool color, int frames, int cpu_frames,
        StreamHandle stream, bool earlier = false) {
  Row row;
  row.name = name;
  row.w = w;
  row.h = h;
  MotionParams p;
  p.color = color;
  p.shadows = color;
  if (earlier) {
    p.tau_max = 48;
    p.adopt_tight = false;
  }
  row.mb = model_bytes_per_pixel(color ? 3 : 1, p.history, p.sample_period) * w * h / 1e6;
  auto fail = [&](const std::string& e) {
    row.ok = false;
    row.error = e;
    return row;
  };
  std::vector<Frame> ring(8);
  for (int i = 0; i < 8; ++i) {
    make_frame(&ring[i], w, h, i);
    if (!upload(&ring[i]))
      return fail("upload");
  }
  Status s;
  auto gpu = make_motion_detector(Backend::kCuda, &s);
  if (!gpu || !gpu->configure(p).ok())
    return fail("CUDA detector: " + s.to_string());
  std::vector<uint8_t> mask_host(static_cast<size_t>(w) * h);
  void* dmask = nullptr;
  size_t dpitch = 0;
  if (cudaMallocPitch(&dmask, &dpitch, w, h) != cudaSuccess)
    return fail("mask allocation");
  ImageView mv{};
  mv.format = PixelFormat::kGRAY8;
  mv.space = MemorySpace::kDevice;
  mv.width = w;
  mv.height = h;
  mv.data[0] = static_cast<uint8_t*>(dmask);
  mv.pitch[0] = dpitch;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const int warm = p.history * 1 + 8; // past the initial fill (history frames)
  std::vector<double> times;
  MotionResult r;
  for (int t = 0; t < warm + frames && row.ok; ++t) {
    cudaEventRecord(e0, static_cast<cudaStream_t>(stream));
    s = gpu->process(ring[t % 8].dev, &mv, nullptr, &r, stream);
    cudaEventRecord(e1, static_cast<cudaStream_t>(stream));
    if (!s.ok() || cudaEventSynchronize(e1) != cudaSuccess)
      return fail("process: " + s.to_string());
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (t >= warm)
      times.push_back(ms);
  }
  row.gpu_ms = median(times);
  if (cpu_frames > 0) {
    // The CPU backend on the same frames from a reset (its fill, then cpu_frames timed), and the
    // GPU from a reset on the same frames: the last mask must be equal.
    auto cpu = make_motion_detector(Backend::kCpu, &s);
    if (!cpu || !cpu->configure(p).ok())
      return fail("CPU detector");
    gpu->reset();
    std::vector<uint8_t> cmask(static_cast<size_t>(w) * h);
    ImageView cv = mv;
    cv.space = MemorySpace::kHost;
    cv.data[0] = cmask.data();
    cv.pitch[0] = w;
    std::vector<double> ctimes;
    for (int t = 0; t < p.history + cpu_frames; ++t) {
      const auto c0 = std::chrono::steady_clock::now();
      if (!cpu->process(ring[t % 8].host, &cv, nullptr, &r, nullptr).ok())
        return fail("CPU process");
      if (t >= p.history)
        ctimes.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0)
                .count());
      if (!gpu->process(ring[t % 8].dev, &mv, nullptr, &r, stream).ok())
        return fail("process");
    }
    row.cpu_ms = median(ctimes);
    // The copy runs on the legacy stream, which does not wait for the non-blocking one.
    if (cudaStreamSynchronize(static_cast<cudaStream_t>(stream)) != cudaSuccess)
      return fail("stream synchronize");
    cudaMemcpy2D(mask_host.data(), w, dmask, dpitch, w, h, cudaMemcpyDeviceToHost);
    row.checked = true;
    if (mask_host != cmask) {
      // Where and how much, to tell a border or labelling difference from a model one.
      size_t n = 0, first = 0;
      for (size_t i = 0; i < cmask.size(); ++i)
        if (mask_host[i] != cmask[i] && n++ == 0)
          first = i;
      size_t cfg = 0, gfg = 0;
      for (size_t i = 0; i < cmask.size(); ++i) {
        cfg += cmask[i] != 0;
        gfg += mask_host[i] != 0;
      }
      char e[256];
      std::snprintf(e, sizeof e,
                    "GPU mask differs from the CPU's: %zu pixels, first at (%zu, %zu) gpu %d cpu "
                    "%d; foreground gpu %zu cpu %zu",
                    n, first % w, first / w, mask_host[first], cmask[first], gfg, cfg);
      return fail(e);
    }
  }
  cudaFree(dmask);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return row;
}

} // namespace

int main(int argc, char** argv) {
  std::string out_path;
  bool quick = false, no_cpu = false;
  int frames = 200;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc)
      out_path = argv[++i];
    else if (a == "--quick")
      quick = true;
    else if (a == "--no-cpu")
      no_cpu = true;
    else if (a == "--frames" && i + 1 < argc)
      frames = std::max(1, std::atoi(argv[++i]));
    else
      std::fprintf(stderr,
                   "ignoring %s (usage: %s [--out FILE] [--quick] [--no-cpu] "
                   "[--frames N])\n",
                   a.c_str(), argv[0]);
  }
  if (quick)
    frames = std::min(frames, 20);
  if (!select_cuda_device(0).ok()) {
    std::fprintf(stderr, "no usable CUDA device: %s\n", cuda_device_description(0).c_str());
    return 1;
  }
  int clock_khz = 0, bus_bits = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
  const double peak_gbs = 2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9;
  StreamHandle s = nullptr;
  if (!stream_create(&s).ok())
    return 1;
  const int cpu_frames = no_cpu ? 0 : 2;
  std::vector<Row> rows;
  rows.push_back(run("defaults (Y,U,V)", 1920, 1080, true, frames, cpu_frames, s));
  rows.push_back(run("chroma=false", 1920, 1080, false, frames, quick ? 0 : cpu_frames, s));
  rows.push_back(run("defaults (Y,U,V)", 768, 576, true, frames, quick ? 0 : cpu_frames, s));
  if (!quick)
    rows.push_back(run("tau48, loose adopt", 1920, 1080, true, frames, cpu_frames, s, true));
  bool all_ok = true;
  std::string table;
  char line[512];
  std::snprintf(line, sizeof line,
                "device: %s; peak DRAM %.0f GB/s; mode=motion, NV12 on the GPU, mask out, "
                "sync per frame\n%-18s %-9s %9s %8s %9s %8s %7s %7s %s\n",
                cuda_device_description(0).c_str(), peak_gbs, "setting", "size", "gpu ms",
                "gpu fps", "cpu ms", "speedup", "MB/frm", "%peak", "check");
  table += line;
  for (const Row& r : rows) {
    const double gbs = r.gpu_ms > 0 ? r.mb / r.gpu_ms : 0.0; // MB per ms = GB/s
    std::snprintf(line, sizeof line, "%-18s %4dx%-4d %9.3f %8.0f %9.1f %8.0f %7.0f %6.1f%% %s\n",
                  r.name.c_str(), r.w, r.h, r.gpu_ms, r.gpu_ms > 0 ? 1e3 / r.gpu_ms : 0.0, r.cpu_ms,
                  r.gpu_ms > 0 ? r.cpu_ms / r.gpu_ms : 0.0, r.mb,
                  peak_gbs > 0 ? 100.0 * gbs / peak_gbs : 0.0,
                  !r.ok ? "FAIL" : (r.checked ? "exact" : "-"));
    table += line;
    if (!r.ok) {
      table += "    error: " + r.error + "\n";
      all_ok = false;
    }
  }
  std::fputs(table.c_str(), stdout);
  if (!out_path.empty()) {
    FILE* f = std::fopen(out_path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", out_path.c_str());
      all_ok = false;
    } else {
      std::fprintf(f,
                   "# bench_motion: median ms per frame (CUDA events, process() incl. its "
                   "sync and read-back), %d frames after warm-up\n",
                   frames);
      std::fputs(table.c_str(), f);
      std::fclose(f);
    }
  }
  stream_destroy(s);
  return all_ok ? 0 : 1;
}

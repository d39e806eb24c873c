// Benchmark of the median3d methods on the paper's setups (512x512 and 1024x1024 at 16 bins) and
// 1920x1080 at 16, 64 and 256 bins, default window (3x3x15), luma of NV12 frames:
// - gpu:    GPU-resident frames, push + background + Otsu mask per frame, one sync at the end;
// - sync:   the same with a stream sync after every frame (what the element does);
// - upload: host frames uploaded by the backend, background and mask downloaded, sync per frame;
// - cpu:    the CPU backend of the same method (a few frames), as the ratio gpu / cpu;
// plus a modelled count of DRAM bytes per frame against the device's peak bandwidth.
// Each row is also checked: the GPU output after the CPU's frames equals the CPU's (exact).
// Usage: bench_median3d [--out FILE] [--quick] [--no-cpu] [--cpu-frames N] [--seconds S]
//        [--sizes WxH:BINS,...] (instead of the standard setups)
//        [--wait hybrid[:US[:MAX]]|block|spin] (how the host waits for the GPU:
//        cvis::WaitOptions; the sync and upload rows wait once per frame, so they show what a
//        policy costs)
// Exit status: 0 when every check passed, 1 on an error or mismatch.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "median3d.hpp"

using namespace cvis;
using namespace cvis::median3d;

namespace {

using Clock = std::chrono::steady_clock;

// "hybrid[:US[:MAX]]", "block" or "spin" -> WaitOptions (US: poll_us, MAX: poll_max_us).
bool parse_wait(const std::string& v, WaitOptions* w) {
  if (v == "block" || v == "spin") {
    w->policy = v == "block" ? WaitPolicy::kBlock : WaitPolicy::kSpin;
    return true;
  }
  if (v.rfind("hybrid", 0) != 0)
    return false;
  w->policy = WaitPolicy::kHybrid;
  if (v.size() == 6)
    return true;
  if (v[6] != ':')
    return false;
  char* end = nullptr;
  const long us = std::strtol(v.c_str() + 7, &end, 10);
  long max_us = w->poll_max_us;
  if (end && *end == ':')
    max_us = std::strtol(end + 1, &end, 10);
  w->poll_us = static_cast<int>(us);
  w->poll_max_us = static_cast<int>(max_us);
  return us >= 0 && us <= 1000000 && max_us >= 0 && max_us <= 1000000 && end && *end == '\0';
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// An owned NV12 frame (host) with a moving pattern, and its device copy.
struct Frame {
  std::vector<uint8_t> y, uv;
  ImageView host{}, dev{};
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
  std::fill(f->uv.begin(), f->uv.end(), 128);
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
    if (cudaMalloc(&d, bytes) != cudaSuccess)
      return false;
    if (cudaMemcpy(d, f->host.data[p], bytes, cudaMemcpyHostToDevice) != cudaSuccess)
      return false;
    f->dev.data[p] = static_cast<uint8_t*>(d);
  }
  // A pageable copy may return before its DMA ends; the estimator reads on a non-blocking stream.
  return cudaDeviceSynchronize() == cudaSuccess;
}

struct Row {
  int w = 0, h = 0, bins = 0;
  Method method = Method::kSlidingHistogram;
  double gpu_fps = 0, sync_fps = 0, upload_fps = 0, cpu_fps = 0;
  double mb_per_frame = 0;
  size_t device_mb = 0;
  bool checked = false, ok = true;
  std::string error;
};

// Modelled DRAM bytes per frame (ideal caching: each array streamed once per pass).
double model_bytes(const Params& p, int w, int h) {
  const double px = static_cast<double>(w) * h, b = p.bins;
  const double chunks = (p.bins + 15) / 16;
  double bytes = px * (1 + 1) + px * (1 + 1 + 1 + 1) + px * 2; // ingest, finish, mask
  switch (p.method) {
  case Method::kSlidingHistogram:
    bytes += px * std::min(chunks, 2.0) * 16 * 2 + px * chunks * 16; // update RMW, box read
    break;
  case Method::kSeparable:
    bytes += px * 2 + px * std::min(chunks, 2.0) * 16 * 2 + px * chunks * 16;
    break;
  case Method::kIntegralHistogram:
    bytes += px * b * (2 + 2 + 2 + 8 + 4); // rows W, segments R, apply R + JIH RW, corners R
    break;
  }
  return bytes;
}

Status time_gpu(Estimator& e, const Params& p, std::vector<Frame>& frames, double budget,
                bool sync_each, bool host, StreamHandle s, double* fps) {
  const int w = frames[0].host.width, h = frames[0].host.height;
  CVIS_RETURN_IF_ERROR(e.configure(p, w, h, PixelFormat::kNV12));
  const size_t uv_pitch = static_cast<size_t>((w + 1) / 2) * 2; // NV12 background, odd sizes too
  std::vector<uint8_t> bg_host(static_cast<size_t>(w) * h + uv_pitch * ((h + 1) / 2)),
      mask_host(static_cast<size_t>(w) * h);
  ImageView bg{}, mask{};
  void* bg_dev = nullptr;
  void* mask_dev = nullptr;
  bg.format = PixelFormat::kNV12;
  bg.width = mask.width = w;
  bg.height = mask.height = h;
  mask.format = PixelFormat::kGRAY8;
  if (host) {
    bg.space = mask.space = MemorySpace::kHost;
    bg.data[0] = bg_host.data();
    bg.data[1] = bg_host.data() + static_cast<size_t>(w) * h;
    mask.data[0] = mask_host.data();
  } else {
    if (cudaMalloc(&bg_dev, bg_host.size()) != cudaSuccess ||
        cudaMalloc(&mask_dev, mask_host.size()) != cudaSuccess) {
      return Status(StatusCode::kOutOfMemory, "benchmark output buffers");
    }
    bg.space = mask.space = MemorySpace::kDevice;
    bg.data[0] = static_cast<uint8_t*>(bg_dev);
    bg.data[1] = static_cast<uint8_t*>(bg_dev) + static_cast<size_t>(w) * h;
    mask.data[0] = static_cast<uint8_t*>(mask_dev);
  }
  bg.pitch[0] = w;
  bg.pitch[1] = uv_pitch;
  mask.pitch[0] = w;
  Request rq;
  rq.background = &bg;
  rq.mask = &mask;
  WindowTracker tr(p.temporal, Timing::kCentered);
  auto step = [&](int k) -> Status {
    const Frame& f = frames[k % frames.size()];
    CVIS_RETURN_IF_ERROR(e.push(host ? f.host : f.dev, tr.arrive(), s));
    int pops, index;
    while (tr.next_output(false, &pops, &index)) {
      for (int i = 0; i < pops; ++i)
        CVIS_RETURN_IF_ERROR(e.pop(s));
      CVIS_RETURN_IF_ERROR(e.compute(index, rq, s));
    }
    return sync_each ? stream_synchronize(s) : Status::Ok();
  };
  Status st;
  int k = 0;
  for (; k < p.temporal + 2 && st.ok(); ++k)
    st = step(k); // fill the window, warm up
  if (st.ok())
    st = stream_synchronize(s);
  int n = 0;
  const auto t0 = Clock::now();
  while (st.ok() && (n < 20 || seconds_since(t0) < budget) && n < 100000) {
    for (int i = 0; i < 50 && st.ok(); ++i, ++n)
      st = step(k++);
    if (st.ok() && !sync_each)
      st = stream_synchronize(s); // bounds the queue (1 per 50 frames)
  }
  const double dt = seconds_since(t0);
  if (bg_dev)
    cudaFree(bg_dev);
  if (mask_dev)
    cudaFree(mask_dev);
  CVIS_RETURN_IF_ERROR(st);
  *fps = n / dt;
  return Status::Ok();
}

} // namespace

namespace {

// CPU timing over `frames_n` frames from an empty window, then the same frames through the GPU
// backend and a bit-exact comparison of the last outputs (background and mask).
Status cpu_and_check(const Params& p, std::vector<Frame>& frames, int frames_n, StreamHandle s,
                     Row* row) {
  const int w = frames[0].host.width, h = frames[0].host.height;
  Status st;
  auto cpu = make_estimator(Backend::kCpu, &st);
  auto gpu = make_estimator(Backend::kCuda, &st);
  CVIS_RETURN_IF_ERROR(st);
  CVIS_RETURN_IF_ERROR(cpu->configure(p, w, h, PixelFormat::kNV12));
  CVIS_RETURN_IF_ERROR(gpu->configure(p, w, h, PixelFormat::kNV12));
  const size_t px = static_cast<size_t>(w) * h;
  std::vector<uint8_t> bc(px), mc(px), bg(px), mg(px);
  auto view = [&](std::vector<uint8_t>& v) {
    ImageView o{};
    o.format = PixelFormat::kGRAY8;
    o.space = MemorySpace::kHost;
    o.width = w;
    o.height = h;
    o.data[0] = v.data();
    o.pitch[0] = w;
    return o;
  };
  const ImageView vbc = view(bc), vmc = view(mc), vbg = view(bg), vmg = view(mg);
  Request rc, rg;
  rc.background = &vbc;
  rc.mask = &vmc;
  rg.background = &vbg;
  rg.mask = &vmg;
  const auto t0 = Clock::now();
  for (int k = 0; k < frames_n; ++k) {
    CVIS_RETURN_IF_ERROR(cpu->push(frames[k].host, false, nullptr));
    CVIS_RETURN_IF_ERROR(cpu->compute(cpu->frames() / 2, rc, nullptr));
  }
  row->cpu_fps = frames_n / seconds_since(t0);
  for (int k = 0; k < frames_n; ++k)
    CVIS_RETURN_IF_ERROR(gpu->push(frames[k].dev, false, s));
  CVIS_RETURN_IF_ERROR(gpu->compute(gpu->frames() / 2, rg, s));
  CVIS_RETURN_IF_ERROR(stream_synchronize(s));
  FrameResult fc, fg;
  CVIS_RETURN_IF_ERROR(cpu->result(&fc));
  CVIS_RETURN_IF_ERROR(gpu->result(&fg));
  row->checked = true;
  if (bc != bg || mc != mg || fc.threshold != fg.threshold || fc.foreground != fg.foreground) {
    return internal_error("GPU output differs from the CPU backend's (threshold " +
                          std::to_string(fg.threshold) + " vs " + std::to_string(fc.threshold) +
                          ")");
  }
  return Status::Ok();
}

} // namespace

int main(int argc, char** argv) {
  std::string out_path;
  bool quick = false, no_cpu = false;
  int cpu_frames = 2;
  double budget = 1.0;
  std::string sizes; // "WxH:BINS,..." instead of the standard setups
  WaitOptions wait;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc)
      out_path = argv[++i];
    else if (a == "--quick")
      quick = true;
    else if (a == "--no-cpu")
      no_cpu = true;
    else if (a == "--cpu-frames" && i + 1 < argc)
      cpu_frames = std::max(1, std::atoi(argv[++i]));
    else if (a == "--seconds" && i + 1 < argc)
      budget = std::atof(argv[++i]);
    else if (a == "--sizes" && i + 1 < argc)
      sizes = argv[++i];
    else if (a == "--wait" && i + 1 < argc) {
      if (!parse_wait(argv[++i], &wait)) {
        std::fprintf(stderr, "bad --wait %s (hybrid[:US[:MAX]], block or spin)\n", argv[i]);
        return 1;
      }
    } else
      std::fprintf(stderr,
                   "ignoring %s (usage: %s [--out FILE] [--quick] [--no-cpu] "
                   "[--cpu-frames N] [--seconds S] [--sizes WxH:BINS,...] "
                   "[--wait hybrid[:US[:MAX]]|block|spin])\n",
                   a.c_str(), argv[0]);
  }
  if (!set_wait_options(wait).ok())
    return 1;
  if (quick)
    budget = std::min(budget, 0.2);
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

  struct Setup {
    int w, h, bins;
  };
  std::vector<Setup> setups = {
      {512, 512, 16}, {1024, 1024, 16}, {1920, 1080, 16}, {1920, 1080, 64}, {1920, 1080, 256}};
  if (!sizes.empty()) {
    setups.clear();
    for (size_t pos = 0; pos < sizes.size();) {
      Setup su{0, 0, 16};
      if (std::sscanf(sizes.c_str() + pos, "%dx%d:%d", &su.w, &su.h, &su.bins) < 2 || su.w < 1 ||
          su.h < 1) {
        std::fprintf(stderr, "bad --sizes %s\n", sizes.c_str());
        return 1;
      }
      setups.push_back(su);
      const size_t comma = sizes.find(',', pos);
      pos = comma == std::string::npos ? sizes.size() : comma + 1;
    }
  }
  const Method methods[] = {Method::kSlidingHistogram, Method::kIntegralHistogram,
                            Method::kSeparable};
  std::vector<Row> rows;
  bool all_ok = true;
  for (const Setup& su : setups) {
    std::vector<Frame> frames(16);
    bool up = true;
    for (int t = 0; t < 16; ++t) {
      make_frame(&frames[t], su.w, su.h, t);
      up = up && upload(&frames[t]);
    }
    for (Method m : methods) {
      Row r;
      r.w = su.w;
      r.h = su.h;
      r.bins = su.bins;
      r.method = m;
      Params p; // default window and channels
      p.bins = su.bins;
      p.method = m;
      r.mb_per_frame = model_bytes(p, su.w, su.h) / 1e6;
      r.device_mb = estimate_device_bytes(p, su.w, su.h, PixelFormat::kNV12) >> 20;
      Status st = up ? Status::Ok() : Status(StatusCode::kOutOfMemory, "frame upload");
      Status est;
      auto gpu = make_estimator(Backend::kCuda, &est);
      if (!gpu)
        st = est;
      if (st.ok())
        st = time_gpu(*gpu, p, frames, budget, false, false, s, &r.gpu_fps);
      if (st.ok())
        st = time_gpu(*gpu, p, frames, budget, true, false, s, &r.sync_fps);
      if (st.ok())
        st = time_gpu(*gpu, p, frames, budget, true, true, s, &r.upload_fps);
      if (st.ok())
        r.device_mb = gpu->memory().device_bytes >> 20;
      gpu.reset();
      if (st.ok() && !no_cpu)
        st = cpu_and_check(p, frames, quick ? 1 : cpu_frames, s, &r);
      if (!st.ok()) {
        r.ok = false;
        r.error = st.to_string();
        all_ok = false;
        std::fprintf(stderr, "%dx%d bins %d %s: %s\n", su.w, su.h, su.bins, method_name(m),
                     r.error.c_str());
      }
      rows.push_back(r);
      std::fprintf(stderr, "  %dx%d bins %3d %-18s gpu %8.0f fps\n", su.w, su.h, su.bins,
                   method_name(m), r.gpu_fps);
    }
    for (Frame& f : frames) {
      for (int pl = 0; pl < 2; ++pl) {
        if (f.dev.data[pl])
          cudaFree(f.dev.data[pl]);
      }
    }
  }

  // Targets (issue 4, H100, default method and window): 1024x1024 >= 3000 fps, 1080p >= 1000 fps.
  auto target = [](const Row& r) -> double {
    if (r.method != Method::kSlidingHistogram || r.bins != 16)
      return 0;
    if (r.w == 1024 && r.h == 1024)
      return 3000;
    if (r.w == 1920 && r.h == 1080)
      return 1000;
    return 0;
  };
  std::string table;
  char line[512];
  std::snprintf(line, sizeof line,
                "device: %s; peak DRAM %.0f GB/s; window 3x3x15 (centered), luma of NV12\n"
                "%-9s %4s %-18s %9s %9s %9s %8s %8s %8s %7s %6s %6s %s\n",
                cuda_device_description(0).c_str(), peak_gbs, "size", "bins", "method", "gpu fps",
                "sync fps", "upl fps", "cpu fps", "speedup", "MB/frm", "%peak", "devMB", "target",
                "check");
  table += line;
  for (const Row& r : rows) {
    const double t = target(r);
    const double gbs = r.mb_per_frame * r.gpu_fps / 1e3;
    std::snprintf(line, sizeof line,
                  "%4dx%-4d %4d %-18s %9.0f %9.0f %9.0f %8.2f %8.0f %8.1f %6.0f%% %6zu %6s %s\n",
                  r.w, r.h, r.bins, method_name(r.method), r.gpu_fps, r.sync_fps, r.upload_fps,
                  r.cpu_fps, r.cpu_fps > 0 ? r.gpu_fps / r.cpu_fps : 0.0, r.mb_per_frame,
                  peak_gbs > 0 ? 100.0 * gbs / peak_gbs : 0.0, r.device_mb,
                  t == 0 ? "-" : (r.gpu_fps >= t ? "met" : "MISSED"),
                  !r.ok ? "FAIL" : (r.checked ? "exact" : "-"));
    table += line;
    if (!r.ok)
      table += "    error: " + r.error + "\n";
  }
  std::fputs(table.c_str(), stdout);
  if (!out_path.empty()) {
    FILE* f = std::fopen(out_path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", out_path.c_str());
      all_ok = false;
    } else {
      std::fprintf(f, "# bench_median3d; gpu = GPU-resident frames, one sync per 50 frames; sync = "
                      "sync per frame; upl = host NV12 in, host background + mask out\n");
      std::fputs(table.c_str(), f);
      std::fprintf(f, "\n# csv\nwidth,height,bins,method,gpu_fps,sync_fps,upload_fps,cpu_fps,"
                      "model_mb_per_frame,device_mb,checked,ok\n");
      for (const Row& r : rows) {
        std::fprintf(f, "%d,%d,%d,%s,%.1f,%.1f,%.1f,%.3f,%.2f,%zu,%d,%d\n", r.w, r.h, r.bins,
                     method_name(r.method), r.gpu_fps, r.sync_fps, r.upload_fps, r.cpu_fps,
                     r.mb_per_frame, r.device_mb, r.checked ? 1 : 0, r.ok ? 1 : 0);
      }
      std::fclose(f);
    }
  }
  stream_destroy(s);
  return all_ok ? 0 : 1;
}

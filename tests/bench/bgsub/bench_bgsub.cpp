// bench_bgsub: the paper's Table II (ns per pixel of the whole background model) for every kernel
// evaluator at 352x288, 1280x720 and 1920x1080 on the GPU, the CPU reference in the same run, and
// the choice of the default evaluator: the fastest whose masks equal the exact evaluator's within
// 0.1% of pixel-frames (the parity tolerance of test_bgsub_gpu).
//
//   bench_bgsub [--quick] [--out FILE] [--device N] [--sizes 352x288,1920x1080] [--frames N]
//               [--kernels fast-fused,exact]   (the evaluators timed; default all)
//               [--preset static]   (the synthetic sequence: static, waving, illumination,
//                                    combined (default), dynamic)
//
// Frames: 8 distinct RGBA frames of the "combined" synthetic sequence (moving objects, waving
// region, noise), resident in device memory, cycled; masks go to device memory (the element's
// CUDA-memory path). Each kernel: a fresh model, num_samples warm-up frames, then --frames timed
// process() calls (steady clock around each call, which ends with a stream sync), median reported.
// A separate untimed run of the same frames downloads the masks to compare with the exact kernel.
// Stage costs of the default kernel: the same run without blobs, and without model updates. The
// default kernel's masks with early-stopped density sums (no density output, as timed) against the
// full sums (density asked for): they must be identical (exit 1 otherwise).
// Compute ceiling: README.md (cuda/bgsub) derives per-sample instruction counts from the PTX; the
// bench prints the measured rate against that ceiling with this device's SM count and clock.
// Exit status 1 on any error.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bgsub/bgsub.hpp"
#include "common/backend.hpp"
#include "synth_sequence.hpp"

namespace {

using namespace cvis;
using bgsub::Kernel;

struct Options {
  bool quick = false;
  std::string out;
  int device = 0;
  int frames = 100;
  int preset = 3; // test::quality_presets index of the timed frames: "combined"
  std::vector<std::pair<int, int>> sizes = {{352, 288}, {1280, 720}, {1920, 1080}};
  std::vector<bool> kernels = std::vector<bool>(bgsub::kKernelCount, true); // evaluators timed
};

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "bench_bgsub: %s\n", m.c_str());
  std::exit(1);
}
void check(const Status& s, const char* what) {
  if (!s.ok())
    die(std::string(what) + ": " + s.to_string());
}
void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    die(std::string(what) + ": " + cudaGetErrorName(e));
}

// Per reference sample, the classify loop's instructions: all of them (issue slots) and by sm_90
// pipe: integer ALU, FP32, XU (MUFU ex2 and every int/float conversion, floor included),
// load/store, texture. fast and fast-fused: counted in the SASS of the radius-1 loop (cuobjdump on
// the H100 host, nvcc 13; 12 samples per unrolled iteration, loop and address overhead included);
// the others: the PTX of the same loop with SASS's folding applied (moves, abs and neg are operand
// modifiers, +-4 byte offsets are load immediates). Optimized partitions at the default 64 points.
// See cuda/bgsub/README.md "compute ceiling".
struct Cost {
  double issue, alu, fp32, xu, lsu, tex;
};
Cost kernel_cost(Kernel k) {
  switch (k) {
  case Kernel::kExact:
    return {47.3, 9.84, 30, 6, 1, 0};
  case Kernel::kFast:
    return {25.9, 3.9, 18, 3, 1, 0};
  case Kernel::kTextureUniform:
    return {20.3, 3.84, 12, 0, 1, 3};
  case Kernel::kManualUniform:
    return {53.3, 12.84, 27, 6, 7, 0};
  case Kernel::kTextureOptimized:
    return {168, 118.2, 21, 3, 22.33, 3};
  case Kernel::kManualOptimized:
    return {201, 127.2, 36, 9, 28.33, 0};
  case Kernel::kSlopeUniform:
    return {44.3, 9.84, 24, 6, 4, 0};
  case Kernel::kFastFused:
    return {15.9, 3.92, 10, 1, 1, 0};
  }
  return {1, 1, 0, 0, 0, 0};
}
// Per SM and clock on sm_90: 4 schedulers issue 4 warp instructions (128 thread instructions);
// FP32 128, integer ALU 64, XU 16 (MUFU and conversions), 32 load/store lanes (one warp access of
// L1/shared), and filtered 1-D float texture lookups at the rate measured on the H100 (~1.5: the
// texture-bound cpwl-texture rows of bench_bgsub sustain 1.47; bench_cpwl's Table I 1.1-1.3).
constexpr double kTexPerClock = 1.5;
double samples_per_clock(Kernel k, const char** bound = nullptr) {
  const Cost c = kernel_cost(k);
  struct {
    const char* name;
    double rate;
  } pipes[] = {{"issue", 128.0 / c.issue},
               {"fp32", c.fp32 > 0 ? 128.0 / c.fp32 : 1e9},
               {"alu", c.alu > 0 ? 64.0 / c.alu : 1e9},
               {"xu", c.xu > 0 ? 16.0 / c.xu : 1e9},
               {"lsu", c.lsu > 0 ? 32.0 / c.lsu : 1e9},
               {"tex", c.tex > 0 ? kTexPerClock / c.tex : 1e9}};
  double r = 1e9;
  for (const auto& p : pipes) {
    if (p.rate < r) {
      r = p.rate;
      if (bound)
        *bound = p.name;
    }
  }
  return r;
}

// SM clocks of one pixel's selective update (L = 48): ~2,975 instructions per pixel (Nsight
// Compute's instruction count of update_kernel<true> at 1920x1080 on the H100; the batched loads'
// index arithmetic is ~27 instructions per difference, the counting passes ~3.5 per difference
// and bit), issue-bound: 2975 / 128 = 23.2. Charged to every pixel every frame.
constexpr double kUpdateClocks = 23.2;

// Frames per second the SMs could sustain: classification at samples_per_clock, plus the update.
double ceiling_fps(Kernel k, double samples_per_pixel, double pixels, int sms, double hz) {
  const double clocks_per_pixel = samples_per_pixel / samples_per_clock(k) + kUpdateClocks;
  return sms * hz / (pixels * clocks_per_pixel);
}

struct Frames {
  int w = 0, h = 0;
  std::vector<test::HostImage> host;
  std::vector<void*> dev;
  std::vector<size_t> pitch;
  ~Frames() {
    for (void* p : dev)
      cudaFree(p);
  }
  ImageView device_view(int i) const {
    ImageView v = host[i % host.size()].view();
    v.space = MemorySpace::kDevice;
    v.data[0] = static_cast<uint8_t*>(dev[i % dev.size()]);
    v.pitch[0] = pitch[i % pitch.size()];
    return v;
  }
};

// `preset`: index into test::quality_presets; `seed` 0 keeps the preset's.
void make_frames(int w, int h, Frames* f, int preset = 3, uint32_t seed = 0) {
  test::SequenceSpec s = test::quality_presets(w, h, 400)[preset]; // 3: "combined"
  s.first_object_frame = 0;
  if (seed)
    s.seed = seed;
  test::SyntheticSequence seq(s);
  f->w = w;
  f->h = h;
  for (int i = 0; i < 8; ++i) {
    test::HostImage rgb;
    std::vector<uint8_t> truth;
    seq.render(i * 5, &rgb, &truth);
    f->host.push_back(rgb.converted(PixelFormat::kRGBA));
    void* p = nullptr;
    size_t pitch = 0;
    check_cuda(cudaMallocPitch(&p, &pitch, static_cast<size_t>(w) * 4, h), "cudaMallocPitch");
    const ImageView v = f->host.back().view();
    check_cuda(cudaMemcpy2D(p, pitch, v.data[0], v.pitch[0], static_cast<size_t>(w) * 4, h,
                            cudaMemcpyHostToDevice),
               "upload");
    // A pageable copy may return before its DMA ends; the model reads on a non-blocking stream.
    check_cuda(cudaDeviceSynchronize(), "upload");
    f->dev.push_back(p);
    f->pitch.push_back(pitch);
  }
}

struct DeviceMask {
  ImageView view;
  DeviceMask(int w, int h) {
    void* p = nullptr;
    size_t pitch = 0;
    check_cuda(cudaMallocPitch(&p, &pitch, w, h), "cudaMallocPitch");
    view.format = PixelFormat::kGRAY8;
    view.space = MemorySpace::kDevice;
    view.width = w;
    view.height = h;
    view.data[0] = static_cast<uint8_t*>(p);
    view.pitch[0] = pitch;
  }
  ~DeviceMask() { cudaFree(view.data[0]); }
};

// The items of a comma-separated command-line list (empty items skipped).
std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t end = std::min(list.find(',', pos), list.size());
    if (end > pos)
      out.push_back(list.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

std::unique_ptr<bgsub::Subtractor> make(Backend b, const bgsub::Params& p) {
  Status st;
  auto s = bgsub::make_subtractor(b, &st);
  check(st, "make_subtractor");
  check(s->configure(p), "configure");
  return s;
}

// Masks of `checked` frames after the warm-up (host copies), GPU. `full_sum`: ask for the density
// too, so that every pixel's KDE sum runs to the end (without it the sum may stop early).
std::vector<std::vector<uint8_t>> masks_of(const bgsub::Params& p, const Frames& f, int checked,
                                           bool full_sum = false) {
  auto s = make(Backend::kCuda, p);
  DeviceMask m(f.w, f.h);
  std::vector<std::vector<uint8_t>> out;
  std::vector<float> density(full_sum ? static_cast<size_t>(f.w) * f.h : 0);
  bgsub::FrameResult r;
  for (int i = 0; i < p.num_samples + checked; ++i) {
    check(s->process(f.device_view(i), m.view, &r, nullptr, full_sum ? density.data() : nullptr),
          "process");
    if (i < p.num_samples)
      continue;
    std::vector<uint8_t> host(static_cast<size_t>(f.w) * f.h);
    check_cuda(cudaMemcpy2D(host.data(), f.w, m.view.data[0], m.view.pitch[0], f.w, f.h,
                            cudaMemcpyDeviceToHost),
               "download");
    out.push_back(std::move(host));
  }
  return out;
}

// Median ms per process() call after the warm-up. `after` (optional): the frames processed after
// the warm-up instead of `f` (a shot change: another scene, nearly every pixel foreground).
double time_ms(Backend b, const bgsub::Params& p, const Frames& f, int frames,
               const Frames* after = nullptr) {
  auto s = make(b, p);
  DeviceMask dm(f.w, f.h);
  test::HostImage hm(PixelFormat::kGRAY8, f.w, f.h);
  bgsub::FrameResult r;
  std::vector<double> ms;
  for (int i = 0; i < p.num_samples + frames; ++i) {
    const Frames& src = after && i >= p.num_samples ? *after : f;
    const ImageView in =
        b == Backend::kCuda ? src.device_view(i) : src.host[i % src.host.size()].view();
    const ImageView mask = b == Backend::kCuda ? dm.view : hm.view();
    const auto t0 = std::chrono::steady_clock::now();
    check(s->process(in, mask, &r, nullptr), "process");
    const auto t1 = std::chrono::steady_clock::now();
    if (i >= p.num_samples)
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      o.quick = true;
      o.frames = 20;
    } else if (a == "--out" && i + 1 < argc) {
      o.out = argv[++i];
    } else if (a == "--device" && i + 1 < argc) {
      o.device = std::atoi(argv[++i]);
    } else if (a == "--frames" && i + 1 < argc) {
      o.frames = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--sizes" && i + 1 < argc) {
      o.sizes.clear();
      for (const std::string& item : split_list(argv[++i])) {
        int w = 0, h = 0;
        if (std::sscanf(item.c_str(), "%dx%d", &w, &h) != 2 || w < 8 || h < 8)
          die("bad size " + item);
        o.sizes.emplace_back(w, h);
      }
    } else if (a == "--preset" && i + 1 < argc) {
      const std::string name = argv[++i];
      const auto presets = test::quality_presets(64, 48, 8);
      o.preset = -1;
      for (size_t k = 0; k < presets.size(); ++k)
        if (presets[k].name == name)
          o.preset = static_cast<int>(k);
      if (o.preset < 0)
        die("unknown preset " + name + " (static, waving, illumination, combined, dynamic)");
    } else if (a == "--kernels" && i + 1 < argc) {
      o.kernels.assign(bgsub::kKernelCount, false);
      for (const std::string& item : split_list(argv[++i])) {
        Kernel k;
        if (!bgsub::parse_kernel(item, &k))
          die("unknown kernel " + item);
        o.kernels[static_cast<int>(k)] = true;
      }
    } else {
      die("usage: bench_bgsub [--quick] [--out FILE] [--device N] [--sizes WxH,...] [--frames N] "
          "[--kernels NAME,...]");
    }
  }
  if (cuda_device_count() <= 0)
    die("no usable CUDA device: " + cuda_device_description(0));
  check(select_cuda_device(o.device), "select device");
  int sms = 0, khz = 0;
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, o.device), "SM count");
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, o.device) != cudaSuccess)
    khz = 0;
  const bgsub::Params defaults;
  const int checked = o.quick ? 8 : 24;
  const int cpu_frames = o.quick ? 1 : 3;

  std::string md = "# bench_bgsub: Table II, ns per pixel of the background model\n\n";
  md += "GPU: " + cuda_device_description(o.device) + ", SM clock " + std::to_string(khz / 1000) +
        " MHz; " + std::to_string(bgsub::evaluations_per_pixel(defaults)) +
        " Gaussian evaluations per pixel; timed frames: " + std::to_string(o.frames) + "\n\n";
  md += "| size | kernel | ms/frame | ns/pixel | frames/s | G samples/s | ceiling frames/s "
        "(bound) | of ceiling | mask pixels differing from exact |\n";
  md += "|---|---|---|---|---|---|---|---|---|\n";
  std::string summary = "Table II (ns/pixel)\nkernel             ";
  for (auto [w, h] : o.sizes) {
    char b[32];
    std::snprintf(b, sizeof b, " %11s", (std::to_string(w) + "x" + std::to_string(h)).c_str());
    summary += b;
  }
  summary += "\n";
  std::vector<std::vector<double>> ns(bgsub::kKernelCount + 1,
                                      std::vector<double>(o.sizes.size(), -1));
  std::vector<bool> equal_to_exact(bgsub::kKernelCount, true);
  std::string extra;
  char line[512];
  double fps_default_1080 = -1;
  bool early_stop_exact = true;

  for (size_t si = 0; si < o.sizes.size(); ++si) {
    const auto [w, h] = o.sizes[si];
    Frames f;
    make_frames(w, h, &f, o.preset);
    const double px = double(w) * h;
    bgsub::Params ex = defaults;
    ex.kernel = Kernel::kExact;
    const auto ref = masks_of(ex, f, checked);
    for (int k = 0; k < bgsub::kKernelCount; ++k) {
      if (!o.kernels[k] && k != static_cast<int>(defaults.kernel))
        continue;
      bgsub::Params p = defaults;
      p.kernel = static_cast<Kernel>(k);
      size_t differ = 0;
      if (k != 0) {
        const auto m = masks_of(p, f, checked);
        for (size_t t = 0; t < m.size(); ++t)
          for (size_t i = 0; i < m[t].size(); ++i)
            differ += m[t][i] != ref[t][i];
      }
      const double share = differ / (px * checked);
      if (share > 1e-3)
        equal_to_exact[k] = false;
      const double ms = time_ms(Backend::kCuda, p, f, o.frames);
      ns[k][si] = ms * 1e6 / px;
      const double samples = px * bgsub::evaluations_per_pixel(p) / 3.0;
      const double ceiling = khz > 0 ? ceiling_fps(p.kernel, samples / px, px, sms, khz * 1e3) : 0;
      const char* bound = "";
      samples_per_clock(p.kernel, &bound);
      std::snprintf(
          line, sizeof line,
          "| %dx%d | %s | %.3f | %.2f | %.1f | %.1f | %.0f (%s) | %.0f%% | %zu (%.4f%%) |\n", w, h,
          bgsub::kernel_name(p.kernel), ms, ns[k][si], 1e3 / ms, samples * 1e3 / ms / 1e9, ceiling,
          bound, ceiling > 0 ? 100.0 * (1e3 / ms) / ceiling : 0.0, differ, 100.0 * share);
      md += line;
      if (p.kernel == defaults.kernel && w == 1920 && h == 1080)
        fps_default_1080 = 1e3 / ms;
    }
    // The early stop of the density sum must not change a mask: the default kernel's masks
    // without the density output against the full sums' (density asked for).
    {
      size_t differ = 0;
      const auto early = masks_of(defaults, f, checked);
      const auto full = masks_of(defaults, f, checked, true);
      for (size_t t = 0; t < early.size(); ++t)
        for (size_t i = 0; i < early[t].size(); ++i)
          differ += early[t][i] != full[t][i];
      std::snprintf(line, sizeof line,
                    "%dx%d %s: early-stopped sums against full sums: %zu of %.0f mask pixels "
                    "differ (must be 0)\n",
                    w, h, bgsub::kernel_name(defaults.kernel), differ, px * checked);
      extra += line;
      early_stop_exact = early_stop_exact && differ == 0;
    }
    // Stage costs of the default kernel.
    bgsub::Params nb = defaults, nu = defaults;
    nb.blobs = false;
    nu.update_period = 1 << 30;
    const double full = ns[static_cast<int>(defaults.kernel)][si] * px / 1e6;
    const double no_blobs = time_ms(Backend::kCuda, nb, f, o.frames);
    const double no_update = time_ms(Backend::kCuda, nu, f, o.frames);
    bgsub::Params nbu = nu;
    nbu.blobs = false;
    const double classify_only = time_ms(Backend::kCuda, nbu, f, o.frames);
    std::snprintf(line, sizeof line,
                  "%dx%d %s: full %.3f ms, without blobs %.3f ms, without model updates %.3f ms, "
                  "without both %.3f ms\n",
                  w, h, bgsub::kernel_name(defaults.kernel), full, no_blobs, no_update,
                  classify_only);
    extra += line;
    bgsub::Params ng = defaults, no_own = defaults, paper = bgsub::paper_params();
    ng.ghost_passes = 0;
    no_own.update_own = false; // the cost of the own-samples test and the lending pass
    no_own.min_mask_area = 20; // with the area default of before update_own
    paper.kernel = defaults.kernel;
    std::snprintf(
        line, sizeof line,
        "%dx%d %s: without ghost passes %.3f ms; without update_own (min_mask_area "
        "20) %.3f ms; the paper's model (no scene extensions) %.3f ms\n",
        w, h, bgsub::kernel_name(defaults.kernel), time_ms(Backend::kCuda, ng, f, o.frames),
        time_ms(Backend::kCuda, no_own, f, o.frames), time_ms(Backend::kCuda, paper, f, o.frames));
    extra += line;
    if (khz > 0) {
      const double cls_ms = px * bgsub::evaluations_per_pixel(defaults) / 3.0 /
                            samples_per_clock(defaults.kernel) / (sms * khz * 1e3) * 1e3;
      std::snprintf(line, sizeof line,
                    "%dx%d %s: classification ceiling %.3f ms; without updates and blobs at %.0f%% "
                    "of it\n",
                    w, h, bgsub::kernel_name(defaults.kernel), cls_ms,
                    100.0 * cls_ms / classify_only);
      extra += line;
    }
    // After a shot change: warm-up on this scene, then another ("static" preset, other seed).
    Frames cut;
    make_frames(w, h, &cut, 0, 977);
    const double cut_ms = time_ms(Backend::kCuda, defaults, f, o.frames, &cut);
    const double cut_nb = time_ms(Backend::kCuda, nb, f, o.frames, &cut);
    std::snprintf(line, sizeof line,
                  "%dx%d %s after a shot change (nearly all foreground): %.3f ms, without blobs "
                  "%.3f ms\n",
                  w, h, bgsub::kernel_name(defaults.kernel), cut_ms, cut_nb);
    extra += line;
    // CPU reference, default kernel, all cores.
    const double cpu_ms = time_ms(Backend::kCpu, defaults, f, cpu_frames);
    ns[bgsub::kKernelCount][si] = cpu_ms * 1e6 / px;
    std::snprintf(
        line, sizeof line,
        "| %dx%d | CPU reference (%s, all cores) | %.1f | %.1f | %.2f | - | - | - | - |\n", w, h,
        bgsub::kernel_name(defaults.kernel), cpu_ms, ns[bgsub::kKernelCount][si], 1e3 / cpu_ms);
    md += line;
    std::snprintf(line, sizeof line, "%dx%d: GPU (%s) is %.0fx faster than the CPU reference\n", w,
                  h, bgsub::kernel_name(defaults.kernel), cpu_ms / full);
    extra += line;
  }
  for (int k = 0; k <= bgsub::kKernelCount; ++k) {
    std::snprintf(line, sizeof line, "%-19s",
                  k < bgsub::kKernelCount ? bgsub::kernel_name(static_cast<Kernel>(k))
                                          : "CPU reference");
    summary += line;
    for (size_t si = 0; si < o.sizes.size(); ++si) {
      std::snprintf(line, sizeof line, " %11.2f", ns[k][si]);
      summary += line;
    }
    summary += k < bgsub::kKernelCount && !equal_to_exact[k]
                   ? "  (masks differ from exact > 0.1%)\n"
                   : "\n";
  }
  // The default: fastest at the largest size among kernels whose masks equal exact's.
  const size_t last = o.sizes.size() - 1;
  int best = -1;
  for (int k = 0; k < bgsub::kKernelCount; ++k)
    if (equal_to_exact[k] && ns[k][last] >= 0 && (best < 0 || ns[k][last] < ns[best][last]))
      best = k;
  summary += extra;
  std::snprintf(line, sizeof line,
                "fastest kernel with masks equal to exact (<= 0.1%%) at %dx%d: %s  "
                "(current default: %s)\n",
                o.sizes[last].first, o.sizes[last].second,
                bgsub::kernel_name(static_cast<Kernel>(best)), bgsub::kernel_name(defaults.kernel));
  summary += line;
  if (fps_default_1080 > 0) {
    std::snprintf(line, sizeof line,
                  "1920x1080 default kernel: %.0f frames/s (target >= 300): %s\n", fps_default_1080,
                  fps_default_1080 >= 300 ? "met" : "NOT met");
    summary += line;
  }
  md += "\n```\n" + summary + "```\n";
  if (!o.out.empty()) {
    FILE* fo = std::fopen(o.out.c_str(), "w");
    if (!fo)
      die("cannot write " + o.out);
    std::fputs(md.c_str(), fo);
    std::fclose(fo);
  }
  std::fputs(md.c_str(), stdout);
  if (!early_stop_exact) {
    std::fprintf(stderr, "bench_bgsub: the early-stopped density sums changed a mask\n");
    return 1;
  }
  return 0;
}

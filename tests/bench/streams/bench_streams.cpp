// Many 1080p H.264 streams in one process, on one GPU: N pipelines
//   filesrc ! qtdemux ! h264parse ! nvh264dec ! CHAIN ! fakesink sync=false
// (looping over the clip, one shared GstCudaContext) for N = 1, 4, 16, 32, 64, 96, 128 until the
// aggregate frame rate stops growing, for the chains
//   decode          (nothing)
//   bgsub           cudabgsub output=frame
//   median3d        cudamedian3d output=frame
//   median3d+cedd   cudamedian3d output=frame ! cudacedd
//   full            cudamedian3d output=frame ! cudarcdtrack init-roi-type=foreground
//                   ! cudacedd regions=rois   (without cudarcdtrack while the plugin lacks it)
//   full+overlay    full ! cudaroioverlay
// Per run: aggregate frames/s, slowest and mean stream, streams carried in real time at 30 fps,
// GPU and NVDEC utilisation and memory (nvidia-smi), and per element the GPU time per frame (CUDA
// events on the element's stream: CVIS_PROFILE=1) and host time per frame. Then an A/B in child
// processes: one CUDA context per pipeline vs a shared one.
// --realtime: every sink renders on the clock (sync=true), as with live 30 fps sources: a stream
// takes only its real-time share, and carried means every stream at >= 29.7 fps in the window.
// Below-real-time streams are described (buffers per source pad, loops, state) and the streaming
// threads of stalled ones print their stacks (CVIS_BENCH_STACKS=1: of every slow one): where a
// stall is. Usage: bench_streams [--clip H264.mp4] [--chains a,b] [--ns 1,4,16] [--warmup S]
// [--measure S]
//                      [--budget S] [--no-ab] [--no-profile] [--out FILE.md] [--realtime]
//                      [--chain "GST-LAUNCH TEXT"]   (one more chain, named custom)
//                      [--decoder avdec_h264 --element-props backend=cpu]   (the harness on a CPU)
//        bench_streams --soak SECONDS [--sample S] [--chains full] [--ns 8] [--out FILE.md]
//   soak: one chain (default full+overlay) with N streams (default 8) for SECONDS, sampled every S
//   (default 10): host RSS and this process's GPU memory must stay flat (growth from the sample at
//   10% of the run to the last below 32 MiB host, 16 MiB GPU), frames must keep flowing, no error.
// Durations: each run sets up N pipelines, warms up 1.5 s and measures 3 s; no sweep run starts
// after --budget seconds (default 300) and the A/B runs after budget + 60, so the whole fits one
// ~8-minute device call (scripts/gpu/run.sh bench bench_streams).
// The clip defaults to $CVIS_TEST_H264 (scripts/gpu/prepare.sh stages a 1080p one). Without
// nvh264dec it prints why and exits 0 (1 with CVIS_REQUIRE_GPU=1).
#include <gst/gst.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "streams.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Chain {
  std::string name, launch, note;
};

bool has_feature(const char* name) {
  GstPluginFeature* f = gst_registry_lookup_feature(gst_registry_get(), name);
  if (f)
    gst_object_unref(f);
  return f != nullptr;
}

// `launch` with `props` after every element of ours (e.g. backend=cpu to check the harness on a
// machine without a GPU).
std::string with_props(const std::string& launch, const std::string& props) {
  if (props.empty())
    return launch;
  std::stringstream in(launch), out;
  std::string tok;
  while (in >> tok) {
    out << tok << " ";
    if (tok.rfind("cuda", 0) == 0 && tok.find('=') == std::string::npos)
      out << props << " ";
  }
  std::string s = out.str();
  return s.empty() ? s : s.substr(0, s.size() - 1);
}

std::vector<Chain> all_chains() {
  std::vector<Chain> c;
  const bool track = has_feature("cudarcdtrack");
  const std::string seg = "cudamedian3d output=frame";
  const std::string full =
      track ? seg + " ! cudarcdtrack init-roi-type=foreground ! cudacedd regions=rois"
            : seg + " ! cudacedd regions=both";
  const std::string note = track ? "" : "cudarcdtrack not in this plugin: CEDD of frame and blobs";
  c.push_back({"decode", "", ""});
  c.push_back({"bgsub", "cudabgsub output=frame", ""});
  c.push_back({"median3d", seg, ""});
  c.push_back({"median3d+cedd", seg + " ! cudacedd", ""});
  c.push_back({"full", full, note});
  c.push_back({"full+overlay", full + " ! cudaroioverlay", note});
  return c;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

std::string fmt(const char* f, double v) {
  if (v < 0)
    return "n/a";
  char b[64];
  snprintf(b, sizeof b, f, v);
  return b;
}

struct Options {
  std::string clip, out, decoder = "nvh264dec", props, custom;
  std::vector<std::string> chains;
  std::vector<int> ns = {1, 4, 16, 32, 64, 96, 128};
  double warmup = 1.5, measure = 3.0, budget = 300.0, soak = 0.0, sample = 10.0;
  bool ab = true, profile = true, child = false, per_pipeline = false, realtime = false;
  int child_n = 0;
};

streams::Config make_config(const Options& o, const std::string& launch, int n) {
  streams::Config c;
  c.clip = o.clip;
  c.chain = launch;
  c.decoder = o.decoder;
  c.n = n;
  c.warmup_s = o.warmup;
  c.measure_s = o.measure;
  c.realtime = o.realtime;
  // Paced streams deliver 30 fps exactly when they keep up: 1% short (0.2 s behind after 20 s)
  // counts as not keeping up.
  c.real_time_fps = o.realtime ? 29.7 : 30.0;
  return c;
}

// One A/B configuration in a child process.
bool run_child(const char* self, const Options& o, const std::string& chain, int n,
               bool per_pipeline, std::string* line) {
  std::vector<std::string> args = {self,           "--child",
                                   "--chains",     chain,
                                   "--ns",         std::to_string(n),
                                   "--clip",       o.clip,
                                   "--warmup",     std::to_string(o.warmup),
                                   "--measure",    std::to_string(o.measure),
                                   "--no-profile", "--decoder",
                                   o.decoder,      "--element-props",
                                   o.props};
  if (per_pipeline)
    args.push_back("--per-pipeline-context");
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  gchar* out = nullptr;
  gint status = 0;
  const gboolean ok = g_spawn_sync(nullptr, argv.data(), nullptr, G_SPAWN_DEFAULT, nullptr, nullptr,
                                   &out, nullptr, &status, nullptr);
  *line = "";
  if (ok && out) {
    std::stringstream in(out);
    std::string l;
    while (std::getline(in, l))
      if (l.rfind("RESULT ", 0) == 0)
        *line = l.substr(7);
  }
  g_free(out);
  return ok && !line->empty();
}

} // namespace

int main(int argc, char** argv) {
  Options o;
  const char* env_clip = std::getenv("CVIS_TEST_H264");
  o.clip = env_clip ? env_clip : "";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--clip")
      o.clip = next();
    else if (a == "--chain") // one more chain, "custom": gst-launch text between decoder and sink
      o.custom = next();
    else if (a == "--chains")
      o.chains = split(next());
    else if (a == "--ns") {
      o.ns.clear();
      for (auto& v : split(next()))
        o.ns.push_back(std::atoi(v.c_str()));
    } else if (a == "--warmup")
      o.warmup = std::atof(next().c_str());
    else if (a == "--measure")
      o.measure = std::atof(next().c_str());
    else if (a == "--budget")
      o.budget = std::atof(next().c_str());
    else if (a == "--out")
      o.out = next();
    else if (a == "--realtime")
      o.realtime = true;
    else if (a == "--no-ab")
      o.ab = false;
    else if (a == "--no-profile")
      o.profile = false;
    else if (a == "--child")
      o.child = true;
    else if (a == "--per-pipeline-context")
      o.per_pipeline = true;
    else if (a == "--decoder")
      o.decoder = next();
    else if (a == "--soak")
      o.soak = std::atof(next().c_str());
    else if (a == "--sample")
      o.sample = std::atof(next().c_str());
    else if (a == "--element-props")
      o.props = next();
    else {
      fprintf(stderr, "bench_streams: unknown argument %s (see the source's header)\n", a.c_str());
      return 2;
    }
  }
  if (o.profile)
    setenv("CVIS_PROFILE", "1", 1);
  gst_init(&argc, &argv);
  const bool required =
      std::getenv("CVIS_REQUIRE_GPU") && std::strcmp(std::getenv("CVIS_REQUIRE_GPU"), "1") == 0;
  if (!has_feature(o.decoder.c_str()) || o.clip.empty()) {
    printf("bench_streams: skipped: %s\n",
           o.clip.empty() ? "no clip (--clip or CVIS_TEST_H264)"
                          : ("no " + o.decoder + " (no NVIDIA GPU/driver)").c_str());
    return required ? 1 : 0;
  }
  std::vector<Chain> chains = all_chains();
  for (auto& c : chains)
    c.launch = with_props(c.launch, o.props);
  if (!o.custom.empty()) {
    chains.push_back({"custom", o.custom, ""});
    if (o.chains.empty())
      o.chains.push_back("custom");
  }
  if (o.chains.empty())
    for (auto& c : chains)
      o.chains.push_back(c.name);

  if (o.child) { // one configuration, a machine-readable line
    for (auto& c : chains) {
      if (c.name != o.chains[0])
        continue;
      streams::Config cfg = make_config(o, c.launch, o.ns[0]);
      cfg.shared_context = !o.per_pipeline;
      const streams::Result r = streams::run(cfg);
      printf("RESULT %d %.1f %.1f %.1f %.0f %.0f %.0f %s\n", r.ok ? 1 : 0, r.aggregate_fps,
             r.min_stream_fps, r.mean_stream_fps, r.gpu_util, r.dec_util,
             (r.mem_used_mib >= 0 && r.mem_base_mib >= 0) ? r.mem_used_mib - r.mem_base_mib : -1.0,
             r.ok ? "" : r.error.c_str());
      return r.ok ? 0 : 1;
    }
    return 2;
  }

  if (o.soak > 0) {
    const std::string name = o.chains.size() == chains.size() ? "full+overlay" : o.chains[0];
    const int n = o.ns.size() == 7 ? 8 : o.ns[0]; // 7: the default list
    const Chain* chain = nullptr;
    for (auto& c : chains)
      if (c.name == name)
        chain = &c;
    if (!chain) {
      fprintf(stderr, "bench_streams: unknown chain %s\n", name.c_str());
      return 2;
    }
    streams::Config cfg = make_config(o, chain->launch, n);
    cfg.warmup_s = 10.0;
    cfg.soak_s = o.soak;
    cfg.sample_s = o.sample;
    printf("soak: %d x (%s ! %s) for %.0f s, a sample every %.0f s\n", n, o.decoder.c_str(),
           chain->launch.c_str(), o.soak, o.sample);
    printf("t_s,frames,fps,rss_mib,gpu_mib\n");
    fflush(stdout);
    streams::Sample prev_sample;
    cfg.on_sample = [&prev_sample](const streams::Sample& s) {
      const double dt = s.t - prev_sample.t;
      printf("%.0f,%llu,%.1f,%.1f,%.1f\n", s.t, s.frames,
             dt > 0 ? (s.frames - prev_sample.frames) / dt : 0.0, s.rss_mib, s.gpu_mib);
      fflush(stdout);
      prev_sample = s;
    };
    const streams::Result r = streams::run(cfg);
    std::string md = "## Soak (bench_streams --soak)\n\n" + std::to_string(n) + " x `" + o.decoder +
                     " ! " + chain->launch + "`, " + fmt("%.0f", o.soak) +
                     " s\n\n"
                     "| t (s) | frames | fps | host RSS MiB | GPU MiB (process) |\n"
                     "| --- | --- | --- | --- | --- |\n";
    for (size_t i = 0; i < r.samples.size(); ++i) {
      const streams::Sample& s = r.samples[i];
      const double fps = i ? (s.frames - r.samples[i - 1].frames) / (s.t - r.samples[i - 1].t) : 0;
      md += "| " + fmt("%.0f", s.t) + " | " + std::to_string(s.frames) + " | " + fmt("%.1f", fps) +
            " | " + fmt("%.1f", s.rss_mib) + " | " + fmt("%.1f", s.gpu_mib) + " |\n";
    }
    // Flat: from the first sample at >= 10% of the run (allocations warmed up) to the last.
    std::string verdict = r.ok ? "" : "error: " + r.error;
    if (r.samples.size() >= 2) {
      size_t k = 0;
      while (k + 1 < r.samples.size() && r.samples[k].t < 0.1 * o.soak)
        ++k;
      const streams::Sample &a = r.samples[k], &b = r.samples.back();
      const double drss = b.rss_mib - a.rss_mib,
                   dgpu = (a.gpu_mib >= 0 && b.gpu_mib >= 0) ? b.gpu_mib - a.gpu_mib : 0;
      char line[200];
      const std::string gpu = (a.gpu_mib >= 0 && b.gpu_mib >= 0) ? fmt("%+.1f MiB", dgpu) : "n/a";
      snprintf(line, sizeof line, "host RSS %+.1f MiB, GPU %s from t=%.0f s to t=%.0f s, %.1f fps",
               drss, gpu.c_str(), a.t, b.t, r.aggregate_fps);
      md += std::string("\n") + line + "\n";
      printf("%s\n", line);
      if (drss > 32.0)
        verdict += " host memory grows";
      if (dgpu > 16.0)
        verdict += " GPU memory grows";
    } else {
      verdict += " too few samples";
    }
    md += "\nVerdict: " + (verdict.empty() ? std::string("flat, no errors") : verdict) + "\n";
    printf("verdict: %s\n", verdict.empty() ? "flat, no errors" : verdict.c_str());
    if (!o.out.empty()) {
      FILE* f = fopen(o.out.c_str(), "w");
      if (f) {
        fputs(md.c_str(), f);
        fclose(f);
      }
    }
    return verdict.empty() ? 0 : 1;
  }

  const Clock::time_point start = Clock::now();
  std::string md = "## Many streams (bench_streams)\n\nClip: " + o.clip +
                   " (looped), one process, one GstCudaContext shared by the pipelines" +
                   (o.realtime ? ", each stream paced at the clip's 30 fps (sync=true)" : "") +
                   "; warm-up " + fmt("%.1f", o.warmup) + " s, measured " + fmt("%.1f", o.measure) +
                   " s per run. Real time = every stream at >= 30 fps.\n\n"
                   "| chain | N | aggregate fps | slowest stream fps | mean stream fps | "
                   "real-time streams | GPU % | NVDEC % | GPU memory MiB (per stream) |\n"
                   "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  std::string summary = "chain            carried  (at N)  max fps\n";
  std::string prof = "\n| chain | N | element | frames | GPU ms / frame | host ms / frame |\n"
                     "| --- | --- | --- | --- | --- | --- |\n";
  std::vector<std::pair<std::string, int>> saturation; // chain -> N for the A/B runs
  bool failed = false;
  for (const std::string& name : o.chains) {
    const Chain* chain = nullptr;
    for (auto& c : chains)
      if (c.name == name)
        chain = &c;
    if (!chain) {
      fprintf(stderr, "bench_streams: unknown chain %s\n", name.c_str());
      return 2;
    }
    if (!chain->note.empty())
      md += "\n" + chain->name + ": " + chain->note + "\n\n";
    double prev = 0, best = 0;
    int carried = 0, best_n = 0;
    for (int n : o.ns) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
      if (elapsed > o.budget) {
        md += "| " + name + " | " + std::to_string(n) + " | skipped: time budget (" +
              fmt("%.0f", o.budget) + " s) spent | | | | | | |\n";
        break;
      }
      const streams::Config cfg = make_config(o, chain->launch, n);
      const streams::Result r = streams::run(cfg);
      const int rt = r.min_stream_fps >= cfg.real_time_fps ? n : 0;
      printf(
          "%-14s N=%3d %s %8.1f fps  slowest %6.1f  mean %6.1f  GPU %s%%  NVDEC %s%%  mem %s MiB  "
          "(setup %.1f s)%s%s\n",
          name.c_str(), n, r.ok ? "ok  " : "FAIL", r.aggregate_fps, r.min_stream_fps,
          r.mean_stream_fps, fmt("%.0f", r.gpu_util).c_str(), fmt("%.0f", r.dec_util).c_str(),
          fmt("%.0f",
              (r.mem_used_mib >= 0 && r.mem_base_mib >= 0) ? r.mem_used_mib - r.mem_base_mib : -1)
              .c_str(),
          r.setup_s, r.ok ? "" : " error: ", r.ok ? "" : r.error.c_str());
      if (!r.stream_fps.empty()) {
        std::vector<double> f = r.stream_fps;
        std::sort(f.begin(), f.end());
        auto q = [&](double p) { return f[static_cast<size_t>(p * (f.size() - 1) + 0.5)]; };
        printf(
            "  stream fps: min %.1f  p10 %.1f  median %.1f  p90 %.1f  max %.1f  (%zu below %.1f)\n",
            f.front(), q(0.1), q(0.5), q(0.9), f.back(),
            static_cast<size_t>(std::lower_bound(f.begin(), f.end(), cfg.real_time_fps) -
                                f.begin()),
            cfg.real_time_fps);
      }
      for (auto& [type, per_frame] : r.rois_per_frame)
        printf("  %s ROIs per frame: %.2f\n", type.c_str(), per_frame);
      if (!r.slow_report.empty())
        printf("%s", r.slow_report.c_str());
      fflush(stdout);
      const double mem =
          (r.mem_used_mib >= 0 && r.mem_base_mib >= 0) ? r.mem_used_mib - r.mem_base_mib : -1;
      md += "| " + name + " | " + std::to_string(n) + " | " +
            (r.ok ? fmt("%.1f", r.aggregate_fps) : "error: " + r.error) + " | " +
            fmt("%.1f", r.min_stream_fps) + " | " + fmt("%.1f", r.mean_stream_fps) + " | " +
            std::to_string(rt) + " | " + fmt("%.0f", r.gpu_util) + " | " + fmt("%.0f", r.dec_util) +
            " | " + fmt("%.0f", mem) + " (" + fmt("%.1f", mem >= 0 ? mem / n : -1) + ") |\n";
      for (auto& [factory, p] : r.profile) {
        if (!p.frames)
          continue;
        prof += "| " + name + " | " + std::to_string(n) + " | " + factory + " | " +
                std::to_string(p.frames) + " | " + fmt("%.3f", p.gpu_ms / p.frames) + " | " +
                fmt("%.3f", p.host_ms / p.frames) + " |\n";
      }
      if (!r.ok) {
        failed = true;
        break;
      }
      carried = std::max(carried, rt);
      if (r.aggregate_fps > best)
        best = r.aggregate_fps, best_n = n;
      // Saturated: less than 8% more frames for more streams, or streams far below real time.
      if ((prev > 0 && r.aggregate_fps < 1.08 * prev) || r.min_stream_fps < 10.0)
        break;
      prev = r.aggregate_fps;
    }
    char line[160];
    snprintf(line, sizeof line, "%-16s %7d  (%d)  %8.1f  (%.0f x 30 fps)\n", name.c_str(), carried,
             best_n, best, std::floor(best / 30.0));
    summary += line;
    if (best_n > 0)
      saturation.push_back({name, best_n});
  }
  md += prof;

  // A/B in child processes at the chain's best N (at most 64): shared vs per-pipeline CUDA
  // contexts.
  if (o.ab && !saturation.empty()) {
    md += "\n| A/B | chain | N | aggregate fps | slowest stream fps | GPU % | NVDEC % |\n"
          "| --- | --- | --- | --- | --- | --- | --- |\n";
    for (auto& [name, n] : saturation) {
      if (name != "median3d+cedd" && name != "full")
        continue;
      const int nn = std::min(n, 64);
      struct Case {
        const char* label;
        bool per_pipeline;
      } cases[] = {{"shared context", false}, {"a context per pipeline", true}};
      for (const Case& c : cases) {
        if (std::chrono::duration<double>(Clock::now() - start).count() > o.budget + 60)
          break;
        std::string line;
        const bool ok = run_child(argv[0], o, name, nn, c.per_pipeline, &line);
        int good = 0;
        double agg = 0, mn = 0, mean = 0, gpu = -1, dec = -1, mem = -1;
        if (ok)
          sscanf(line.c_str(), "%d %lf %lf %lf %lf %lf %lf", &good, &agg, &mn, &mean, &gpu, &dec,
                 &mem);
        printf("A/B %-36s %-14s N=%3d %8.1f fps  slowest %6.1f%s\n", c.label, name.c_str(), nn, agg,
               mn, good ? "" : "  (failed)");
        md += std::string("| ") + c.label + " | " + name + " | " + std::to_string(nn) + " | " +
              (good ? fmt("%.1f", agg) : "failed") + " | " + fmt("%.1f", mn) + " | " +
              fmt("%.0f", gpu) + " | " + fmt("%.0f", dec) + " |\n";
      }
    }
  }
  const double total = std::chrono::duration<double>(Clock::now() - start).count();
  md += "\nTotal " + fmt("%.0f", total) + " s.\n";
  if (!o.out.empty()) {
    FILE* f = fopen(o.out.c_str(), "w");
    if (f) {
      fputs(md.c_str(), f);
      fclose(f);
    }
  }
  printf("\nreal-time 1080p30 streams carried (%s), best aggregate:\n%s",
         o.realtime ? "paced at 30 fps, every stream >= 29.7 fps" : "every stream >= 30 fps",
         summary.c_str());
  printf("total %.0f s\n", total);
  return failed ? 1 : 0;
}

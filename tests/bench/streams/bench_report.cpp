// The many-streams benchmark's reports: a run's lines, the scaling over GPU counts, the A/B child
// processes and the soak.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "bench.hpp"

namespace bench {

void print_run(const std::string& label, int n, const streams::Config& cfg,
               const streams::Result& r) {
  printf("%-14s N=%3d %s %8.1f fps  slowest %6.1f  mean %6.1f  (%.2f)  GPU %s%%  NVDEC %s%%  mem "
         "%s MiB  "
         "host CPU %s cores  (setup %.1f s)%s%s\n",
         label.c_str(), n, r.ok ? "ok  " : "FAIL", r.aggregate_fps, r.min_stream_fps,
         r.mean_stream_fps, r.mean_stream_fps > 0 ? r.min_stream_fps / r.mean_stream_fps : -1.0,
         fmt("%.0f", r.gpu_util).c_str(), fmt("%.0f", r.dec_util).c_str(),
         fmt("%.0f",
             (r.mem_used_mib >= 0 && r.mem_base_mib >= 0) ? r.mem_used_mib - r.mem_base_mib : -1)
             .c_str(),
         fmt("%.1f", r.host_cores).c_str(), r.setup_s,
         r.ok ? "" : " error: ", r.ok ? "" : r.error.c_str());
  if (!r.stream_fps.empty()) {
    std::vector<double> f = r.stream_fps;
    std::sort(f.begin(), f.end());
    auto q = [&](double p) { return f[static_cast<size_t>(p * (f.size() - 1) + 0.5)]; };
    printf("  stream fps: min %.1f  p10 %.1f  median %.1f  p90 %.1f  max %.1f  (%zu below %.1f)\n",
           f.front(), q(0.1), q(0.5), q(0.9), f.back(),
           static_cast<size_t>(std::lower_bound(f.begin(), f.end(), cfg.real_time_fps) - f.begin()),
           cfg.real_time_fps);
  }
  for (const streams::GpuFigures& g : r.per_gpu)
    printf(
        "  GPU %d: %3d streams %8.1f fps  slowest %6.1f  mean %6.1f  %d at >= %.1f fps  GPU %s%%  "
        "NVDEC %s%%  mem %s MiB\n",
        g.device, g.streams, g.aggregate_fps, g.min_stream_fps, g.mean_stream_fps,
        g.realtime_streams, cfg.real_time_fps, fmt("%.0f", g.gpu_util).c_str(),
        fmt("%.0f", g.dec_util).c_str(),
        fmt("%.0f",
            (g.mem_used_mib >= 0 && g.mem_base_mib >= 0) ? g.mem_used_mib - g.mem_base_mib : -1)
            .c_str());
  for (auto& [type, per_frame] : r.rois_per_frame)
    printf("  %s ROIs per frame: %.2f\n", type.c_str(), per_frame);
  if (!r.slow_report.empty())
    printf("%s", r.slow_report.c_str());
  fflush(stdout);
}

std::string scaling(const std::vector<Best>& best, std::string* summary) {
  std::string md = "\n| chain | GPUs | best aggregate fps | at N | vs fewer GPUs | per doubling | "
                   "GPU % | NVDEC % | host CPU cores |\n"
                   "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  *summary += "\nscaling (best aggregate fps, factor per doubling of the GPUs):\n";
  std::vector<std::string> names;
  for (const Best& b : best)
    if (std::find(names.begin(), names.end(), b.name) == names.end())
      names.push_back(b.name);
  for (const std::string& name : names) {
    const Best* prev = nullptr;
    for (const Best& b : best) {
      if (b.name != name)
        continue;
      std::string vs = "-", doubling = "-";
      if (prev && prev->fps > 0 && b.gpus > prev->gpus) {
        const double f = b.fps / prev->fps;
        vs = fmt("%.2fx", f) + " (" + std::to_string(prev->gpus) + " GPU" +
             (prev->gpus > 1 ? "s" : "") + ")";
        doubling = fmt("%.2fx", std::pow(f, 1.0 / std::log2(double(b.gpus) / double(prev->gpus))));
      }
      md += "| " + name + " | " + std::to_string(b.gpus) + " | " + fmt("%.1f", b.fps) + " | " +
            std::to_string(b.per_gpu * b.gpus) + " | " + vs + " | " + doubling + " | " +
            fmt("%.0f", b.gpu_util) + " | " + fmt("%.0f", b.dec_util) + " | " +
            fmt("%.1f", b.host_cores) + " |\n";
      char line[200];
      snprintf(line, sizeof line,
               "%-16s %d GPU(s) %8.1f fps at N=%d  %s  per doubling %s  GPU %s%%  NVDEC %s%%  "
               "host CPU %s cores\n",
               name.c_str(), b.gpus, b.fps, b.per_gpu * b.gpus, vs.c_str(), doubling.c_str(),
               fmt("%.0f", b.gpu_util).c_str(), fmt("%.0f", b.dec_util).c_str(),
               fmt("%.1f", b.host_cores).c_str());
      *summary += line;
      prev = &b;
    }
  }
  return md;
}

bool run_child(const char* self, const Options& o, const std::string& chain, int n, int gpus,
               bool per_pipeline, std::string* line) {
  std::vector<std::string> args = {self,           "--child",
                                   "--chains",     chain,
                                   "--ns",         std::to_string(n),
                                   "--gpus",       std::to_string(gpus),
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

int run_soak(const Options& o, const Chain& chain, const Placement& place) {
  // 7 values: the default --ns list, not the user's.
  const int n = o.ns.size() == 7 ? 8 : o.ns[0];
  streams::Config cfg = make_config(o, chain.launch, n, place);
  cfg.warmup_s = 10.0;
  cfg.soak_s = o.soak;
  cfg.sample_s = o.sample;
  printf("soak: %d x (%s ! %s)%s for %.0f s, a sample every %.0f s\n", cfg.n, o.decoder.c_str(),
         chain.launch.c_str(),
         cfg.gpus > 1 ? (" over " + std::to_string(cfg.gpus) + " GPUs").c_str() : "", o.soak,
         o.sample);
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
  std::string md = "## Soak (bench_streams --soak)\n\n" + std::to_string(cfg.n) + " x `" +
                   o.decoder + " ! " + chain.launch + "`, " + fmt("%.0f", o.soak) +
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
  write_out(o, md);
  return verdict.empty() ? 0 : 1;
}

void write_out(const Options& o, const std::string& md) {
  if (o.out.empty())
    return;
  FILE* f = fopen(o.out.c_str(), "w");
  if (f) {
    fputs(md.c_str(), f);
    fclose(f);
  }
}

} // namespace bench

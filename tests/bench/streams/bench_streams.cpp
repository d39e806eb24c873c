// Many 1080p H.264 streams in one process, on one GPU or several: N pipelines
//   filesrc ! qtdemux ! h264parse ! nvh264dec ! CHAIN ! fakesink sync=false
// (looping over the clip, one shared GstCudaContext per GPU) for N = 1, 4, 16, 32, 64, 96, 128
// streams per GPU until the aggregate frame rate stops growing, for the chains
//   decode          (nothing)
//   bgsub           cudabgsub output=frame
//   median3d        cudamedian3d output=frame
//   median3d+cedd   cudamedian3d output=frame ! cudacedd
//   full            cudamedian3d output=frame ! cudarcdtrack init-roi-type=foreground
//                   ! cudacedd regions=rois   (without cudarcdtrack while the plugin lacks it)
//   full+overlay    full ! cudaroioverlay
// Per run: aggregate frames/s, slowest and mean stream, streams carried in real time at 30 fps,
// GPU and NVDEC utilisation and memory (nvidia-smi), the host CPU cores the process kept busy,
// and per element the GPU time per frame (CUDA events on the element's stream: CVIS_PROFILE=1) and
// host time per frame. Then an A/B in child
// processes: one CUDA context per pipeline vs a shared one.
// --gpus G (or a list, e.g. 1,2,4): the N x G streams go round-robin over CUDA devices 0..G-1,
// stream i on device i % G: its decoder is that device's (nvh264dec on the first device,
// nvh264deviceKdec on the others: GStreamer 1.22 registers one decoder element per GPU and its
// cuda-device-id is read-only) and every cuda* element of the chain gets cuda-device-id=i % G; the
// pipelines of a device share that device's context. Each run then also prints per GPU: streams,
// aggregate and slowest stream fps, streams at >= 30 fps, GPU and NVDEC utilisation, memory
// (nvidia-smi; CUDA_DEVICE_ORDER=PCI_BUS_ID is set when unset, so CUDA's device numbers are
// nvidia-smi's). With a list, the best aggregate of each chain is compared between the G values
// (scaling). A G beyond the GPUs that have the decoder is left out with the reason (exit 1).
// --realtime: every sink renders on the clock (sync=true), as with live 30 fps sources: a stream
// takes only its real-time share, and carried means every stream at >= 29.7 fps in the window.
// Below-real-time streams are described (buffers per source pad, loops, state) and the streaming
// threads of stalled ones print their stacks (CVIS_BENCH_STACKS=1: of every slow one): where a
// stall is. --gpu-slots K: at most K frames of the cvis elements in work per GPU at once, served
// first come, first served (gst/cvis/cvisturns.h; 0: no limit; default: the library's, 24).
// Every run reports the fairness: the slowest stream's rate over the mean.
// Usage: bench_streams [--clip H264.mp4] [--chains a,b] [--ns 1,4,16] [--gpus 1,2]
//                      [--warmup S] [--measure S] [--gpu-slots K]
//                      [--budget S] [--no-ab] [--no-profile] [--out FILE.md] [--realtime]
//                      [--chain "GST-LAUNCH TEXT"]   (one more chain, named custom)
//                      [--decoder avdec_h264 --element-props backend=cpu]   (the harness on a CPU)
//        bench_streams --soak SECONDS [--sample S] [--chains full] [--ns 8] [--out FILE.md]
//   soak: one chain (default full+overlay) with N streams per GPU (default 8) for SECONDS, sampled
//   every S (default 10): host RSS and this process's GPU memory must stay flat (growth from the
//   sample at 10% of the run to the last below 32 MiB host, 16 MiB GPU), frames must keep flowing,
//   no error.
// Durations: each run sets up N pipelines, warms up 1.5 s and measures 3 s; no sweep run starts
// after --budget seconds (default 300) and the A/B runs after budget + 60, so the whole fits one
// ~8-minute device call (scripts/gpu/run.sh bench bench_streams).
// The clip defaults to $CVIS_TEST_H264 (scripts/gpu/prepare.sh stages a 1080p one). Without
// nvh264dec it prints why and exits 0 (1 with CVIS_REQUIRE_GPU=1).
#include <gst/cvis/cvisturns.h>
#include <gst/gst.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench.hpp"

using namespace bench;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, &o))
    return 2;
  if (o.profile)
    setenv("CVIS_PROFILE", "1", 1);
  // CUDA numbers devices fastest first by default; in bus order they are nvidia-smi's numbers
  // (per-GPU utilisation). Set before anything loads CUDA.
  if (*std::max_element(o.gpus.begin(), o.gpus.end()) > 1)
    setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0);
  gst_init(&argc, &argv);
  if (o.gpu_slots >= 0)
    for (int d = 0; d < 16; ++d)
      gst_cvis_gpu_turns_set_slots(d, static_cast<guint>(o.gpu_slots));
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

  // The --gpus values that have a decoder on each of their devices.
  std::string left_out;
  const std::vector<Placement> places = placements(o, &left_out);
  if (!left_out.empty())
    fprintf(stderr, "bench_streams: %s", left_out.c_str());
  if (places.empty())
    return 1;

  if (o.child) { // one configuration, a machine-readable line
    for (auto& c : chains) {
      if (c.name != o.chains[0])
        continue;
      streams::Config cfg = make_config(o, c.launch, o.ns[0], places[0]);
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
    for (auto& c : chains)
      if (c.name == name)
        return run_soak(o, c, places[0]);
    fprintf(stderr, "bench_streams: unknown chain %s\n", name.c_str());
    return 2;
  }

  const Clock::time_point start = Clock::now();
  const bool multi = places.size() > 1 || places[0].gpus > 1;
  std::string md =
      "## Many streams (bench_streams)\n\nClip: " + o.clip +
      " (looped), one process, one GstCudaContext shared by the pipelines" +
      (multi ? " of each GPU (N: streams in all, spread round-robin over the GPUs)" : "") +
      (o.realtime ? ", each stream paced at the clip's 30 fps (sync=true)" : "") + "; warm-up " +
      fmt("%.1f", o.warmup) + " s, measured " + fmt("%.1f", o.measure) +
      " s per run. Real time = every stream at >= 30 fps.\n\n" +
      "GPU turns: " + std::to_string(gst_cvis_gpu_turns_get_slots(0)) +
      " slots per GPU (0: no limit; gst_cvis_gpu_turns_set_slots).\n\n" +
      "| chain | N | aggregate fps | slowest stream fps | mean stream fps | fairness (slowest / "
      "mean) | real-time streams | GPU % | NVDEC % | GPU memory MiB (per stream) |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  std::string summary = "chain            carried  (at N)  max fps\n";
  std::string prof = "\n| chain | N | element | frames | GPU ms / frame | host ms / frame |\n"
                     "| --- | --- | --- | --- | --- | --- |\n";
  std::string per_gpu_md = "\n| chain | N | GPU | streams | aggregate fps | slowest stream fps | "
                           "real-time streams | GPU % | NVDEC % | GPU memory MiB |\n"
                           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  std::vector<Best> saturation; // per chain and GPU count: the best run, for A/B and scaling
  bool failed = false;
  for (const Placement& place : places) {
    for (const std::string& name : o.chains) {
      const Chain* chain = nullptr;
      for (auto& c : chains)
        if (c.name == name)
          chain = &c;
      if (!chain) {
        fprintf(stderr, "bench_streams: unknown chain %s\n", name.c_str());
        return 2;
      }
      const std::string label =
          place.gpus == 1 ? name : name + " x" + std::to_string(place.gpus) + " GPUs";
      if (!chain->note.empty())
        md += "\n" + chain->name + ": " + chain->note + "\n\n";
      double prev = 0;
      int carried = 0;
      Best best{name, place.gpus, 0, 0.0};
      for (int per_gpu : o.ns) {
        const int n = per_gpu * place.gpus;
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        if (elapsed > o.budget) {
          md += "| " + label + " | " + std::to_string(n) + " | skipped: time budget (" +
                fmt("%.0f", o.budget) + " s) spent | | | | | | |\n";
          break;
        }
        const streams::Config cfg = make_config(o, chain->launch, per_gpu, place);
        const streams::Result r = streams::run(cfg);
        const int rt = r.min_stream_fps >= cfg.real_time_fps ? n : 0;
        print_run(label, n, cfg, r);
        const double mem =
            (r.mem_used_mib >= 0 && r.mem_base_mib >= 0) ? r.mem_used_mib - r.mem_base_mib : -1;
        md += "| " + label + " | " + std::to_string(n) + " | " +
              (r.ok ? fmt("%.1f", r.aggregate_fps) : "error: " + r.error) + " | " +
              fmt("%.1f", r.min_stream_fps) + " | " + fmt("%.1f", r.mean_stream_fps) + " | " +
              fmt("%.2f", r.mean_stream_fps > 0 ? r.min_stream_fps / r.mean_stream_fps : -1) +
              " | " + std::to_string(rt) + " | " + fmt("%.0f", r.gpu_util) + " | " +
              fmt("%.0f", r.dec_util) + " | " + fmt("%.0f", mem) + " (" +
              fmt("%.1f", mem >= 0 ? mem / n : -1) + ") |\n";
        for (const streams::GpuFigures& g : r.per_gpu)
          per_gpu_md += "| " + label + " | " + std::to_string(n) + " | " +
                        std::to_string(g.device) + " | " + std::to_string(g.streams) + " | " +
                        fmt("%.1f", g.aggregate_fps) + " | " + fmt("%.1f", g.min_stream_fps) +
                        " | " + std::to_string(g.realtime_streams) + " | " +
                        fmt("%.0f", g.gpu_util) + " | " + fmt("%.0f", g.dec_util) + " | " +
                        fmt("%.0f", (g.mem_used_mib >= 0 && g.mem_base_mib >= 0)
                                        ? g.mem_used_mib - g.mem_base_mib
                                        : -1) +
                        " |\n";
        for (auto& [factory, p] : r.profile) {
          if (!p.frames)
            continue;
          prof += "| " + label + " | " + std::to_string(n) + " | " + factory + " | " +
                  std::to_string(p.frames) + " | " + fmt("%.3f", p.gpu_ms / p.frames) + " | " +
                  fmt("%.3f", p.host_ms / p.frames) + " |\n";
        }
        if (!r.ok) {
          failed = true;
          break;
        }
        carried = std::max(carried, rt);
        if (r.aggregate_fps > best.fps)
          best = {name, place.gpus, per_gpu, r.aggregate_fps, r.gpu_util, r.dec_util, r.host_cores};
        // Saturated: less than 8% more frames for more streams, or streams far below real time.
        if ((prev > 0 && r.aggregate_fps < 1.08 * prev) || r.min_stream_fps < 10.0)
          break;
        prev = r.aggregate_fps;
      }
      char line[200];
      snprintf(line, sizeof line, "%-16s %7d  (%d)  %8.1f  (%.0f x 30 fps)\n", label.c_str(),
               carried, best.per_gpu * place.gpus, best.fps, std::floor(best.fps / 30.0));
      summary += line;
      if (best.per_gpu > 0)
        saturation.push_back(best);
    }
  }
  if (multi)
    md += per_gpu_md;
  md += prof;
  if (places.size() > 1)
    md += scaling(saturation, &summary);

  // A/B in child processes at the chain's best N (at most 64 per GPU): shared vs per-pipeline
  // CUDA contexts.
  if (o.ab && !saturation.empty()) {
    md += "\n| A/B | chain | N | aggregate fps | slowest stream fps | GPU % | NVDEC % |\n"
          "| --- | --- | --- | --- | --- | --- | --- |\n";
    for (const Best& b : saturation) {
      if (b.name != "median3d+cedd" && b.name != "full")
        continue;
      const int nn = std::min(b.per_gpu, 64);
      const std::string label =
          b.gpus == 1 ? b.name : b.name + " x" + std::to_string(b.gpus) + " GPUs";
      struct Case {
        const char* label;
        bool per_pipeline;
      } cases[] = {{"shared context", false}, {"a context per pipeline", true}};
      for (const Case& c : cases) {
        if (std::chrono::duration<double>(Clock::now() - start).count() > o.budget + 60)
          break;
        std::string line;
        const bool ok = run_child(argv[0], o, b.name, nn, b.gpus, c.per_pipeline, &line);
        int good = 0;
        double agg = 0, mn = 0, mean = 0, gpu = -1, dec = -1, mem = -1;
        if (ok)
          sscanf(line.c_str(), "%d %lf %lf %lf %lf %lf %lf", &good, &agg, &mn, &mean, &gpu, &dec,
                 &mem);
        printf("A/B %-36s %-14s N=%3d %8.1f fps  slowest %6.1f%s\n", c.label, label.c_str(),
               nn * b.gpus, agg, mn, good ? "" : "  (failed)");
        md += std::string("| ") + c.label + " | " + label + " | " + std::to_string(nn * b.gpus) +
              " | " + (good ? fmt("%.1f", agg) : "failed") + " | " + fmt("%.1f", mn) + " | " +
              fmt("%.0f", gpu) + " | " + fmt("%.0f", dec) + " |\n";
      }
    }
  }
  const double total = std::chrono::duration<double>(Clock::now() - start).count();
  md += "\nTotal " + fmt("%.0f", total) + " s.\n";
  write_out(o, md);
  printf("\nreal-time 1080p30 streams carried (%s), best aggregate:\n%s",
         o.realtime ? "paced at 30 fps, every stream >= 29.7 fps" : "every stream >= 30 fps",
         summary.c_str());
  printf("total %.0f s\n", total);
  if (!left_out.empty())
    printf("%s", left_out.c_str());
  return failed || !left_out.empty() ? 1 : 0;
}

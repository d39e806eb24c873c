// One configuration of the many-streams benchmark: N pipelines spread over the GPUs, one shared
// CUDA context per GPU, looping, frame counters at the sinks, nvidia-smi sampling, profile
// messages at teardown.
#include <gst/gst.h>
#include <gst/video/gstvideometa.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "streams.hpp"

namespace streams {
namespace {

using Clock = std::chrono::steady_clock;

struct Shared {
  std::mutex lock;
  // Per device id: the first CUDA context made on it, handed to the other pipelines' elements of
  // that device.
  std::map<guint, GstContext*> cuda;
  bool share = true;
};

long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// Buffers through one source pad of a pipeline, for the report on slow streams.
struct PadStat {
  std::string name; // element:pad
  std::atomic<unsigned long long> buffers{0};
  std::atomic<long long> last_ns{0};
};

// ROI metas seen at a sink, per roi_type quark (streaming thread; read after the window).
struct RoiCount {
  std::mutex lock;
  std::map<GQuark, unsigned long long> n;
};

struct Stream {
  GstElement* pipeline = nullptr;
  Shared* shared = nullptr;
  guint device = 0; // the GPU this stream's decoder and chain were placed on
  std::atomic<unsigned long long> frames{0};
  RoiCount rois;
  std::atomic<bool> failed{false};
  std::string error;
  int loops = 0, failed_seeks = 0; // SEGMENT_DONE handled (main thread only)
  std::deque<PadStat> pads;        // deque: stable addresses for the probes
};

GstPadProbeReturn count_frame(GstPad*, GstPadProbeInfo* info, gpointer data) {
  Stream* s = static_cast<Stream*>(data);
  s->frames.fetch_add(1, std::memory_order_relaxed);
  GstBuffer* buf = GST_PAD_PROBE_INFO_BUFFER(info);
  gpointer state = nullptr;
  std::lock_guard<std::mutex> lk(s->rois.lock);
  while (GstMeta* m = gst_buffer_iterate_meta_filtered(buf, &state,
                                                       GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
    ++s->rois.n[reinterpret_cast<GstVideoRegionOfInterestMeta*>(m)->roi_type];
  return GST_PAD_PROBE_OK;
}

std::map<GQuark, unsigned long long> roi_counts(Stream& s) {
  std::lock_guard<std::mutex> lk(s.rois.lock);
  return s.rois.n;
}

GstPadProbeReturn count_pad(GstPad*, GstPadProbeInfo*, gpointer data) {
  PadStat* p = static_cast<PadStat*>(data);
  p->buffers.fetch_add(1, std::memory_order_relaxed);
  p->last_ns.store(now_ns(), std::memory_order_relaxed);
  return GST_PAD_PROBE_OK;
}

// A probe on every source pad that exists once the pipeline has prerolled (qtdemux's are dynamic).
void watch_pads(Stream* s) {
  GstIterator* it = gst_bin_iterate_recurse(GST_BIN(s->pipeline));
  GValue v = G_VALUE_INIT;
  while (gst_iterator_next(it, &v) == GST_ITERATOR_OK) {
    GstElement* e = GST_ELEMENT(g_value_get_object(&v));
    GstIterator* pit = gst_element_iterate_src_pads(e);
    GValue pv = G_VALUE_INIT;
    while (gst_iterator_next(pit, &pv) == GST_ITERATOR_OK) {
      GstPad* pad = GST_PAD(g_value_get_object(&pv));
      s->pads.emplace_back();
      PadStat& st = s->pads.back();
      gchar* en = gst_element_get_name(e);
      gchar* pn = gst_pad_get_name(pad);
      st.name = std::string(en) + ":" + pn;
      g_free(en);
      g_free(pn);
      gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, count_pad, &st, nullptr);
      g_value_reset(&pv);
    }
    g_value_unset(&pv);
    gst_iterator_free(pit);
    g_value_reset(&v);
  }
  g_value_unset(&v);
  gst_iterator_free(it);
}

// NEED_CONTEXT for the CUDA context is answered with the shared one of the stream's device; the
// first HAVE_CONTEXT of a device becomes that device's (keyed by the device the context is on, so a
// context never reaches a pipeline of another device). Streaming threads call this.
GstBusSyncReply on_sync(GstBus*, GstMessage* msg, gpointer data) {
  Stream* s = static_cast<Stream*>(data);
  Shared* sh = s->shared;
  const gchar* type = nullptr;
  if (!sh->share)
    return GST_BUS_PASS;
  if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type(msg, &type) && g_strcmp0(type, "gst.cuda.context") == 0) {
    std::lock_guard<std::mutex> lk(sh->lock);
    auto it = sh->cuda.find(s->device);
    if (it != sh->cuda.end())
      gst_element_set_context(GST_ELEMENT(GST_MESSAGE_SRC(msg)), it->second);
  } else if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_HAVE_CONTEXT) {
    GstContext* ctx = nullptr;
    gst_message_parse_have_context(msg, &ctx);
    if (ctx && g_strcmp0(gst_context_get_context_type(ctx), "gst.cuda.context") == 0) {
      // GStreamer's CUDA context structure names its device ("cuda-device-id", guint).
      guint device = s->device;
      gst_structure_get_uint(gst_context_get_structure(ctx), "cuda-device-id", &device);
      std::lock_guard<std::mutex> lk(sh->lock);
      if (!sh->cuda.count(device))
        sh->cuda[device] = gst_context_ref(ctx);
    }
    if (ctx)
      gst_context_unref(ctx);
  }
  return GST_BUS_PASS;
}

// Bus messages of one pipeline (main thread): errors, segment loops, profiles.
void drain_bus(Stream* s, Result* r) {
  GstBus* bus = gst_element_get_bus(s->pipeline);
  while (GstMessage* msg = gst_bus_pop(bus)) {
    switch (GST_MESSAGE_TYPE(msg)) {
    case GST_MESSAGE_ERROR: {
      GError* err = nullptr;
      gst_message_parse_error(msg, &err, nullptr);
      if (!s->failed.exchange(true))
        s->error = err ? err->message : "error";
      g_clear_error(&err);
      break;
    }
    case GST_MESSAGE_SEGMENT_DONE:
      // Loop without a flush: the decoder and the elements keep their state.
      ++s->loops;
      if (!gst_element_seek(s->pipeline, 1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_SEGMENT,
                            GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, GST_CLOCK_TIME_NONE))
        ++s->failed_seeks;
      break;
    case GST_MESSAGE_EOS:
      if (!s->failed.exchange(true))
        s->error = "unexpected EOS (segment looping failed)";
      break;
    case GST_MESSAGE_ELEMENT: {
      const GstStructure* st = gst_message_get_structure(msg);
      if (st && gst_structure_has_name(st, "cvis-profile")) {
        ElementProfile& p = r->profile[gst_structure_get_string(st, "factory")];
        guint64 f = 0, c = 0;
        gdouble g = 0, h = 0;
        gst_structure_get_uint64(st, "frames", &f);
        gst_structure_get_uint64(st, "calls", &c);
        gst_structure_get_double(st, "gpu-ms", &g);
        gst_structure_get_double(st, "host-ms", &h);
        p.frames += f, p.calls += c, p.gpu_ms += g, p.host_ms += h;
      }
      break;
    }
    default:
      break;
    }
    gst_message_unref(msg);
  }
  gst_object_unref(bus);
}

bool wait_state(Stream* s, GstState want, double timeout_s) {
  GstState cur = GST_STATE_VOID_PENDING;
  const GstStateChangeReturn ret = gst_element_get_state(
      s->pipeline, &cur, nullptr, static_cast<GstClockTime>(timeout_s * GST_SECOND));
  return ret != GST_STATE_CHANGE_FAILURE && cur == want;
}

// Each device's share of a window: stream i ran on device i % gpus.
std::vector<GpuFigures> per_gpu_figures(int gpus, const std::vector<double>& stream_fps,
                                        double real_time_fps, const std::vector<GpuSample>& base,
                                        const std::vector<std::vector<GpuSample>>& samples) {
  std::vector<GpuFigures> out(static_cast<size_t>(gpus));
  for (int k = 0; k < gpus; ++k) {
    GpuFigures& f = out[k];
    f.device = k;
    f.min_stream_fps = 1e30;
    for (size_t i = k; i < stream_fps.size(); i += gpus) {
      ++f.streams;
      f.aggregate_fps += stream_fps[i];
      f.min_stream_fps = std::min(f.min_stream_fps, stream_fps[i]);
      f.realtime_streams += stream_fps[i] >= real_time_fps;
    }
    if (!f.streams)
      f.min_stream_fps = 0.0;
    f.mean_stream_fps = f.streams ? f.aggregate_fps / f.streams : 0.0;
    // Means over the samples that had a value (nvidia-smi reports "[N/A]" for some fields).
    auto mean = [&](double GpuSample::*field) {
      double sum = 0;
      int n = 0;
      for (const GpuSample& s : samples[k])
        if (s.*field >= 0)
          sum += s.*field, ++n;
      return n ? sum / n : -1.0;
    };
    f.gpu_util = mean(&GpuSample::gpu);
    f.dec_util = mean(&GpuSample::dec);
    f.mem_used_mib = mean(&GpuSample::mem_mib);
    f.mem_base_mib = k < static_cast<int>(base.size()) ? base[k].mem_mib : -1.0;
  }
  return out;
}

} // namespace

static std::string fmt_age(double seconds) {
  char b[48];
  snprintf(b, sizeof b, "%.2f s ago", seconds);
  return b;
}

// One slow stream: where its buffers stopped.
static std::string describe(size_t index, Stream& s, double fps) {
  GstState cur = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING;
  const GstStateChangeReturn ret = gst_element_get_state(s.pipeline, &cur, &pending, 0);
  gint64 pos = -1;
  gst_element_query_position(s.pipeline, GST_FORMAT_TIME, &pos);
  char head[256];
  snprintf(head, sizeof head,
           "stream %zu (GPU %u): %.1f fps in the window, %llu frames in all, %d loops (%d seeks "
           "refused), state %s pending %s (%s), position %.2f s\n",
           index, s.device, fps, s.frames.load(), s.loops, s.failed_seeks,
           gst_element_state_get_name(cur), gst_element_state_get_name(pending),
           gst_element_state_change_return_get_name(ret), pos >= 0 ? pos / 1e9 : -1.0);
  std::string out = head;
  const long long now = now_ns();
  for (const PadStat& p : s.pads) {
    const long long last = p.last_ns.load();
    char line[256];
    snprintf(line, sizeof line, "  %-40s %10llu buffers, last %s\n", p.name.c_str(),
             p.buffers.load(), last ? fmt_age((now - last) / 1e9).c_str() : "never");
    out += line;
  }
  // Stalled (no buffer at the sink for 2 s): the stacks of the threads of its elements' tasks.
  const long long last = s.pads.empty() ? 0 : s.pads.front().last_ns.load();
  if (fps < 1.0 || (last && now - last > 2000000000LL) || std::getenv("CVIS_BENCH_STACKS")) {
    std::vector<std::string> names;
    GstIterator* it = gst_bin_iterate_recurse(GST_BIN(s.pipeline));
    GValue v = G_VALUE_INIT;
    while (gst_iterator_next(it, &v) == GST_ITERATOR_OK) {
      gchar* en = gst_element_get_name(GST_ELEMENT(g_value_get_object(&v)));
      for (const char* pad : {":sink", ":src"})
        names.push_back((std::string(en) + pad).substr(0, 15));
      g_free(en);
      g_value_reset(&v);
    }
    g_value_unset(&v);
    gst_iterator_free(it);
    out += thread_stacks(names);
  }
  return out;
}

Result run(const Config& c) {
  Result r;
  Shared sh;
  sh.share = c.shared_context;
  const int gpus = std::max(1, c.gpus);
  double g = 0, d = 0, m = 0;
  if (gpu_sample(&g, &d, &m))
    r.mem_base_mib = m;
  std::vector<GpuSample> base;
  if (gpus > 1)
    gpu_sample_devices(gpus, &base);

  std::vector<std::unique_ptr<Stream>> streams;
  const Clock::time_point t_setup = Clock::now();
  for (int i = 0; i < c.n; ++i) {
    auto s = std::make_unique<Stream>();
    s->shared = &sh;
    s->device = static_cast<guint>(i % gpus);
    const std::string& decoder = gpus > 1 ? c.device_decoders.at(s->device) : c.decoder;
    const std::string& chain = gpus > 1 ? c.device_chains.at(s->device) : c.chain;
    const std::string desc =
        "filesrc location=\"" + c.clip + "\" ! qtdemux ! h264parse ! " + decoder + " ! " +
        (chain.empty() ? "" : chain + " ! ") +
        (c.realtime ? "fakesink name=sink sync=true qos=false" : "fakesink name=sink sync=false");
    GError* err = nullptr;
    s->pipeline = gst_parse_launch(desc.c_str(), &err);
    if (!s->pipeline) {
      r.error = std::string("cannot build: ") + (err ? err->message : desc);
      g_clear_error(&err);
      return r;
    }
    GstBus* bus = gst_element_get_bus(s->pipeline);
    gst_bus_set_sync_handler(bus, on_sync, s.get(), nullptr);
    gst_object_unref(bus);
    GstElement* sink = gst_bin_get_by_name(GST_BIN(s->pipeline), "sink");
    GstPad* pad = gst_element_get_static_pad(sink, "sink");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, count_frame, s.get(), nullptr);
    gst_object_unref(pad);
    gst_object_unref(sink);
    // Preroll, then a flushing segment seek so that the end of the clip posts SEGMENT_DONE. The
    // first pipeline of each device prerolls alone: its context is then the one the others get.
    gst_element_set_state(s->pipeline, GST_STATE_PAUSED);
    if (i < gpus && !wait_state(s.get(), GST_STATE_PAUSED, 30)) {
      drain_bus(s.get(), &r);
      r.error = "the first pipeline of GPU " + std::to_string(i) + " did not preroll: " + s->error;
    }
    streams.push_back(std::move(s));
    if (!r.error.empty())
      break;
  }
  bool ok = r.error.empty();
  for (auto& s : streams) {
    if (!ok)
      break;
    if (!wait_state(s.get(), GST_STATE_PAUSED, 60)) {
      drain_bus(s.get(), &r);
      r.error = "a pipeline did not preroll: " + s->error;
      ok = false;
      break;
    }
    watch_pads(s.get());
    if (!gst_element_seek(s->pipeline, 1.0, GST_FORMAT_TIME,
                          static_cast<GstSeekFlags>(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_SEGMENT),
                          GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, GST_CLOCK_TIME_NONE))
      ++s->failed_seeks;
  }
  if (ok)
    for (auto& s : streams)
      gst_element_set_state(s->pipeline, GST_STATE_PLAYING);
  r.setup_s = std::chrono::duration<double>(Clock::now() - t_setup).count();

  // Per device, the nvidia-smi samples of the window (gpus > 1).
  std::vector<std::vector<GpuSample>> device_samples(static_cast<size_t>(gpus));
  auto pump = [&](double seconds, std::vector<double>* gpu, std::vector<double>* dec,
                  std::vector<double>* mem) {
    const Clock::time_point end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                     std::chrono::duration<double>(seconds));
    Clock::time_point next_sample = Clock::now();
    while (Clock::now() < end) {
      for (auto& s : streams)
        drain_bus(s.get(), &r);
      if (gpu && Clock::now() >= next_sample) {
        double a, b, mm;
        std::vector<GpuSample> all;
        if (gpus == 1 && gpu_sample(&a, &b, &mm)) {
          gpu->push_back(a), dec->push_back(b), mem->push_back(mm);
        } else if (gpus > 1 && gpu_sample_devices(gpus, &all)) {
          // All GPUs used: the mean utilisation, the memory summed.
          double ga = 0, da = 0, ms = 0;
          for (int k = 0; k < gpus; ++k) {
            device_samples[k].push_back(all[k]);
            ga += all[k].gpu / gpus, da += all[k].dec / gpus, ms += all[k].mem_mib;
          }
          gpu->push_back(ga), dec->push_back(da), mem->push_back(ms);
        }
        next_sample = Clock::now() + std::chrono::milliseconds(500);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };
  if (ok && c.soak_s > 0) {
    pump(c.warmup_s, nullptr, nullptr, nullptr);
    auto frames_now = [&] {
      unsigned long long t = 0;
      for (auto& s : streams)
        t += s->frames.load();
      return t;
    };
    const unsigned long long f0 = frames_now();
    const Clock::time_point t0 = Clock::now();
    int stalled = 0;
    while (r.error.empty()) {
      const double t = std::chrono::duration<double>(Clock::now() - t0).count();
      Sample sm;
      sm.t = t;
      sm.frames = frames_now() - f0;
      sm.rss_mib = rss_mib();
      sm.gpu_mib = process_gpu_mib();
      stalled = (!r.samples.empty() && sm.frames == r.samples.back().frames) ? stalled + 1 : 0;
      r.samples.push_back(sm);
      if (c.on_sample)
        c.on_sample(sm);
      if (stalled >= 2)
        r.error = "no frame for two sample intervals (stalled)";
      if (t >= c.soak_s)
        break;
      pump(std::min(c.sample_s, c.soak_s - t + 0.01), nullptr, nullptr, nullptr);
      for (auto& s : streams)
        if (s->failed && r.error.empty())
          r.error = s->error;
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    r.aggregate_fps = (frames_now() - f0) / r.seconds;
    r.mean_stream_fps = r.aggregate_fps / c.n;
  } else if (ok) {
    pump(c.warmup_s, nullptr, nullptr, nullptr);
    std::vector<unsigned long long> c0;
    std::map<GQuark, unsigned long long> r0;
    for (auto& s : streams) {
      c0.push_back(s->frames.load());
      for (auto& [q, n] : roi_counts(*s))
        r0[q] += n;
    }
    const Clock::time_point t0 = Clock::now();
    const double cpu0 = cpu_seconds();
    std::vector<double> gpu, dec, mem;
    pump(c.measure_s, &gpu, &dec, &mem);
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    r.host_cores = (cpu_seconds() - cpu0) / dt;
    unsigned long long total = 0;
    r.min_stream_fps = 1e30;
    for (size_t i = 0; i < streams.size(); ++i) {
      const unsigned long long f = streams[i]->frames.load() - c0[i];
      total += f;
      r.min_stream_fps = std::min(r.min_stream_fps, f / dt);
      r.stream_fps.push_back(f / dt);
    }
    // The four slowest streams below real time, described while they still run.
    std::vector<size_t> order(streams.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return r.stream_fps[a] < r.stream_fps[b]; });
    for (size_t k = 0; k < order.size() && k < 4 && r.stream_fps[order[k]] < c.real_time_fps; ++k)
      r.slow_report += describe(order[k], *streams[order[k]], r.stream_fps[order[k]]);
    std::map<GQuark, unsigned long long> r1;
    for (auto& s : streams)
      for (auto& [q, n] : roi_counts(*s))
        r1[q] += n;
    for (auto& [q, n] : r1)
      if (total)
        r.rois_per_frame[g_quark_to_string(q)] = double(n - r0[q]) / total;
    r.seconds = dt;
    r.aggregate_fps = total / dt;
    r.mean_stream_fps = r.aggregate_fps / c.n;
    auto mean = [](const std::vector<double>& v) {
      double s = 0;
      for (double x : v)
        s += x;
      return v.empty() ? -1.0 : s / v.size();
    };
    r.gpu_util = mean(gpu), r.dec_util = mean(dec), r.mem_used_mib = mean(mem);
    if (gpus > 1)
      r.per_gpu = per_gpu_figures(gpus, r.stream_fps, c.real_time_fps, base, device_samples);
    if (gpus > 1 && !base.empty()) {
      double sum = 0;
      for (const GpuSample& b : base)
        sum += b.mem_mib >= 0 ? b.mem_mib : 0;
      r.mem_base_mib = sum; // comparable with the summed memory of the window
    }
  }
  // READY first: the elements post cvis-profile at stop (PAUSED->READY), and a pipeline going to
  // NULL flushes its bus.
  for (auto& s : streams)
    gst_element_set_state(s->pipeline, GST_STATE_READY);
  for (auto& s : streams) {
    gst_element_get_state(s->pipeline, nullptr, nullptr, 30 * GST_SECOND);
    drain_bus(s.get(), &r); // errors and the cvis-profile messages
  }
  for (auto& s : streams)
    gst_element_set_state(s->pipeline, GST_STATE_NULL);
  for (auto& s : streams) {
    if (s->failed && r.error.empty())
      r.error = s->error;
    gst_object_unref(s->pipeline);
  }
  for (auto& [device, ctx] : sh.cuda)
    gst_context_unref(ctx);
  r.ok = ok && r.error.empty();
  return r;
}

} // namespace streams

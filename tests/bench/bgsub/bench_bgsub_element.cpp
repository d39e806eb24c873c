// Element-level benchmark of cudabgsub: appsrc -> cudabgsub -> fakesink (sync=false), NV12 frames
// (what nvh264dec hands over), default model, for
//   memory: CUDA memory prepared beforehand on the pipeline's shared context, or system memory
//           (the element uploads through pinned staging and downloads the mask);
//   output: mask (GRAY8) and frame (in place, foreground meta);
//   scene:  "steady" (one static textured scene with a moving block: little foreground) and "cut"
//           (that scene for 60 frames, then another: nearly every pixel foreground from then on,
//           as after a shot change in a real clip: the model never absorbs it, see README.md);
// plus the CPU backend at a small size, and the library itself (Subtractor::process on the same
// device frames, one process() per frame with its stream sync) as the rate the element should
// reach: "library" on the legacy stream (a busy wait), "lib-own" on a stream of its own with the
// default wait (as the element), "lib-300" the same with the fixed 300-us poll before a sleep.
// Frames/s are measured at fakesink after the warm-up (`num-samples` frames) plus 10, from a pad
// probe, so pipeline start-up and the warm-up stay out of the figure.
// Usage: bench_bgsub_element [--frames N] [--quick] [--out FILE] [--props "K=V ..."]
//   --props: extra cudabgsub properties for every run (an A/B of a feature, e.g. ghost-passes=0)
//   (exit 1 on any error)
#include <cuda_runtime_api.h>
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bgsub/bgsub.hpp"
#include "common/backend.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kCut = 60;  // the "cut" scenario switches scenes after this many frames
constexpr int kScene = 8; // distinct frames per scene

struct Row {
  std::string size, memory, output, scene;
  int frames = 0;
  double fps = 0;
  std::string error;
};

std::string caps(int w, int h, bool cuda) {
  return std::string("video/x-raw") + (cuda ? "(memory:CUDAMemory)" : "") +
         ",format=NV12,width=" + std::to_string(w) + ",height=" + std::to_string(h) +
         ",framerate=30/1";
}

// Scene s, frame t: a blocky texture (different per scene) with mild noise and a moving block.
void fill(GstBuffer* b, int w, int h, int s, int t) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, w, h);
  GstVideoFrame f;
  if (!gst_video_frame_map(&f, &info, b, GST_MAP_WRITE))
    return;
  uint32_t rng = 12345u + 977u * t + 31u * s;
  for (int y = 0; y < h; ++y) {
    auto* row = static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)) +
                y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0);
    for (int x = 0; x < w; ++x) {
      rng = rng * 1664525u + 1013904223u;
      const int noise = static_cast<int>((rng >> 28) & 3u) - 1;
      const bool obj = x >= (t * 17) % w && x < (t * 17) % w + w / 8 && y > h / 3 && y < h / 2;
      const int base = s == 0 ? ((x / 24) * 37 + (y / 16) * 23) % 200 + 28
                              : 220 - ((x / 40) * 19 + (y / 30) * 41) % 180;
      row[x] = static_cast<guint8>(obj ? 235 : std::clamp(base + noise, 16, 235));
    }
  }
  for (int y = 0; y < (h + 1) / 2; ++y) {
    auto* row = static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&f, 1)) +
                y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 1);
    for (int x = 0; x < (w + 1) / 2; ++x) {
      row[2 * x] = static_cast<guint8>(s == 0 ? 100 + (x / 16) % 40 : 150 - (y / 8) % 50);
      row[2 * x + 1] = static_cast<guint8>(s == 0 ? 140 - (y / 12) % 30 : 110 + (x / 20) % 60);
    }
  }
  gst_video_frame_unmap(&f);
}

// kScene frames of scene 0 then kScene of scene 1, in CUDA memory of `ctx` (uploaded now) or in
// system memory (ctx null).
std::vector<GstBuffer*> make_frames(int w, int h, GstCudaContext* ctx, std::string* err) {
  std::vector<GstBuffer*> out;
  GstBufferPool* pool = nullptr;
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, w, h);
  if (ctx) {
    pool = gst_cuda_buffer_pool_new(ctx);
    GstCaps* c = gst_caps_from_string(caps(w, h, true).c_str());
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, c, GST_VIDEO_INFO_SIZE(&info), 2 * kScene,
                                      2 * kScene);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_caps_unref(c);
    if (!gst_buffer_pool_set_config(pool, config) || !gst_buffer_pool_set_active(pool, TRUE)) {
      *err = "CUDA buffer pool";
      gst_object_unref(pool);
      return out;
    }
  }
  for (int i = 0; i < 2 * kScene; ++i) {
    GstBuffer* b = nullptr;
    if (pool)
      gst_buffer_pool_acquire_buffer(pool, &b, nullptr);
    else
      b = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    if (!b) {
      *err = "frame allocation";
      break;
    }
    fill(b, w, h, i / kScene, i);
    if (pool) { // a CUDA map of CPU-written CUDA memory uploads it: now, not in the timing
      GstMapInfo mi;
      if (gst_buffer_map(b, &mi, static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA)))
        gst_buffer_unmap(b, &mi);
    }
    out.push_back(b);
  }
  if (pool)
    gst_object_unref(pool); // the buffers keep it alive
  return out;
}

// Frame k of a scenario: scene 0 throughout ("steady") or scene 1 after kCut frames ("cut").
GstBuffer* frame_at(const std::vector<GstBuffer*>& f, bool cut, int k) {
  const int scene = cut && k >= kCut ? 1 : 0;
  return f[scene * kScene + k % kScene];
}

struct Probe {
  int seen = 0, skip = 0;
  Clock::time_point first, last;
};

GstPadProbeReturn on_buffer(GstPad*, GstPadProbeInfo*, gpointer data) {
  auto* p = static_cast<Probe*>(data);
  const Clock::time_point now = Clock::now();
  if (p->seen == p->skip)
    p->first = now;
  p->last = now;
  ++p->seen;
  return GST_PAD_PROBE_OK;
}

Row run(const std::string& props, const std::vector<GstBuffer*>& frames, bool cut, int n, int w,
        int h, bool cuda, GstCudaContext* ctx, int skip) {
  Row r;
  r.frames = n - skip - 1;
  const std::string d = "appsrc name=src format=time caps=\"" + caps(w, h, cuda) +
                        "\" ! cudabgsub " + props + " ! fakesink name=sink sync=false";
  GError* e = nullptr;
  GstElement* p = gst_parse_launch(d.c_str(), &e);
  if (!p) {
    r.error = e ? e->message : "parse";
    g_clear_error(&e);
    return r;
  }
  if (ctx) {
    GstContext* c = gst_context_new_cuda_context(ctx);
    gst_element_set_context(p, c);
    gst_context_unref(c);
  }
  GstElement* src = gst_bin_get_by_name(GST_BIN(p), "src");
  GstElement* sink = gst_bin_get_by_name(GST_BIN(p), "sink");
  GstPad* pad = gst_element_get_static_pad(sink, "sink");
  Probe probe;
  probe.skip = skip;
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, &probe, nullptr);
  g_object_set(src, "max-buffers", static_cast<guint64>(32), "block", TRUE, nullptr);
  gst_element_set_state(p, GST_STATE_PLAYING);
  for (int k = 0; k < n; ++k) {
    GstBuffer* b = gst_buffer_copy(frame_at(frames, cut, k)); // shares the memory
    GST_BUFFER_PTS(b) = k * GST_SECOND / 30;
    GST_BUFFER_DURATION(b) = GST_SECOND / 30;
    if (gst_app_src_push_buffer(GST_APP_SRC(src), b) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  GstBus* bus = gst_element_get_bus(p);
  GstMessage* m = gst_bus_timed_pop_filtered(
      bus, 300 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (!m) {
    r.error = "timeout";
  } else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
    GError* err = nullptr;
    gst_message_parse_error(m, &err, nullptr);
    r.error = err ? err->message : "error";
    g_clear_error(&err);
  } else if (probe.seen != n) {
    r.error = "fakesink saw " + std::to_string(probe.seen) + " of " + std::to_string(n);
  } else {
    r.fps = r.frames / std::chrono::duration<double>(probe.last - probe.first).count();
  }
  if (m)
    gst_message_unref(m);
  gst_object_unref(bus);
  gst_element_set_state(p, GST_STATE_NULL);
  gst_object_unref(pad);
  gst_object_unref(sink);
  gst_object_unref(src);
  gst_object_unref(p);
  return r;
}

// How run_library waits for each frame: on the legacy stream (cudaStreamSynchronize, a busy wait),
// or on a stream of its own as the element does (cvis::stream_create) with the default wait or
// with the fixed 300-us poll before a sleep (WaitOptions::poll_max_us 0).
enum class LibraryWait { kLegacy, kOwn, kOwnFixedPoll };

// The library on the same CUDA-memory frames (mask to device memory), same timing window.
Row run_library(const std::vector<GstBuffer*>& frames, bool cut, int n, int w, int h,
                GstCudaContext* ctx, int skip, LibraryWait wait) {
  Row r;
  r.frames = n - skip - 1;
  if (!gst_cuda_context_push(ctx)) {
    r.error = "context push";
    return r;
  }
  cvis::WaitOptions fixed;
  fixed.poll_max_us = 0;
  cvis::Status st = cvis::set_wait_options(wait == LibraryWait::kOwnFixedPoll
                                               ? fixed : cvis::WaitOptions());
  cvis::StreamHandle stream = nullptr;
  if (st.ok() && wait != LibraryWait::kLegacy)
    st = cvis::stream_create(&stream);
  std::unique_ptr<cvis::bgsub::Subtractor> sub;
  if (st.ok())
    sub = cvis::bgsub::make_subtractor(cvis::Backend::kCuda, &st);
  void* mask = nullptr;
  size_t pitch = 0;
  if (st.ok())
    st = sub->configure(cvis::bgsub::Params());
  if (st.ok() && cudaMallocPitch(&mask, &pitch, w, h) != cudaSuccess)
    st = cvis::Status(cvis::StatusCode::kOutOfMemory, "mask");
  cvis::ImageView mv;
  mv.format = cvis::PixelFormat::kGRAY8;
  mv.space = cvis::MemorySpace::kDevice;
  mv.width = w;
  mv.height = h;
  mv.data[0] = static_cast<uint8_t*>(mask);
  mv.pitch[0] = pitch;
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, w, h);
  Clock::time_point first, last;
  for (int k = 0; k < n && st.ok(); ++k) {
    GstVideoFrame f;
    if (!gst_video_frame_map(&f, &info, frame_at(frames, cut, k),
                             static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA))) {
      st = cvis::Status(cvis::StatusCode::kInvalidArgument, "map");
      break;
    }
    cvis::ImageView v;
    v.format = cvis::PixelFormat::kNV12;
    v.space = cvis::MemorySpace::kDevice;
    v.width = w;
    v.height = h;
    for (int pl = 0; pl < 2; ++pl) {
      v.data[pl] = static_cast<uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&f, pl));
      v.pitch[pl] = GST_VIDEO_FRAME_PLANE_STRIDE(&f, pl);
    }
    cvis::bgsub::FrameResult res;
    st = sub->process(v, mv, &res, stream);
    gst_video_frame_unmap(&f);
    const Clock::time_point now = Clock::now();
    if (k == skip)
      first = now;
    last = now;
  }
  if (st.ok())
    r.fps = r.frames / std::chrono::duration<double>(last - first).count();
  else
    r.error = st.to_string();
  sub.reset();
  if (mask)
    cudaFree(mask);
  cvis::stream_destroy(stream);
  (void)cvis::set_wait_options(cvis::WaitOptions());
  gst_cuda_context_pop(nullptr);
  return r;
}

} // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  int frames = 400;
  std::string out_path, extra;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--frames" && i + 1 < argc)
      frames = std::max(kCut + 80, std::atoi(argv[++i]));
    else if (a == "--quick")
      frames = kCut + 80;
    else if (a == "--out" && i + 1 < argc)
      out_path = argv[++i];
    else if (a == "--props" && i + 1 < argc)
      extra = std::string(" ") + argv[++i];
    else
      std::fprintf(stderr, "ignoring argument %s\n", a.c_str());
  }
  int ndev = 0;
  if (!gst_cuda_load_library() || CuInit(0) != CUDA_SUCCESS ||
      CuDeviceGetCount(&ndev) != CUDA_SUCCESS || ndev == 0) {
    std::fprintf(stderr, "no usable CUDA device\n");
    return 1;
  }
  gst_cuda_memory_init_once();
  GstCudaContext* ctx = gst_cuda_context_new(0);
  if (!ctx)
    return 1;
  const int L = cvis::bgsub::Params().num_samples;
  std::vector<Row> rows;
  bool ok = true;
  auto add = [&](Row r, const std::string& size, const char* memory, const char* output,
                 const char* scene) {
    r.size = size;
    r.memory = memory;
    r.output = output;
    r.scene = scene;
    ok = ok && r.error.empty();
    std::fprintf(stderr, "  %s %s %s %s: %.1f fps %s\n", size.c_str(), memory, output, scene, r.fps,
                 r.error.c_str());
    rows.push_back(r);
  };
  struct Size {
    int w, h;
  } sizes[] = {{1280, 720}, {1920, 1080}};
  for (const Size& s : sizes) {
    std::string err;
    std::vector<GstBuffer*> dev = make_frames(s.w, s.h, ctx, &err);
    std::vector<GstBuffer*> sys = make_frames(s.w, s.h, nullptr, &err);
    const std::string size = std::to_string(s.w) + "x" + std::to_string(s.h);
    for (bool cut : {false, true}) {
      const char* scene = cut ? "cut" : "steady";
      const int skip = cut ? kCut + 10 : L + 10;
      const std::pair<LibraryWait, const char*> libs[] = {
          {LibraryWait::kLegacy, "library"},
          {LibraryWait::kOwn, "lib-own"},
          {LibraryWait::kOwnFixedPoll, "lib-300"}};
      for (const auto& lib : libs)
        add(err.empty() ? run_library(dev, cut, frames, s.w, s.h, ctx, skip, lib.first) : Row{},
            size, "cuda", lib.second, scene);
      for (const char* output : {"mask", "frame"}) {
        const std::string props = std::string("output=") + output + " backend=cuda" + extra;
        add(run(props, dev, cut, frames, s.w, s.h, true, ctx, skip), size, "cuda", output, scene);
        add(run(props, sys, cut, frames, s.w, s.h, false, nullptr, skip), size, "system", output,
            scene);
      }
    }
    for (GstBuffer* b : dev)
      gst_buffer_unref(b);
    for (GstBuffer* b : sys)
      gst_buffer_unref(b);
  }
  { // CPU backend at a small size: a few frames after the warm-up
    std::string err;
    std::vector<GstBuffer*> sys = make_frames(320, 240, nullptr, &err);
    add(run("output=mask backend=cpu", sys, false, L + 6, 320, 240, false, nullptr, L + 1),
        "320x240", "system/cpu", "mask", "steady");
    for (GstBuffer* b : sys)
      gst_buffer_unref(b);
  }
  std::string table = "cudabgsub element, NV12, default model (" +
                      std::string(cvis::bgsub::kernel_name(cvis::bgsub::Params().kernel)) + ")" +
                      (extra.empty() ? std::string() : ", CUDA runs with" + extra) +
                      ", frames/s after the warm-up\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %-11s %-8s %-7s %7s %9s  %s\n", "size", "memory",
                "output", "scene", "frames", "fps", "error");
  table += line;
  for (const Row& r : rows) {
    std::snprintf(line, sizeof line, "%-10s %-11s %-8s %-7s %7d %9.1f  %s\n", r.size.c_str(),
                  r.memory.c_str(), r.output.c_str(), r.scene.c_str(), r.frames, r.fps,
                  r.error.c_str());
    table += line;
  }
  std::fputs(table.c_str(), stdout);
  if (!out_path.empty()) {
    if (FILE* f = std::fopen(out_path.c_str(), "w")) {
      std::fputs(table.c_str(), f);
      std::fclose(f);
    }
  }
  gst_object_unref(ctx);
  return ok ? 0 : 1;
}

// Element-level CEDD benchmark: frames pushed through `cudacedd` by appsrc, as
//   (a) CUDA memory uploaded once beforehand (the frames a decoder or cudaupload would hand over),
//   (b) system memory (the element uploads through pinned staging),
//   (c) system memory with hybrid=true, and (d) the CPU backend,
// all in one run. Reports frames/s over the whole stream (appsrc -> EOS at fakesink, sync=false).
// Usage: bench_cedd_element [--frames N] [--quick] [--out FILE]
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cvis/cvis.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "test_images.hpp"

namespace {

struct Row {
  std::string size, path;
  int frames;
  double seconds;
};

GstBuffer* sys_frame(int w, int h, guint32 seed) {
  cvis::test::HostImage img = cvis::test::make_rgba(cvis::test::Pattern::kSmoothNoise, w, h, seed);
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, w, h);
  GstBuffer* b = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  GstMapInfo mi;
  gst_buffer_map(b, &mi, GST_MAP_WRITE);
  for (int y = 0; y < h; ++y) memcpy(mi.data + y * info.stride[0], img.plane(0) + y * img.pitch(0), w * 4);
  gst_buffer_unmap(b, &mi);
  gst_buffer_add_video_meta(b, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_RGBA, w, h);
  return b;
}

std::string caps(int w, int h, bool cuda) {
  return std::string("video/x-raw") + (cuda ? "(memory:CUDAMemory)" : "") +
         ",format=RGBA,width=" + std::to_string(w) + ",height=" + std::to_string(h) + ",framerate=30/1";
}

// Uploads `frames` through cudaupload and returns the CUDA-memory buffers and their context.
std::vector<GstBuffer*> upload(const std::vector<GstBuffer*>& frames, int w, int h, GstCudaContext** ctx) {
  std::string d = "appsrc name=src format=time caps=\"" + caps(w, h, false) +
                  "\" ! cudaupload ! " + caps(w, h, true) + " ! appsink name=sink sync=false";
  GstElement* p = gst_parse_launch(d.c_str(), nullptr);
  std::vector<GstBuffer*> out;
  if (!p) return out;
  GstElement* src = gst_bin_get_by_name(GST_BIN(p), "src");
  GstElement* sink = gst_bin_get_by_name(GST_BIN(p), "sink");
  gst_element_set_state(p, GST_STATE_PLAYING);
  for (GstBuffer* f : frames) gst_app_src_push_buffer(GST_APP_SRC(src), gst_buffer_ref(f));
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  while (GstSample* s = gst_app_sink_pull_sample(GST_APP_SINK(sink))) {
    GstBuffer* b = gst_sample_get_buffer(s);
    GstMemory* m = gst_buffer_peek_memory(b, 0);
    if (gst_is_cuda_memory(m)) {
      if (!*ctx) *ctx = (GstCudaContext*)gst_object_ref(GST_CUDA_MEMORY_CAST(m)->context);
      out.push_back(gst_buffer_ref(b));
    }
    gst_sample_unref(s);
  }
  gst_element_set_state(p, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(sink);
  gst_object_unref(p);
  return out;
}

// Pushes `n` buffers (rotating over `frames`) through `element_desc` and returns seconds to EOS.
double run(const std::vector<GstBuffer*>& frames, const std::string& in_caps,
           const std::string& element_desc, int n, GstCudaContext* ctx, std::string* error) {
  std::string d = "appsrc name=src format=time block=true max-buffers=8 caps=\"" + in_caps +
                  "\" ! " + element_desc + " ! fakesink sync=false name=sink";
  GError* err = nullptr;
  GstElement* p = gst_parse_launch(d.c_str(), &err);
  if (!p) {
    *error = err ? err->message : "parse";
    g_clear_error(&err);
    return -1;
  }
  if (ctx) gst_element_set_context(p, gst_context_new_cuda_context(ctx));
  GstElement* src = gst_bin_get_by_name(GST_BIN(p), "src");
  GstBus* bus = gst_element_get_bus(p);
  gst_element_set_state(p, GST_STATE_PLAYING);
  // Warm-up frames are part of a separate short run so start-up costs stay out of the numbers.
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    GstBuffer* b = gst_buffer_ref(frames[i % frames.size()]);
    b = gst_buffer_make_writable(b);  // shallow copy: memory shared, timestamps our own
    GST_BUFFER_PTS(b) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION(b) = GST_SECOND / 30;
    if (gst_app_src_push_buffer(GST_APP_SRC(src), b) != GST_FLOW_OK) break;
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  GstMessage* m = gst_bus_timed_pop_filtered(bus, 600 * GST_SECOND,
                                             (GstMessageType)(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!m || GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
    GError* e = nullptr;
    if (m) gst_message_parse_error(m, &e, nullptr);
    *error = e ? e->message : "timeout";
    g_clear_error(&e);
    secs = -1;
  }
  if (m) gst_message_unref(m);
  gst_element_set_state(p, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(src);
  gst_object_unref(p);
  return secs;
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  int frames = 3000;
  bool quick = false;
  const char* out_path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick")) quick = true;
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out_path = argv[++i];
  }
  if (quick) frames = 300;
  std::vector<Row> rows;
  int failures = 0;
  const std::pair<int, int> sizes[] = {{640, 480}, {1920, 1080}};
  for (auto [w, h] : sizes) {
    const std::string sz = std::to_string(w) + "x" + std::to_string(h);
    std::vector<GstBuffer*> sys;
    for (int i = 0; i < 8; ++i) sys.push_back(sys_frame(w, h, 31 + i));
    GstCudaContext* ctx = nullptr;
    std::vector<GstBuffer*> dev = upload(sys, w, h, &ctx);
    struct Case {
      std::string name;
      const std::vector<GstBuffer*>* frames;
      std::string caps, element;
      GstCudaContext* ctx;
      int n;
    };
    const int cpu_n = std::max(30, frames / (w > 1000 ? 40 : 15));
    std::vector<Case> cases = {
        {"cuda, CUDA memory (pre-uploaded)", &dev, caps(w, h, true), "cudacedd backend=cuda", ctx, frames},
        {"cuda, system memory", &sys, caps(w, h, false), "cudacedd backend=cuda", nullptr, frames},
        {"cuda hybrid, system memory", &sys, caps(w, h, false), "cudacedd backend=cuda hybrid=true", nullptr, frames},
        {"cpu reference, system memory", &sys, caps(w, h, false), "cudacedd backend=cpu", nullptr, cpu_n},
    };
    for (const Case& c : cases) {
      if (c.frames->empty()) {
        fprintf(stderr, "%s %s: no frames (cudaupload missing?)\n", sz.c_str(), c.name.c_str());
        ++failures;
        continue;
      }
      std::string err;
      run(*c.frames, c.caps, c.element, std::min(c.n, 60), c.ctx, &err);  // warm-up
      double s = run(*c.frames, c.caps, c.element, c.n, c.ctx, &err);
      if (s < 0) {
        fprintf(stderr, "%s %s: %s\n", sz.c_str(), c.name.c_str(), err.c_str());
        ++failures;
        continue;
      }
      rows.push_back({sz, c.name, c.n, s});
    }
    for (GstBuffer* b : sys) gst_buffer_unref(b);
    for (GstBuffer* b : dev) gst_buffer_unref(b);
    if (ctx) gst_object_unref(ctx);
  }
  std::string table = "| size | path | frames | frames/s | us/frame | vs CPU |\n|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    double fps = r.frames / r.seconds, cpu_fps = 0;
    for (const Row& c : rows)
      if (c.size == r.size && c.path.rfind("cpu", 0) == 0) cpu_fps = c.frames / c.seconds;
    char line[256];
    snprintf(line, sizeof line, "| %s | %s | %d | %.0f | %.1f | %s |\n", r.size.c_str(), r.path.c_str(),
             r.frames, fps, 1e6 / fps, cpu_fps > 0 ? (std::to_string((int)(fps / cpu_fps + 0.5)) + "x").c_str() : "-");
    table += line;
  }
  printf("%s", table.c_str());
  if (out_path) {
    FILE* f = fopen(out_path, "w");
    if (f) {
      fputs(table.c_str(), f);
      fclose(f);
    }
  }
  return failures ? 1 : 0;
}

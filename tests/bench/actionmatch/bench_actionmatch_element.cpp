// Element-level benchmark of cudaactionmatch with a 50-model dictionary: a rendered action clip
// (tests/actiongen, NV12) pushed by appsrc through the element to fakesink, as
//   (a) CUDA memory uploaded once beforehand (what nvh264dec or cudaupload hands over),
//   (b) system memory with backend=cuda, and (c) the CPU reference,
// at 640x480 and 1920x1080, in one run. Reports frames/s over the whole stream (appsrc -> EOS,
// sync=false; blocks of 60 frames every 30 are matched as they complete). The dictionary: two
// model windows from each of 25 rendered 160x120 clips (the CPU front end), 50 models.
// Usage: bench_actionmatch_element [--frames N] [--quick] [--out FILE] [--keep-dict PATH]
// (--keep-dict: the dictionary is written to PATH and kept, for timing decode pipelines with it).
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "actiongen.hpp"
#include "actionlearn_models.hpp"

namespace {

namespace am = cvis::actionmatch;
namespace al = cvis::actionlearn;
namespace stip = cvis::stip;

std::vector<std::vector<uint8_t>> gray_clip(int subject, int action, int w, int h, int frames) {
  actiongen::ClipSpec c;
  c.action = action;
  c.width = w;
  c.height = h;
  c.frames = frames;
  c.seed = 7000 + subject * 10 + action;
  std::vector<std::vector<uint8_t>> out;
  for (const auto& rgb : actiongen::render_clip(actiongen::make_subject(subject, 3), c, {})) {
    std::vector<uint8_t> g(static_cast<size_t>(w) * h);
    for (size_t i = 0; i < g.size(); ++i)
      g[i] = static_cast<uint8_t>((77 * rgb[3 * i] + 150 * rgb[3 * i + 1] + 29 * rgb[3 * i + 2]) >> 8);
    out.push_back(std::move(g));
  }
  return out;
}

// The CPU front end building the dictionary must not fail: a benchmark of nothing is no result.
void must(const cvis::Status& st) {
  if (!st.ok()) {
    std::fprintf(stderr, "bench_actionmatch_element: front end: %s\n", st.message().c_str());
    std::exit(1);
  }
}

std::string make_dictionary(const char* keep) {
  al::Dictionary d;
  d.params.dummy_cost = 0.6;  // as cvis-action train
  al::LearnParams lp;
  cvis::Status st;
  auto fe = stip::make_frontend(cvis::Backend::kCpu, &st);
  for (int k = 0; k < 25 && d.models.size() < 50; ++k) {
    const int action = k % 6;
    const auto frames = gray_clip(1 + k / 6, action, 160, 120, 60);
    must(fe->configure(160, 120, stip::FrontEndParams()));
    std::vector<stip::FramePoints> ready;
    for (const auto& g : frames) {
      cvis::ImageView v;
      v.format = cvis::PixelFormat::kGRAY8;
      v.width = 160;
      v.height = 120;
      v.data[0] = const_cast<uint8_t*>(g.data());
      v.pitch[0] = 160;
      must(fe->push(v, nullptr, &ready));
    }
    must(fe->finish(nullptr, &ready));
    al::ClipPoints cp;
    al::append_points(ready, &cp);
    for (am::Model& m : al::cut_models(cp, lp, 2)) {
      m.label = actiongen::kActions[action];
      if (d.models.size() < 50)
        d.models.push_back(std::move(m));
    }
  }
  const std::string path =
      keep ? keep : "/tmp/bench-actions-" + std::to_string(getpid()) + ".cvad";
  st = al::save_dictionary(path, d);
  fprintf(stderr, "dictionary: %zu models (%s)\n", d.models.size(), st.to_string().c_str());
  return path;
}

std::string caps(int w, int h, bool cuda) {
  return std::string("video/x-raw") + (cuda ? "(memory:CUDAMemory)" : "") +
         ",format=NV12,width=" + std::to_string(w) + ",height=" + std::to_string(h) +
         ",framerate=25/1";
}

GstBuffer* nv12(const std::vector<uint8_t>& g, int w, int h) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, w, h);
  GstBuffer* b = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  GstVideoFrame vf;
  gst_video_frame_map(&vf, &info, b, GST_MAP_WRITE);
  for (int y = 0; y < h; ++y)
    memcpy(static_cast<uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&vf, 0)) +
               y * GST_VIDEO_FRAME_PLANE_STRIDE(&vf, 0),
           g.data() + static_cast<size_t>(y) * w, w);
  for (int y = 0; y < h / 2; ++y)
    memset(static_cast<uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&vf, 1)) +
               y * GST_VIDEO_FRAME_PLANE_STRIDE(&vf, 1),
           128, w);
  gst_video_frame_unmap(&vf);
  return b;
}

std::vector<GstBuffer*> upload(const std::vector<GstBuffer*>& frames, int w, int h,
                               GstCudaContext** ctx) {
  std::string d = "appsrc name=src format=time caps=\"" + caps(w, h, false) +
                  "\" ! cudaupload ! " + caps(w, h, true) + " ! appsink name=sink sync=false";
  GstElement* p = gst_parse_launch(d.c_str(), nullptr);
  std::vector<GstBuffer*> out;
  if (!p)
    return out;
  GstElement* src = gst_bin_get_by_name(GST_BIN(p), "src");
  GstElement* sink = gst_bin_get_by_name(GST_BIN(p), "sink");
  gst_element_set_state(p, GST_STATE_PLAYING);
  for (GstBuffer* f : frames)
    gst_app_src_push_buffer(GST_APP_SRC(src), gst_buffer_ref(f));
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  while (GstSample* s = gst_app_sink_pull_sample(GST_APP_SINK(sink))) {
    GstBuffer* b = gst_sample_get_buffer(s);
    GstMemory* m = gst_buffer_peek_memory(b, 0);
    if (gst_is_cuda_memory(m)) {
      if (!*ctx)
        *ctx = static_cast<GstCudaContext*>(gst_object_ref(GST_CUDA_MEMORY_CAST(m)->context));
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

// Seconds to push n frames (the clip in order, repeated) through `element` to EOS; -1 on error.
double run(const std::vector<GstBuffer*>& frames, const std::string& in_caps,
           const std::string& element, int n, GstCudaContext* ctx, int* blocks,
           std::string* error) {
  std::string d = "appsrc name=src format=time block=true max-buffers=8 caps=\"" + in_caps +
                  "\" ! " + element + " ! fakesink sync=false";
  GError* err = nullptr;
  GstElement* p = gst_parse_launch(d.c_str(), &err);
  if (!p) {
    *error = err ? err->message : "parse";
    g_clear_error(&err);
    return -1;
  }
  if (ctx)
    gst_element_set_context(p, gst_context_new_cuda_context(ctx));
  GstElement* src = gst_bin_get_by_name(GST_BIN(p), "src");
  GstBus* bus = gst_element_get_bus(p);
  gst_element_set_state(p, GST_STATE_PLAYING);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    GstBuffer* b = gst_buffer_make_writable(gst_buffer_ref(frames[i % frames.size()]));
    GST_BUFFER_PTS(b) = i * GST_SECOND / 25;
    GST_BUFFER_DURATION(b) = GST_SECOND / 25;
    if (gst_app_src_push_buffer(GST_APP_SRC(src), b) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  *blocks = 0;
  double secs = -1;
  while (GstMessage* m = gst_bus_timed_pop(bus, 1200 * GST_SECOND)) {
    const GstMessageType t = GST_MESSAGE_TYPE(m);
    if (t == GST_MESSAGE_ELEMENT &&
        gst_structure_has_name(gst_message_get_structure(m), "cvis-action"))
      ++*blocks;
    if (t == GST_MESSAGE_EOS)
      secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (t == GST_MESSAGE_ERROR) {
      GError* e = nullptr;
      gst_message_parse_error(m, &e, nullptr);
      *error = e ? e->message : "error";
      g_clear_error(&e);
    }
    gst_message_unref(m);
    if (t == GST_MESSAGE_EOS || t == GST_MESSAGE_ERROR)
      break;
  }
  gst_element_set_state(p, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(src);
  gst_object_unref(p);
  return secs;
}

struct Row {
  std::string size, path;
  int frames, blocks;
  double seconds;
};

} // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  int frames = 600;
  const char* out_path = nullptr;
  const char* keep_dict = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--frames") && i + 1 < argc)
      frames = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick"))
      frames = 150;
    else if (!strcmp(argv[i], "--out") && i + 1 < argc)
      out_path = argv[++i];
    else if (!strcmp(argv[i], "--keep-dict") && i + 1 < argc)
      keep_dict = argv[++i];
  }
  const std::string dict = make_dictionary(keep_dict);
  const std::string el = "cudaactionmatch model-location=" + dict;
  std::vector<Row> rows;
  int failures = 0;
  const std::pair<int, int> sizes[] = {{640, 480}, {1920, 1080}};
  for (auto [w, h] : sizes) {
    const std::string sz = std::to_string(w) + "x" + std::to_string(h);
    std::vector<GstBuffer*> sys;
    for (const auto& g : gray_clip(9, 5, w, h, 120))  // walking, 120 distinct frames
      sys.push_back(nv12(g, w, h));
    GstCudaContext* ctx = nullptr;
    std::vector<GstBuffer*> dev = upload(sys, w, h, &ctx);
    struct Case {
      std::string name;
      const std::vector<GstBuffer*>* frames;
      bool cuda_caps;
      std::string backend;
      int n;
    };
    // The CPU reference at 1080p takes about 0.7 s per frame: one block's worth there.
    const int cpu_n = w > 1000 ? 64 : std::max(90, frames / 4);
    const Case cases[] = {{"cuda, CUDA memory (pre-uploaded)", &dev, true, "cuda", frames},
                          {"cuda, system memory", &sys, false, "cuda", frames},
                          {"cpu reference, system memory", &sys, false, "cpu", cpu_n}};
    for (const Case& c : cases) {
      if (c.frames->empty()) {
        fprintf(stderr, "%s %s: no frames (cudaupload missing?)\n", sz.c_str(), c.name.c_str());
        ++failures;
        continue;
      }
      std::string err;
      int blocks = 0;
      const std::string e = el + " backend=" + c.backend;
      const int warm = c.backend == "cpu" ? 8 : 60;
      run(*c.frames, caps(w, h, c.cuda_caps), e, warm, c.cuda_caps ? ctx : nullptr, &blocks, &err);
      const double s = run(*c.frames, caps(w, h, c.cuda_caps), e, c.n,
                           c.cuda_caps ? ctx : nullptr, &blocks, &err);
      if (s < 0) {
        fprintf(stderr, "%s %s: %s\n", sz.c_str(), c.name.c_str(), err.c_str());
        ++failures;
        continue;
      }
      rows.push_back({sz, c.name, c.n, blocks, s});
      fprintf(stderr, "%s %s: %d frames in %.2f s, %d blocks reported\n", sz.c_str(),
              c.name.c_str(), c.n, s, blocks);
    }
    for (GstBuffer* b : sys)
      gst_buffer_unref(b);
    for (GstBuffer* b : dev)
      gst_buffer_unref(b);
    if (ctx)
      gst_object_unref(ctx);
  }
  if (!keep_dict)
    std::remove(dict.c_str());
  std::string table = "| size | path | frames | blocks reported | frames/s | vs CPU |\n"
                      "|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    const double fps = r.frames / r.seconds;
    double cpu_fps = 0;
    for (const Row& c : rows)
      if (c.size == r.size && c.path.rfind("cpu", 0) == 0)
        cpu_fps = c.frames / c.seconds;
    char line[256];
    snprintf(line, sizeof line, "| %s | %s | %d | %d | %.1f | %s |\n", r.size.c_str(),
             r.path.c_str(), r.frames, r.blocks, fps,
             cpu_fps > 0 ? (std::to_string(fps / cpu_fps).substr(0, 5) + "x").c_str() : "-");
    table += line;
  }
  printf("%s", table.c_str());
  if (out_path) {
    if (FILE* f = fopen(out_path, "w")) {
      fputs(table.c_str(), f);
      fclose(f);
    }
  }
  return failures ? 1 : 0;
}

// Element-level benchmark of cudamedian3d: appsrc -> cudamedian3d -> fakesink (sync=false), frames
// per second over the whole stream, for
//   (a) CUDA memory prepared beforehand on the pipeline's context (what a decoder hands over),
//   (b) system memory (the element uploads through pinned staging; mask/background downloaded),
//   (c) the CPU backend (a few frames),
// with output=background, mask and frame, in mode=paper (default window 3x3x15, centered, 16 bins)
// and mode=motion (the element's default: the motion detector's defaults).
// Usage: bench_median3d_element [--frames N] [--quick] [--mode paper|motion] [--out FILE]
// (exit 1 on any error)
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
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

namespace {

struct Row {
  std::string mode, size, memory, output;
  int frames = 0;
  double fps = 0;
  std::string error;
};

std::string caps(int w, int h, bool cuda) {
  return std::string("video/x-raw") + (cuda ? "(memory:CUDAMemory)" : "") +
         ",format=NV12,width=" + std::to_string(w) + ",height=" + std::to_string(h) +
         ",framerate=30/1";
}

// Fills an NV12 frame (any layout) with a static pattern and a moving block.
void fill(GstBuffer* b, int w, int h, int t) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, w, h);
  GstVideoFrame f;
  if (!gst_video_frame_map(&f, &info, b, GST_MAP_WRITE))
    return;
  for (int y = 0; y < h; ++y) {
    guint8* row = static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)) +
                  y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0);
    for (int x = 0; x < w; ++x) {
      const bool obj = x >= (t * 13) % w && x < (t * 13) % w + w / 10 && y > h / 3 && y < h / 2;
      row[x] =
          obj ? 235 : static_cast<guint8>(((x / 9) * 31 + (y / 7) * 17 + ((x * y) & 3)) & 0xFF);
    }
  }
  for (int y = 0; y < (h + 1) / 2; ++y) {
    memset(static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&f, 1)) +
               y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 1),
           128, ((w + 1) / 2) * 2);
  }
  gst_video_frame_unmap(&f);
}

std::vector<GstBuffer*> make_frames(int n, int w, int h, GstCudaContext* ctx, std::string* err) {
  std::vector<GstBuffer*> out;
  GstBufferPool* pool = nullptr;
  if (ctx) {
    pool = gst_cuda_buffer_pool_new(ctx);
    GstCaps* c = gst_caps_from_string(caps(w, h, true).c_str());
    GstVideoInfo info;
    gst_video_info_from_caps(&info, c);
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, c, GST_VIDEO_INFO_SIZE(&info), n, n);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_caps_unref(c);
    if (!gst_buffer_pool_set_config(pool, config) || !gst_buffer_pool_set_active(pool, TRUE)) {
      *err = "CUDA pool";
      gst_object_unref(pool);
      return out;
    }
  }
  for (int t = 0; t < n; ++t) {
    GstBuffer* b = nullptr;
    if (pool) {
      gst_buffer_pool_acquire_buffer(pool, &b, nullptr);
    } else {
      GstVideoInfo info;
      gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, w, h);
      b = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    }
    if (!b) {
      *err = "frame allocation";
      break;
    }
    fill(b, w, h, t);
    if (pool) {
      // Upload now (a CUDA map of a CPU-written CUDA memory uploads it), not inside the timing.
      GstMapInfo mi;
      if (gst_buffer_map(b, &mi, static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA))) {
        gst_buffer_unmap(b, &mi);
      }
    }
    out.push_back(b);
  }
  if (pool)
    gst_object_unref(pool); // the buffers keep it alive
  return out;
}

Row run(const std::string& props, const std::vector<GstBuffer*>& frames, int n, int w, int h,
        bool cuda, GstCudaContext* ctx) {
  Row r;
  r.frames = n;
  const std::string d = "appsrc name=src format=time is-live=false caps=\"" + caps(w, h, cuda) +
                        "\" ! cudamedian3d " + props + " ! fakesink sync=false";
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
  g_object_set(src, "max-buffers", static_cast<guint64>(64), "block", TRUE, nullptr);
  gst_element_set_state(p, GST_STATE_PLAYING);
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < n; ++k) {
    GstBuffer* b = gst_buffer_copy(frames[k % frames.size()]); // shares the memory
    GST_BUFFER_PTS(b) = k * GST_SECOND / 30;
    GST_BUFFER_DURATION(b) = GST_SECOND / 30;
    if (gst_app_src_push_buffer(GST_APP_SRC(src), b) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  GstBus* bus = gst_element_get_bus(p);
  GstMessage* m = gst_bus_timed_pop_filtered(
      bus, 600 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!m) {
    r.error = "timeout";
  } else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
    GError* err = nullptr;
    gst_message_parse_error(m, &err, nullptr);
    r.error = err ? err->message : "error";
    g_clear_error(&err);
  } else {
    r.fps = n / dt;
  }
  if (m)
    gst_message_unref(m);
  gst_object_unref(bus);
  gst_element_set_state(p, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(p);
  return r;
}

} // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  int frames = 1200;
  std::string out_path;
  std::vector<std::string> modes{"paper", "motion"};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--frames" && i + 1 < argc)
      frames = std::max(30, std::atoi(argv[++i]));
    else if (a == "--quick")
      frames = 120;
    else if (a == "--out" && i + 1 < argc)
      out_path = argv[++i];
    else if (a == "--mode" && i + 1 < argc)
      modes = {argv[++i]};
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
  struct Size {
    int w, h;
  } sizes[] = {{1024, 1024}, {1920, 1080}};
  std::vector<Row> rows;
  bool ok = true;
  for (const Size& s : sizes) {
    std::string err;
    std::vector<GstBuffer*> cuda_frames = make_frames(16, s.w, s.h, ctx, &err);
    std::vector<GstBuffer*> sys_frames = make_frames(16, s.w, s.h, nullptr, &err);
    const std::string size = std::to_string(s.w) + "x" + std::to_string(s.h);
    for (const std::string& mode : modes)
      for (const char* output : {"background", "mask", "frame"}) {
        const std::string props = "mode=" + mode + " output=" + output;
        struct {
          const char* memory;
          const std::vector<GstBuffer*>* f;
          bool cuda;
          std::string props;
          int n;
        } runs[] = {{"cuda", &cuda_frames, true, props + " backend=cuda", frames},
                    {"system", &sys_frames, false, props + " backend=cuda", frames},
                    {"system/cpu", &sys_frames, false, props + " backend=cpu", 20}};
        for (const auto& rr : runs) {
          Row r = err.empty() ? run(rr.props, *rr.f, rr.n, s.w, s.h, rr.cuda, ctx) : Row();
          if (!err.empty())
            r.error = err;
          r.mode = mode;
          r.size = size;
          r.memory = rr.memory;
          r.output = output;
          if (!r.error.empty())
            ok = false;
          std::fprintf(stderr, "  %s %s %s %s: %.0f fps %s\n", mode.c_str(), size.c_str(),
                       rr.memory, output, r.fps, r.error.c_str());
          rows.push_back(r);
        }
      }
    for (GstBuffer* b : cuda_frames)
      gst_buffer_unref(b);
    for (GstBuffer* b : sys_frames)
      gst_buffer_unref(b);
  }
  std::string table = "cudamedian3d element, NV12; mode=paper: 3x3x15 centered, 16 bins, "
                      "sliding-histogram; mode=motion: defaults\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-7s %-10s %-11s %-11s %7s %9s  %s\n", "mode", "size", "memory",
                "output", "frames", "fps", "error");
  table += line;
  for (const Row& r : rows) {
    std::snprintf(line, sizeof line, "%-7s %-10s %-11s %-11s %7d %9.1f  %s\n", r.mode.c_str(),
                  r.size.c_str(), r.memory.c_str(), r.output.c_str(), r.frames, r.fps,
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

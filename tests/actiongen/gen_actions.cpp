// gen_actions: renders a KTH-like action dataset of procedurally animated articulated figures.
//
//   gen_actions OUTDIR [--subjects N] [--scenarios K] [--frames F] [--size WxH] [--fps R]
//                      [--seed S] [--backgrounds DIR] [--quality Q] [--jobs J]
//
// Writes OUTDIR/<action>/personNN_<action>_dK_uncomp.avi (Motion-JPEG in AVI, decoded by any
// GStreamer install) for the six actions, subjects 1..N (default 25) and scenarios 1..K
// (default 4: d1 outdoors, d2 outdoors with zoom, d3 outdoors in other clothes, d4 indoors).
// --backgrounds: a folder of images or videos (anything decodebin reads, e.g. the sample data of
// Debian's opencv-doc, unpacked by tests/actiongen/fetch_backgrounds.sh); half of the clips then
// use one of them (videos move) instead of a procedural background. Same arguments, same files.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "actiongen.hpp"

namespace fs = std::filesystem;
using namespace actiongen;

namespace {

// Decodes up to `max_frames` frames of an image or video file at the clip size (RGB).
bool load_background(const std::string& path, int w, int h, int max_frames, BackgroundClip* out) {
  gchar* uri = gst_filename_to_uri(path.c_str(), nullptr);
  if (!uri)
    return false;
  gchar* desc = g_strdup_printf(
      "uridecodebin uri=\"%s\" ! videoconvert ! videoscale ! video/x-raw,format=RGB,width=%d,"
      "height=%d,pixel-aspect-ratio=1/1 ! appsink name=sink sync=false",
      uri, w, h);
  g_free(uri);
  GError* err = nullptr;
  GstElement* pipe = gst_parse_launch(desc, &err);
  g_free(desc);
  if (!pipe) {
    g_clear_error(&err);
    return false;
  }
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipe), "sink");
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  out->width = w;
  out->height = h;
  while (static_cast<int>(out->frames.size()) < max_frames) {
    GstSample* s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND);
    if (!s)
      break;
    GstBuffer* b = gst_sample_get_buffer(s);
    GstMapInfo m;
    if (gst_buffer_map(b, &m, GST_MAP_READ)) {
      std::vector<uint8_t> rgb(static_cast<size_t>(w) * h * 3);
      const size_t stride = (static_cast<size_t>(w) * 3 + 3) & ~static_cast<size_t>(3);
      if (m.size >= stride * h) {
        for (int y = 0; y < h; ++y)
          std::memcpy(rgb.data() + static_cast<size_t>(y) * w * 3, m.data + y * stride,
                      static_cast<size_t>(w) * 3);
        out->frames.push_back(std::move(rgb));
      }
      gst_buffer_unmap(b, &m);
    }
    gst_sample_unref(s);
  }
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipe);
  return !out->frames.empty();
}

bool write_clip(const std::string& path, const std::vector<std::vector<uint8_t>>& frames, int w,
                int h, int fps, int quality) {
  gchar* desc = g_strdup_printf(
      "appsrc name=src format=time ! videoconvert ! video/x-raw,format=I420 ! jpegenc quality=%d "
      "! avimux ! filesink name=sink",
      quality);
  GError* err = nullptr;
  GstElement* pipe = gst_parse_launch(desc, &err);
  g_free(desc);
  if (!pipe) {
    std::fprintf(stderr, "gen_actions: %s\n", err ? err->message : "pipeline failed");
    g_clear_error(&err);
    return false;
  }
  GstElement* src = gst_bin_get_by_name(GST_BIN(pipe), "src");
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipe), "sink");
  g_object_set(sink, "location", path.c_str(), nullptr);
  GstCaps* caps = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, "RGB", "width",
                                      G_TYPE_INT, w, "height", G_TYPE_INT, h, "framerate",
                                      GST_TYPE_FRACTION, fps, 1, nullptr);
  gst_app_src_set_caps(GST_APP_SRC(src), caps);
  gst_caps_unref(caps);
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  const size_t stride = (static_cast<size_t>(w) * 3 + 3) & ~static_cast<size_t>(3);
  for (size_t i = 0; i < frames.size(); ++i) {
    GstBuffer* b = gst_buffer_new_allocate(nullptr, stride * h, nullptr);
    GstMapInfo m;
    gst_buffer_map(b, &m, GST_MAP_WRITE);
    for (int y = 0; y < h; ++y)
      std::memcpy(m.data + y * stride, frames[i].data() + static_cast<size_t>(y) * w * 3,
                  static_cast<size_t>(w) * 3);
    gst_buffer_unmap(b, &m);
    GST_BUFFER_PTS(b) = gst_util_uint64_scale(i, GST_SECOND, fps);
    GST_BUFFER_DURATION(b) = gst_util_uint64_scale(1, GST_SECOND, fps);
    gst_app_src_push_buffer(GST_APP_SRC(src), b);
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  GstBus* bus = gst_element_get_bus(pipe);
  GstMessage* msg = gst_bus_timed_pop_filtered(bus, 60 * GST_SECOND,
                                               static_cast<GstMessageType>(GST_MESSAGE_EOS |
                                                                           GST_MESSAGE_ERROR));
  const bool ok = msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS;
  if (!ok)
    std::fprintf(stderr, "gen_actions: writing %s failed\n", path.c_str());
  if (msg)
    gst_message_unref(msg);
  gst_object_unref(bus);
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(sink);
  gst_object_unref(pipe);
  return ok;
}

int usage(const char* why) {
  std::fprintf(stderr,
               "gen_actions: %s\nusage: gen_actions OUTDIR [--subjects N] [--scenarios K] "
               "[--frames F] [--size WxH] [--fps R] [--seed S] [--backgrounds DIR] "
               "[--quality Q] [--jobs J]\n",
               why);
  return 2;
}

} // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  if (argc < 2)
    return usage("missing OUTDIR");
  std::string outdir, bgdir;
  int subjects = 25, scenarios = 4, frames = 100, w = 160, h = 120, fps = 25, quality = 90;
  int jobs = static_cast<int>(std::thread::hardware_concurrency());
  unsigned long long seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a.rfind("--", 0) != 0) {
      outdir = a;
      continue;
    }
    if (!(v = next()))
      return usage(("option " + a + " needs a value").c_str());
    if (a == "--subjects")
      subjects = std::atoi(v);
    else if (a == "--scenarios")
      scenarios = std::atoi(v);
    else if (a == "--frames")
      frames = std::atoi(v);
    else if (a == "--size") {
      if (std::sscanf(v, "%dx%d", &w, &h) != 2)
        return usage("--size takes WxH");
    } else if (a == "--fps")
      fps = std::atoi(v);
    else if (a == "--seed")
      seed = std::strtoull(v, nullptr, 10);
    else if (a == "--backgrounds")
      bgdir = v;
    else if (a == "--quality")
      quality = std::atoi(v);
    else if (a == "--jobs")
      jobs = std::atoi(v);
    else
      return usage(("unknown option " + a).c_str());
  }
  if (outdir.empty() || subjects < 1 || subjects > 99 || scenarios < 1 || scenarios > 4 ||
      frames < 1 || w < 16 || h < 16 || w > 4096 || h > 4096 || fps < 1 || quality < 1 ||
      quality > 100)
    return usage("bad arguments (subjects 1..99, scenarios 1..4, sizes 16..4096)");
  jobs = jobs < 1 ? 1 : jobs;

  std::vector<BackgroundClip> backgrounds;
  if (!bgdir.empty()) {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(bgdir))
      if (e.is_regular_file())
        files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) {
      BackgroundClip b;
      if (load_background(f, w, h, 400, &b))
        backgrounds.push_back(std::move(b));
    }
    std::fprintf(stderr, "gen_actions: %zu backgrounds from %s\n", backgrounds.size(),
                 bgdir.c_str());
  }

  struct Job {
    int subject, action, scenario;
  };
  std::vector<Job> todo;
  for (int a = 0; a < 6; ++a) {
    fs::create_directories(fs::path(outdir) / kActions[a]);
    for (int p = 1; p <= subjects; ++p)
      for (int d = 1; d <= scenarios; ++d)
        todo.push_back({p, a, d});
  }
  std::atomic<size_t> next{0};
  std::atomic<int> failures{0};
  auto worker = [&]() {
    for (size_t i; (i = next++) < todo.size();) {
      const Job& j = todo[i];
      const Subject s = make_subject(j.subject, seed);
      ClipSpec c;
      c.action = j.action;
      c.scenario = j.scenario;
      c.width = w;
      c.height = h;
      c.frames = frames;
      c.fps = fps;
      c.seed = seed * 1000000ull + static_cast<uint64_t>(j.subject) * 100 + j.action * 10 +
               j.scenario;
      char name[128];
      std::snprintf(name, sizeof name, "person%02d_%s_d%d_uncomp.avi", j.subject,
                    kActions[j.action], j.scenario);
      const std::string path = (fs::path(outdir) / kActions[j.action] / name).string();
      if (!write_clip(path, render_clip(s, c, backgrounds), w, h, fps, quality))
        ++failures;
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < jobs; ++t)
    threads.emplace_back(worker);
  for (auto& t : threads)
    t.join();
  std::printf("gen_actions: %zu clips (%d subjects x 6 actions x %d scenarios, %d frames %dx%d) "
              "in %s, %d failed\n",
              todo.size(), subjects, scenarios, frames, w, h, outdir.c_str(), failures.load());
  return failures ? 1 : 0;
}

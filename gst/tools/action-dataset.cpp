/* Dataset scanning, decoding and the point cache of cvis-action train/eval (action-dataset.h). */
#include "action-dataset.h"

#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <thread>

namespace fs = std::filesystem;

namespace cvis::action_tool {

using actionlearn::ClipPoints;
using stip::FramePoints;
using stip::FrontEndParams;

namespace {

const std::regex& clip_name_re() {
  static const std::regex re("person([0-9]+)_([A-Za-z0-9]+)_d([0-9]+)(_.*)?\\.[A-Za-z0-9]+");
  return re;
}

// A clip of folder `label` named `file`: false when the name does not follow the layout.
bool parse_clip(const fs::path& path, const std::string& label, ClipFile* c) {
  const std::string file = path.filename().string();
  std::smatch m;
  if (!std::regex_match(file, m, clip_name_re()) || m[2].str() != label)
    return false;
  c->path = path.string();
  c->name = path.stem().string();
  c->label = label;
  c->subject = std::stoi(m[1].str());
  c->scenario = std::stoi(m[3].str());
  return true;
}

// Sorts the clips (label, subject, scenario, name) and lists the classes.
void finish_list(std::vector<ClipFile>* clips, std::vector<std::string>* classes) {
  std::sort(clips->begin(), clips->end(), [](const ClipFile& a, const ClipFile& b) {
    return std::tie(a.label, a.subject, a.scenario, a.name) <
           std::tie(b.label, b.subject, b.scenario, b.name);
  });
  classes->clear();
  for (const ClipFile& c : *clips)
    if (classes->empty() || classes->back() != c.label)
      classes->push_back(c.label);
}

} // namespace

bool scan_dataset(const std::string& dir, std::vector<ClipFile>* clips,
                  std::vector<std::string>* classes, std::string* err) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    *err = dir + ": not a directory";
    return false;
  }
  for (const auto& sub : fs::directory_iterator(dir, ec)) {
    if (!sub.is_directory())
      continue;
    const std::string label = sub.path().filename().string();
    for (const auto& f : fs::directory_iterator(sub.path(), ec)) {
      if (!f.is_regular_file())
        continue;
      ClipFile c;
      if (!parse_clip(f.path(), label, &c)) {
        std::fprintf(stderr, "cvis-action: skipping %s (not personNN_%s_dK_*.ext)\n",
                     f.path().c_str(), label.c_str());
        continue;
      }
      clips->push_back(c);
    }
  }
  if (ec) {
    *err = dir + ": " + ec.message();
    return false;
  }
  if (clips->empty()) {
    *err = dir + ": no clip named <action>/personNN_<action>_dK_*.<ext>";
    return false;
  }
  finish_list(clips, classes);
  return true;
}

bool read_clip_list(const std::string& list, std::vector<ClipFile>* clips,
                    std::vector<std::string>* classes, std::string* err) {
  std::ifstream in(list);
  if (!in) {
    *err = list + ": cannot be read";
    return false;
  }
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
      line.pop_back();
    if (line.empty())
      continue;
    const fs::path path(line);
    ClipFile c;
    if (!parse_clip(path, path.parent_path().filename().string(), &c)) {
      *err = list + ":" + std::to_string(number) + ": not <action>/personNN_<action>_dK_*.<ext>";
      return false;
    }
    clips->push_back(c);
  }
  if (clips->empty()) {
    *err = list + ": no clip";
    return false;
  }
  finish_list(clips, classes);
  return true;
}

namespace {

// The cache key: every front-end parameter, so that other settings miss.
std::string cache_key(const FrontEndParams& p) {
  char b[512];
  std::snprintf(b, sizeof b, "v2 %d %.9g %.9g %.9g %.9g %d %d %.9g %d %d %d %d %.9g",
                static_cast<int>(p.normalise_gain), p.sigma, p.tau, p.omega, p.threshold,
                p.nms_radius, p.max_points, p.cell_size, p.cell_frames, p.flow_levels,
                p.flow_iterations, p.flow_radius, p.flow_min);
  std::string key = b;
  // Appended only for non-default kinds, so that existing caches of the paper's front end hit.
  if (p.flow_histogram != stip::FlowHistogram::kPaper) {
    std::snprintf(b, sizeof b, " hof %s %.9g", stip::flow_histogram_name(p.flow_histogram),
                  p.speed_split);
    key += b;
  }
  if (p.detector != stip::Detector::kPeriodic) {
    std::snprintf(b, sizeof b, " detector %s %.9g %.9g", stip::detector_name(p.detector),
                  p.harris_k, p.harris_scale);
    key += b;
  }
  return key;
}

std::string cache_path(const std::string& dir, const ClipFile& c) {
  return (fs::path(dir) / (c.label + "__" + c.name + ".points")).string();
}

bool read_cache(const std::string& path, const std::string& key, ClipPoints* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  const int dim = out->graph.dim;
  std::string line;
  if (!std::getline(in, line) || line != key)
    return false;
  int32_t frames = 0, n = 0;
  in.read(reinterpret_cast<char*>(&frames), 4);
  in.read(reinterpret_cast<char*>(&n), 4);
  if (!in || n < 0 || frames < 0)
    return false;
  std::vector<float> d(dim);
  for (int i = 0; i < n; ++i) {
    int32_t f;
    float x, y, r;
    in.read(reinterpret_cast<char*>(&f), 4);
    in.read(reinterpret_cast<char*>(&x), 4);
    in.read(reinterpret_cast<char*>(&y), 4);
    in.read(reinterpret_cast<char*>(&r), 4);
    in.read(reinterpret_cast<char*>(d.data()), 4 * dim);
    if (!in)
      return false;
    out->graph.add(f, x, y, d.data());
    out->response.push_back(r);
  }
  out->frames = frames;
  return true;
}

void write_cache(const std::string& path, const std::string& key, const ClipPoints& c) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream o(tmp, std::ios::binary);
    o << key << "\n";
    const int32_t frames = c.frames, n = c.graph.size();
    o.write(reinterpret_cast<const char*>(&frames), 4);
    o.write(reinterpret_cast<const char*>(&n), 4);
    for (int i = 0; i < n; ++i) {
      const int32_t f = c.graph.frame[i];
      o.write(reinterpret_cast<const char*>(&f), 4);
      o.write(reinterpret_cast<const char*>(&c.graph.x[i]), 4);
      o.write(reinterpret_cast<const char*>(&c.graph.y[i]), 4);
      o.write(reinterpret_cast<const char*>(&c.response[i]), 4);
      o.write(reinterpret_cast<const char*>(c.graph.descriptor(i)), 4 * c.graph.dim);
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
}

} // namespace

bool clip_points(const ClipFile& clip, const FrontEndParams& fp, Backend backend,
                 const std::string& cache_dir, ClipPoints* out, std::string* err) {
  *out = ClipPoints();
  out->name = clip.name;
  out->label = clip.label;
  out->subject = clip.subject;
  out->scenario = clip.scenario;
  out->graph.dim = stip::descriptor_dim(fp);
  const std::string key = cache_key(fp);
  if (!cache_dir.empty() && read_cache(cache_path(cache_dir, clip), key, out))
    return true;
  out->graph = actionmatch::Graph();
  out->graph.dim = stip::descriptor_dim(fp);
  out->response.clear();

  gchar* uri = gst_filename_to_uri(clip.path.c_str(), nullptr);
  if (!uri) {
    *err = clip.path + ": bad file name";
    return false;
  }
  gchar* desc = g_strdup_printf("uridecodebin uri=\"%s\" ! videoconvert ! videoscale ! "
                                "video/x-raw,format=GRAY8 ! appsink name=sink sync=false "
                                "max-buffers=4",
                                uri);
  g_free(uri);
  GError* gerr = nullptr;
  GstElement* pipe = gst_parse_launch(desc, &gerr);
  g_free(desc);
  if (!pipe) {
    *err = clip.path + ": " + (gerr ? gerr->message : "cannot build the decoding pipeline");
    g_clear_error(&gerr);
    return false;
  }
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipe), "sink");
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  Status st;
  auto fe = stip::make_frontend(backend, &st);
  std::vector<FramePoints> ready;
  bool configured = false, ok = true;
  int frames = 0;
  for (;;) {
    GstSample* s = gst_app_sink_pull_sample(GST_APP_SINK(sink));
    if (!s)
      break;
    GstVideoInfo info;
    GstVideoFrame vf;
    if (!gst_video_info_from_caps(&info, gst_sample_get_caps(s)) ||
        !gst_video_frame_map(&vf, &info, gst_sample_get_buffer(s), GST_MAP_READ)) {
      gst_sample_unref(s);
      *err = clip.path + ": cannot map a decoded frame";
      ok = false;
      break;
    }
    ImageView v;
    v.format = PixelFormat::kGRAY8;
    v.width = GST_VIDEO_FRAME_WIDTH(&vf);
    v.height = GST_VIDEO_FRAME_HEIGHT(&vf);
    v.data[0] = static_cast<uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&vf, 0));
    v.pitch[0] = GST_VIDEO_FRAME_PLANE_STRIDE(&vf, 0);
    if (!configured) {
      st = fe ? fe->configure(v.width, v.height, fp) : st;
      configured = true;
    }
    if (st.ok())
      st = fe->push(v, nullptr, &ready);
    gst_video_frame_unmap(&vf);
    gst_sample_unref(s);
    if (!st.ok()) {
      *err = clip.path + ": " + st.to_string();
      ok = false;
      break;
    }
    ++frames;
    actionlearn::append_points(ready, out);
    ready.clear();
  }
  GstBus* bus = gst_element_get_bus(pipe);
  GstMessage* msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  if (msg && ok) {
    GError* e = nullptr;
    gst_message_parse_error(msg, &e, nullptr);
    *err = clip.path + ": " + (e ? e->message : "decoding failed");
    g_clear_error(&e);
    ok = false;
  }
  if (msg)
    gst_message_unref(msg);
  gst_object_unref(bus);
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipe);
  if (ok && frames == 0) {
    *err = clip.path + ": no frame decoded";
    ok = false;
  }
  if (!ok)
    return false;
  st = fe->finish(nullptr, &ready);
  actionlearn::append_points(ready, out);
  out->frames = frames;
  if (!cache_dir.empty()) {
    std::error_code ec;
    fs::create_directories(cache_dir, ec);
    write_cache(cache_path(cache_dir, clip), key, *out);
  }
  return true;
}

bool all_clip_points(const std::vector<ClipFile>& clips, const FrontEndParams& fp, Backend backend,
                     const std::string& cache_dir, int threads, std::vector<ClipPoints>* out,
                     std::string* err) {
  out->assign(clips.size(), ClipPoints());
  std::atomic<size_t> next{0}, done{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  auto work = [&]() {
    for (size_t i; !failed && (i = next++) < clips.size();) {
      std::string e;
      if (!clip_points(clips[i], fp, backend, cache_dir, &(*out)[i], &e)) {
        std::lock_guard<std::mutex> lock(mu);
        if (!failed)
          *err = e;
        failed = true;
      }
      const size_t d = ++done;
      if (d % 50 == 0 || d == clips.size())
        std::fprintf(stderr, "cvis-action: points of %zu/%zu clips\n", d, clips.size());
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, threads); ++t)
    pool.emplace_back(work);
  for (auto& t : pool)
    t.join();
  return !failed;
}

} // namespace cvis::action_tool

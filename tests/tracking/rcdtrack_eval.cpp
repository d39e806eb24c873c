// Runs the rcdtrack tracker on a sequence directory written by make_sequences.py and writes its
// boxes: DIR/meta.txt ("width W", "height H", "frames N"), DIR/frames.rgb (N frames of packed RGB),
// DIR/groundtruth.txt (one "x,y,w,h" per frame; only the first line is read: the initial box).
// Output: DIR/rcdtrack.txt (or --out), one "x,y,w,h" per frame, the first being the initial box.
// Usage: rcdtrack_eval DIR [--backend cpu|cuda] [--out FILE] [--features F] [--distance D]
//        [--step N] [--search-radius R] [--update-rate R] [--lost-threshold T] [--scales N]
//        [--motion-weight W] [--scale-weight W] [--top-k K] [--parts 1|5] [--ridge R]
//        [--scale-min S] [--scale-max S] [--context-weight W] [--scale-prediction G] [--scale-gain
//        G]
//        [--model-anchor A] [--local-reacquire 0|1] [--occlusion-ratio R]
//        [--coast-frames N]
//        [--rotation-box 0|1] [--rotation-source 0|1|2|3] [--template-refine 0|1] [--trace FILE]
// --trace writes per frame "distance,lost,scale" of the target (where a sequence goes wrong).
// Prints the mean time and the mean windows of the coarse and fine passes per frame (PassStats).
// Exit status 1 on any error.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "rcdtrack.hpp"

using namespace cvis;
using namespace cvis::rcdtrack;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [options]\n", argv[0]);
    return 1;
  }
  const std::string dir = argv[1];
  std::string out_path = dir + "/rcdtrack.txt";
  std::string trace_path; // per frame: distance, lost flag, scale (diagnosis of failures)
  Backend backend = Backend::kCpu;
  Params p;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    std::string err;
    if (k == "--backend") {
      if (!parse_backend(v, &backend)) {
        std::fprintf(stderr, "bad backend %s\n", v.c_str());
        return 1;
      }
    } else if (k == "--out") {
      out_path = v;
    } else if (k == "--local-reacquire") {
      p.local_reacquire = std::atoi(v.c_str()) != 0;
    } else if (k == "--rotation-box") {
      p.rotation_box = std::atoi(v.c_str()) != 0;
    } else if (k == "--template-refine") {
      p.template_refine = std::atoi(v.c_str()) != 0;
    } else if (k == "--rotation-source") {
      p.rotation_source = static_cast<RotationSource>(std::atoi(v.c_str()));
    } else if (k == "--trace") {
      trace_path = v;
    } else if (k == "--features") {
      if (!parse_features(v, &p.features, &err)) {
        std::fprintf(stderr, "%s\n", err.c_str());
        return 1;
      }
    } else if (k == "--distance") {
      p.distance = v == "foerstner" ? Distance::kFoerstner : Distance::kJbld;
    } else if (k == "--step") {
      p.step = std::atoi(v.c_str());
    } else if (k == "--search-radius") {
      p.search_radius = std::atof(v.c_str());
    } else if (k == "--update-rate") {
      p.update_rate = std::atof(v.c_str());
    } else if (k == "--lost-threshold") {
      p.lost_threshold = std::atof(v.c_str());
    } else if (k == "--scales") {
      p.scales = std::atoi(v.c_str());
    } else if (k == "--motion-weight") {
      p.motion_weight = std::atof(v.c_str());
    } else if (k == "--scale-weight") {
      p.scale_weight = std::atof(v.c_str());
    } else if (k == "--context-weight") {
      p.context_weight = std::atof(v.c_str());
    } else if (k == "--parts") {
      p.parts = std::atoi(v.c_str());
    } else if (k == "--ridge") {
      p.ridge = std::atof(v.c_str());
    } else if (k == "--scale-min") {
      p.scale_min = std::atof(v.c_str());
    } else if (k == "--scale-max") {
      p.scale_max = std::atof(v.c_str());
    } else if (k == "--scale-prediction") {
      p.scale_prediction = std::atof(v.c_str());
    } else if (k == "--scale-gain") {
      p.scale_gain = std::atof(v.c_str());
    } else if (k == "--occlusion-ratio") {
      p.occlusion_ratio = std::atof(v.c_str());
    } else if (k == "--coast-frames") {
      p.coast_frames = std::atoi(v.c_str());
    } else if (k == "--model-anchor") {
      p.model_anchor = std::atof(v.c_str());
    } else if (k == "--top-k") {
      p.top_k = std::atoi(v.c_str());
    } else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 1;
    }
  }
  std::ifstream meta(dir + "/meta.txt");
  int w = 0, h = 0, n = 0;
  std::string key;
  int val;
  while (meta >> key >> val) {
    if (key == "width")
      w = val;
    if (key == "height")
      h = val;
    if (key == "frames")
      n = val;
  }
  std::ifstream gt(dir + "/groundtruth.txt");
  std::string line;
  Box init;
  if (!std::getline(gt, line) ||
      std::sscanf(line.c_str(), "%d,%d,%d,%d", &init.x, &init.y, &init.w, &init.h) != 4 || w < 8 ||
      h < 8 || n < 1) {
    std::fprintf(stderr, "%s: bad meta.txt or groundtruth.txt\n", dir.c_str());
    return 1;
  }
  std::ifstream frames(dir + "/frames.rgb", std::ios::binary);
  Status st = resolve_backend(backend, &backend);
  std::unique_ptr<Tracker> tr = st.ok() ? make_tracker(backend, &st) : nullptr;
  if (!tr || !(st = tr->configure(p, w, h, PixelFormat::kRGB)).ok() ||
      !(st = tr->add_target(0, init)).ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  StreamHandle stream = nullptr;
  if (backend == Backend::kCuda && !(st = stream_create(&stream)).ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  std::vector<uint8_t> rgb(static_cast<size_t>(w) * h * 3);
  ImageView v;
  v.format = PixelFormat::kRGB;
  v.width = w;
  v.height = h;
  v.data[0] = rgb.data();
  v.pitch[0] = static_cast<size_t>(w) * 3;
  std::ofstream out(out_path);
  std::ofstream trace;
  if (!trace_path.empty())
    trace.open(trace_path);
  std::vector<TargetResult> res;
  double seconds = 0;
  double coarse_windows = 0, fine_windows = 0; // PassStats::windows summed over the frames
  for (int f = 0; f < n; ++f) {
    frames.read(reinterpret_cast<char*>(rgb.data()), static_cast<std::streamsize>(rgb.size()));
    if (!frames) {
      std::fprintf(stderr, "frames.rgb: frame %d missing\n", f);
      return 1;
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (!(st = tr->process(v, stream, &res)).ok()) {
      std::fprintf(stderr, "frame %d: %s\n", f, st.to_string().c_str());
      return 1;
    }
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    coarse_windows += static_cast<double>(tr->last_stats().coarse.windows);
    fine_windows += static_cast<double>(tr->last_stats().fine.windows);
    const Box& b = res[0].box;
    out << b.x << "," << b.y << "," << b.w << "," << b.h << "\n";
    if (trace.is_open())
      trace << res[0].distance << "," << (res[0].lost ? 1 : 0) << "," << res[0].scale << "\n";
  }
  if (stream)
    stream_destroy(stream);
  std::printf("%s: %d frames, %.2f ms per frame (%s), %.0f coarse + %.0f fine windows per frame\n",
              dir.c_str(), n, 1e3 * seconds / n, backend_name(backend), coarse_windows / n,
              fine_windows / n);
  return 0;
}

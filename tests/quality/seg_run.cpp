// seg_run: runs a segmentation library (not the elements) on one sequence of the quality corpus and
// dumps its masks (and backgrounds) in the layout tests/quality/score.py reads, so that modes and
// parameters can be compared without GStreamer.
//
//   seg_run CORPUS SEQUENCE OUT_PREFIX ALGORITHM [KEY=VALUE...]
//
// Reads CORPUS/SEQUENCE/decoded.i420 (the frames the elements decode) with the size from
// CORPUS/list.txt; writes OUT_PREFIX.mask.gz (GRAY8 frames) and, for `motion`, OUT_PREFIX.bg.gz
// (I420 frames: the background luma, neutral chroma). ALGORITHM: `motion` (median3d's motion
// detector, keys = MotionParams fields) or `bgsub` (keys = bgsub::Params fields, the scene
// extensions included; `paper=1` starts from the paper's model). Prints shot changes and the time
// per frame. CPU backend only (the GPU host runs the elements).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bgsub/bgsub.hpp"
#include "median3d/motion.hpp"

namespace {

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "seg_run: %s\n", m.c_str());
  std::exit(1);
}

struct Gz {
  FILE* f;
  explicit Gz(const std::string& path) : f(popen(("gzip -1 > '" + path + "'").c_str(), "w")) {
    if (!f)
      die("cannot write " + path);
  }
  ~Gz() { pclose(f); }
  void write(const void* p, size_t n) { std::fwrite(p, 1, n, f); }
};

using Kv = std::map<std::string, std::string>;

double num(Kv& kv, const std::string& k, double def) {
  auto it = kv.find(k);
  if (it == kv.end())
    return def;
  double v = std::atof(it->second.c_str());
  kv.erase(it);
  return v;
}

cvis::median3d::MotionParams motion_params(Kv& kv) {
  cvis::median3d::MotionParams p;
  p.history = static_cast<int>(num(kv, "history", p.history));
  p.sample_period = static_cast<int>(num(kv, "sample_period", p.sample_period));
  p.radius = static_cast<int>(num(kv, "radius", p.radius));
  p.noise_factor = static_cast<float>(num(kv, "noise_factor", p.noise_factor));
  p.tau_min = static_cast<int>(num(kv, "tau_min", p.tau_min));
  p.tau_max = static_cast<int>(num(kv, "tau_max", p.tau_max));
  p.adopt_frames = static_cast<int>(num(kv, "adopt_frames", p.adopt_frames));
  p.adopt_tight = num(kv, "adopt_tight", p.adopt_tight) != 0;
  p.adopt_frames_dynamic =
      static_cast<int>(num(kv, "adopt_frames_dynamic", p.adopt_frames_dynamic));
  p.dynamic_fraction = static_cast<float>(num(kv, "dynamic_fraction", p.dynamic_fraction));
  p.dynamic_change_fraction = static_cast<float>(num(kv, "dynamic_change_fraction", p.dynamic_change_fraction));
  p.shift_test = num(kv, "shift_test", p.shift_test) != 0;
  p.absorb_frames = static_cast<int>(num(kv, "absorb_frames", p.absorb_frames));
  p.illumination = num(kv, "illumination", p.illumination) != 0;
  p.tau_min_chroma = static_cast<int>(num(kv, "tau_min_chroma", p.tau_min_chroma));
  p.color = num(kv, "color", p.color) != 0;
  p.shadows = num(kv, "shadows", p.shadows) != 0;
  p.shadow_low = static_cast<float>(num(kv, "shadow_low", p.shadow_low));
  p.shadow_high = static_cast<float>(num(kv, "shadow_high", p.shadow_high));
  p.shadow_chroma = static_cast<int>(num(kv, "shadow_chroma", p.shadow_chroma));
  p.cleanup = num(kv, "cleanup", p.cleanup) != 0;
  p.min_mask_area = static_cast<int>(num(kv, "min_mask_area", p.min_mask_area));
  p.persistence = static_cast<float>(num(kv, "persistence", p.persistence));
  p.shot_change = num(kv, "shot_change", p.shot_change) != 0;
  p.cut_fraction = num(kv, "cut_fraction", p.cut_fraction);
  p.cut_frames = static_cast<int>(num(kv, "cut_frames", p.cut_frames));
  p.live_background = num(kv, "live_background", p.live_background) != 0;
  p.blobs = false;
  return p;
}

// `paper=1`: start from bgsub::paper_params() (every scene extension off).
cvis::bgsub::Params bgsub_params(Kv& kv) {
  cvis::bgsub::Params p =
      num(kv, "paper", 0) != 0 ? cvis::bgsub::paper_params() : cvis::bgsub::Params();
  p.num_samples = static_cast<int>(num(kv, "num_samples", p.num_samples));
  p.neighborhood = static_cast<int>(num(kv, "neighborhood", p.neighborhood));
  p.update_period = static_cast<int>(num(kv, "update_period", p.update_period));
  p.threshold = num(kv, "threshold", p.threshold);
  p.sigma_min = static_cast<float>(num(kv, "sigma_min", p.sigma_min));
  p.sigma_max = static_cast<float>(num(kv, "sigma_max", p.sigma_max));
  p.color = num(kv, "chromaticity", 0) != 0 ? cvis::bgsub::ColorSpace::kChromaticity
                                            : cvis::bgsub::ColorSpace::kRgb;
  p.update_margin = num(kv, "update_margin", p.update_margin);
  p.conservative_update = num(kv, "conservative_update", p.conservative_update) != 0;
  p.update_own = num(kv, "update_own", p.update_own) != 0;
  p.still_lend_fraction = static_cast<float>(num(kv, "still_lend_fraction", p.still_lend_fraction));
  p.dynamic_fraction = static_cast<float>(num(kv, "dynamic_fraction", p.dynamic_fraction));
  p.illumination = num(kv, "illumination", p.illumination) != 0;
  p.shadows = num(kv, "shadows", p.shadows) != 0;
  p.shadow_low = static_cast<float>(num(kv, "shadow_low", p.shadow_low));
  p.shadow_high = static_cast<float>(num(kv, "shadow_high", p.shadow_high));
  p.shadow_samples = static_cast<int>(num(kv, "shadow_samples", p.shadow_samples));
  p.shift_test = num(kv, "shift_test", p.shift_test) != 0;
  p.shift_levels = static_cast<int>(num(kv, "shift_levels", p.shift_levels));
  p.shadow_chroma = static_cast<int>(num(kv, "shadow_chroma", p.shadow_chroma));
  p.shot_change = num(kv, "shot_change", p.shot_change) != 0;
  p.cut_fraction = num(kv, "cut_fraction", p.cut_fraction);
  p.cut_frames = static_cast<int>(num(kv, "cut_frames", p.cut_frames));
  p.cut_warmup = static_cast<int>(num(kv, "cut_warmup", p.cut_warmup));
  p.cut_refill = static_cast<int>(num(kv, "cut_refill", p.cut_refill));
  p.min_mask_area = static_cast<int>(num(kv, "min_mask_area", p.min_mask_area));
  p.persistence = static_cast<float>(num(kv, "persistence", p.persistence));
  p.ghost_passes = static_cast<int>(num(kv, "ghost_passes", p.ghost_passes));
  p.ghost_levels = static_cast<int>(num(kv, "ghost_levels", p.ghost_levels));
  p.ghost_matches = static_cast<int>(num(kv, "ghost_matches", p.ghost_matches));
  p.ghost_still = static_cast<int>(num(kv, "ghost_still", p.ghost_still));
  p.blobs = false;
  return p;
}

} // namespace

int main(int argc, char** argv) {
  using namespace cvis;
  if (argc < 5)
    die("usage: seg_run CORPUS SEQUENCE OUT_PREFIX motion|bgsub [KEY=VALUE...]");
  const std::string corpus = argv[1], seq = argv[2], out = argv[3], algo = argv[4];
  Kv kv;
  for (int i = 5; i < argc; ++i) {
    const std::string a = argv[i];
    const size_t eq = a.find('=');
    if (eq == std::string::npos)
      die("bad argument " + a);
    kv[a.substr(0, eq)] = a.substr(eq + 1);
  }
  int w = 0, h = 0, n = 0;
  {
    std::ifstream list(corpus + "/list.txt");
    std::string line;
    while (std::getline(list, line)) {
      std::istringstream is(line);
      std::string name;
      int ww, hh, nn;
      if (is >> name >> ww >> hh >> nn && name == seq) {
        w = ww;
        h = hh;
        n = nn;
      }
    }
  }
  if (!w)
    die(seq + " not in " + corpus + "/list.txt");
  FILE* in = std::fopen((corpus + "/" + seq + "/decoded.i420").c_str(), "rb");
  if (!in)
    die("cannot read " + seq + "/decoded.i420");
  const size_t fbytes = static_cast<size_t>(w) * h * 3 / 2;
  std::vector<uint8_t> buf(fbytes), mask(static_cast<size_t>(w) * h), bg(fbytes, 128);
  ImageView fv;
  fv.format = PixelFormat::kI420;
  fv.width = w;
  fv.height = h;
  fv.data[0] = buf.data();
  fv.data[1] = buf.data() + static_cast<size_t>(w) * h;
  fv.data[2] = fv.data[1] + static_cast<size_t>(w / 2) * (h / 2);
  fv.pitch[0] = w;
  fv.pitch[1] = fv.pitch[2] = w / 2;
  ImageView mv;
  mv.format = PixelFormat::kGRAY8;
  mv.width = w;
  mv.height = h;
  mv.data[0] = mask.data();
  mv.pitch[0] = w;
  ImageView bv = mv;
  bv.data[0] = bg.data();

  Status st;
  std::unique_ptr<median3d::MotionDetector> motion;
  std::unique_ptr<bgsub::Subtractor> sub;
  if (algo == "motion") {
    motion = median3d::make_motion_detector(Backend::kCpu, &st);
    if (st.ok())
      st = motion->configure(motion_params(kv));
  } else if (algo == "bgsub") {
    sub = bgsub::make_subtractor(Backend::kCpu, &st);
    if (st.ok())
      st = sub->configure(bgsub_params(kv));
  } else {
    die("unknown algorithm " + algo);
  }
  if (!st.ok())
    die(st.to_string());
  if (!kv.empty())
    die("unknown key " + kv.begin()->first);
  Gz masks(out + ".mask.gz");
  std::unique_ptr<Gz> bgs;
  if (motion)
    bgs = std::make_unique<Gz>(out + ".bg.gz");
  const auto t0 = std::chrono::steady_clock::now();
  for (int t = 0; t < n; ++t) {
    if (std::fread(buf.data(), 1, fbytes, in) != fbytes)
      die("short read at frame " + std::to_string(t));
    if (motion) {
      median3d::MotionResult r;
      st = motion->process(fv, &mv, &bv, &r, nullptr);
      if (r.shot_change)
        std::printf("%s: shot change at frame %d\n", seq.c_str(), t);
    } else {
      bgsub::FrameResult r;
      st = sub->process(fv, mv, &r, nullptr);
      if (r.shot_change)
        std::printf("%s: shot change at frame %d\n", seq.c_str(), t);
    }
    if (!st.ok())
      die(st.to_string());
    masks.write(mask.data(), mask.size());
    if (bgs)
      bgs->write(bg.data(), bg.size());
  }
  std::fclose(in);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s %s: %d frames, %.1f ms/frame\n", seq.c_str(), algo.c_str(), n, 1000.0 * s / n);
  return 0;
}

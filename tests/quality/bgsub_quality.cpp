// bgsub_quality: F-measure of the background model on the generated quality sequences, and a dump
// of frames, ground truth and masks for compare_opencv.py (OpenCV's MOG2 and KNN on the same data).
//
//   bgsub_quality [--backend cpu|cuda] [--size WxH] [--frames N] [--dump DIR]
//                 [--kernel NAME] [--threshold X] [--cleanup none|median|opening]
//                 [--samples N] [--margin X] [--presets static,waving,...]
//
// F-measure: pixel-level, over every frame from the first object's appearance on (the models
// warm up on background only). Exit status 1 on errors.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "bgsub/bgsub.hpp"
#include "common/backend.hpp"
#include "synth_sequence.hpp"

namespace {

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "bgsub_quality: %s\n", m.c_str());
  std::exit(1);
}

FILE* open_out(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f)
    die("cannot write " + path);
  return f;
}

} // namespace

int main(int argc, char** argv) {
  using namespace cvis;
  int w = 160, h = 120, frames = 300;
  std::string dump, presets;
  Backend backend = Backend::kCpu;
  bgsub::Params p;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--backend" && more) {
      if (!parse_backend(argv[++i], &backend))
        die("bad backend");
    } else if (a == "--size" && more) {
      if (std::sscanf(argv[++i], "%dx%d", &w, &h) != 2)
        die("bad size");
    } else if (a == "--frames" && more) {
      frames = std::atoi(argv[++i]);
    } else if (a == "--dump" && more) {
      dump = argv[++i];
    } else if (a == "--kernel" && more) {
      if (!bgsub::parse_kernel(argv[++i], &p.kernel))
        die("bad kernel");
    } else if (a == "--cleanup" && more) {
      const std::string c = argv[++i];
      p.cleanup = c == "none"      ? bgsub::Cleanup::kNone
                  : c == "opening" ? bgsub::Cleanup::kOpening
                                   : bgsub::Cleanup::kMedian;
    } else if (a == "--margin" && more) {
      p.update_margin = std::atof(argv[++i]);
    } else if (a == "--samples" && more) {
      p.num_samples = std::atoi(argv[++i]);
    } else if (a == "--threshold" && more) {
      p.threshold = std::atof(argv[++i]);
    } else if (a == "--presets" && more) {
      presets = argv[++i];
    } else {
      die("usage: bgsub_quality [--backend cpu|cuda] [--size WxH] [--frames N] [--dump DIR] "
          "[--kernel NAME] [--threshold X] [--cleanup none|median|opening] [--samples N] "
          "[--margin X] [--presets a,b]");
    }
  }
  Status st = resolve_backend(backend, &backend);
  if (!st.ok())
    die(st.to_string());
  if (backend == Backend::kCuda) {
    st = select_cuda_device(0);
    if (!st.ok())
      die(st.to_string());
  }
  if (!dump.empty())
    mkdir(dump.c_str(), 0755);
  std::printf("%-13s %9s %9s %9s   (%s, %s, threshold %g, %dx%d, %d frames)\n", "sequence",
              "precision", "recall", "F", backend_name(backend), bgsub::kernel_name(p.kernel),
              p.threshold, w, h, frames);
  for (const test::SequenceSpec& spec : test::quality_presets(w, h, frames)) {
    if (!presets.empty() && ("," + presets + ",").find("," + spec.name + ",") == std::string::npos)
      continue;
    test::SyntheticSequence seq(spec);
    auto sub = bgsub::make_subtractor(backend, &st);
    if (!sub)
      die(st.to_string());
    st = sub->configure(p);
    if (!st.ok())
      die(st.to_string());
    test::HostImage mask(PixelFormat::kGRAY8, w, h);
    test::FMeasure fm;
    FILE *ff = nullptr, *ft = nullptr, *fo = nullptr;
    if (!dump.empty()) {
      const std::string dir = dump + "/" + spec.name;
      mkdir(dir.c_str(), 0755);
      FILE* meta = open_out(dir + "/meta.txt");
      std::fprintf(meta, "width %d\nheight %d\nframes %d\neval_from %d\n", w, h, frames,
                   spec.first_object_frame);
      std::fclose(meta);
      ff = open_out(dir + "/frames.rgb");
      ft = open_out(dir + "/truth.u8");
      fo = open_out(dir + "/ours.u8");
    }
    for (int t = 0; t < frames; ++t) {
      test::HostImage rgb;
      std::vector<uint8_t> truth;
      seq.render(t, &rgb, &truth);
      bgsub::FrameResult r;
      st = sub->process(rgb.view(), mask.view(), &r, nullptr);
      if (!st.ok())
        die(st.to_string());
      if (t >= spec.first_object_frame)
        fm.add(mask.plane(0), mask.pitch(0), truth, w, h);
      if (ff) {
        for (int y = 0; y < h; ++y) {
          std::fwrite(rgb.plane(0) + y * rgb.pitch(0), 1, static_cast<size_t>(w) * 3, ff);
          std::fwrite(mask.plane(0) + y * mask.pitch(0), 1, w, fo);
        }
        std::fwrite(truth.data(), 1, truth.size(), ft);
      }
    }
    if (ff) {
      std::fclose(ff);
      std::fclose(ft);
      std::fclose(fo);
    }
    std::printf("%-13s %9.4f %9.4f %9.4f\n", spec.name.c_str(), fm.precision(), fm.recall(),
                fm.f());
    std::fflush(stdout);
  }
  return 0;
}

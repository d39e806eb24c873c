// Helpers for the background subtraction tests: run a subtractor over a generated sequence and keep
// every frame's mask, density and result.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <vector>

#include "bgsub/bgsub.hpp"
#include "common/color.hpp"
#include "synth_sequence.hpp"
#include "test_images.hpp"

namespace cvis::bgsub::test {

struct SeqRun {
  std::vector<std::vector<uint8_t>> masks; // width*height per frame (pitch removed)
  std::vector<std::vector<float>> density;
  std::vector<FrameResult> results;
};

// A small fast sequence: L = 12 samples, 3x3 neighbourhood; min_mask_area 20 (the small scenes'
// objects are under the default 60).
inline Params small_params(Kernel k = Kernel::kExact) {
  Params p;
  p.num_samples = 12;
  p.min_mask_area = 20;
  p.persistence = 0.0f; // the model's masks frame by frame (test_bgsub_persistence.cpp: the filter)
  p.kernel = k;
  p.cpwl_points = 64;
  return p;
}

inline cvis::test::SequenceSpec small_spec(int w, int h, int frames, uint32_t seed) {
  cvis::test::SequenceSpec s;
  s.width = w;
  s.height = h;
  s.frames = frames;
  s.seed = seed;
  s.objects = 2;
  s.first_object_frame = 14;
  s.noise_sigma = 3.0f;
  s.illumination_drift = 0.0f; // tests that want drift set it (short sequences drift fast)
  return s;
}

// Runs `frames` frames; `make_frame(t, rgb)` returns the view to feed (it may convert / pad).
// `stream`: the CUDA stream of every process() call (the CPU backend ignores it). `density`:
// whether to ask for the density (the whole KDE sum) or only the mask (the sum may stop early).
inline SeqRun run_sequence(Subtractor& s, const cvis::test::SyntheticSequence& seq, int frames,
                           const std::function<ImageView(int, const cvis::test::HostImage&,
                                                         cvis::test::HostImage*)>& convert,
                           size_t mask_pad = 0, StreamHandle stream = nullptr,
                           bool density = true) {
  SeqRun run;
  const int w = seq.spec().width, h = seq.spec().height;
  cvis::test::HostImage mask(PixelFormat::kGRAY8, w, h, mask_pad);
  for (int t = 0; t < frames; ++t) {
    cvis::test::HostImage rgb, conv;
    std::vector<uint8_t> truth;
    seq.render(t, &rgb, &truth);
    const ImageView v = convert ? convert(t, rgb, &conv) : rgb.view();
    FrameResult r;
    std::vector<float> dens(density ? static_cast<size_t>(w) * h : 0);
    const Status st = s.process(v, mask.view(), &r, stream, density ? dens.data() : nullptr);
    EXPECT_TRUE(st.ok()) << st.to_string();
    if (!st.ok())
      break;
    std::vector<uint8_t> m(static_cast<size_t>(w) * h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        m[static_cast<size_t>(y) * w + x] = mask.plane(0)[y * mask.pitch(0) + x];
    run.masks.push_back(std::move(m));
    run.density.push_back(std::move(dens));
    run.results.push_back(std::move(r));
  }
  return run;
}

inline std::unique_ptr<Subtractor> make(Backend b, const Params& p) {
  Status st;
  auto s = make_subtractor(b, &st);
  EXPECT_TRUE(st.ok()) << st.to_string();
  if (s) {
    const Status c = s->configure(p);
    EXPECT_TRUE(c.ok()) << c.to_string();
  }
  return s;
}

} // namespace cvis::bgsub::test

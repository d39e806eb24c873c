// Extensions of the background model for real footage (issue 12), prototyped as a CPU reference
// beside the paper's model (bgsub_cpu.cpp) until they are merged into Params and both backends:
// - illumination: per-channel global gains g_c = median of x_c / s_c over the previous frame's
//   background pixels (s: the pixel's newest sample); frames are divided by g before the model sees
//   them, and below g = 1 the bandwidths widen by 1/g (the sensor noise is amplified);
// - shadows: a pixel the model calls foreground is background when at least `shadow_samples` of its
//   own samples explain it as a shadow (seg::shadow_yuv: luma ratio in [shadow_low, shadow_high],
//   chroma dimmed alike within shadow_chroma levels); it is not used to update the model;
// - shot changes: seg::ShotChangeRule on the raw foreground fraction and the fraction of pixels
// that
//   changed since the previous frame; a cut restarts the model with a short warm-up of
//   `cut_warmup` frames (their masks are empty), the samples interleaved over those frames.
// Everything else is the model of bgsub.hpp with its Params (kernel: fast-fused or exact).
#pragma once

#include <memory>

#include "bgsub.hpp"

namespace cvis::bgsub {

struct SceneParams {
  bool illumination = true;
  bool shadows = true;
  float shadow_low = 0.4f;
  float shadow_high = 0.9f;
  int shadow_chroma = 4;
  int shadow_samples =
      12; // of num_samples (48): a quarter; measured 2 -> 12: F +0.03 on street-a, illum-a
  bool shot_change = true;
  double cut_fraction = 0.5;
  int cut_frames = 2;
  int cut_warmup = 6;
  // Dynamic background: a pixel whose raw classification flips often (foliage, water) gets a lower
  // density threshold: threshold x 2^(-blink_gain x b), b = exponential average (rate 1/16) of
  // flips per frame, 0..1. 0 = off.
  float blink_gain = 0.0f;
  int min_mask_area = 20; // components of the cleaned mask below this many pixels are cleared
};

struct SceneInfo {
  bool shot_change = false;
  float gain[3] = {1.f, 1.f, 1.f};
  int64_t shadow_pixels = 0;
};

class SceneSubtractor : public Subtractor {
public:
  virtual Status configure_scene(const SceneParams& s) = 0;
  virtual const SceneInfo& scene_info() const = 0;
};

std::unique_ptr<SceneSubtractor> make_scene_cpu_subtractor();

} // namespace cvis::bgsub

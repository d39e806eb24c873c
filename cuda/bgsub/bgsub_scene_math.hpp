// Per-pixel arithmetic of the scene extensions (bgsub_scene.hpp), for the CPU reference and the
// CUDA kernels (CVIS_HD). Float operations through cpwl::mul_rn/add_rn (no contraction).
#pragma once

#include <cstdint>

#include "bgsub_math.hpp"
#include "common/segmentation.hpp"

namespace cvis::bgsub {

// Channel c of the packed feature f divided by the gain g (1/g given), rounded, clamped to 255.
CVIS_HD uint32_t compensate_feature(uint32_t f, const float inv_gain[3]) {
  uint32_t out = 0;
  for (int c = 0; c < 3; ++c) {
    const float v = cpwl::mul_rn(static_cast<float>(channel(f, c)), inv_gain[c]);
    const int q = static_cast<int>(cpwl::add_rn(v, 0.5f));
    out |= static_cast<uint32_t>(q > 255 ? 255 : q) << (8 * c);
  }
  return out;
}

// Shadow test of feature x (RGB) against the pixel's own samples `sample(k)`, k < count: true when
// at least `need` samples explain x as a shadow (seg::shadow_yuv on full-range Y, U, V; the same
// rule as median3d's motion detector).
template <typename SampleFn>
CVIS_HD bool shadow_explained(uint32_t x, SampleFn sample, int count, int lo16, int hi16, int tol,
                              int need) {
  int xv[3];
  seg::rgb_to_yuv(channel(x, 0), channel(x, 1), channel(x, 2), xv);
  int found = 0;
  for (int k = 0; k < count; ++k) {
    const uint32_t s = sample(k);
    int sv[3];
    seg::rgb_to_yuv(channel(s, 0), channel(s, 1), channel(s, 2), sv);
    if (seg::shadow_yuv(xv[0], xv[1], xv[2], sv[0], sv[1], sv[2], 0, lo16, hi16, tol) &&
        ++found >= need)
      return true;
  }
  return false;
}

} // namespace cvis::bgsub

// Per-pixel arithmetic of the scene extensions (bgsub_scene.hpp), for the CPU reference and the
// CUDA kernels (CVIS_HD). Float operations through cpwl::mul_rn/add_rn (no contraction).
#pragma once

#include <cstdint>

#include "bgsub_math.hpp"

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

// Shadow test of feature x against the pixel's own samples `sample(k)`, k < count: a sample s
// explains x as a shadow when a = x.s / s.s lies in [lo, hi], s is not dark (s.s >= 3 * 24^2) and
// every channel satisfies |x_c - a s_c| <= noise * a / inv_sigma[c] + 2. True when at least `need`
// samples do.
template <typename SampleFn>
CVIS_HD bool shadow_explained(uint32_t x, SampleFn sample, int count, const float inv_sigma[3],
                              float lo, float hi, float noise, int need) {
  const float xc[3] = {static_cast<float>(channel(x, 0)), static_cast<float>(channel(x, 1)),
                       static_cast<float>(channel(x, 2))};
  int found = 0;
  for (int k = 0; k < count; ++k) {
    const uint32_t s = sample(k);
    const float sc[3] = {static_cast<float>(channel(s, 0)), static_cast<float>(channel(s, 1)),
                         static_cast<float>(channel(s, 2))};
    const float ss = cpwl::add_rn(cpwl::add_rn(cpwl::mul_rn(sc[0], sc[0]), cpwl::mul_rn(sc[1], sc[1])),
                                  cpwl::mul_rn(sc[2], sc[2]));
    if (ss < 1728.0f)
      continue;
    const float xs = cpwl::add_rn(cpwl::add_rn(cpwl::mul_rn(xc[0], sc[0]), cpwl::mul_rn(xc[1], sc[1])),
                                  cpwl::mul_rn(xc[2], sc[2]));
#if defined(__CUDA_ARCH__)
    const float a = __fdiv_rn(xs, ss);
#else
    const float a = xs / ss;
#endif
    if (!(a >= lo && a <= hi))
      continue;
    bool ok = true;
    for (int c = 0; c < 3 && ok; ++c) {
      const float e = cpwl::sub_rn(xc[c], cpwl::mul_rn(a, sc[c]));
#if defined(__CUDA_ARCH__)
      const float tol = cpwl::add_rn(__fdiv_rn(cpwl::mul_rn(noise, a), inv_sigma[c]), 2.0f);
      ok = fabsf(e) <= tol;
#else
      const float tol = cpwl::add_rn(cpwl::mul_rn(noise, a) / inv_sigma[c], 2.0f);
      ok = (e < 0 ? -e : e) <= tol;
#endif
    }
    if (ok && ++found >= need)
      return true;
  }
  return false;
}

} // namespace cvis::bgsub

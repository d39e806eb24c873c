// Per-pixel arithmetic of the background model, shared verbatim by the CPU reference and the CUDA
// kernels (CVIS_HD): features, bandwidth medians, the kernel density sum and the mask clean-up.
// Float operations go through cpwl::mul_rn/add_rn (no FMA contraction), integer ones are exact, so
// both backends compute the same bits except inside expf / __expf / the texture filter.
#pragma once

#include <cstdint>

#include "bgsub.hpp"
#include "common/color.hpp"
#include "common/hd.hpp"
#include "cpwl/cpwl_eval.hpp"

namespace cvis::bgsub {

inline constexpr int kMaxNeighbours = (2 * kMaxRadius + 1) * (2 * kMaxRadius + 1);

// Model constants, passed by value to kernels.
struct ModelConsts {
  int width = 0, height = 0;
  int num_samples = 0;                // L
  int radius = 0;                     // r
  float weights[kMaxNeighbours] = {}; // positional kernel, row-major over (dy, dx) in [-r, r]^2
  float norm = 0.f;                   // (2 pi)^(-3/2) / L
  float threshold = 0.f;
  float update_threshold = 0.f; // threshold * update_margin
  float table_scale = 0.f;      // uniform CPWL tables: index = u * table_scale
  // Per channel, 1/sigma of the normalisation over 1/sigma of the kernel's argument: 1 except the
  // widened intensity channel in chromaticity mode, whose kernel keeps the peak of the unwidened
  // one (so `threshold` means the same in both colour spaces).
  float norm_scale[3] = {1.f, 1.f, 1.f};
};

// Packed feature: channel c in byte c (bits 8c..8c+7); byte 3 unused (0).
CVIS_HD uint32_t feature_of(Rgb8 p, bool chromaticity) {
  if (!chromaticity)
    return p.r | (uint32_t(p.g) << 8) | (uint32_t(p.b) << 16);
  const uint32_t s = uint32_t(p.r) + p.g + p.b;
  uint32_t c0 = 85, c1 = 85; // black: no chromaticity, use the grey point 1/3
  if (s > 0) {
    c0 = (510u * p.r + s) / (2u * s); // round(255 r / s)
    c1 = (510u * p.g + s) / (2u * s);
  }
  const uint32_t c2 = (s + 1u) / 3u; // round(s / 3)
  return c0 | (c1 << 8) | (c2 << 16);
}

CVIS_HD int channel(uint32_t f, int c) {
  return static_cast<int>((f >> (8 * c)) & 0xffu);
}

// Per channel min(|a_c - b_c|, sat), packed like the features.
CVIS_HD uint32_t absdiff3(uint32_t a, uint32_t b, int sat = 255) {
  uint32_t out = 0;
  for (int c = 0; c < 3; ++c) {
    int d = channel(a, c) - channel(b, c);
    d = d < 0 ? -d : d;
    out |= static_cast<uint32_t>(d < sat ? d : sat) << (8 * c);
  }
  return out;
}

// Bandwidth estimate, after Elgammal et al. (ECCV 2000), as used by [20]: per channel, the median m
// of |x_{j+1} - x_j| over the L - 1 consecutive pairs of the pixel's samples in time order; the
// bandwidth is then sigma = m / (0.68 sqrt 2) (looked up in a table, see bandwidth_table()).
// `diffs` holds the packed absolute differences (absdiff3) of the count = L - 1 <= 127 pairs, each
// below 2^bits (bits <= 8; median_bits() saturates them where sigma_max clamps anyway, which
// leaves every bandwidth unchanged). The median is the lower one (rank (count - 1) / 2), found by
// a radix selection over the bits, all three channels at once: per bit, the values whose higher
// bits match the prefix found so far and whose current bit is 0 are counted in packed bytes
// (SWAR zero-byte test). Exact; returns m0 | m1 << 8 | m2 << 16.
CVIS_HD uint32_t median3(const uint32_t* diffs, int count, int bits = 8) {
  int rank[3];
  uint32_t prefix = 0; // packed per channel
  for (int c = 0; c < 3; ++c)
    rank[c] = (count - 1) / 2;
  for (int bit = bits - 1; bit >= 0; --bit) {
    const uint32_t keep = (0xffu >> bit) * 0x010101u; // bits of each byte after the shift
    const uint32_t want = prefix << 1;                // prefix then a 0, per byte
    uint32_t below = 0;                               // packed counts (count <= 127)
    for (int k = 0; k < count; ++k) {
      const uint32_t e = ((diffs[k] >> bit) & keep) ^ want;
      const uint32_t zero = ~(((e & 0x7f7f7f7fu) + 0x7f7f7f7fu) | e | 0x7f7f7f7fu);
      below += (zero >> 7) & 0x010101u;
    }
    uint32_t next = 0;
    for (int c = 0; c < 3; ++c) {
      const int n = static_cast<int>((below >> (8 * c)) & 0xffu);
      const uint32_t p = (prefix >> (8 * c)) & 0xffu;
      uint32_t q;
      if (rank[c] < n) {
        q = p << 1;
      } else {
        rank[c] -= n;
        q = (p << 1) | 1u;
      }
      next |= q << (8 * c);
    }
    prefix = next;
  }
  return prefix;
}

// Sum over the neighbourhood of w_q * sum_k K(x - s_qk), and the sum of the weights used (Eq. of
// README "density"). Neighbours outside the image are skipped. `sample(k, x, y)` returns sample k
// of pixel (x, y); `prod(t0, t1, t2)` the kernel product for the three scaled differences
// t_c = |x_c - s_c| * scale[c]. The summation order (dy, dx, k) is fixed: both backends use it.
template <typename SampleFn, typename ProdFn>
CVIS_HD void kde_sums(uint32_t feat, int px, int py, const ModelConsts& m, const float scale[3],
                      SampleFn sample, ProdFn prod, float* total, float* weight_sum) {
  float acc = 0.0f, wsum = 0.0f;
  const int r = m.radius, side = 2 * r + 1;
  const int f0 = channel(feat, 0), f1 = channel(feat, 1), f2 = channel(feat, 2);
  for (int dy = -r; dy <= r; ++dy) {
    const int y = py + dy;
    if (y < 0 || y >= m.height)
      continue;
    for (int dx = -r; dx <= r; ++dx) {
      const int x = px + dx;
      if (x < 0 || x >= m.width)
        continue;
      float s = 0.0f;
      for (int k = 0; k < m.num_samples; ++k) {
        const uint32_t ref = sample(k, x, y);
        const int d0 = f0 - static_cast<int>(ref & 0xffu);
        const int d1 = f1 - static_cast<int>((ref >> 8) & 0xffu);
        const int d2 = f2 - static_cast<int>((ref >> 16) & 0xffu);
        const float t0 = cpwl::mul_rn(static_cast<float>(d0 < 0 ? -d0 : d0), scale[0]);
        const float t1 = cpwl::mul_rn(static_cast<float>(d1 < 0 ? -d1 : d1), scale[1]);
        const float t2 = cpwl::mul_rn(static_cast<float>(d2 < 0 ? -d2 : d2), scale[2]);
        s = cpwl::add_rn(s, prod(t0, t1, t2));
      }
      const float w = m.weights[(dy + r) * side + (dx + r)];
      acc = cpwl::add_rn(acc, cpwl::mul_rn(w, s));
      wsum = cpwl::add_rn(wsum, w);
    }
  }
  *total = acc;
  *weight_sum = wsum;
}

// The density from the sums: total * n0 n1 n2 * (2 pi)^(-3/2) / (L wsum), with n_c = 1/sigma_c
// times norm_scale[c].
CVIS_HD float kde_density(float total, float weight_sum, const float inv_sigma[3],
                          const ModelConsts& m) {
  float q;
#if defined(__CUDA_ARCH__)
  q = __fdiv_rn(m.norm, weight_sum);
#else
  q = m.norm / weight_sum;
#endif
  const float n0 = cpwl::mul_rn(inv_sigma[0], m.norm_scale[0]);
  const float n1 = cpwl::mul_rn(inv_sigma[1], m.norm_scale[1]);
  const float n2 = cpwl::mul_rn(inv_sigma[2], m.norm_scale[2]);
  const float inv = cpwl::mul_rn(cpwl::mul_rn(n0, n1), n2);
  return cpwl::mul_rn(cpwl::mul_rn(total, inv), q);
}

// Raw classification of a density: foreground, weak background (below update_threshold: kept out
// of the conservative update) or background.
inline constexpr uint8_t kRawForeground = 255;
inline constexpr uint8_t kRawWeakBackground = 1;
CVIS_HD uint8_t classify_density(float d, const ModelConsts& m) {
  return d < m.threshold ? kRawForeground : (d < m.update_threshold ? kRawWeakBackground : 0);
}

// Exponent of the fused kernel: -(t0^2 + t1^2 + t2^2) / 2.
CVIS_HD float fused_exponent(float t0, float t1, float t2) {
  using cpwl::add_rn;
  using cpwl::mul_rn;
  return mul_rn(-0.5f, add_rn(add_rn(mul_rn(t0, t0), mul_rn(t1, t1)), mul_rn(t2, t2)));
}

// Mask clean-up; `at(x, y)` reads the source (foreground = 255; raw masks also hold 1 for weak
// background), coordinates clamped to the image.
// 3x3 majority ("median") biased towards foreground: a foreground pixel stays with 4 of its 9
// pixels set, a background pixel becomes foreground with 5. Isolated detections and one-pixel
// lines go, holes fill, and the corners of convex shapes (4 of 9) survive.
template <typename At> CVIS_HD uint8_t median3x3(At at, int x, int y, int w, int h) {
  int count = 0;
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy);
    for (int dx = -1; dx <= 1; ++dx) {
      const int xx = x + dx < 0 ? 0 : (x + dx >= w ? w - 1 : x + dx);
      count += at(xx, yy) == 255;
    }
  }
  return count >= (at(x, y) == 255 ? 4 : 5) ? 255 : 0;
}

// 3x3 erosion (dilate = false) or dilation of a 0/255 mask, clamped borders.
template <typename At> CVIS_HD uint8_t morph3x3(At at, int x, int y, int w, int h, bool dilate) {
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy);
    for (int dx = -1; dx <= 1; ++dx) {
      const int xx = x + dx < 0 ? 0 : (x + dx >= w ? w - 1 : x + dx);
      const bool set = at(xx, yy) == 255;
      if (dilate && set)
        return 255;
      if (!dilate && !set)
        return 0;
    }
  }
  return dilate ? 0 : 255;
}

// Selective update rule: may this pixel refresh its samples? `final_mask` is its value in the final
// (cleaned) mask; `raw(x, y)` reads the raw classification; w, h: the image size. Conservative:
// the raw classification must say background too (density >= update_threshold), unless the pixel
// is an isolated raw detection (no raw foreground among its 8 neighbours: noise, which the
// clean-up removed, and which must keep following a drifting background). So the clean-up cannot
// let object colours into the samples (it erases object corners and thin parts), where the
// neighbours' density sums would pick them up and spread them.
template <typename At>
CVIS_HD bool updatable(At raw, uint8_t final_mask, int x, int y, int w, int h, bool conservative) {
  if (final_mask)
    return false;
  if (!conservative)
    return true;
  const uint8_t self = raw(x, y);
  if (self == 0)
    return true;
  if (self != kRawForeground)
    return false; // weak background
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      const int xx = x + dx, yy = y + dy;
      if ((dx || dy) && xx >= 0 && yy >= 0 && xx < w && yy < h && raw(xx, yy) == kRawForeground) {
        return false;
      }
    }
  }
  return true;
}

} // namespace cvis::bgsub

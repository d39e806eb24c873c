// Per-pixel arithmetic of the background model, shared verbatim by the CPU reference and the CUDA
// kernels (CVIS_HD): features, bandwidth medians, the kernel density sum and the mask clean-up.
// Float operations go through mul_rn/add_rn (common/exact_arith.hpp: no FMA contraction), integer
// ones are exact, so both backends compute the same bits except inside expf / __expf / the texture
// filter.
#pragma once

#include <cmath>
#include <cstdint>

#include "bgsub.hpp"
#include "common/color.hpp"
#include "common/exact_arith.hpp"
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
  bool update_own = false;      // Params::update_own: own_explained() gates the update
  int own_levels = 0;           // own_explained()'s holding tolerance (Params::ghost_levels)
  // Factor of 1/sigma in the kernel's argument t = |d| / sigma * arg_scale: the table's N / range
  // for the uniform CPWL tables (t is the table index), sqrt(log2(e) / 2) for fast-fused (t^2 sums
  // to the exponent of 2 directly), 1 otherwise (u = |d| / sigma).
  float arg_scale = 1.f;
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

// 2^23 + channel c of f, as a float (exact). The difference of two such values is the exact
// integer difference of the channels, so t = |a - b| * scale needs no integer-to-float conversion
// on the GPU (one byte permute into the mantissa of 2^23; conversions run at 1/8 of the FP32 rate
// on sm_90). Same bits as static_cast<float>(|a_c - b_c|) * scale.
CVIS_HD float biased_channel(uint32_t f, int c) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(__byte_perm(f, 0x4B000000u, 0x7440u | static_cast<unsigned>(c)));
#else
  return static_cast<float>(channel(f, c)) + 8388608.0f;
#endif
}

// The fused kernel's exponent of 2: -(t0^2 + t1^2 + t2^2) with t_c = |d_c| / sigma_c *
// sqrt(log2(e) / 2), i.e. -(u0^2 + u1^2 + u2^2) log2(e) / 2; the kernel product is 2^result.
// Negated operands instead of a negated result: the same bits (round-to-nearest is symmetric),
// and no separate negation before the GPU's ex2 (which takes no negated operand).
CVIS_HD float fused_exponent2(float t0, float t1, float t2) {
  return fma_rn(-t2, t2, fma_rn(-t1, t1, mul_rn(-t0, t0)));
}

// Kernel argument t_c of sample `ref` for a pixel whose biased channels are fb[c].
CVIS_HD float kernel_arg(uint32_t ref, const float fb[3], const float scale[3], int c) {
  const float d = sub_rn(biased_channel(ref, c), fb[c]);
#if defined(__CUDA_ARCH__)
  return mul_rn(fabsf(d), scale[c]);
#else
  return mul_rn(std::fabs(d), scale[c]);
#endif
}

// Per channel min(|a_c - b_c|, sat), packed like the features.
CVIS_HD uint32_t absdiff3(uint32_t a, uint32_t b, int sat = 255) {
#if defined(__CUDA_ARCH__)
  return __vminu4(__vabsdiffu4(a, b), static_cast<uint32_t>(sat) * 0x010101u); // byte 3: 0
#else
  uint32_t out = 0;
  for (int c = 0; c < 3; ++c) {
    int d = channel(a, c) - channel(b, c);
    d = d < 0 ? -d : d;
    out |= static_cast<uint32_t>(d < sat ? d : sat) << (8 * c);
  }
  return out;
#endif
}

// Per channel min(|a_c - b_c|, 127): the input median3's counting path (bits <= 7) accepts.
CVIS_HD uint32_t absdiff3_sat127(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  const uint32_t d = __vabsdiffu4(a, b); // byte 3: 0
#else
  const uint32_t d = absdiff3(a, b);
#endif
  const uint32_t hi = d & 0x80808080u; // bytes >= 128 become 127
  return (d & 0x7f7f7f7fu) | (hi - (hi >> 7));
}

// Bandwidth estimate, after Elgammal et al. (ECCV 2000), as used by [20]: per channel, the median m
// of |x_{j+1} - x_j| over the L - 1 consecutive pairs of the pixel's samples in time order; the
// bandwidth is then sigma = m / (0.68 sqrt 2) (looked up in a table, see bandwidth_table()).
// `diffs` holds the packed absolute differences (absdiff3) of the count = L - 1 <= 127 pairs
// (element k at diffs[k * stride]), saturated at 2^bits - 1 (bits <= 8; median_bits() picks bits
// where sigma_max clamps anyway, which leaves every bandwidth unchanged) or, for bits <= 7, at 127.
// The median is the lower one (rank (count - 1) / 2), capped at 2^bits - 1, all three channels at
// once: by counting (bits <= 7, below) or by a radix selection over the bits (bits = 8: per bit,
// the values whose higher bits match the prefix found so far and whose current bit is 0 are
// counted in packed bytes, SWAR zero-byte test). Exact; returns m0 | m1 << 8 | m2 << 16.
CVIS_HD uint32_t median3(const uint32_t* diffs, int count, int bits = 8, int stride = 1) {
  if (bits <= 7) {
    // All values <= 127 (saturate at 2^bits - 1 or at 127: the result is min(median, 2^bits - 1)
    // either way): the lower median is the largest v with #(d < v) <= rank, found bit by
    // bit. Per byte, (0x80 | (v - 1)) - d keeps its high bit iff d < v and never borrows into the
    // next byte; the high bits of the three bytes are summed in place (fields 128 * count at bits
    // 8c + 7.., count <= 127, so they do not overlap): three operations per difference and bit.
    const uint32_t rank = static_cast<uint32_t>(count - 1) / 2;
    uint32_t cur = 0;
    for (int bit = bits - 1; bit >= 0; --bit) {
      const uint32_t cand = cur | (0x010101u << bit);
      const uint32_t v1 = (cand - 0x010101u) | 0x80808080u;
      uint32_t acc = 0;
      for (int k = 0; k < count; ++k)
        acc += (v1 - diffs[k * stride]) & 0x00808080u;
      for (int c = 0; c < 3; ++c) {
        if (((acc >> (8 * c + 7)) & 0xffu) <= rank)
          cur |= (1u << bit) << (8 * c);
      }
    }
    return cur;
  }
  int rank[3];
  uint32_t prefix = 0; // packed per channel
  for (int c = 0; c < 3; ++c)
    rank[c] = (count - 1) / 2;
  for (int bit = bits - 1; bit >= 0; --bit) {
    const uint32_t keep = (0xffu >> bit) * 0x010101u; // bits of each byte after the shift
    const uint32_t want = prefix << 1;                // prefix then a 0, per byte
    uint32_t below = 0;                               // packed counts (count <= 127)
    for (int k = 0; k < count; ++k) {
      const uint32_t e = ((diffs[k * stride] >> bit) & keep) ^ want;
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

// The factors that turn a neighbourhood sum into a density: density = (total * inv) * q, with
// q = norm / weight_sum and inv = n0 n1 n2, n_c = 1/sigma_c times norm_scale[c].
struct DensityFactors {
  float inv = 0.f, q = 0.f;
};
CVIS_HD DensityFactors density_factors(float weight_sum, const float inv_sigma[3],
                                       const ModelConsts& m) {
  DensityFactors f;
  f.q = div_rn(m.norm, weight_sum);
  const float n0 = mul_rn(inv_sigma[0], m.norm_scale[0]);
  const float n1 = mul_rn(inv_sigma[1], m.norm_scale[1]);
  const float n2 = mul_rn(inv_sigma[2], m.norm_scale[2]);
  f.inv = mul_rn(mul_rn(n0, n1), n2);
  return f;
}

CVIS_HD float density_of(float total, const DensityFactors& f) {
  return mul_rn(mul_rn(total, f.inv), f.q);
}

// The density from the sums: total * n0 n1 n2 * (2 pi)^(-3/2) / (L wsum).
CVIS_HD float kde_density(float total, float weight_sum, const float inv_sigma[3],
                          const ModelConsts& m) {
  return density_of(total, density_factors(weight_sum, inv_sigma, m));
}

// The sum of the positional weights of the neighbours inside the image, in kde_sums' order (the
// same bits as its weight_sum).
CVIS_HD float kde_weight_sum(int px, int py, const ModelConsts& m) {
  float wsum = 0.0f;
  const int r = m.radius, side = 2 * r + 1;
  for (int dy = -r; dy <= r; ++dy) {
    if (py + dy < 0 || py + dy >= m.height)
      continue;
    for (int dx = -r; dx <= r; ++dx) {
      if (px + dx >= 0 && px + dx < m.width)
        wsum = add_rn(wsum, m.weights[(dy + r) * side + (dx + r)]);
    }
  }
  return wsum;
}

// Early decision of the density sum (README "Early exit"). With kernels whose terms are never
// negative (the analytic ones: kernel_terms_nonnegative), a partial sum, finished with the
// remaining terms taken as 0 in the same operations and order, is a lower bound of the full sum:
// round-to-nearest addition and multiplication are monotone in each operand. So is the density
// of that bound. Once it reaches `cut` (the larger of threshold and update_threshold),
// classify_density() of the full density is 0, whatever the remaining terms are: the sum can stop
// with the same raw classification. The density it then reports is the bound, not the density.
struct EarlyCut {
  DensityFactors f;
  float weight_sum = 0.f; // the full sum of the weights (kde_weight_sum)
  float cut = 0.f;
};
CVIS_HD EarlyCut early_cut(float weight_sum, const float inv_sigma[3], const ModelConsts& m) {
  EarlyCut e;
  e.f = density_factors(weight_sum, inv_sigma, m);
  e.weight_sum = weight_sum;
  e.cut = m.threshold > m.update_threshold ? m.threshold : m.update_threshold;
  return e;
}
CVIS_HD bool decided_background(float bound, const EarlyCut& e) {
  return density_of(bound, e.f) >= e.cut;
}

// Whether every term of the density sum is >= 0 for a kernel (bgsub::Kernel as int): the analytic
// ones (exp of a real number). CPWL tables fitted by projection may dip below 0 near the cut-off.
CVIS_HD bool kernel_terms_nonnegative(int kernel) {
  return kernel == static_cast<int>(Kernel::kExact) || kernel == static_cast<int>(Kernel::kFast) ||
         kernel == static_cast<int>(Kernel::kFastFused);
}

// Samples summed between two early-decision checks of kde_sums.
inline constexpr int kEarlyCheckEvery = 8;

// Sum over the neighbourhood of w_q * sum_k K(x - s_qk), and the sum of the weights used (Eq. of
// README "density"). Neighbours outside the image are skipped. `sample(k, x, y)` returns sample k
// of pixel (x, y); `prod(t0, t1, t2)` the kernel product for the three scaled differences
// t_c = |x_c - s_c| * scale[c]. The summation order (dy, dx, k) is fixed: both backends use it.
// With `early` (kernels with nonnegative terms only), the sum stops once decided_background() holds
// for the bound, every kEarlyCheckEvery samples; *total is then that bound.
template <typename SampleFn, typename ProdFn>
CVIS_HD void kde_sums(uint32_t feat, int px, int py, const ModelConsts& m, const float scale[3],
                      SampleFn sample, ProdFn prod, float* total, float* weight_sum,
                      const EarlyCut* early = nullptr) {
  float acc = 0.0f, wsum = 0.0f;
  const int r = m.radius, side = 2 * r + 1;
  const float fb[3] = {biased_channel(feat, 0), biased_channel(feat, 1), biased_channel(feat, 2)};
  for (int dy = -r; dy <= r; ++dy) {
    const int y = py + dy;
    if (y < 0 || y >= m.height)
      continue;
    for (int dx = -r; dx <= r; ++dx) {
      const int x = px + dx;
      if (x < 0 || x >= m.width)
        continue;
      const float w = m.weights[(dy + r) * side + (dx + r)];
      float s = 0.0f;
      for (int k = 0; k < m.num_samples; ++k) {
        const uint32_t ref = sample(k, x, y);
        s = add_rn(s, prod(kernel_arg(ref, fb, scale, 0), kernel_arg(ref, fb, scale, 1),
                           kernel_arg(ref, fb, scale, 2)));
        if (early && k % kEarlyCheckEvery == kEarlyCheckEvery - 1) {
          const float bound = add_rn(acc, mul_rn(w, s));
          if (decided_background(bound, *early)) {
            *total = bound;
            *weight_sum = early->weight_sum;
            return;
          }
        }
      }
      acc = add_rn(acc, mul_rn(w, s));
      wsum = add_rn(wsum, w);
    }
  }
  *total = acc;
  *weight_sum = wsum;
}

// Own-samples test of Params::update_own: whether pixel p's own L samples alone explain its
// feature, i.e. the density of (D) restricted to q = p (weight 1) is >= threshold, and one of them
// holds it (within m.own_levels in every channel). A background pixel that only its neighbours'
// samples explain does not update: at the contour of a flat object that a moving background's
// wide kernels or a neighbour's samples explain, the object's colour would otherwise enter the
// pixel's samples and, through them, its neighbours' sums, a layer a frame. The holding sample
// keeps out a colour that the pixel's own wide kernels explain but none of its samples holds.
// `sample(k)` returns the pixel's sample k; `nonneg` (kernel_terms_nonnegative) allows stopping
// once the partial sum's density reaches the threshold and a sample held the value (the same
// answer: the terms are >= 0). On a still background the first sample does both.
template <typename SampleFn, typename ProdFn>
CVIS_HD bool own_explained(uint32_t feat, const ModelConsts& m, const float scale[3],
                           const float inv_sigma[3], SampleFn sample, ProdFn prod, bool nonneg) {
  const float fb[3] = {biased_channel(feat, 0), biased_channel(feat, 1), biased_channel(feat, 2)};
  const DensityFactors f = density_factors(1.0f, inv_sigma, m);
  float s = 0.0f;
  bool held = false;
  for (int k = 0; k < m.num_samples; ++k) {
    const uint32_t ref = sample(k);
    s = add_rn(s, prod(kernel_arg(ref, fb, scale, 0), kernel_arg(ref, fb, scale, 1),
                       kernel_arg(ref, fb, scale, 2)));
    if (!held) {
      bool near = true;
      for (int c = 0; c < 3; ++c) {
        const int d = channel(feat, c) - channel(ref, c);
        near = near && (d < 0 ? -d : d) <= m.own_levels;
      }
      held = near;
    }
    if (nonneg && held && density_of(s, f) >= m.threshold)
      return true;
  }
  return held && density_of(s, f) >= m.threshold;
}

// Raw classification of a density: foreground, weak background (below update_threshold: kept out
// of the conservative update) or background.
inline constexpr uint8_t kRawForeground = 255;
inline constexpr uint8_t kRawWeakBackground = 1;
// Foreground by density, explained as a cast shadow (Params::shadows): background in the mask,
// never an update (the shadow's colours must not enter the samples).
inline constexpr uint8_t kRawShadow = 2;
// Background by density that the pixel's own samples do not explain (Params::update_own): only its
// neighbours' do. Background in the mask; updates only where it continues a neighbour's background
// in the frame (updatable).
inline constexpr uint8_t kRawBorrowed = 3;
// kRawBorrowed that borrowed_learnable() lets update (set between the ghost passes and the update).
inline constexpr uint8_t kRawLent = 4;
// Foreground by density, explained as a blend of the pixel's and a neighbour's background
// (Params::shift_test, shift_explained): background in the mask, never an update, and counted as
// raw foreground by the shot-change rule (a new scene's values are often such blends).
inline constexpr uint8_t kRawShifted = 5;

// Whether a kRawBorrowed pixel at (x, y) with value v may learn it: a 4-neighbour is background
// that its own samples explain (raw 0) and at least `need` of that neighbour's L samples
// (`sample(k, x, y)`) lie within `levels` of v in every channel. Revealed background is what its
// neighbours' samples hold (a ghost's contour still dissolves through the update); a flat object's
// colour is at most an occasional sample of the moving background beside it, and a contour pixel
// that has learnt it holds it in fewer than `need` of its samples for `need` frames (lend_need()).
// Reads raw values and samples only (the pass that writes kRawLent leaves both 3 and 4 != 0, and
// no sample moves).
template <typename At, typename SampleFn>
CVIS_HD bool borrowed_learnable(At raw, SampleFn sample, int L, uint32_t v, int levels, int need,
                                int x, int y, int w, int h) {
  for (int n = 0; n < 4; ++n) {
    const int xx = x + (n == 0 ? -1 : (n == 1 ? 1 : 0));
    const int yy = y + (n == 2 ? -1 : (n == 3 ? 1 : 0));
    if (xx < 0 || yy < 0 || xx >= w || yy >= h || raw(xx, yy) != 0)
      continue;
    int matches = 0;
    // kBatch samples at a time, then a stop once `need` is reached or out of reach: the same
    // answer as a stop after every sample (the count only grows), and on the GPU the batch's loads
    // are in flight together (one at a time, each waited for DRAM before the next test).
    constexpr int kBatch = 8;
    for (int k0 = 0; k0 < L && matches < need && matches + (L - k0) >= need; k0 += kBatch) {
      uint32_t s[kBatch];
      for (int u = 0; u < kBatch; ++u)
        s[u] = k0 + u < L ? sample(k0 + u, xx, yy) : v;
      for (int u = 0; u < kBatch; ++u) {
        const uint32_t d = absdiff3(v, s[u]);
        matches += k0 + u < L && channel(d, 0) <= levels && channel(d, 1) <= levels &&
                   channel(d, 2) <= levels;
      }
    }
    if (matches >= need)
      return true;
  }
  return false;
}

// A bandwidth median (any channel) above this many levels is wide: the pixel's background moves
// (leaves, grass, water). On the corpora's still scenes, creeping cameras included, at most 0.4% of
// the pixels have one, on moving ones 2.8% or more (docs/elements/cudabgsub.md).
inline constexpr int kWideMedian = 6;
CVIS_HD bool wide_bandwidth(uint32_t medians) {
  return channel(medians, 0) > kWideMedian || channel(medians, 1) > kWideMedian ||
         channel(medians, 2) > kWideMedian;
}

CVIS_HD uint8_t classify_density(float d, const ModelConsts& m) {
  return d < m.threshold ? kRawForeground : (d < m.update_threshold ? kRawWeakBackground : 0);
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

// Selective update rule: may this pixel refresh its samples? Never a shadow. `final_mask` is its
// value in the final (cleaned) mask; `raw(x, y)` reads the raw classification; w, h: the image
// size. Conservative: the raw classification must say background too (density >= update_threshold),
// unless the pixel is an isolated raw detection (no raw foreground among its 8 neighbours: noise,
// which the clean-up removed, and which must keep following a drifting background). So the clean-up
// cannot let object colours into the samples (it erases object corners and thin parts), where the
// neighbours' density sums would pick them up and spread them.
// kRawBorrowed never updates; kRawLent (borrowed_learnable() held for it before the update) does.
template <typename At>
CVIS_HD bool updatable(At raw, uint8_t final_mask, int x, int y, int w, int h, bool conservative) {
  if (final_mask)
    return false;
  const uint8_t self = raw(x, y);
  if (self == kRawShadow || self == kRawBorrowed || self == kRawShifted)
    return false;
  if (self == kRawLent)
    return true;
  if (!conservative)
    return true;
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

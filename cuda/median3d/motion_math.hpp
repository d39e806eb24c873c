// Per-pixel arithmetic of the motion detector (motion.hpp), shared verbatim by the CPU reference
// and the CUDA kernels (CVIS_HD). Integer only, so both backends compute identical bits.
#pragma once

#include <cstdint>

#include "common/color.hpp"
#include "common/hd.hpp"
#include "common/segmentation.hpp"
#include "median3d_math.hpp"

namespace cvis::median3d {

// The value of rank `rank` (0 = smallest) among `count` 8-bit values, `at(k)` giving value k:
// bit by bit from the top, the candidate c = prefix | bit is kept when #(values < c) <= rank.
// Exact; 8 passes over the values (the GPU unrolls them over registers).
template <typename At> CVIS_HD int select_rank(At at, int count, int rank) {
  int cur = 0;
  for (int bit = 7; bit >= 0; --bit) {
    const int cand = cur | (1 << bit);
    int below = 0;
    for (int k = 0; k < count; ++k)
      below += at(k) < cand;
    if (below <= rank)
      cur = cand;
  }
  return cur;
}

// Median B (rank (K - 1) / 2: exact for odd K) and median absolute deviation D = median |s_k - B|
// of the K samples `at(k)`.
template <typename At> CVIS_HD void median_mad(At at, int count, int* median, int* mad) {
  const int rank = (count - 1) / 2;
  const int b = select_rank(at, count, rank);
  *median = b;
  *mad = select_rank(
      [&](int k) {
        const int d = at(k) - b;
        return d < 0 ? -d : d;
      },
      count, rank);
}

// Whether background pixel (x, y) adds a sample at frame `frame`: once every `period` frames, the
// pixels staggered by (x + 3 y) mod period so that each frame updates the same share of the image.
CVIS_HD bool sample_phase(int x, int y, int64_t frame, int period) {
  return (frame + x + 3 * y) % period == 0;
}

// Threshold of a pixel from its deviation: clamp(round(noise_factor * D), tau_min, tau_max), with
// noise_factor in 1/16 steps (the caller passes round(16 * noise_factor)) so that it stays integer.
CVIS_HD int tau_of(int mad, int factor16, int tau_min, int tau_max) {
  const int t = (mad * factor16 + 8) >> 4;
  return t < tau_min ? tau_min : (t > tau_max ? tau_max : t);
}

// The deviations whose threshold is clamped (tau_of() is non-decreasing in D): D <= *low gives
// tau_min, D >= *high gives tau_max (*high = 256: no D does). A refresh whose deviations show D <=
// low (one count) needs no selection of D at all, which is the common case of a still background.
inline void tau_clamp_range(int factor16, int tau_min, int tau_max, int* low, int* high) {
  *low = 0;
  while (*low < 255 && tau_of(*low + 1, factor16, tau_min, tau_max) == tau_min)
    ++*low;
  *high = 256;
  while (*high > 0 && tau_of(*high - 1, factor16, tau_min, tau_max) == tau_max)
    --*high;
  if (*high <= *low) // tau_min == tau_max: every D gives it
    *high = 256;
}

// A threshold widened by 1/g (tau_scale16 = round(2^32 / g16) when g < 1, else 65536), rounded.
CVIS_HD int scale_tau(int tau, uint32_t tau_scale16) {
  return static_cast<int>((static_cast<uint64_t>(tau) * tau_scale16 + 32768u) >> 16);
}

// Illumination compensation of one channel value: center + (v - center - offset) / g, rounded half
// away from zero, clamped to 0..255, with g16 = round(g * 2^16). Luma: center = the black level (16
// for studio-range YUV, 0 otherwise), offset 0; chroma: center 128 and the frame's chroma offset.
// g16 = 65536 and offset 0 leave v unchanged.
CVIS_HD int compensate(int v, int center, int offset, uint32_t g16) {
  const int64_t num = static_cast<int64_t>(v - center - offset) * 131072;
  const int64_t den = 2 * static_cast<int64_t>(g16);
  const int64_t q = num >= 0 ? (num + g16) / den : -((-num + g16) / den);
  const int64_t r = center + q;
  return r < 0 ? 0 : (r > 255 ? 255 : static_cast<int>(r));
}

// The background value shown at the current illumination: center + (b - center) g (luma), rounded.
CVIS_HD int uncompensate(int b, int center, uint32_t g16) {
  const int64_t num = static_cast<int64_t>(b - center) * g16;
  const int64_t q = num >= 0 ? (num + 32768) >> 16 : -((-num + 32768) >> 16);
  const int64_t r = center + q;
  return r < 0 ? 0 : (r > 255 ? 255 : static_cast<int>(r));
}

// The background output of a pixel that is background in this frame (live_background): its luma
// `v` itself (a moving background, foliage or water, is its own best estimate; the median is off by
// the motion's amplitude), or, where v is within tau_min / 2 of the shown median `b` (camera noise
// and coding only), their rounded mean, which halves the frame's noise.
CVIS_HD int live_background_value(int v, int b, int tau_min) {
  const int d = v > b ? v - b : b - v;
  return 2 * d <= tau_min ? (v + b + 1) >> 1 : v;
}

// A chroma value's deviation from the background scaled by the gain: (v - 128) - (b - 128) g,
// rounded (the vote of a background pixel for the frame's chroma offset).
CVIS_HD int chroma_offset_vote(int v, int b, uint32_t g16) {
  const int64_t s = static_cast<int64_t>(b - 128) * g16;
  const int64_t sb = s >= 0 ? (s + 32768) >> 16 : -((-s + 32768) >> 16);
  return static_cast<int>((v - 128) - sb);
}

// The channel values the detector works on: luma (Channels::kLuma: as median3d's luma), or Y, U, V
// (YUV formats: the chroma of the pixel's 2x2 block; packed RGB and GRAY8: full-range BT.601 luma
// as luma_of() and chroma 128 + (-43 R - 85 G + 128 B) / 256, 128 + (128 R - 107 G - 21 B) / 256,
// floored).
CVIS_HD void fetch_yuv(const PixelSource& s, int x, int y, bool luma, uint8_t out[3]) {
  if (s.format == PixelFormat::kNV12 || s.format == PixelFormat::kI420) {
    fetch_channels(s, x, y, luma, out);
    return;
  }
  uint8_t rgb[3];
  fetch_channels(s, x, y, false, rgb);
  int yuv[3];
  seg::rgb_to_yuv(rgb[0], rgb[1], rgb[2], yuv);
  out[0] = static_cast<uint8_t>(yuv[0]);
  if (luma)
    return;
  out[1] = static_cast<uint8_t>(yuv[1]);
  out[2] = static_cast<uint8_t>(yuv[2]);
}

// Background values and thresholds of one pixel, per channel.
struct PixelModel {
  int b[3];
  int tau[3];
};

CVIS_HD bool matches(const int v[3], const PixelModel& m, int nc, int* margin) {
  int worst = -255;
  // A constant trip count with a guard: the GPU keeps v, b and tau in registers (a loop bound of
  // nc indexes them at run time and puts them on the stack).
  for (int c = 0; c < 3; ++c) {
    if (c >= nc)
      break;
    const int d = (v[c] > m.b[c] ? v[c] - m.b[c] : m.b[c] - v[c]) - m.tau[c];
    worst = d > worst ? d : worst;
  }
  *margin = worst;
  return worst <= 0;
}

// adopt_tight: whether the values v lie within the minimum thresholds `tau_min[c]` (luma, chroma,
// chroma: widened by the gain like every threshold) of model m's medians in every channel.
CVIS_HD bool matches_tightly(const int v[3], const PixelModel& m, int nc, const int tau_min[3]) {
  for (int c = 0; c < 3; ++c) {
    if (c >= nc)
      break;
    const int d = v[c] > m.b[c] ? v[c] - m.b[c] : m.b[c] - v[c];
    if (d > tau_min[c])
      return false;
  }
  return true;
}

// The neighbour `t.neighbour` (index (dy + r) * (2r + 1) + (dx + r)) of pixel (x, y).
CVIS_HD void neighbour_xy(int x, int y, int r, int n, int* qx, int* qy) {
  const int side = 2 * r + 1;
  *qx = x + n % side - r;
  *qy = y + n / side - r;
}

// Outcome of the two tests for one pixel.
struct MotionTest {
  bool own;      // every channel: |v_c - B_pc| <= tau_pc
  int neighbour; // index (dy + r) * (2r + 1) + (dx + r) of the best matching neighbour q != p (the
                 // smallest worst-channel margin |v_c - B_qc| - tau_qc), -1 when none matches
};

// Calls fn(xx, yy, n) for each neighbour (xx, yy) of (x, y) within r inside the image that shows
// its background (`shows_background`, as below), n its index (dy + r) * (2r + 1) + (dx + r), in
// raster order, until fn returns true; returns whether it did.
template <typename ShowsBg, typename Fn>
CVIS_HD bool any_background_neighbour(int x, int y, int w, int h, int r, ShowsBg shows_background,
                                      Fn fn) {
  const int side = 2 * r + 1;
  for (int dy = -r; dy <= r; ++dy) {
    const int yy = y + dy;
    if (yy < 0 || yy >= h)
      continue;
    for (int dx = -r; dx <= r; ++dx) {
      const int xx = x + dx;
      if ((dx == 0 && dy == 0) || xx < 0 || xx >= w || !shows_background(xx, yy))
        continue;
      if (fn(xx, yy, (dy + r) * side + (dx + r)))
        return true;
    }
  }
  return false;
}

// `model(x, y)` returns a pixel's PixelModel, `shows_background(x, y)` whether that pixel passes
// its own test in this frame: only such neighbours are compared (a neighbour that does not show its
// own background, e.g. a pixel of a ghost or of an object, says nothing about what p's background
// may be; without this rule a slow object leaving its ghost matches the ghost's models and drags
// them along). Neighbours outside the image are skipped; ties go to the first in raster order.
template <typename ModelAt, typename ShowsBg>
CVIS_HD MotionTest motion_test(const int v[3], int nc, int x, int y, int w, int h, int r,
                               ModelAt model, ShowsBg shows_background) {
  MotionTest t;
  int margin;
  t.own = matches(v, model(x, y), nc, &margin);
  t.neighbour = -1;
  int best = 1;
  any_background_neighbour(x, y, w, h, r, shows_background, [&](int xx, int yy, int n) {
    if (matches(v, model(xx, yy), nc, &margin) && margin < best) {
      best = margin;
      t.neighbour = n;
    }
    return false;
  });
  return t;
}

// MotionParams::shift_test: whether values v that fail the own and neighbour tests are what a
// shift of the image by less than a neighbour's distance shows: a blend of p's median B_p and a
// neighbour's B_q, i.e. v lies on the segment B_p..B_q in (Y, U, V), off it by at most p's
// threshold in every channel. At an edge a creeping camera (a tripod settling, a pole swaying)
// moves values between two backgrounds by a pixel or two, where neither model explains them.
// Integer: with d = B_q - B_p and u = v - B_p, 0 <= u.d <= d.d and |u_c d.d - (u.d) d_c| <=
// tau_c d.d. `model` and `shows_background` as in motion_test: only neighbours within r (the
// callers: kShiftRadius, motion.hpp) that pass their own test are tried (a ghost's or an object's
// model is no background to blend with: a square moving off its ghost would be a blend of the
// ghost's colour). r = 0: none.
template <typename ModelAt, typename ShowsBg>
CVIS_HD bool shift_explained(const int v[3], const PixelModel& mp, int nc, int x, int y, int w,
                             int h, int r, ModelAt model, ShowsBg shows_background) {
  return any_background_neighbour(x, y, w, h, r, shows_background, [&](int xx, int yy, int) {
    const PixelModel mq = model(xx, yy);
    // int suffices: |d_c|, |u_c| <= 255, so d.d and |u.d| <= 3 * 255^2; the largest product,
    // tau_c d.d, is under 16 * 255 * 3 * 255^2 = 8.0e8 < 2^31 (thresholds widen by at most
    // 1 / kGainMin = 16).
    int dd = 0, ud = 0;
    for (int c = 0; c < 3; ++c) {
      if (c >= nc)
        break;
      const int d = mq.b[c] - mp.b[c];
      dd += d * d;
      ud += (v[c] - mp.b[c]) * d;
    }
    bool on = dd > 0 && ud >= 0 && ud <= dd;
    for (int c = 0; c < 3 && on; ++c) {
      if (c >= nc)
        break;
      const int off = (v[c] - mp.b[c]) * dd - ud * (mq.b[c] - mp.b[c]);
      on = (off < 0 ? -off : off) <= mp.tau[c] * dd;
    }
    return on;
  });
}

} // namespace cvis::median3d

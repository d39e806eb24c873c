// Per-pixel and per-frame arithmetic of the scene extensions (Params: illumination, shadows,
// shot_change), written once for the CPU reference and the CUDA kernels (CVIS_HD). Float
// operations through mul_rn/add_rn (common/exact_arith.hpp: no contraction), so both backends give
// the same bits.
#pragma once

#include <cstdint>

#include "bgsub_math.hpp"
#include "common/segmentation.hpp"

namespace cvis::bgsub {

// The illumination correction of one frame: gain g_c, its inverse (the frame is multiplied by it)
// and the bandwidth factor (1/sigma is multiplied by min(g, 1): below g = 1 the compensation
// amplifies the sensor noise by 1/g).
struct Gains {
  float g[3];
  float inv[3];
  float widen[3];
};

CVIS_HD Gains unit_gains() {
  return Gains{{1.f, 1.f, 1.f}, {1.f, 1.f, 1.f}, {1.f, 1.f, 1.f}};
}

// Channel c of the gains from the median g of its votes.
CVIS_HD void set_gain(float g, int c, Gains* out) {
  const bool apply = seg::gain_applies(g);
  out->g[c] = apply ? g : 1.0f;
  out->inv[c] = apply ? 1.0f / g : 1.0f;
  out->widen[c] = (apply && g < 1.0f) ? g : 1.0f;
}

// Channel c of the gains from its votes (seg::gain_median; `count(k)` reads bin k, n votes).
template <typename CountFn> CVIS_HD void solve_gain(CountFn count, uint32_t n, int c, Gains* out) {
  set_gain(seg::gain_median(count, n), c, out);
}

// Whether pixel votes for the gains: background in the previous frame's final mask and not a
// shadow in its raw classification (`raw_prev`: kRawShadow marks shadows).
CVIS_HD bool gain_voter(uint8_t mask_prev, uint8_t raw_prev) {
  return mask_prev == 0 && raw_prev != kRawShadow && raw_prev != kRawShifted;
}

// Channel c of the packed feature f multiplied by inv (1/g), rounded, clamped to 255.
CVIS_HD uint32_t compensate_feature(uint32_t f, const float inv[3]) {
  uint32_t out = 0;
  for (int c = 0; c < 3; ++c) {
    const float v = mul_rn(static_cast<float>(channel(f, c)), inv[c]);
    const int q = static_cast<int>(add_rn(v, 0.5f));
    out |= static_cast<uint32_t>(q > 255 ? 255 : q) << (8 * c);
  }
  return out;
}

// Shot-change rule: did the pixel change by more than `levels` in a channel since the previous
// frame?
CVIS_HD bool changed_since(uint32_t cur, uint32_t prev, int levels) {
  const uint32_t d = absdiff3(cur, prev);
  return static_cast<int>(channel(d, 0)) > levels || static_cast<int>(channel(d, 1)) > levels ||
         static_cast<int>(channel(d, 2)) > levels;
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

// Ghosts (Params::ghost_passes): does background pixel j's model explain feature x? At least
// `need` of its samples `sample(k)`, k < count, lie within `levels` of x in every channel (a
// ViBe-style match: the revealed background of a ghost looks like its background neighbours).
template <typename SampleFn>
CVIS_HD bool ghost_match(uint32_t x, SampleFn sample, int count, int levels, int need) {
  int found = 0;
  for (int k = 0; k < count; ++k) {
    const uint32_t d = absdiff3(x, sample(k));
    if (static_cast<int>(channel(d, 0)) <= levels && static_cast<int>(channel(d, 1)) <= levels &&
        static_cast<int>(channel(d, 2)) <= levels && ++found >= need)
      return true;
    if (found + (count - 1 - k) < need) // the rest cannot reach need
      return false;
  }
  return false;
}

// Brightness of a packed feature for the persistence filter's added-light rule
// (seg::AddedLight): the mean of r, g and b rounded, which is the intensity channel of a
// chromaticity feature, so the rule means the same in both colour spaces.
CVIS_HD uint8_t brightness(uint32_t f, bool chromaticity) {
  if (chromaticity)
    return static_cast<uint8_t>(channel(f, 2));
  return static_cast<uint8_t>((channel(f, 0) + channel(f, 1) + channel(f, 2) + 1) / 3);
}

// Frames for which a pixel has stayed within `levels` of the previous frame in every channel
// (saturating at 255): `still` of the previous frame, the pixel's features now and then.
CVIS_HD uint8_t still_frames(uint8_t still, uint32_t cur, uint32_t prev, int levels) {
  return changed_since(cur, prev, levels) ? 0 : static_cast<uint8_t>(still < 255 ? still + 1 : 255);
}

// Whether pixel may be a ghost pixel: raw foreground (the density, not the clean-up, put it in
// the mask) and still for at least `frames` frames (a moving object's pixels change).
CVIS_HD bool ghost_candidate(uint8_t raw, uint8_t still, int frames) {
  return raw == kRawForeground && still >= frames;
}

// Neighbour n of the ghost test, in the order tried: 0 left, 1 right, 2 up, 3 down.
CVIS_HD int ghost_dx(int n) {
  return n == 0 ? -1 : (n == 1 ? 1 : 0);
}
CVIS_HD int ghost_dy(int n) {
  return n == 2 ? -1 : (n == 3 ? 1 : 0);
}

// Whether raw classification `raw` says the pixel's own model explains its value (background or
// weak background; not foreground, not a shadow, not a shift).
CVIS_HD bool raw_explained(uint8_t raw) {
  return raw != kRawForeground && raw != kRawShadow && raw != kRawShifted;
}

// Shot-change rule: does raw classification `raw` count as raw foreground?
CVIS_HD bool raw_counts_foreground(uint8_t raw) {
  return raw == kRawForeground || raw == kRawShifted;
}

// Whether feature v lies on segment a-b within `levels` in every channel, across an edge whose
// change less its grey part exceeds 4/3 levels (along a grey edge, or between near colours, a
// blend is any value between the sides and no evidence): with d = b - a and u = v - a,
// 0 <= u.d <= d.d and |u_c d.d - (u.d) d_c| <= levels d.d. Integers (at most 255 * 3 * 255^2 in
// magnitude), so both backends agree bit for bit.
CVIS_HD bool on_segment(uint32_t v, uint32_t a, uint32_t b, int levels) {
  int d[3], u[3];
  for (int c = 0; c < 3; ++c) {
    d[c] = static_cast<int>(channel(b, c)) - static_cast<int>(channel(a, c));
    u[c] = static_cast<int>(channel(v, c)) - static_cast<int>(channel(a, c));
  }
  const int dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  const int ud = u[0] * d[0] + u[1] * d[1] + u[2] * d[2];
  const int sum = d[0] + d[1] + d[2];
  int chroma = 0; // 9 |d - (sum / 3)(1, 1, 1)|^2: the edge's change less its grey part
  for (int c = 0; c < 3; ++c)
    chroma += (3 * d[c] - sum) * (3 * d[c] - sum);
  if (chroma <= 16 * levels * levels || ud < 0 || ud > dd)
    return false;
  for (int c = 0; c < 3; ++c) {
    const int off = u[c] * dd - ud * d[c];
    if ((off < 0 ? -off : off) > levels * dd)
      return false;
  }
  return true;
}

// Neighbour j of the shift test (0..kShiftNeighbours - 1): the 5x5 cell j around the pixel, or
// j + 1 past the centre. Those within `reach` (1: the 8-neighbours; 2: all 24) are tried.
inline constexpr int kShiftNeighbours = 24;
CVIS_HD constexpr int shift_dx(int j) {
  return (j < 12 ? j : j + 1) % 5 - 2;
}
CVIS_HD constexpr int shift_dy(int j) {
  return (j < 12 ? j : j + 1) / 5 - 2;
}
CVIS_HD constexpr bool shift_within(int j, int reach) {
  const int dx = shift_dx(j), dy = shift_dy(j);
  return (dx < 0 ? -dx : dx) <= reach && (dy < 0 ? -dy : dy) <= reach;
}

// The shift test's neighbours of pixel (x, y): bit j set when neighbour j lies within `reach` (1
// or 2) and in the w x h image, and its own model explains it in this frame (`raw(x, y)`:
// raw_explained()).
template <typename RawFn>
CVIS_HD unsigned shift_neighbours(RawFn raw, int x, int y, int w, int h, int reach) {
  unsigned explained = 0;
  for (int j = 0; j < kShiftNeighbours; ++j) {
    const int xx = x + shift_dx(j), yy = y + shift_dy(j);
    if (shift_within(j, reach) && xx >= 0 && yy >= 0 && xx < w && yy < h &&
        raw_explained(raw(xx, yy)))
      explained |= 1u << j;
  }
  return explained;
}

// Shift test (Params::shift_test) of raw-foreground pixel (x, y) with value v: a camera that
// creeps by a fraction of a pixel shows, at an edge, a blend of the pixel's background and a
// neighbour's that neither model holds. True when for some sample index k < count and some
// neighbour within `reach` whose own model explains it in this frame (`raw(x, y)`:
// raw_explained()), v lies on the segment from the pixel's sample k to the neighbour's sample k
// (on_segment).
// Reads raw values and samples only; the pass writes kRawShifted over kRawForeground, which no
// neighbour's test accepts either way, so the order of the pixels does not matter. The explained
// neighbours are found first: inside a foreground region there are none, and no sample is read.
// Any (k, neighbour) pair decides, so the pairs may be tested in any order (the CUDA pass splits
// them over a warp).
template <typename RawFn, typename SampleFn>
CVIS_HD bool shift_explained(uint32_t v, RawFn raw, SampleFn sample, int x, int y, int w, int h,
                             int count, int levels, int reach) {
  const unsigned explained = shift_neighbours(raw, x, y, w, h, reach);
  for (int k = 0; explained && k < count; ++k) {
    const uint32_t a = sample(k, x, y);
    for (int j = 0; j < kShiftNeighbours; ++j) {
      if ((explained >> j & 1u) &&
          on_segment(v, a, sample(k, x + shift_dx(j), y + shift_dy(j)), levels))
        return true;
    }
  }
  return false;
}

// The ghost test of pixel (x, y) in one pass: 0 when it is not a ghost pixel, else 1 + the index
// n (ghost_dx/ghost_dy) of the first 4-neighbour whose model explains the pixel's current value.
// A candidate (`candidate`: ghost_candidate()) is foreground in the pass's mask `mask(x, y)`. The
// neighbour (the source) is background in that mask, still too (`still(x, y)`: still_frames()
// reached the candidate's bound; a pixel that a moving object covers changes, so a moving
// object's model does not spread into it), and its own model explains its own value in this
// frame's density test (`raw(x, y)`: raw_explained()): a pixel that a pass took over in this frame
// is raw foreground, so it is no source before the next frame's classification has tested its new
// model, and a still object's interior is not peeled a layer per pass through copies of one
// contour pixel's samples. The candidate's value lies within `levels` of the source's value in
// every channel (`cur(x, y)`: no edge in the frame across the contour, as at a ghost's) and of
// `need` of the source's samples (`sample(k, x, y)`: sample k of pixel (x, y)).
template <typename MaskFn, typename StillFn, typename RawFn, typename CurFn, typename SampleFn>
CVIS_HD int ghost_source(MaskFn mask, StillFn still, RawFn raw, CurFn cur, bool candidate,
                         SampleFn sample, int x, int y, int w, int h, int count, int levels,
                         int need) {
  if (!candidate || !mask(x, y))
    return 0;
  need = need < count ? need : count;
  const uint32_t v = cur(x, y);
  for (int n = 0; n < 4; ++n) {
    const int xx = x + ghost_dx(n), yy = y + ghost_dy(n);
    if (xx < 0 || yy < 0 || xx >= w || yy >= h || mask(xx, yy) || !still(xx, yy))
      continue;
    if (!raw_explained(raw(xx, yy)) || changed_since(v, cur(xx, yy), levels))
      continue;
    if (ghost_match(
            v, [&](int k) { return sample(k, xx, yy); }, count, levels, need))
      return 1 + n;
  }
  return 0;
}

} // namespace cvis::bgsub

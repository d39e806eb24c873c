// Pieces shared by the segmentation methods (median3d's motion detector, bgsub), written once for
// the CPU references and the CUDA kernels (CVIS_HD):
// - global illumination gain: the median of the ratios frame / background over background pixels,
//   from a histogram of quantised ratios (kGainBins bins of 1/kGainScale), and its dead zone;
// - the 3x3 majority clean-up of a mask;
// - the shot-change rule (a host-side state machine fed with per-frame pixel counts).
#pragma once

#include <cstdint>

#include "common/hd.hpp"

namespace cvis::seg {

// ---------------------------------------------------------------------------------------------
// Illumination gain. A pixel with current value v and background value b (b >= kGainMinLevel)
// votes for the bin round(kGainScale * v / b), clamped to the histogram; the gain is the median of
// the votes, interpolated inside the median bin, when at least kGainMinVotes voted and the votes
// agree (gain_votes_agree); else 1.
inline constexpr int kGainBins = 1024;   // ratios 0 .. 4 - 1/256
inline constexpr int kGainScale = 256;   // bin width 1/256 of a ratio
inline constexpr int kGainMinLevel = 24; // darker background values are too noisy to vote
inline constexpr uint32_t kGainMinVotes = 64;
// The smallest gain: when (nearly) every voter went black the median falls in bin 0, whose lower
// half would give g <= 0, and compensation divides by g.
inline constexpr float kGainMin = 1.0f / 16;

// Votes agree on a gain when their middle half (quartile bins q1 <= q3) spans at most a quarter of
// the ratio in its middle: 8 (q3 - q1) <= q1 + q3. A change of the light moves every voter alike
// (the static corpus' lighting changes and foliage: at most 0.125); where the background is darker
// than kGainMinLevel in a channel, the only voters are pixels that flickered bright (glints on
// dark water: 0.6 to 1.5) and their median would re-scale the frame by a factor of up to 12.
CVIS_HD bool gain_votes_agree(int q1, int q3) {
  return 8 * (q3 - q1) <= q1 + q3;
}

// Gains within this of 1 are not applied: the median of a noisy ratio wanders by about 1/100,
// re-scaling every frame by that would only add noise, and a gain of 1 leaves the frame
// bit-identical.
inline constexpr float kGainDeadZone = 1.0f / 64;

// Whether gain g is applied: |g - 1| >= kGainDeadZone (a NaN is applied, as |NaN - 1| < x is
// false).
CVIS_HD bool gain_applies(float g) {
  return !(g - 1.0f < kGainDeadZone && 1.0f - g < kGainDeadZone);
}

CVIS_HD int gain_bin(int v, int b) {
  const int k = (2 * kGainScale * v + b) / (2 * b); // round(256 v / b), b > 0
  return k < kGainBins ? k : kGainBins - 1;
}

// The gain at fraction `frac` of median bin k (bin k covers ratios [(k - 0.5), (k + 0.5)) / 256),
// at least kGainMin.
CVIS_HD float gain_in_bin(int k, double frac) {
  const float g = static_cast<float>((k - 0.5 + frac) / kGainScale);
  return g < kGainMin ? kGainMin : g;
}

// Median of the votes (`hist`, kGainBins counts adding up to `n`), linearly interpolated inside the
// median bin so that the gain is not quantised to 1/256 (gain_in_bin: the votes are taken as
// spread evenly over the bin). 1 when n < kGainMinVotes or the votes disagree (gain_votes_agree of
// the first bins whose inclusive prefix reaches n / 4 and 3 n / 4).
template <typename CountFn> CVIS_HD float gain_median(CountFn count, uint32_t n) {
  if (n < kGainMinVotes)
    return 1.0f;
  const double half = 0.5 * static_cast<double>(n);
  const uint64_t n64 = n;
  uint64_t cum = 0;
  int q1 = -1, q3 = -1;
  float g = 1.0f;
  bool found = false;
  for (int k = 0; k < kGainBins && q3 < 0; ++k) {
    const uint64_t c = count(k);
    if (!found && c > 0 && static_cast<double>(cum + c) >= half) {
      const double frac = (half - static_cast<double>(cum)) / static_cast<double>(c);
      g = gain_in_bin(k, frac);
      found = true;
    }
    cum += c;
    if (q1 < 0 && 4 * cum >= n64)
      q1 = k;
    if (4 * cum >= 3 * n64)
      q3 = k;
  }
  return found && gain_votes_agree(q1, q3) ? g : 1.0f;
}

// Chroma offset: the median of the differences v - b (kOffsetBins bins, v - b + 255) of background
// pixels, rounded to a level; 0 when fewer than kGainMinVotes voted.
inline constexpr int kOffsetBins = 511;
template <typename CountFn> CVIS_HD int offset_median(CountFn count, uint32_t n) {
  if (n < kGainMinVotes)
    return 0;
  uint32_t cum = 0;
  for (int k = 0; k < kOffsetBins; ++k) {
    cum += count(k);
    if (2 * cum >= n)
      return k - 255;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// 3x3 majority ("median") clean-up biased towards foreground (the one cudabgsub applies): a
// foreground pixel stays with 4 of its 9 pixels set, a background pixel becomes foreground with 5.
// `at(x, y)` reads the source (foreground = 255); coordinates are clamped to the image.
template <typename At> CVIS_HD uint8_t majority3x3(At at, int x, int y, int w, int h) {
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

// ---------------------------------------------------------------------------------------------
// Cast shadows. A shadow dims the light on a surface: the luma drops by a factor a (above the black
// level) and the chroma's distance from neutral (128) drops by the same factor, the hue unchanged.
// A pixel (y, u, v) over a background (by, bu, bv) is explained as a shadow when
//   a = (y - black) / (by - black) lies in [lo16 / 16, hi16 / 16] (by - black >= 24) and
//   |(u - 128) - a (bu - 128)| <= tol and |(v - 128) - a (bv - 128)| <= tol (levels).
// Integer: a stays the fraction (y - black) / (by - black). Dark grey objects over a grey
// background satisfy it too (documented limitation: they are lost as shadows).
CVIS_HD bool shadow_yuv(int y, int u, int v, int by, int bu, int bv, int black, int lo16, int hi16,
                        int tol) {
  const int num = y - black, den = by - black;
  if (den < 24 || num < 0 || 16 * num < lo16 * den || 16 * num > hi16 * den)
    return false;
  const int eu = (u - 128) * den - num * (bu - 128);
  const int ev = (v - 128) * den - num * (bv - 128);
  return (eu < 0 ? -eu : eu) <= tol * den && (ev < 0 ? -ev : ev) <= tol * den;
}

// Full-range BT.601 Y, U, V of 8-bit R, G, B (Y as median3d's luma_of; chroma floored).
CVIS_HD void rgb_to_yuv(int r, int g, int b, int out[3]) {
  out[0] = (77 * r + 150 * g + 29 * b + 128) >> 8;
  out[1] = 128 + ((-43 * r - 85 * g + 128 * b) >> 8);
  out[2] = 128 + ((128 * r - 107 * g - 21 * b) >> 8);
}

// ---------------------------------------------------------------------------------------------
// Shot changes. A cut replaces the scene in (nearly) every pixel at once: most pixels differ from
// the previous frame *and* from the background model, and they keep differing from the model
// afterwards. An illumination change is gradual (small frame-to-frame differences) and compensated
// by the gain; a large object entering covers part of the frame and moves in over several frames.
// Rule: a frame whose foreground fraction and frame-difference fraction are both >= `fraction`
// starts a candidate; the candidate is confirmed when the foreground fraction stays >= `fraction`
// for `frames` frames in a row (the starting frame included). The caller then re-initialises its
// model from the current frame.
class ShotChangeRule {
public:
  void configure(double fraction, int frames) {
    fraction_ = fraction;
    frames_ = frames < 1 ? 1 : frames;
    reset();
  }
  void reset() { run_ = 0; }
  // Feeds one frame's fractions; true when a shot change is confirmed at this frame.
  bool update(double foreground_fraction, double difference_fraction) {
    if (foreground_fraction < fraction_) {
      run_ = 0;
      return false;
    }
    if (run_ == 0 && difference_fraction < fraction_)
      return false; // not abrupt: no candidate
    if (++run_ < frames_)
      return false;
    run_ = 0;
    return true;
  }
  bool pending() const { return run_ > 0; }

private:
  double fraction_ = 0.5;
  int frames_ = 2;
  int run_ = 0;
};

} // namespace cvis::seg

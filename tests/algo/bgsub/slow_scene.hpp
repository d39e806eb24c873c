// A seeded scene for the slow-object and ghost tests of the background model: a smooth random
// texture (levels 50..203) with Gaussian noise, and one flat-coloured rounded rectangle (no texture
// inside: a still interior looks like background to a per-pixel stillness test) that moves
// horizontally. Shared by the CPU tests and the CUDA parity test.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "test_images.hpp"

namespace cvis::bgsub::test {

struct SlowObject {
  int first = 0, last = 1 << 30; // frames in which it is painted
  float x0 = 10.f, y0 = 10.f;    // top-left corner at frame `first`
  float speed = 0.f;             // px/frame to the right while moving
  int stop_after = 1 << 30;      // frames of motion after `first`, then it stays put
  int w = 20, h = 14;
  uint8_t rgb[3] = {230, 20, 20}; // >= 27 levels from the texture in every channel
};

// The tests' object: 36x26 at (8, 15), appearing on frame 22 (after a 16-frame warm-up), moving
// right at `speed` px/frame for `stop_after` frames, then still.
inline SlowObject test_object(float speed, int stop_after) {
  SlowObject o;
  o.first = 22;
  o.x0 = 8.f;
  o.y0 = 15.f;
  o.w = 36;
  o.h = 26;
  o.speed = speed;
  o.stop_after = stop_after;
  return o;
}

class SlowScene {
public:
  // Background: `level` + `texture` * (smooth random texture - 128) in every channel.
  SlowScene(int w, int h, uint32_t seed, float noise_sigma, float level = 0.f, float texture = -1.f)
      : w_(w), h_(h), seed_(seed), sigma_(noise_sigma), level_(level), texture_(texture),
        base_(cvis::test::make_rgba(cvis::test::Pattern::kSmoothNoise, w, h, seed)) {}

  int width() const { return w_; }

  // The background's colour at (x, y) without noise, plus `offset` levels in every channel.
  void background_colour(int x, int y, int offset, uint8_t rgb[3]) const {
    const ImageView bv = base_.view();
    const uint8_t* p = bv.data[0] + y * bv.pitch[0] + 4 * x;
    for (int c = 0; c < 3; ++c)
      rgb[c] = static_cast<uint8_t>(std::clamp(std::round(bg(p[c])) + offset, 0.f, 255.f));
  }
  int height() const { return h_; }

  // Left edge of the object at frame t (whole pixels: x0 + speed * moving frames, rounded down).
  static int left(const SlowObject& o, int t) {
    const int moved = std::min(t - o.first, o.stop_after);
    return static_cast<int>(std::floor(o.x0 + o.speed * static_cast<float>(moved)));
  }

  // Whether (x, y) is inside the object at frame t (corners cut by 2 pixels: a rounded shape).
  static bool inside(const SlowObject& o, int t, int x, int y) {
    if (t < o.first || t > o.last)
      return false;
    const int lx = x - left(o, t), ly = y - static_cast<int>(o.y0);
    if (lx < 0 || ly < 0 || lx >= o.w || ly >= o.h)
      return false;
    const int cx = std::min(lx, o.w - 1 - lx), cy = std::min(ly, o.h - 1 - ly);
    return cx + cy >= 2;
  }

  // Interior: inside with all 8 neighbours inside (the scorer's 1-pixel band left out).
  static bool interior(const SlowObject& o, int t, int x, int y) {
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (!inside(o, t, x + dx, y + dy))
          return false;
    return true;
  }

  // The fraction of object o's interior pixels at frame t that `mask` (GRAY8, nonzero =
  // foreground) marks; 1 when the object has no interior in the frame.
  static double interior_recall(const SlowObject& o, int t, cvis::test::HostImage& mask) {
    int in = 0, hit = 0;
    for (int y = 0; y < mask.height(); ++y) {
      for (int x = 0; x < mask.width(); ++x) {
        if (interior(o, t, x, y)) {
          ++in;
          hit += mask.plane(0)[y * mask.pitch(0) + x] != 0;
        }
      }
    }
    return in ? static_cast<double>(hit) / in : 1.0;
  }

  // Frame t as RGBA.
  cvis::test::HostImage frame(const SlowObject& o, int t) const {
    cvis::test::HostImage out(PixelFormat::kRGBA, w_, h_, 8);
    std::mt19937 rng(seed_ * 7919u + static_cast<uint32_t>(t));
    std::normal_distribution<float> noise(0.f, sigma_);
    const ImageView bv = base_.view();
    for (int y = 0; y < h_; ++y) {
      for (int x = 0; x < w_; ++x) {
        const uint8_t* p = bv.data[0] + y * bv.pitch[0] + 4 * x;
        const bool in = inside(o, t, x, y);
        uint8_t v[3];
        for (int c = 0; c < 3; ++c) {
          const float c0 = in ? o.rgb[c] : bg(p[c]);
          v[c] = static_cast<uint8_t>(std::clamp(std::round(c0 + noise(rng)), 0.f, 255.f));
        }
        out.set_rgb(x, y, v[0], v[1], v[2]);
      }
    }
    return out;
  }

private:
  int w_, h_;
  uint32_t seed_;
  float sigma_;
  float level_, texture_;
  cvis::test::HostImage base_;

  float bg(uint8_t v) const {
    return texture_ < 0 ? v * 0.6f + 50.f : level_ + texture_ * (static_cast<float>(v) - 128.f);
  }
};

} // namespace cvis::bgsub::test

// A seeded scene for the shift test of the background model: a still background of sharp-edged
// rectangles of random colours (levels 20..235, 3-8 pixels a side, edges softened)
// seen by a camera that creeps by up to `amp` pixels (two slow sinusoids; bilinear sampling, so
// edges show blends of their two sides), Gaussian noise, and one flat object that appears after
// the warm-up. Shared by the CPU test and the CUDA parity test.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "test_images.hpp"

namespace cvis::bgsub::test {

class CreepScene {
public:
  CreepScene(int w, int h, uint32_t seed, float amp, float noise_sigma)
      : w_(w), h_(h), seed_(seed), amp_(amp), sigma_(noise_sigma) {
    // A plate 8 pixels larger than the frame on every side, tiled with rectangles of 3-8 pixels.
    pw_ = w + 16;
    ph_ = h + 16;
    plate_.assign(static_cast<size_t>(pw_) * ph_ * 3, 0.f);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> side(3, 8), level(20, 235);
    for (int y0 = 0; y0 < ph_;) {
      const int bh = side(rng);
      for (int x0 = 0; x0 < pw_;) {
        const int bw = side(rng);
        float col[3];
        for (int c = 0; c < 3; ++c)
          col[c] = static_cast<float>(level(rng));
        for (int y = y0; y < std::min(ph_, y0 + bh); ++y)
          for (int x = x0; x < std::min(pw_, x0 + bw); ++x)
            for (int c = 0; c < 3; ++c)
              plate_[(static_cast<size_t>(y) * pw_ + x) * 3 + c] = col[c];
        x0 += bw;
      }
      y0 += bh;
    }
    // One 3x3 box pass: edges become 3-pixel ramps, as in a photograph. With cells of 3-8 pixels
    // the bands a shift moves lie close enough to survive the mask's 3x3 clean-up.
    for (int pass = 0; pass < 1; ++pass) {
      std::vector<float> out(plate_.size());
      for (int y = 0; y < ph_; ++y)
        for (int x = 0; x < pw_; ++x)
          for (int c = 0; c < 3; ++c) {
            float sum = 0.f;
            for (int dy = -1; dy <= 1; ++dy)
              for (int dx = -1; dx <= 1; ++dx)
                sum += at(x + dx, y + dy, c);
            out[(static_cast<size_t>(y) * pw_ + x) * 3 + c] = sum / 9.f;
          }
      plate_.swap(out);
    }
  }

  // The object: a flat 18x14 rectangle at (object_x, object_y), painted from frame `object_first`.
  int object_first = 1 << 30, object_x = 20, object_y = 16;
  static constexpr int kObjectW = 18, kObjectH = 14;
  uint8_t object_rgb[3] = {240, 16, 200};

  bool inside_object(int t, int x, int y) const {
    return t >= object_first && x >= object_x && x < object_x + kObjectW && y >= object_y &&
           y < object_y + kObjectH;
  }

  // The camera's offset at frame t, in pixels.
  void offset(int t, float* dx, float* dy) const {
    *dx = amp_ * std::sin(6.2831853f * static_cast<float>(t) / 120.f);
    *dy = amp_ * std::sin(6.2831853f * static_cast<float>(t) / 170.f + 1.f);
  }

  // Frame t as RGBA.
  cvis::test::HostImage frame(int t) const {
    cvis::test::HostImage out(PixelFormat::kRGBA, w_, h_, 8);
    std::mt19937 rng(seed_ * 7919u + static_cast<uint32_t>(t));
    std::normal_distribution<float> noise(0.f, sigma_);
    float dx, dy;
    offset(t, &dx, &dy);
    for (int y = 0; y < h_; ++y) {
      for (int x = 0; x < w_; ++x) {
        const float sx = static_cast<float>(x) + 8.f + dx, sy = static_cast<float>(y) + 8.f + dy;
        const int x0 = static_cast<int>(std::floor(sx)), y0 = static_cast<int>(std::floor(sy));
        const float fx = sx - static_cast<float>(x0), fy = sy - static_cast<float>(y0);
        uint8_t v[3];
        for (int c = 0; c < 3; ++c) {
          const float top = at(x0, y0, c) * (1.f - fx) + at(x0 + 1, y0, c) * fx;
          const float bottom = at(x0, y0 + 1, c) * (1.f - fx) + at(x0 + 1, y0 + 1, c) * fx;
          const float bg = top * (1.f - fy) + bottom * fy;
          const float c0 = inside_object(t, x, y) ? static_cast<float>(object_rgb[c]) : bg;
          v[c] = static_cast<uint8_t>(std::clamp(std::round(c0 + noise(rng)), 0.f, 255.f));
        }
        out.set_rgb(x, y, v[0], v[1], v[2]);
      }
    }
    return out;
  }

private:
  float at(int x, int y, int c) const {
    x = std::clamp(x, 0, pw_ - 1);
    y = std::clamp(y, 0, ph_ - 1);
    return plate_[(static_cast<size_t>(y) * pw_ + x) * 3 + c];
  }

  int w_, h_;
  uint32_t seed_;
  float amp_, sigma_;
  int pw_ = 0, ph_ = 0;
  std::vector<float> plate_;
};

} // namespace cvis::bgsub::test

// The persistence filter's test scene (test_bgsub_persistence.cpp, test_bgsub_gpu.cpp): flickers
// of a few frames over a still textured background and a square that moves.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "test_images.hpp"

namespace cvis::bgsub::test {

constexpr int kW = 192, kH = 128;
constexpr int kFirst = 60, kLast = 110; // frames with flickers and the moving square
constexpr int kFlickers = 3, kFlickerSide = 10, kSquare = 14;

struct Rect {
  int x, y, w, h;
  bool contains(int px, int py) const { return px >= x && py >= y && px < x + w && py < y + h; }
};

// What the flickers and the square look like: flickers live `life` frames at `flicker` level, the
// square is at `square` level.
struct Look {
  int life = 1;
  float flicker = 240.f, square = 10.f;
};

// A still textured background (2x2 cells, levels 60..160, noise sigma 2). From kFirst, every frame
// has kFlickers squares (bright by default) at new random places every look.life frames, and a
// square (dark by default) that moves 2 px/frame to the right.
class FlickerScene {
public:
  explicit FlickerScene(uint32_t seed, Look look = {}) : seed_(seed), look_(look) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> v(60, 160);
    cells_.resize(static_cast<size_t>(kW / 2) * (kH / 2));
    for (auto& c : cells_)
      c = static_cast<uint8_t>(v(rng));
  }
  std::vector<Rect> flickers(int t) const {
    std::vector<Rect> r;
    if (t < kFirst)
      return r;
    std::mt19937 rng(seed_ * 31u + static_cast<uint32_t>((t - kFirst) / look_.life));
    std::uniform_int_distribution<int> px(0, kW - kFlickerSide), py(0, kH - 40 - kFlickerSide);
    for (int k = 0; k < kFlickers; ++k)
      r.push_back(Rect{px(rng), py(rng), kFlickerSide, kFlickerSide}); // above the square
    return r;
  }
  // The moving square, below the flickers.
  static Rect square(int t) { return Rect{8 + 2 * (t - kFirst), kH - 24, kSquare, kSquare}; }

  cvis::test::HostImage frame(int t) const {
    cvis::test::HostImage out(PixelFormat::kRGBA, kW, kH, 8);
    std::mt19937 rng(seed_ * 7919u + static_cast<uint32_t>(t));
    std::normal_distribution<float> noise(0.f, 2.f);
    const std::vector<Rect> fl = flickers(t);
    for (int y = 0; y < kH; ++y) {
      for (int x = 0; x < kW; ++x) {
        float base = cells_[(y / 2) * (kW / 2) + x / 2];
        for (const Rect& r : fl)
          base = r.contains(x, y) ? look_.flicker : base;
        if (t >= kFirst && square(t).contains(x, y))
          base = look_.square;
        const uint8_t v =
            static_cast<uint8_t>(std::clamp(std::round(base + noise(rng)), 0.f, 255.f));
        out.set_rgb(x, y, v, v, v);
      }
    }
    return out;
  }

private:
  uint32_t seed_;
  Look look_;
  std::vector<uint8_t> cells_;
};

} // namespace cvis::bgsub::test

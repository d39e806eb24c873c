// Masks and an independent labelling for the ccl tests: seeded random masks of several kinds, and
// a breadth-first flood fill (8-connectivity) as the oracle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "ccl/ccl.hpp"
#include "test_images.hpp" // PrintTo(Blob)

namespace cvis::ccl::test {

// A host mask with row pitch >= width (padding bytes hold garbage that must be ignored).
struct Mask {
  int width = 0, height = 0;
  size_t pitch = 0;
  std::vector<uint8_t> data;
  Mask(int w, int h, size_t pad = 0) : width(w), height(h), pitch(w + pad), data(pitch * h, 0) {
    for (int y = 0; y < h; ++y) // padding: foreground-looking garbage
      std::fill(data.begin() + y * pitch + w, data.begin() + (y + 1) * pitch, uint8_t(0x5A));
  }
  uint8_t& at(int x, int y) { return data[static_cast<size_t>(y) * pitch + x]; }
  uint8_t at(int x, int y) const { return data[static_cast<size_t>(y) * pitch + x]; }
};

enum class Kind { kNoise, kBlocks, kFull, kEmpty, kDots, kStripes, kChecker, kRings };

// Seeded mask of `kind`: noise of density `density`, random rectangles and discs, all
// foreground, empty, isolated pixels on even (x, y) (the most components a mask can have),
// diagonal stripes, a checkerboard (one component through the diagonals), nested rings.
inline Mask make_mask(Kind kind, int w, int h, uint32_t seed, double density = 0.5,
                      size_t pad = 0) {
  Mask m(w, h, pad);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      bool on = false;
      switch (kind) {
      case Kind::kNoise:
        on = u(rng) < density;
        break;
      case Kind::kFull:
        on = true;
        break;
      case Kind::kDots:
        on = x % 2 == 0 && y % 2 == 0;
        break;
      case Kind::kStripes:
        on = (x + y) % 5 < 2 || (x - y + 4 * h) % 7 == 0;
        break;
      case Kind::kChecker:
        on = (x + y) % 2 == 0;
        break;
      case Kind::kRings: {
        const int d = std::max(std::abs(2 * x - w), std::abs(2 * y - h));
        on = d % 6 < 2;
        break;
      }
      default:
        break;
      }
      m.at(x, y) = on ? 255 : 0;
    }
  }
  if (kind == Kind::kBlocks) {
    const int n = 1 + static_cast<int>(u(rng) * 40);
    for (int k = 0; k < n; ++k) {
      const int bw = 1 + static_cast<int>(u(rng) * std::max(1, w / 3));
      const int bh = 1 + static_cast<int>(u(rng) * std::max(1, h / 3));
      const int x0 = static_cast<int>(u(rng) * w), y0 = static_cast<int>(u(rng) * h);
      const bool disc = u(rng) < 0.5;
      for (int y = y0; y < std::min(h, y0 + bh); ++y) {
        for (int x = x0; x < std::min(w, x0 + bw); ++x) {
          const double dx = (x - x0 - bw / 2.0) / (bw / 2.0), dy = (y - y0 - bh / 2.0) / (bh / 2.0);
          if (!disc || dx * dx + dy * dy <= 1.0)
            m.at(x, y) = 255;
        }
      }
    }
  }
  return m;
}

// Breadth-first flood fill with 8-connectivity, seeds in raster order: blobs in raster order of
// their first pixel, area >= min_area; *foreground = foreground pixels.
inline std::vector<Blob> flood_fill(const Mask& m, int min_area, int64_t* foreground) {
  std::vector<uint8_t> seen(static_cast<size_t>(m.width) * m.height, 0);
  std::vector<Blob> out;
  std::vector<int> queue;
  int64_t fg = 0;
  for (int y = 0; y < m.height; ++y) {
    for (int x = 0; x < m.width; ++x) {
      const size_t i0 = static_cast<size_t>(y) * m.width + x;
      if (!m.at(x, y))
        continue;
      ++fg;
      if (seen[i0])
        continue;
      int x0 = x, x1 = x, y0 = y, y1 = y, area = 0;
      queue.assign(1, static_cast<int>(i0));
      seen[i0] = 1;
      for (size_t q = 0; q < queue.size(); ++q) {
        const int cx = queue[q] % m.width, cy = queue[q] / m.width;
        ++area;
        x0 = std::min(x0, cx);
        x1 = std::max(x1, cx);
        y0 = std::min(y0, cy);
        y1 = std::max(y1, cy);
        for (int dy = -1; dy <= 1; ++dy) {
          for (int dx = -1; dx <= 1; ++dx) {
            const int nx = cx + dx, ny = cy + dy;
            if (nx < 0 || ny < 0 || nx >= m.width || ny >= m.height || !m.at(nx, ny))
              continue;
            const size_t j = static_cast<size_t>(ny) * m.width + nx;
            if (!seen[j]) {
              seen[j] = 1;
              queue.push_back(static_cast<int>(j));
            }
          }
        }
      }
      if (area >= min_area)
        out.push_back(Blob{x0, y0, x1 - x0 + 1, y1 - y0 + 1, area});
    }
  }
  if (foreground)
    *foreground = fg;
  return out;
}

} // namespace cvis::ccl::test

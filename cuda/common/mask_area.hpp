// Host references of the masks' component filters, shared by the segmentation libraries: the area
// filter (the CUDA paths do it from cuda/ccl's labels) and the persistence filter's rule.
#pragma once

#include <cstdint>
#include <vector>

#include "common/hd.hpp"

namespace cvis::seg {

// The persistence filter's rule: a component of `area` pixels, `overlap` of which were foreground
// in the previous frame's mask, is kept when overlap >= persistence * area (float arithmetic, the
// same bits on the CPU and the GPU). persistence 0 keeps every component.
CVIS_HD bool persistent(int overlap, int area, float persistence) {
  return static_cast<float>(overlap) >= persistence * static_cast<float>(area);
}

// Calls visit(pixel indices) for each 8-connected foreground component of mask (width x height
// bytes, rows `width` apart, non-zero = foreground), in raster order of the first pixel.
template <typename Visit>
void for_each_component(const uint8_t* mask, int width, int height, Visit visit) {
  const size_t n = static_cast<size_t>(width) * height;
  std::vector<uint8_t> seen(n, 0);
  std::vector<int32_t> stack, comp;
  for (size_t start = 0; start < n; ++start) {
    if (!mask[start] || seen[start])
      continue;
    comp.clear();
    stack.assign(1, static_cast<int32_t>(start));
    seen[start] = 1;
    while (!stack.empty()) {
      const int32_t i = stack.back();
      stack.pop_back();
      comp.push_back(i);
      const int x = i % width, y = i / width;
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          const int xx = x + dx, yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= width || yy >= height)
            continue;
          const int32_t j = yy * width + xx;
          if (mask[j] && !seen[j]) {
            seen[j] = 1;
            stack.push_back(j);
          }
        }
      }
    }
    visit(comp);
  }
}

// Clears the 8-connected foreground components of fewer than `min_area` pixels of mask (width x
// height bytes, rows `width` apart, non-zero = foreground), in place.
inline void remove_small_components(uint8_t* mask, int width, int height, int min_area) {
  if (min_area <= 1)
    return;
  for_each_component(mask, width, height, [&](const std::vector<int32_t>& comp) {
    if (static_cast<int>(comp.size()) < min_area) {
      for (int32_t i : comp)
        mask[i] = 0;
    }
  });
}

// out = the components of mask that persistent() keeps against prev (the previous frame's mask),
// as 255; all three width x height bytes, rows `width` apart.
inline void keep_persistent_components(const uint8_t* mask, const uint8_t* prev, uint8_t* out,
                                       int width, int height, float persistence) {
  const size_t n = static_cast<size_t>(width) * height;
  for (size_t i = 0; i < n; ++i)
    out[i] = mask[i] ? 255 : 0;
  if (persistence <= 0.0f)
    return;
  for_each_component(mask, width, height, [&](const std::vector<int32_t>& comp) {
    int overlap = 0;
    for (int32_t i : comp)
      overlap += prev[i] != 0;
    if (!persistent(overlap, static_cast<int>(comp.size()), persistence)) {
      for (int32_t i : comp)
        out[i] = 0;
    }
  });
}

} // namespace cvis::seg

// Host reference of the mask's area filter (issue 12 prototypes): clears the 8-connected foreground
// components of fewer than `min_area` pixels. The CUDA path will do it from cuda/ccl's labels.
#pragma once

#include <cstdint>
#include <vector>

namespace cvis::seg {

// mask: width x height bytes, rows `width` apart, non-zero = foreground; changed in place.
inline void remove_small_components(uint8_t* mask, int width, int height, int min_area) {
  if (min_area <= 1)
    return;
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
    if (static_cast<int>(comp.size()) < min_area) {
      for (int32_t i : comp)
        mask[i] = 0;
    }
  }
}

} // namespace cvis::seg

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

// Added light (glints on water: bright streaks the waves move on every frame). A pixel is lit when
// its frame luma exceeds its background's by at least `levels`; a component is mostly lit when at
// least half of its pixels are. Such a component must persist in both previous masks (its overlap
// counts the pixels foreground in both), the others in the previous one only: a blanket two-frame
// rule also dropped people seen through leaves, whose fragments change every frame.
//
// Trimming (trim_radius > 0): a glint touching an object joins its component, which then persists
// with it. In a kept component, a lit pixel with no foreground pixel of the previous mask within
// trim_radius (Chebyshev distance) is cleared: an object's own leading edge lies within its motion
// of last frame's mask, a glint a frame old does not. The output is then no longer a union of whole
// components of the mask.
inline constexpr int kAddedLightLevels = 15;    // cuda/median3d/README.md, "Persistence of glints"
inline constexpr int kAddedLightTrimRadius = 4; // at 240 rows; the same section
struct AddedLight {
  const uint8_t* frame = nullptr;      // luma, rows `pitch` apart
  const uint8_t* background = nullptr; // luma, rows `pitch` apart
  size_t pitch = 0;
  int levels = kAddedLightLevels;
  int trim_radius = 0; // 0: no trimming
};

// The trimming radius for a width x height frame: kAddedLightTrimRadius per 240 pixels of its
// shorter side (rounded), never less. Filmed at a higher resolution, a scene's objects move, and
// its glints spread, over proportionally more pixels a frame.
CVIS_HD int trim_radius_for(int width, int height) {
  const int side = width < height ? width : height;
  const int r = (kAddedLightTrimRadius * side + 120) / 240;
  return r > kAddedLightTrimRadius ? r : kAddedLightTrimRadius;
}

CVIS_HD bool lit(int frame, int background, int levels) {
  return frame - background >= levels;
}

CVIS_HD bool mostly_lit(int lit_pixels, int area) {
  return 2 * lit_pixels >= area;
}

// Whether mask (width x height, rows `pitch` apart) has a non-zero byte within Chebyshev distance r
// of (x, y). Rows are visited outwards from y: a pixel of a moving object finds its previous mask
// in the nearest rows, which matters at the radii of large frames.
CVIS_HD bool foreground_near(const uint8_t* mask, size_t pitch, int width, int height, int x, int y,
                             int r) {
  const int x0 = x - r < 0 ? 0 : x - r, x1 = x + r >= width ? width - 1 : x + r;
  for (int d = 0; d <= r; ++d) {
    for (int side = 0; side < (d ? 2 : 1); ++side) {
      const int yy = side ? y + d : y - d;
      if (yy < 0 || yy >= height)
        continue;
      const uint8_t* row = mask + static_cast<size_t>(yy) * pitch;
      for (int xx = x0; xx <= x1; ++xx) {
        if (row[xx])
          return true;
      }
    }
  }
  return false;
}

// The rule with added light: `overlap` (previous mask), `overlap2` (both previous masks), `lit`
// (lit pixels) of a component of `area` pixels.
CVIS_HD bool persistent(int overlap, int overlap2, int lit_pixels, int area, float persistence) {
  return persistent(mostly_lit(lit_pixels, area) ? overlap2 : overlap, area, persistence);
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
// as 255; all three width x height bytes, rows `width` apart. With `light` (and prev2, the mask
// before prev), a mostly lit component is tested against the pixels foreground in both, and with
// light->trim_radius > 0 kept components are trimmed (AddedLight).
inline void keep_persistent_components(const uint8_t* mask, const uint8_t* prev, uint8_t* out,
                                       int width, int height, float persistence,
                                       const uint8_t* prev2 = nullptr,
                                       const AddedLight* light = nullptr) {
  const size_t n = static_cast<size_t>(width) * height;
  for (size_t i = 0; i < n; ++i)
    out[i] = mask[i] ? 255 : 0;
  if (persistence <= 0.0f)
    return;
  const bool aware = light && prev2;
  for_each_component(mask, width, height, [&](const std::vector<int32_t>& comp) {
    int overlap = 0, overlap2 = 0, lit_pixels = 0;
    for (int32_t i : comp) {
      overlap += prev[i] != 0;
      if (aware) {
        overlap2 += prev[i] != 0 && prev2[i] != 0;
        const size_t at = static_cast<size_t>(i / width) * light->pitch + i % width;
        lit_pixels += lit(light->frame[at], light->background[at], light->levels);
      }
    }
    const int area = static_cast<int>(comp.size());
    const bool keep = aware ? persistent(overlap, overlap2, lit_pixels, area, persistence)
                            : persistent(overlap, area, persistence);
    if (!keep) {
      for (int32_t i : comp)
        out[i] = 0;
    } else if (aware && light->trim_radius > 0) {
      for (int32_t i : comp) {
        const int x = i % width, y = i / width;
        const size_t at = static_cast<size_t>(y) * light->pitch + x;
        if (lit(light->frame[at], light->background[at], light->levels) &&
            !foreground_near(prev, width, width, height, x, y, light->trim_radius))
          out[i] = 0;
      }
    }
  });
}

} // namespace cvis::seg

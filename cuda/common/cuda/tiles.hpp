// Launch geometry of the image kernels (CUDA translation units and launchers): an image is
// covered by tiles, one block per tile. Most kernels use the 32 x 8 tile (a warp is 32 consecutive
// pixels of one row, 256 threads a block); a kernel with another tile names it.
#pragma once

#include <cuda_runtime_api.h>

namespace cvis::cuda {

inline constexpr int kTileW = 32, kTileH = 8;

// ceil(a / b), a >= 0, b > 0.
constexpr int div_up(int a, int b) {
  return (a + b - 1) / b;
}

// The blocks of tile_w x tile_h pixels that cover a w x h image, `depth` of them deep (channels,
// planes: blockIdx.z).
inline dim3 tile_grid(int w, int h, int depth = 1, int tile_w = kTileW, int tile_h = kTileH) {
  return dim3(static_cast<unsigned>(div_up(w, tile_w)), static_cast<unsigned>(div_up(h, tile_h)),
              static_cast<unsigned>(depth));
}

// The block of one 32 x 8 tile.
inline dim3 tile_block() {
  return dim3(kTileW, kTileH);
}

} // namespace cvis::cuda

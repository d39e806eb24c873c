// Kernels of the CUDA overlay (overlay_kernels.cu) and their launchers; only overlay_cuda.cpp
// includes this header.
#pragma once

#include <cuda_runtime_api.h>

#include "common/status.hpp"
#include "overlay_raster.hpp"

namespace cvis::overlay::kernels {

// Mask tint of the whole frame, one thread per 2x2 quad (tint_quad).
Status launch_tint(const Target& t, const uint8_t* mask, size_t mask_pitch, const Tint& tint,
                   cudaStream_t stream);

// Primitives: one block per non-empty tile (`tiles`, `ntiles`), one thread per 2x2 quad of it;
// each quad takes, pixel by pixel, the colour of the last primitive of the tile's list (`ids` into
// `prims`) covering it (quad_accumulate / quad_write).
Status launch_tiles(const Target& t, const Prim* prims, const TileRef* tiles, int ntiles,
                    const int32_t* ids, cudaStream_t stream);

} // namespace cvis::overlay::kernels

// Host-side steps shared by both overlay backends and the tests: the scene as primitives, colours
// in the frame's channels, the tile binning of the CUDA backend.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "overlay.hpp"
#include "overlay_raster.hpp"

namespace cvis::overlay {

// `text` cut to kMaxLabelChars, bytes outside printable ASCII as '?'.
std::string printable(const std::string& text);

// The 7 bit rows of printable ASCII `c` (others: '?'); bit 4 is the leftmost column.
void glyph_rows(char c, uint8_t rows[7]);

// `rgb` in the channels of `format`: R, G, B for packed RGB; Y, U, V for NV12 / I420 (matrix and
// range of `yuv`, rounded); full-range BT.601 luma for GRAY8.
void color_channels(Rgb rgb, PixelFormat format, const YuvColorimetry& yuv, uint8_t out[3]);

Target make_target(const ImageView& frame);
Tint make_tint(const Params& params, const ImageView& frame);

// The scene's primitives in drawing order (trails, box outlines, labels), in `frame`'s channels,
// without those entirely outside the frame. kInvalidArgument past kMaxPrimitives.
Status build_primitives(const Scene& scene, const Params& params, const ImageView& frame,
                        std::vector<Prim>* prims);

// Checks the frame view and the scene's mask (GRAY8, the frame's size).
Status check_views(const Scene& scene, const ImageView& frame);

// Tiles touched by each primitive (bounds clipped to the frame; a line only the tiles within its
// reach): the non-empty tiles in raster order, each listing its primitives in drawing order.
// `counts` is scratch kept by the caller between frames.
void bin_primitives(const std::vector<Prim>& prims, int width, int height,
                    std::vector<int32_t>* counts, std::vector<TileRef>* tiles,
                    std::vector<int32_t>* ids);

} // namespace cvis::overlay

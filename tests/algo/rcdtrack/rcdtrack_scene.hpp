// Seeded synthetic scenes for the rcdtrack tests and benchmarks: textured backgrounds, textured
// objects drawn at a centre, scale and rotation (exact ground-truth boxes: the bounding box of the
// pixels drawn), recoloured look-alikes and occluders. Same seed, same bytes on every machine.
#pragma once

#include <cstdint>
#include <vector>

#include "rcdtrack.hpp"
#include "test_images.hpp"

namespace cvis::rcdtrack::test {

using cvis::test::HostImage;

// An RGBA background: low-frequency colour noise plus fine grain.
HostImage make_background(int w, int h, uint32_t seed);

// An RGBA texture of w x h: a base colour with random ellipses, stripes and grain (`style` picks
// the palette and shapes; different seeds give different textures of the same style).
HostImage make_texture(int w, int h, uint32_t seed, int style);

// A look-alike of `tex`: `other`'s structure with each channel's mean and deviation set to tex's
// (same colours, different texture).
HostImage recolour_like(const HostImage& other, const HostImage& tex);

// `tex` with its blocks of `block` x `block` pixels permuted at random: the same colours (the same
// pixel values, so every colour statistic is identical), another texture.
HostImage shuffle_blocks(const HostImage& tex, int block, uint32_t seed);

// Draws `tex` (RGBA) into `frame` (RGBA) centred at (cx, cy), scaled by `scale` and rotated by
// `angle` radians (nearest sample). Returns the bounding box of the pixels drawn (empty when none).
Box draw_object(HostImage* frame, const HostImage& tex, double cx, double cy, double scale,
                double angle);

// Fills box (clipped) with a flat colour plus grain: an occluder.
void draw_occluder(HostImage* frame, const Box& box, uint8_t r, uint8_t g, uint8_t b,
                   uint32_t seed);

// A copy of the whole of `src` (RGBA).
HostImage copy_image(const HostImage& src);

// Random NV12 / I420 / GRAY8 / packed images with padded rows (exactness tests).
HostImage make_random(PixelFormat f, int w, int h, size_t pad, uint32_t seed);

} // namespace cvis::rcdtrack::test

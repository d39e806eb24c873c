// Seeded synthetic scenes for the rcdtrack tests and benchmarks: textured backgrounds, textured
// objects drawn at a centre, scale and rotation (exact ground-truth boxes: the bounding box of the
// pixels drawn), recoloured look-alikes and occluders. Same seed, same bytes on every machine.
#pragma once

#include <cstdint>
#include <functional>
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

// One target's pose in a frame of a scripted sequence (draw_object's arguments); `visible` false:
// the target is not drawn (hidden).
struct Pose {
  double cx = 0.0, cy = 0.0, scale = 1.0, angle = 0.0;
  bool visible = true;
};

// Runs a one-target sequence of `frames` RGBA frames through `tracker` (configured for bg's size
// and RGBA): frame t is a copy of `bg` with `tex` drawn at pose(t); target `id` is added on frame
// 0's truth box (frame 0 must show the target); `overlay`, when given, then draws over frame t
// (occluders: the truth stays the target's drawn box). on_result(t, truth, result) sees each
// frame's result, truth being the drawn box (empty while hidden). Fails on a tracker error, or when
// a frame does not return exactly one result.
Status
run_one_target(Tracker* tracker, const HostImage& bg, const HostImage& tex, int frames,
               const std::function<Pose(int t)>& pose,
               const std::function<void(int t, const Box& truth, const TargetResult& r)>& on_result,
               int id = 0, const std::function<void(int t, HostImage* frame)>& overlay = nullptr);

// Random NV12 / I420 / GRAY8 / packed images with padded rows (exactness tests).
HostImage make_random(PixelFormat f, int w, int h, size_t pad, uint32_t seed);

} // namespace cvis::rcdtrack::test

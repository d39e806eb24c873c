// CUDA kernels of the motion detector (motion.hpp) and their launchers. Only motion_cuda.cpp
// includes this header. Each kernel is one pass of the CPU reference (motion_cpu.cpp), in the same
// order, with the per-pixel arithmetic of motion_math.hpp: both backends give identical bits.
//
// Layout (device memory, px = w * h, dense rows of w): samples [c][y][x mod group][x / group]
// [stride] (a pixel's K samples of one channel contiguous, padded to `stride` = K rounded up to 16
// bytes: a refresh reads them with stride / 16 aligned 16-byte loads, and only the pixels that
// refresh move their samples through DRAM; the padding bytes are never counted; the pixels of a
// row that share a turn are neighbours in memory), every other per-pixel array [c][pixel] or
// [pixel].
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "ccl/ccl.hpp"
#include "common/color.hpp"
#include "common/status.hpp"
#include "median3d_math.hpp"

namespace cvis::median3d::kernels {

// Figures of one frame, written by the kernels (zeroed by the gain solve), read back after
// the frame.
struct MotionFigures {
  uint32_t gain_votes, offset_votes; // background pixels that voted
  uint32_t g16;                      // applied gain * 2^16 (65536 inside the dead zone)
  uint32_t g16_vote;                 // the estimated gain * 2^16 (chroma votes use it)
  uint32_t tau_scale16;              // thresholds widened by 1/g (65536: unchanged)
  int32_t offset[2];                 // chroma offsets removed
  float gain;                        // the estimated gain (1 without votes)
  unsigned long long raw, diff, shadow, foreground;
  unsigned long long shifted; // pixels that only the shift test called background
  unsigned long long wide;    // pixels whose luma threshold exceeds MotionConsts::wide_tau
  unsigned long long changed; // pixels whose luma changed by more than their widened threshold
};

struct MotionState {
  int w = 0, h = 0, nc = 3, history = 31;
  int stride = 32;         // bytes per pixel and channel in `samples`: sample_stride(history)
  int group = 1;           // sub-rows per row in `samples` (the sample period at the allocation)
  int group_w = 0;         // blocks per sub-row: ceil(w / group)
  size_t sample_plane = 0; // bytes of one channel's samples: h * group * group_w * stride
  size_t px = 0;
  uint8_t* samples = nullptr;            // [c][y][x mod group][x / group][stride]: sample_bytes()
  uint8_t *bg = nullptr, *tau = nullptr; // [c][pixel]: median, threshold
  PixelSource src{};      // this frame (device memory): every pass reads its values from it
  uint8_t* lut = nullptr; // [c][256]: the frame's compensated values of every level (compensate())
  uint8_t *head = nullptr, *cnt = nullptr, *prev = nullptr, *raw = nullptr, *mask = nullptr,
          *hold = nullptr, *shadow = nullptr; // (the own tests stay in test_kernel)
  // hold: no sample this frame (raw, cnt, shadow or adopted), written by the majority pass
  int8_t* adopt = nullptr;
  uint16_t* age = nullptr;
  uint32_t* gain_hist = nullptr; // seg::kGainBins
  uint32_t* off_hist = nullptr;  // 2 * seg::kOffsetBins
  MotionFigures* fig = nullptr;
};

// Bytes of one pixel's samples of one channel: K rounded up to a multiple of 16 (16..64).
inline int sample_stride(int history) {
  return (history + 15) / 16 * 16;
}

// Bytes of `samples` (every sub-row padded to group_w blocks).
inline size_t sample_bytes(int w, int h, int nc, int stride, int group) {
  return static_cast<size_t>(nc) * h * group * ((w + group - 1) / group) * stride;
}

// tau_of() of one channel kind (luma, chroma) and its clamped deviations (tau_clamp_range()).
struct TauRange {
  int factor16, tau_min, tau_max;
  int low, high; // D <= low: tau_min; D >= high: tau_max (256: never)
};

// The parameters the passes need (from MotionParams, per frame).
struct MotionConsts {
  int black;    // luma black level
  int factor16; // round(16 * noise_factor)
  int tau_min, tau_min_chroma, tau_max;
  TauRange tau_range[2]; // luma, chroma
  int radius;
  bool shadows; // color and shadows
  int lo16, hi16, shadow_chroma;
  // adopt_frames: this frame's (adopt_frames_now()); luma thresholds above wide_tau are counted in
  // MotionFigures::wide.
  int adopt_frames, absorb_frames, wide_tau;
  bool adopt_tight; // adoption also needs matches_tightly() of the neighbour's model
  bool shift_test;  // MotionParams::shift_test (shift_explained)
  bool cleanup;
  int sample_period;
  long long frame;      // frames since the reset, this one included
  bool blind;           // refilling after a shot change: every pixel inserts
  bool live_background; // background output: the frame's luma at background pixels
};

// Initial fill: sample `slot` = in; prev = in (luma); mask = 0. `last`: the fill ends, every
// pixel's head restarts and its median and threshold are computed.
Status launch_motion_fill(const MotionState& m, const MotionConsts& k, int slot, bool last,
                          cudaStream_t s);
// Shot change: every sample, the median and prev become `in`, thresholds the minimum, head, shadow,
// cnt, age and mask 0.
Status launch_motion_restart(const MotionState& m, const MotionConsts& k, cudaStream_t s);
// Gain and chroma offsets (estimate_gain of the CPU reference): votes and their medians into the
// figures, and the frame's compensation table; with illumination off, g = 1 and no offsets.
Status launch_motion_gain(const MotionState& m, const MotionConsts& k, bool illumination,
                          cudaStream_t s);
// Own test (the compensated values through the frame's table); then the neighbour test, shadows,
// counts, cnt and adopt; then the raw mask's 3x3 majority into mask, and the adoptions.
Status launch_motion_classify(const MotionState& m, const MotionConsts& k, cudaStream_t s);
// What the update pass also does to the mask (instead of passes of their own): the area filter of
// the labelling's small components (ccl::launch_area_filter), and the copy of the final mask into a
// device output.
struct MaskFinish {
  bool filter = false;         // clear the components of `areas` smaller than min_area from m.mask
  ccl::ComponentAreas areas{}; // the last labelling of m.mask
  int min_area = 0;
  uint8_t* out = nullptr; // device output (null: none), rows `out_pitch` bytes apart
  size_t out_pitch = 0;
};

// The area filter and the mask output (MaskFinish); sample updates and absorption (ages only
// while it is on); foreground count. (prev = compensated luma is written by the test pass.)
Status launch_motion_update(const MotionState& m, const MotionConsts& k, const MaskFinish& f,
                            cudaStream_t s);
// Outputs: the mask into `mask` (null: none) and the background (`has_background`: into `bg`, as
// luma; `raw`: the frame's luma instead of the model).
Status launch_motion_output(const MotionState& m, const MotionConsts& k, uint8_t* mask,
                            size_t mask_pitch, bool has_background, const PixelDest& bg, bool raw,
                            cudaStream_t s);

} // namespace cvis::median3d::kernels

// Motion detection against a long, foreground-aware temporal median (issue 12): the paper's median
// background (eq. 2, here with a 1x1 box over a history of K samples per pixel, exact 8-bit) made
// into a motion detector. README.md ("Motion detector") gives the rules and why.
//
// Per pixel: K background samples (a ring with its own head), their exact median B and median
// absolute deviation D, and the threshold tau = clamp(noise_factor * D, tau_min, tau_max). Per
// frame, with v the luma of the pixel (divided by the global illumination gain g):
//   own test        |v - B_p| <= tau_p (every channel: luma, or Y, U, V)
//   neighbour test  |v - B_q| <= tau_q for a q != p of the (2r+1)^2 neighbourhood
//   shadow          (color) darker luma with the chroma scaled alike: background, not updated
//   raw foreground  neither passes;  mask = 3x3 majority of the raw foreground
//   update          every `sample_period` frames, pixels that are background in the raw and final
//                   masks add v to their samples (B and D recomputed): objects never enter the
//                   history, however long they stop
//   adoption        a pixel whose own test fails while a neighbour's passes, `adopt_frames` frames
//                   in a row, takes over that neighbour's samples: a revealed background (ghost)
//                   matches its surroundings and dissolves from its border, ~1 pixel per
//                   frame, while a stopped object does not match them and stays.
//                   In a scene whose background moves (at the previous frame more than
//                   `dynamic_fraction` of the pixels had a luma threshold above 2 tau_min) it
//                   takes `adopt_frames_dynamic` frames: there a flat object next to a patch of
//                   its colour was taken over a pixel every `adopt_frames` frames
//                   With `adopt_tight`, the neighbour's median must also lie within tau_min of v
//                   (every channel): a neighbour whose threshold is wide because its background
//                   moves (leaves, grass) matches a flat object's colour by chance, and the
//                   adopted model, copied from pixel to pixel, then eats the whole object (a
//                   chance match within tau_min still does: much rarer)
//   absorption      optional: a pixel foreground for `absorb_frames` frames in a row restarts its
//                   samples from its current value (0 = never)
//   gain            g = median of Y / B_Y over the previous frame's background pixels (and the
//                   median chroma differences, removed as offsets)
//   shot change     seg::ShotChangeRule on the raw foreground fraction and the fraction of pixels
//                   whose |v_t - v_{t-1}| > tau: the samples restart from the current frame
// The first K frames after a reset (or a shot change: the next K) fill the samples blindly, one per
// frame; the mask is empty during the initial fill only.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ccl/ccl.hpp"
#include "common/backend.hpp"
#include "common/image.hpp"
#include "common/status.hpp"

namespace cvis::median3d {

inline constexpr int kMaxHistory = 63;
inline constexpr int kMaxMotionRadius = 2;
// How far the shift test (MotionParams::shift_test) looks for a neighbour to blend with, whatever
// `radius`: a creep of up to this many pixels.
inline constexpr int kShiftRadius = 2;

struct MotionParams {
  int history = 31;          // K samples per pixel, odd, 3..63
  int sample_period = 4;     // frames between two samples of a background pixel, 1..64
  int radius = 1;            // r of the neighbour test, 0..2
  float noise_factor = 4.0f; // tau = noise_factor * D (D: median absolute deviation of the samples)
  int tau_min = 8;           // levels, 1..255 (luma)
  int tau_min_chroma = 6;    // levels, 1..255 (chroma)
  int tau_max = 80;          // levels, tau_min..255
  bool color = true;         // Y, U, V (a pixel matches when every channel does); false: luma only
  bool shadows = true;       // color: cast shadows (seg::shadow_yuv) are background
  float shadow_low = 0.4f;   // luma ratio range of a shadow
  float shadow_high = 0.9f;
  int shadow_chroma = 4; // levels: chroma deviation from the dimmed background chroma
  int adopt_frames = 2;  // 0 = no adoption
  // Adoption also needs |v - B_q| <= tau_min (chroma: tau_min_chroma) in every channel, not only
  // tau_q.
  bool adopt_tight = true;
  // Adoption frames where the background moves: when, at the previous frame, more than
  // `dynamic_fraction` of the pixels had a luma threshold above 2 tau_min (a scene of leaves,
  // grass or water), adoption needs `adopt_frames_dynamic` frames instead of `adopt_frames`
  // (0 = always `adopt_frames`; `adopt_frames` 0 stays never).
  int adopt_frames_dynamic = 16;
  float dynamic_fraction = 0.15f;
  // The scene also counts as moving when, at the previous frame, more than this share of the
  // pixels changed luma by more than their threshold since the frame before (waves). Water whose
  // refracted edges and glints leave most thresholds narrow (dynamic set dev-water2: 11.5% wide)
  // changes 17-21% of its pixels in every frame; still and creeping scenes, people included, at
  // most 8.5%; light changes and cuts for a few frames (1: never).
  float dynamic_change_fraction = 0.1f;
  // A pixel that fails both tests is background when its values are a blend of its median and
  // that of a neighbour within kShiftRadius pixels that passes its own test (shift_explained,
  // motion_math.hpp): an edge moved by up to two pixels, as a creeping camera shows it (dynamic
  // set dev-creep-photo F 0.922 -> 0.975, dev-creep-graf 0.831 -> 0.907; within one pixel 0.944
  // and 0.831). Like a shadow it adds no sample and casts no gain vote;
  // the shot-change rule counts it as foreground. A flat object whose colour is a blend of two
  // backgrounds at an edge loses its pixels on that edge. `color` only: in luma alone a blend is
  // any value between two neighbours' medians, which on a texture takes in objects.
  bool shift_test = true;
  int absorb_frames = 0;    // 0 = never (ages count only while on: switched on, from 0)
  bool illumination = true; // global gain compensation
  bool cleanup = true;      // 3x3 majority of the raw mask
  int min_mask_area = 60;   // components of the cleaned mask below this many pixels are cleared
  // Output filter (as bgsub::Params::persistence): a component of the mask is output (and boxed)
  // only when at least this share of its pixels was in the previous frame's mask, in [0, 1];
  // 0: off. Water's glints flicker, objects stay (dynamic set dev-water F 0.836 -> 0.990); an
  // object's first frame, and objects moving more than about 70% of their length a frame, are
  // not output. The model (updates, absorption, live background) sees the mask before it.
  float persistence = 0.3f;
  bool shot_change = true;
  double cut_fraction = 0.5; // seg::ShotChangeRule
  int cut_frames = 2;
  // Background output: where the pixel is background in this frame (final and raw masks clear, not
  // a shadow) it is the frame's own luma, elsewhere the median (times the gain). A moving
  // background (foliage, water) is its own best estimate: the median of its samples is off by the
  // motion's amplitude. false: the median everywhere (the output before issue 12's measurement).
  bool live_background = true;
  int min_blob_area = 25; // blobs (8-connected) smaller than this are not reported
  size_t max_blobs = 64;  // the largest are kept
  bool blobs = true;
};

Status validate(const MotionParams& p);

struct MotionResult {
  int64_t frame = 0;             // frames since the last reset, this one included
  bool warming_up = false;       // initial fill: the mask is empty
  bool shot_change = false;      // a shot change was confirmed at this frame (samples restarted)
  float gain = 1.0f;             // illumination gain applied to this frame's luma
  int chroma_offset[2] = {0, 0}; // offsets removed from U and V (color)
  int64_t shadow = 0;            // pixels called shadow (not in the mask)
  int64_t shifted = 0;           // pixels that only the shift test called background
  int64_t foreground = 0;        // mask pixels set
  int64_t pixels = 0;
  std::vector<ccl::Blob> blobs;
};

class MotionDetector {
public:
  virtual ~MotionDetector() = default;
  virtual Backend backend() const = 0;
  // Validates and applies the parameters; a change of `history` resets the model.
  virtual Status configure(const MotionParams& p) = 0;
  // Processes one frame (any cvis::PixelFormat, host views for the CPU backend, host or device
  // views for the CUDA backend): writes the mask (GRAY8, 255 = foreground) when `mask` is not null
  // and the background when `background` is not null (any format, written as median3d's luma-mode
  // background: B times the gain, or the frame's luma at background pixels with
  // live_background; R = G = B or neutral chroma). A frame of another size resets the
  // model. `result` is complete when the call returns (the CUDA backend synchronises `stream`: the
  // shot-change rule reads the frame's counts); the outputs are written on `stream`.
  virtual Status process(const ImageView& frame, const ImageView* mask, const ImageView* background,
                         MotionResult* result, StreamHandle stream) = 0;
  // Forgets the model: the next frames give what a new detector with these parameters gives.
  virtual void reset() = 0;
};

// `backend` must be kCpu or kCuda; nullptr and *status (kNoDevice) when the CUDA backend is not in
// this build.
std::unique_ptr<MotionDetector> make_motion_detector(Backend backend, Status* status);

} // namespace cvis::median3d

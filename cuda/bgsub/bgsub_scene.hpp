// Host-side pieces of the scene extensions (Params: illumination, shadows, shot_change,
// min_mask_area) shared by the two backends: the frame schedule (warm-ups, the selective update's
// period, shot changes) and the shadow bounds. The per-pixel arithmetic is bgsub_scene_math.hpp.
#pragma once

#include <cstdint>

#include "bgsub.hpp"
#include "common/segmentation.hpp"

namespace cvis::bgsub {

// A pixel counts as changed since the previous frame (shot-change rule) when a channel of its
// compensated feature moved by more than this many levels.
inline constexpr int kChangedLevels = 20;

// shadow_low / shadow_high in 16ths, as seg::shadow_yuv takes them.
int shadow_lo16(const Params& p);
int shadow_hi16(const Params& p);

// What one frame does, from the frames since the last (re)start of the model.
struct FramePlan {
  int64_t frame = 0;       // FrameResult::frame
  bool warming_up = false; // fill samples only: slots frame - 1, frame - 1 + warm_len, ... < L
  int warm_len = 0;        // frames of this warm-up: num_samples, or cut_warmup after a cut
  bool last_warm = false;  // the warm-up ends here: heads restart at 0, bandwidths computed
  bool shot_change = false;
  bool update = false; // classified frame whose selective update runs (update_period)
  bool blind = false;  // that update refreshes every pixel (Params::cut_refill after a cut)
};

// The frame schedule of both backends. A cut confirmed by end() restarts the model at the next
// begin() with the short, interleaved warm-up.
class FrameSchedule {
public:
  void configure(const Params& p);
  void reset(); // the next frame starts the full warm-up of num_samples frames
  FramePlan begin();
  // After a classified frame: its raw foreground and changed-pixel counts.
  void end(int64_t raw_foreground, int64_t changed, int64_t pixels);

private:
  int num_samples_ = 48, cut_warmup_ = 6, update_period_ = 1, cut_refill_ = 12;
  bool after_cut_ = false; // the current warm-up followed a cut
  bool shot_change_ = true;
  seg::ShotChangeRule rule_;
  int64_t frame_ = 0;
  int warm_ = 48;
  bool restart_pending_ = false;
};

} // namespace cvis::bgsub

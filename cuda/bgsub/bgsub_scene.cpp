// Frame schedule of the scene extensions (bgsub_scene.hpp).
#include "bgsub_scene.hpp"

#include <cmath>

namespace cvis::bgsub {

int shadow_lo16(const Params& p) {
  return static_cast<int>(std::lround(p.shadow_low * 16.0f));
}
int shadow_hi16(const Params& p) {
  return static_cast<int>(std::lround(p.shadow_high * 16.0f));
}

void FrameSchedule::configure(const Params& p) {
  num_samples_ = p.num_samples;
  cut_warmup_ = p.cut_warmup;
  cut_refill_ = p.cut_refill;
  update_period_ = p.update_period;
  shot_change_ = p.shot_change;
  rule_.configure(p.cut_fraction, p.cut_frames);
}

void FrameSchedule::reset() {
  frame_ = 0;
  warm_ = num_samples_;
  after_cut_ = false;
  restart_pending_ = false;
  rule_.reset();
}

FramePlan FrameSchedule::begin() {
  FramePlan f;
  ++frame_;
  if (restart_pending_) {
    restart_pending_ = false;
    rule_.reset();
    frame_ = 1;
    warm_ = cut_warmup_;
    after_cut_ = true;
    f.shot_change = true;
  }
  // A configure() between frames may have shortened num_samples: never fill past it.
  if (warm_ > num_samples_)
    warm_ = num_samples_;
  f.frame = frame_;
  f.warm_len = warm_;
  f.warming_up = frame_ <= warm_;
  f.last_warm = frame_ == warm_;
  f.update = !f.warming_up && (frame_ - warm_ - 1) % update_period_ == 0;
  f.blind = f.update && after_cut_ && frame_ - warm_ <= cut_refill_;
  return f;
}

void FrameSchedule::end(int64_t raw_foreground, int64_t changed, int64_t pixels) {
  if (!shot_change_ || pixels <= 0)
    return;
  const double n = static_cast<double>(pixels);
  restart_pending_ =
      rule_.update(static_cast<double>(raw_foreground) / n, static_cast<double>(changed) / n);
}

} // namespace cvis::bgsub

// The motion detector's parameter check and backend factory (motion.hpp).
#include "motion.hpp"
#include "median3d_internal.hpp"

namespace cvis::median3d {

Status validate(const MotionParams& p) {
  auto bad = [](const char* m) { return invalid_argument(std::string("motion: ") + m); };
  if (p.history < 3 || p.history > kMaxHistory || p.history % 2 == 0)
    return bad("history must be odd, 3..63");
  if (p.sample_period < 1 || p.sample_period > 64)
    return bad("sample_period must be in 1..64");
  if (p.radius < 0 || p.radius > kMaxMotionRadius)
    return bad("radius must be in 0..2");
  if (!(p.noise_factor >= 0.0f) || !(p.noise_factor <= 64.0f))
    return bad("noise_factor must be in 0..64");
  if (p.tau_min < 1 || p.tau_min_chroma < 1 || p.tau_max < p.tau_min ||
      p.tau_max < p.tau_min_chroma || p.tau_max > 255)
    return bad("need 1 <= tau_min, tau_min_chroma <= tau_max <= 255");
  if (!(p.shadow_low > 0.0f) || !(p.shadow_high >= p.shadow_low) || !(p.shadow_high < 1.0f))
    return bad("need 0 < shadow_low <= shadow_high < 1");
  if (p.adopt_frames < 0 || p.adopt_frames > 255 || p.adopt_frames_dynamic < 0 ||
      p.adopt_frames_dynamic > 255)
    return bad("adopt_frames and adopt_frames_dynamic must be in 0..255");
  if (!(p.dynamic_fraction >= 0.0f && p.dynamic_fraction <= 1.0f))
    return bad("dynamic_fraction must be in 0..1");
  if (!(p.dynamic_change_fraction >= 0.0f && p.dynamic_change_fraction <= 1.0f))
    return bad("dynamic_change_fraction must be in 0..1");
  if (!(p.persistence >= 0.0f) || !(p.persistence <= 1.0f))
    return bad("persistence must be in 0..1");
  if (p.absorb_frames < 0 || p.absorb_frames > 65535)
    return bad("absorb_frames must be in 0..65535");
  if (!(p.cut_fraction > 0.0 && p.cut_fraction <= 1.0) || p.cut_frames < 1)
    return bad("need 0 < cut_fraction <= 1 and cut_frames >= 1");
  if (p.min_blob_area < 1)
    return bad("min_blob_area must be >= 1");
  return Status::Ok();
}

Status MotionDetectorBase::configure(const MotionParams& p) {
  CVIS_RETURN_IF_ERROR(validate(p));
  const bool structural = p.history != p_.history || p.color != p_.color;
  // Ages count only while absorption is on: switched on, they start from 0.
  clear_ages_ = clear_ages_ || (p.absorb_frames > 0 && p_.absorb_frames == 0);
  p_ = p;
  rule_.configure(p.cut_fraction, p.cut_frames);
  if (structural)
    drop_state();
  return Status::Ok();
}

std::unique_ptr<MotionDetector> make_motion_detector(Backend backend, Status* status) {
  *status = Status::Ok();
  if (backend == Backend::kCpu)
    return make_cpu_motion_detector();
  if (backend == Backend::kCuda) {
#ifdef CVIS_HAVE_CUDA
    return make_cuda_motion_detector();
#else
    *status = Status(StatusCode::kNoDevice, "this build has no CUDA backend");
    return nullptr;
#endif
  }
  *status = invalid_argument("make_motion_detector: resolve the backend first (kCpu or kCuda)");
  return nullptr;
}

} // namespace cvis::median3d

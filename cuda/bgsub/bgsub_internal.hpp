// Pieces shared by the two backends of the background subtraction (host code, no CUDA types).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "bgsub.hpp"
#include "bgsub_math.hpp"
#include "bgsub_scene.hpp"

namespace cvis::bgsub {

// Inverse bandwidths 1/sigma for every median m = 0..255 and channel: 3 x 256 floats,
// channel-major. sigma = clamp(m / (0.68 sqrt 2), sigma_min, sigma_max), times
// intensity_sigma_scale for the third channel in chromaticity mode.
std::vector<float> bandwidth_table(const Params& p);

// Bits the bandwidth medians need: medians at or above m_cap = ceil(sigma_max * 0.68 sqrt 2) all
// give sigma_max, so differences are saturated at 2^bits - 1 >= m_cap (fewer radix passes).
int median_bits(const Params& p);

// The CPWL table of g(u) = exp(-u^2/2) on [0, cpwl_range] for kernel p.kernel (its partition,
// cpwl_points segments, cpwl_fit); an empty table (n = 0) for the analytic kernels.
Status build_table(const Params& p, cpwl::Table* out);

ModelConsts model_consts(const Params& p, int width, int height, const cpwl::Table& table);

// True when the kernel reads a uniform CPWL table by index (the per-pixel scale then includes
// the table's N / range, so the index is |d| * scale directly).
bool kernel_indexes_uniform_table(Kernel k);

// Validates a GRAY8 mask view of the given size in the given memory space.
Status validate_mask(const ImageView& mask, int width, int height, bool allow_device);

// What both backends keep of a configuration, and configure() itself: everything a Params needs is
// built before anything changes, so a failing configure() leaves the backend as it was.
class SubtractorBase : public Subtractor {
public:
  Status configure(const Params& p) final;
  const Params& params() const final { return p_; }
  void reset() final {
    schedule_.reset();
    still_scene_ = false;
  }

protected:
  // A frame with more wide-bandwidth pixels than this has a moving background (the model's size,
  // Params::dynamic_fraction).
  int64_t wide_limit() const;
  // Samples a lender must hold (borrowed_learnable) in a still scene and in a moving one.
  int lend_need_still() const;
  int lend_need_moving() const { return (p_.num_samples + 1) / 2; }
  // The shift test's reach: 2 pixels when the previous frame's scene was still (not
  // FrameResult::moving_background), else 1 (the first frame after a reset or a new model too).
  // A creep moves a still scene's edges by up to two pixels; beside leaves or grass the farther
  // neighbours explain away objects' contours.
  int shift_reach() const { return still_scene_ ? 2 : 1; }
  void note_scene(bool moving_background) { still_scene_ = !moving_background; }

  // The backend's own fallible step of configure(), the last one: when it succeeds, `p` is taken.
  virtual Status prepare(const Params& p) {
    (void)p;
    return Status::Ok();
  }
  // Called when configure() has taken a configuration (p_, table_, lut_, schedule_ are new).
  virtual void configured() {}

  Params p_;
  bool configured_ = false;
  // The model's size; 0 x 0 until the first frame, and again when a configuration changes the
  // sample count or the colour space (the per-pixel state is made again at the next frame).
  int w_ = 0, h_ = 0;
  FrameSchedule schedule_;
  cpwl::Table table_;
  std::vector<float> lut_; // bandwidth_table(p_)
  bool still_scene_ = false;
};

#if defined(CVIS_HAVE_CUDA)
std::unique_ptr<Subtractor> make_cuda_subtractor(Status* status);
#endif

} // namespace cvis::bgsub

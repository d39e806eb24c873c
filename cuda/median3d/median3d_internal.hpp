// Declarations shared by the backends of cuda/median3d (not part of the public interface).
#pragma once

#include <memory>
#include <vector>

#include "ccl/ccl.hpp"
#include "common/segmentation.hpp"
#include "median3d.hpp"
#include "median3d_math.hpp"
#include "motion.hpp"

namespace cvis::median3d {

std::unique_ptr<Estimator> make_cpu_estimator();
#ifdef CVIS_HAVE_CUDA
std::unique_ptr<Estimator> make_cuda_estimator();
#endif
// What both motion backends keep on the host (the parameters, the shot-change rule, where the
// model's life stands), and configure() itself.
class MotionDetectorBase : public MotionDetector {
public:
  Status configure(const MotionParams& p) final;
  // As a new detector: the per-pixel state (counts, ages, adoptions, shadows) is cleared at the
  // next frame too, which the initial fill alone does not do.
  void reset() final {
    restart_counters();
    drop_state();
  }

protected:
  // configure() changed the history length or the colour mode: the per-pixel state is to be
  // allocated (and reset) at the next frame.
  virtual void drop_state() = 0;
  // A new model: frame count, fill and the shot-change rule start again.
  void restart_counters() {
    frame_ = 0;
    fill_ = 0;
    restart_pending_ = false;
    rule_.reset();
    dynamic_ = false;
  }

  // The adoption frames of this frame (MotionParams::adopt_frames_dynamic), from the previous
  // frame's counts of pixels with a wide luma threshold and of pixels that changed by more than
  // their threshold; 0 (never) stays 0.
  int adopt_frames_now() const {
    return p_.adopt_frames > 0 && dynamic_ && p_.adopt_frames_dynamic > 0 ? p_.adopt_frames_dynamic
                                                                          : p_.adopt_frames;
  }
  // Luma thresholds above this are wide (a moving background).
  int wide_tau() const { return 2 * p_.tau_min; }
  // Called with the frame's counts of wide thresholds (read before the update) and of pixels
  // whose luma changed by more than their threshold (widened by 1/g, as the tests' thresholds:
  // a dimmed scene's amplified noise is no motion) since the previous frame.
  void note_scene(int64_t wide, int64_t changed, int64_t pixels) {
    dynamic_ = static_cast<double>(wide) > static_cast<double>(p_.dynamic_fraction) * pixels ||
               static_cast<double>(changed) > static_cast<double>(p_.dynamic_change_fraction) * pixels;
  }

  MotionParams p_;
  seg::ShotChangeRule rule_;
  int64_t frame_ = 0;
  int fill_ = 0;
  bool restart_pending_ = false;
  // The previous frame had a moving background (adopt_frames_now).
  bool dynamic_ = false;
  bool clear_ages_ = false; // absorption was switched on: ages restart from 0
};

std::unique_ptr<MotionDetector> make_cpu_motion_detector();
#ifdef CVIS_HAVE_CUDA
std::unique_ptr<MotionDetector> make_cuda_motion_detector();
#endif

// Frame size limits (kInvalidArgument) and format range (kUnsupportedFormat).
Status validate_geometry(int width, int height, PixelFormat format);
// 1 (luma) or 3.
int channel_count(const Params& p);
// A frame given to push(): valid view of the configured size and format.
Status check_frame(const ImageView& v, int width, int height, PixelFormat format, const char* what);
// An output view of compute(): valid, the frames' size, GRAY8 when `gray`.
Status check_output(const ImageView& v, int width, int height, bool gray, const char* what);

// A compute() request: `index` inside the window of `count` frames, outputs of the frames' size
// (check_output; in host memory when `host_outputs`), threshold in -1..255.
Status check_request(int index, int count, const Request& rq, int width, int height,
                     bool host_outputs);

// The destination description of a background view (any format).
PixelDest make_pixel_dest(const ImageView& v);

// Blob requests: min_area as the labelling's int (clamped); the max_blobs largest of `found`
// (raster order, area >= min_area) into *blobs (find_blobs' selection).
int ccl_min_area(uint32_t min_area);
void select_blobs(std::vector<Blob> found, size_t max_blobs, std::vector<Blob>* blobs);

// Rows per segment of the integral histogram's column scan (both backends use the same split so
// that the CPU twin exercises the GPU's decomposition).
inline constexpr int kScanSegment = 32;

} // namespace cvis::median3d

// Nonparametric spatio-temporal background subtraction with a kernel density (KDE) model, the
// application of Berjón et al., "Optimal Piecewise Linear Function Approximation for GPU-based
// Applications" (IEEE Trans. Cybernetics 2016), Sect. VI-A, whose model is that of its reference
// [20] (Berjón, Cuevas, Morán, García, IEEE Trans. Consum. Electron. 2013). README.md lists every
// parameter with the equation it implements.
//
// Per frame: each pixel's feature (3 colour channels) is compared with the reference samples of its
// (2r+1)^2 neighbourhood (num_samples per pixel); the background density is a product of 1-D
// Gaussian kernels with per-pixel bandwidths, weighted by a spatial Gaussian; the pixel is
// foreground when the density is below `threshold`. Only background pixels refresh their samples
// (selective update). The 1-D Gaussian is evaluated by the selected `kernel` (exact expf, SFU
// __expf, or one of the paper's CPWL approximations, cuda/cpwl).
//
// Input: any cvis::PixelFormat (cuda/common/color.hpp: GRAY8 -> R = G = B; YUV converted with the
// view's colorimetry). Output: a GRAY8 mask (0 background / 255 foreground) of the same size, host
// or (CUDA backend) device memory, plus the foreground fraction and the connected foreground blobs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ccl/ccl.hpp"
#include "common/backend.hpp"
#include "common/image.hpp"
#include "common/status.hpp"
#include "cpwl/cpwl.hpp"

namespace cvis::bgsub {

inline constexpr int kMaxSamples = 128; // num_samples limit (the ring index is a byte)
inline constexpr int kMaxRadius = 3;    // neighborhood limit

// Evaluator of the 1-D Gaussian kernel: the cpwl evaluators (same values, same names) plus one
// fused evaluator.
enum class Kernel : int {
  kExact = 0,            // expf
  kFast = 1,             // __expf (SFU)
  kTextureUniform = 2,   // CPWL, uniform partition, texture linear filtering (the paper's pick)
  kManualUniform = 3,    // CPWL, uniform partition, manual lerp (shared memory)
  kTextureOptimized = 4, // CPWL, optimized partition, unrolled search + texture filtering
  kManualOptimized = 5,  // CPWL, optimized partition, unrolled search + manual lerp
  kSlopeUniform = 6,     // CPWL, uniform partition, {value, slope} pairs (one shared load)
  kFastFused = 7,        // one __expf per sample for the whole product: exp(-(u0^2+u1^2+u2^2)/2)
};
inline constexpr int kKernelCount = 8;
const char* kernel_name(Kernel k); // "exact", "fast", "cpwl-texture", ..., "fast-fused"
bool parse_kernel(const std::string& s, Kernel* out);

// The default: the fastest evaluator whose masks equal the exact evaluator's within the stated
// tolerance, measured with bench_bgsub on the H100 (README.md: fast-fused, 0 pixels differ).
inline constexpr Kernel kDefaultKernel = Kernel::kFastFused;

enum class ColorSpace : int {
  kRgb = 0,          // (R, G, B)
  kChromaticity = 1, // (255 R/s, 255 G/s, s/3), s = R+G+B: shadows move mostly the third channel
};
enum class Cleanup : int {
  kNone = 0,
  kMedian = 1,  // 3x3 majority, keeping foreground with 4 of 9 (convex corners survive)
  kOpening = 2, // 3x3 erosion then 3x3 dilation
};

struct Params {
  int num_samples = 48;  // L: reference samples kept per pixel (2..128)
  int neighborhood = 1;  // r: samples of the (2r+1)^2 neighbourhood are used (0..3)
  int update_period = 1; // background pixels refresh one sample every this many frames (>= 1)
  // Update only pixels that the final mask calls background and whose density is at least
  // update_margin x threshold before the clean-up (false: the final mask alone decides). Keeps
  // object colours from leaking into the neighbours' reference samples (README.md).
  bool conservative_update = true;
  double update_margin = 1.0; // >= 1
  // Update only pixels whose own samples explain their value (own_explained, bgsub_math.hpp: the
  // density of their own L samples alone is >= threshold, and one of them is within ghost_levels
  // of it in every channel), or that show what half of a background 4-neighbour's samples hold
  // (borrowed_learnable: revealed background). Other background is background in the mask but not
  // learnt, so a flat object next to a moving background is not taken in from its contour
  // (README.md, deviations).
  bool update_own = true;
  // The lending of update_own in a still scene: the lender must hold the pixel's value in this
  // share of its L samples (at least one), in a moving scene in half of them. A frame's scene moves
  // when more than dynamic_fraction of its pixels have a wide bandwidth (wide_bandwidth,
  // bgsub_math.hpp: a background of leaves, grass or water). 0.125 on a still street camera: a
  // ghost's layers are lent on every L / 8 frames instead of every L / 2 (ghosts of parked objects
  // dissolve 4 times faster), but a slow flat object is taken in from its contour as fast
  // (README.md, deviation 8: the static corpus gains, a creeping scene's slow objects lose). (0,
  // 0.5]; 0.5 (the default): half everywhere.
  float still_lend_fraction = 0.5f;
  float dynamic_fraction = 0.01f; // [0, 1]
  // Foreground when the density (levels^-3) is below this (> 0). 3e-7: chosen on the issue-12
  // corpus's training sequences with the shadow defaults below (docs/elements/cudabgsub.md);
  // the paper's model (paper_params) keeps 1e-6.
  double threshold = 3e-7;
  Kernel kernel = kDefaultKernel;
  int cpwl_points = 64; // N: segments of the CPWL table (cpwl::kMinSegments..kMaxSegments)
  cpwl::Fit cpwl_fit = cpwl::Fit::kProjection;
  float cpwl_range = 4.0f; // the table covers u = |d|/sigma in [0, range] (then ramps to 0)
  ColorSpace color = ColorSpace::kRgb;
  float sigma_min = 2.0f; // colour bandwidth clamp, in levels (0 < min <= max)
  float sigma_max = 40.0f;
  float intensity_sigma_scale = 8.0f; // kChromaticity: the intensity kernel is this much wider
  float spatial_sigma = 1.0f;         // bandwidth of the positional kernel, in pixels (> 0)
  Cleanup cleanup = Cleanup::kMedian;
  bool blobs = true;      // connected-component labelling of the mask
  int min_blob_area = 25; // blobs smaller than this (pixels) are not reported (>= 1)
  int cpu_threads = 0;    // CPU backend: worker threads, 0 = all cores
  // CPU backend only: the texture unit's weight rounding that the texture evaluators emulate.
  cpwl::TexRounding texture_rounding = cpwl::TexRounding::kNearest;

  // Extensions for real footage (issue 12; README.md "Scene extensions"), on by default. With
  // illumination, shadows and shot_change false and min_mask_area 0 the model is the paper's.
  //
  // Global illumination: per-channel gains g_c = median of x_c / s_c over the previous frame's
  // background pixels (s: the pixel's newest sample; seg::gain_median); the frame is divided by g
  // before the model sees it and, below g = 1, the bandwidths widen by 1/g. RGB features only.
  bool illumination = true;
  // Cast shadows: a pixel the density calls foreground is background when at least
  // shadow_samples of its own samples explain it as a shadow (seg::shadow_yuv: luma ratio in
  // [shadow_low, shadow_high], chroma dimmed alike within shadow_chroma levels); shadow pixels do
  // not update the model. RGB features only.
  bool shadows = true;
  float shadow_low = 0.4f;   // 1/16 steps: rounded to the nearest 16th (0 < low <= high < 16)
  float shadow_high = 0.75f; //
  // The street's blue-tinted cast shadows need a chroma tolerance of 8; 44 of 48 samples keep the
  // rule off pixels whose samples vary (foliage), where some samples explain people as shadows.
  int shadow_chroma = 8;   // levels (>= 0)
  int shadow_samples = 44; // >= 1; at most num_samples are used
  // Shift test: a pixel the density calls foreground is background when its value lies within
  // shift_levels of the segment between one of its samples and the same sample of a neighbour
  // whose own model explains it, across an edge whose colour change less its grey part exceeds
  // 4/3 shift_levels: a camera that creeps blends neighbouring backgrounds at edges
  // (shift_explained, bgsub_scene_math.hpp). The neighbours within 2 pixels after a frame whose
  // scene was still (FrameResult::moving_background false), the 8-neighbours after a moving one.
  // Such pixels do not update the model and count as raw foreground for the shot-change rule. RGB
  // features only; grey edges are never tested (along them a blend is any grey between the two
  // sides). Only raw foreground pixels with a neighbour that its own model explains read samples
  // (up to 8 L pairs, 24 L in a still scene).
  bool shift_test = true;
  int shift_levels = 15; // >= 1
  // Shot changes: seg::ShotChangeRule on the raw foreground fraction and the fraction of pixels
  // that changed by more than 20 levels since the previous frame. A confirmed cut restarts the
  // model at the next frame with a warm-up of cut_warmup frames (masks empty), whose frames are
  // interleaved over the samples; FrameResult::shot_change marks that frame.
  bool shot_change = true;
  double cut_fraction = 0.5; // (0, 1]
  int cut_frames = 2;        // >= 1
  int cut_warmup = 6;        // >= 2; at most num_samples are used
  // After a warm-up that followed a cut, this many classified frames refresh the samples of every
  // pixel (blind update, as after median3d's shot-change restart): whatever moved during the
  // short warm-up leaves the samples instead of staying behind as a ghost. >= 0. 12: the best of
  // 0, 12, 48 on the training cut (cut-a: F 0.922, 0.929, 0.915; longer refills store passing
  // objects too).
  int cut_refill = 12;
  // Components of the cleaned mask smaller than this many pixels are cleared (0 or 1: none).
  int min_mask_area = 60;
  // Output filter: a component of the mask (after min_mask_area) is output only when at least this
  // share of its pixels was in the previous frame's mask (before this filter), in [0, 1]; 0: off.
  // Water's glints and ripples flicker, an object stays: dynamic set dev-water F 0.805 -> 0.991
  // at 0.3, the other dev and static sequences within 0.005 (cuda/bgsub/README.md). An object's
  // first frame is not output, nor an object that moves more than about 70% of its length a
  // frame. The model's update sees the mask before the filter.
  float persistence = 0.3f;
  // Ghosts (README.md "Scene extensions"): where an object that was in the samples has left, the
  // revealed background is foreground for the model. A ghost has no edge in the frame across its
  // contour but one in the model: a raw-foreground pixel of the cleaned mask that has stayed within
  // ghost_levels of the previous frame for ghost_still frames, with a 4-neighbour (left, right,
  // up, down: the first that qualifies) that is background in the mask, as still, raw background
  // (its own model explains it in this frame's density test), within ghost_levels of the pixel in
  // the frame, and explains the pixel's current value (ghost_matches of its samples within
  // ghost_levels in every channel) is a ghost pixel: it leaves the mask and takes over that
  // neighbour's samples, ring position and bandwidths. ghost_passes passes per frame, after the
  // 3x3 clean-up and before the area filter. A pixel taken over stays raw foreground in its frame,
  // so it is no source before the next frame: a ghost shrinks by about a layer per frame from its
  // contour, and passes after the first find no new source (1 and 4 give the same masks). A
  // stopped object has an edge against the background at its contour (its colour is not the
  // neighbours'), and a flat one a little off its background is not peeled through copied
  // samples, so it stays foreground. 0: off (>= 0).
  int ghost_passes = 1;
  // >= 0; also the tolerance of update_own (own_explained) and of the lending.
  int ghost_levels = 10;
  int ghost_matches = 1; // samples of the neighbour that must match (1..num_samples)
  int ghost_still = 8;   // frames pixel and neighbour must have stayed within ghost_levels (0..255)
};

// Params with every scene extension off: the model of the paper.
Params paper_params();

// Errors: kInvalidArgument naming the field.
Status validate(const Params& p);

// 1-D Gaussian evaluations per pixel and frame: 3 (2r+1)^2 L (1296 with the defaults, as the
// paper's "approximately 1300").
int64_t evaluations_per_pixel(const Params& p);

// A connected foreground region (8-connectivity) of the final mask (cuda/ccl).
using Blob = cvis::Blob;

struct FrameResult {
  int64_t frame = 0;       // frames since the last reset, this one included (1-based)
  bool warming_up = false; // the model is still being filled: the mask is all background
  int64_t foreground_pixels = 0;
  double foreground_fraction = 0.0;
  std::vector<Blob> blobs; // area >= min_blob_area, in raster order of their first pixel
  // Scene extensions. shot_change: this frame is the first of the warm-up that follows a confirmed
  // cut (the cut itself was one or more frames before: Params::cut_frames).
  bool shot_change = false;
  float gain[3] = {1.f, 1.f, 1.f}; // the illumination gains applied (1: none)
  int64_t shadow_pixels = 0;       // raw foreground pixels explained as shadows
  // More than dynamic_fraction of the pixels have a wide bandwidth (after the ghost passes): the
  // lending of this frame asked for half of the lender's samples (Params::still_lend_fraction).
  bool moving_background = false;
};

class Subtractor {
public:
  virtual ~Subtractor() = default;
  virtual Backend backend() const = 0;

  // Validates and applies `p`. A change of num_samples or color resets the model (it changes what
  // the samples are); the other parameters take effect at the next frame. CUDA backend: nothing is
  // copied here; the tables reach the device in order on the stream of the next process().
  virtual Status configure(const Params& p) = 0;
  virtual const Params& params() const = 0;

  // Classifies `frame`, writes the mask, updates the model. The first num_samples frames after a
  // reset only fill the model (warming_up, mask all 0), as do the cut_warmup frames after a shot
  // change. A frame of another size resets the model.
  // mask: GRAY8, the frame's size; host memory, or device memory (CUDA backend). density
  // (optional, host, width*height floats, row-major): the KDE density of every pixel (0 while
  // warming up), for tests and tuning. `stream`: CUDA stream (ignored by the CPU backend); all
  // work is finished when the call returns.
  // Errors: kInvalidArgument (views), kUnsupportedFormat (device view given to the CPU backend),
  // kCudaError / kOutOfMemory.
  virtual Status process(const ImageView& frame, const ImageView& mask, FrameResult* result,
                         StreamHandle stream, float* density = nullptr) = 0;

  // Forgets the model (next frame starts a new warm-up); keeps allocations.
  virtual void reset() = 0;
};

// `backend` must be kCpu or kCuda (resolve kAuto first). nullptr and *status = kNoDevice when the
// CUDA backend is not in this build.
std::unique_ptr<Subtractor> make_subtractor(Backend backend, Status* status);

} // namespace cvis::bgsub

// Region covariance detection and multi-target tracking, after M. A. Asan, "CUDA based real time
// implementation of region covariance descriptors" (MSc thesis, Hacettepe University, 2019), which
// builds on O. Tuzel, F. Porikli, P. Meer, "Region covariance: a fast descriptor for detection and
// classification" (ECCV 2006). README.md maps the thesis's equations to the code.
//
// A region is described by the covariance of per-pixel features (thesis Eq. 1-3) computed from
// integral images of the features and of their products (Eq. 4). All sums are exact: the features
// are integers for 8-bit input, the integral images are int64 and the covariance numerators
// N*S_ab - S_a*S_b are formed in 128-bit integers, so the covariance of any window equals the
// exact one up to one double rounding. Two regions are compared with the Jensen-Bregman LogDet
// divergence (Eq. 10, default) or the Foerstner distance (Eq. 5-6).
//
// Tracker: each target is searched at `scales` window sizes (scale_min..scale_max times its current
// size) on a grid of `step` pixels around its predicted position (or over the whole frame), then
// refined on a finer grid around the best window; all targets of a frame go to the device in one
// batched pass per stage and only the winners come back. Detector: every window of a template's
// sizes over the whole frame whose distance is under a threshold, after non-maximum suppression.
//
// Frames: any cvis::PixelFormat (YUV is converted to RGB with color.hpp), host or device views
// (CUDA backend; host frames are uploaded by the backend), width and height 8..16384.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/image.hpp"
#include "common/status.hpp"

namespace cvis::rcdtrack {

// ------------------------------------------------------------------------------------------------
// Features (integers for 8-bit input; rcdtrack_math.hpp has the exact definitions)

enum class Feature : uint8_t {
  kX = 0, // column (scale-normalised by the window width in the covariance)
  kY = 1, // row (normalised by the window height)
  kR = 2, // red, green, blue 0..255
  kG = 3,
  kB = 4,
  kI = 5,  // luma (2627 R + 6780 G + 593 B) / 10000, rounded (thesis Eq. 8)
  kIx = 6, // Sobel derivatives of the luma (thesis Eq. 9), -1020..1020
  kIy = 7,
  kAbsIx = 8, // their magnitudes
  kAbsIy = 9,
  kAbsIxx = 10, // |second derivatives| of the luma ([1 -2 1] x [1 2 1]), 0..2040
  kAbsIyy = 11,
};
inline constexpr int kFeatureKinds = 12;
inline constexpr int kMaxFeatures = 9;

// An ordered feature list: the spatial features (x, y) first, each feature at most once, 2..9 of
// them with at least one non-spatial feature.
struct FeatureSet {
  int count = 0;
  Feature list[kMaxFeatures] = {};
  bool operator==(const FeatureSet& o) const;
};
FeatureSet thesis_features(); // R, G, B, Ix, Iy (thesis Eq. 2)
FeatureSet tuzel_features();  // x, y, I, |Ix|, |Iy|, |Ixx|, |Iyy| (Tuzel et al.'s texture set)
// "thesis", "tuzel", or a comma list of x, y, r, g, b, i, ix, iy, |ix|, |iy|, |ixx|, |iyy|
// (spatial features are moved first). False with a message in *error when the text is not one.
bool parse_features(const std::string& text, FeatureSet* out, std::string* error);
std::string feature_names(const FeatureSet& f); // "thesis", "tuzel" or the comma list
Status validate_features(const FeatureSet& f);

enum class Distance : int {
  kJbld = 0,      // Jensen-Bregman LogDet divergence, thesis Eq. 10 (Cholesky log-determinants)
  kFoerstner = 1, // sqrt(sum ln^2 lambda_i(A, B)), generalised eigenvalues (Eq. 5-6)
};
const char* distance_name(Distance d); // "jbld", "foerstner"

// ------------------------------------------------------------------------------------------------
// Parameters. Defaults: the thesis's features, distance and 8 scales; the search, model update and
// loss settings are ours (the thesis detects in single frames).

// Where rotation_box's estimate of the in-plane rotation comes from.
enum class RotationSource : int {
  kTensor = 0,   // the orientation of the gradient structure tensor (Ix, Iy block of the matched
                 // window's covariance) against the first window's; only for anisotropic textures
  kLayout = 1,   // the first window's layout turned: the angle whose made-up window (cells of the
                 // first frame, rcdtrack_rotation.hpp) is nearest to the matched window; any
                 // texture with signed Ix, Iy and no spatial features
  kFallback = 2, // the tensor where the first window's gradients have an orientation, else the
                 // layout (default)
  kBoth = 3,     // the mean of the two measurements where both exist
};

struct Params {
  FeatureSet features = thesis_features();
  Distance distance = Distance::kJbld;
  int scales = 8;         // window sizes per search, 1..16, geometric from scale_min to scale_max
  double scale_min = 0.5; // of the current target size (detector: of the template size)
  double scale_max = 2.0;
  int step = 0;                // coarse grid step in pixels; 0: max(1, round(min(w, h) / 8))
  double search_radius = 1.0;  // window centres within this many target sizes of the predicted
                               // centre; < 0: the whole frame
  double update_rate = 0.05;   // log-Euclidean running mean of matched covariances; 0: first model
  double lost_threshold = 1.5; // best distance above it: lost; a lost target is searched over the
                               // whole frame until a window comes under it again
  int parts = 5;               // 1: one covariance per window (the thesis); 5: the window and its
                               // left, right, top and bottom halves, distance = sum of the five
                               // minus the largest (Tuzel et al. Sec. 4: layout and occlusion)
  double ridge = 1.0;          // added to each variance, times the feature's noise scale
                               // (rcdtrack_math.hpp: feature_ridge_scale); keeps windows regular
  double motion_weight = 0.5;  // score += motion_weight * squared offset from the prediction, in
                               // target sizes
  double scale_weight = 2.0;   // score += scale_weight * ln^2(window size / target size)
  double context_weight = 0.5; // score -= context_weight * min(1, distance between the model and
                               // the ring around the window): windows that cut through the target
                               // (target pixels just outside) lose to ones that fit it
  int top_k = 1;               // hits kept per target and stage (1..8), best first
  double scale_prediction = 0.2; // 0..1: gain of the smoothed per-frame log size change; the
                                 // search sizes (and the scale prior) are centred on the size it
                                 // predicts (0: on the current size)
  double scale_gain = 0.5;       // 0..1: how much of a tracking frame's measured size change is
                                 // taken: ln size = ln(predicted) + g ln(best window / predicted)
                                 // (an alpha-beta filter with scale_prediction; 1: the best
                                 // window's size as is). Below 1, one frame's shrink onto the
                                 // visible part of an occluded target is not taken whole, and the
                                 // box is the best window's centre with the filtered size
  double model_anchor = 0.5;     // 0..1: weight of the first model in the model used for matching,
                                 // exp((1 - a) log(running mean) + a log(first)): bounds how far
                                 // learning (e.g. of occluders or background) can drift it
  double occlusion_ratio = 4.0;  // a tracking frame is uncertain (e.g. partly occluded) when its
                                 // best distance is above this many times the target's running
                                 // distance (the mean over its confident frames), clamped to
                                 // 1/4..1/2 of lost_threshold, unless a window of another size is
                                 // clearly nearer than the best one of the predicted size (a size
                                 // change): it takes that window of the predicted size and keeps
                                 // the size, velocity, rotation and model. One more fine size per
                                 // tracked target and frame. 0: off
  int coast_frames = 20;         // occlusion_ratio > 0: a tracking frame above lost_threshold
                                 // (at most twice it) that follows an uncertain one, within this
                                 // many uncertain frames in a row, is uncertain instead of lost,
                                 // and it and the uncertain frames after it put the box at the
                                 // centre predicted by the velocity of the confident frames
                                 // instead of the window's (an occlusion builds up: a target
                                 // disappearing behind a bar keeps moving). 0: off
  bool local_reacquire = true;   // a lost target is also searched near where it was last seen
                                 // (targets whose lost search is the whole frame only)
                                 // (search_radius times up to 2, widening with the frames lost,
                                 // the motion and scale priors on) and re-acquired there by a
                                 // window under 3/4 lost_threshold (whole frame: 1/2 of it)
  bool rotation_box = true;      // the box reported is the axis-aligned box of the target rotated
                                 // by half its in-plane rotation since the first frame, estimated
                                 // from the orientation of the gradient (Ix, Iy) covariance (half:
                                 // the estimate errs, and errors only widen the box); needs the
                                 // features ix and iy (the search windows stay axis-aligned)
  RotationSource rotation_source = RotationSource::kFallback; // rotation_box's estimate
  bool template_refine = true;   // a target started from a box keeps that box's grey image; on
                                 // every confident tracking frame away from the frame's border it
                                 // is matched by normalised cross-correlation around the best
                                 // window (a quarter of the size either way, at the tracked size
                                 // and 8% either side), and where it correlates by at least 0.7
                                 // the box's centre moves there (the size stays the windows'):
                                 // the layout of the first frame's pixels places the box where
                                 // covariances alone do not (windows inside a flat target match
                                 // as well as the whole)
  // Detector only.
  double threshold = 1.0; // report windows whose distance is under it
  double nms_iou = 0.3;   // suppress a detection overlapping a better one by more than this
  int max_detections = 64;
};
Status validate(const Params& p);

// ------------------------------------------------------------------------------------------------
// Boxes, models, results

struct Box {
  int x = 0, y = 0, w = 0, h = 0;
  bool operator==(const Box& o) const { return x == o.x && y == o.y && w == o.w && h == o.h; }
};
double iou(const Box& a, const Box& b);
// The part of `box` inside a width x height frame (w or h <= 0 when there is none).
Box clip_box(const Box& box, int width, int height);
// A target needs at least kMinTargetSide x kMinTargetSide pixels of its box inside the frame.
inline constexpr int kMinTargetSide = 4;

// "x,y,w,h" or several separated by ';' (spaces allowed, a trailing ';' too). False with a message
// when a box does not parse or has w or h < 1.
bool parse_boxes(const std::string& text, std::vector<Box>* out, std::string* error);

// The appearance of a region: the feature covariances of the region (and of its halves when
// parts = 5), scale-normalised, without the ridge.
struct Model {
  FeatureSet features;
  int parts = 1;             // 1 or 5 (whole, left, right, top, bottom)
  int width = 0, height = 0; // size of the region it was taken from (template size)
  std::vector<double> cov;   // parts x count x count, row-major, symmetric
};
// Text file "cvis-rcdtrack-model 1" (features, size, matrix with 17 significant digits).
Status save_model(const std::string& path, const Model& m);
// A model file (its features and parts win), or an 8-bit PNG or binary PPM image whose whole area
// becomes the template (its covariances under `features` and `parts`, computed with the CPU
// reference). kIoError when unreadable.
Status load_model(const std::string& path, const FeatureSet& features, int parts, Model* m);
// The model of the whole of a host image.
Status model_from_image(const ImageView& image, const FeatureSet& features, int parts, Model* m);

enum class Event : int { kNone = 0, kStarted, kLost, kReacquired };

struct TargetResult {
  int id = 0;
  Box box;               // last matched window (lost: where it was last seen)
  double distance = 0.0; // of the best window this frame (lost: the best of the frame search)
  double scale = 1.0;    // target size relative to its size at the start
  bool lost = false;
  uint64_t age = 0; // frames processed since the target started (0 on its first frame)
  Event event = Event::kNone;
};

struct Detection {
  Box box;
  double distance = 0.0;
  double scale = 1.0; // window size relative to the template
};

// The work of one batched search pass (for benchmarks and logs): its cost is roughly the pixels
// its integral images cover (features and products per pixel) plus its windows (covariances and
// distances per window).
struct PassStats {
  int groups = 0;              // searches (one per target and stage, plus regions described)
  int integrals = 0;           // integral images built
  int64_t integral_pixels = 0; // frame pixels they cover
  int64_t windows = 0;         // windows evaluated (before the early exit)
};

// The last Tracker::process(): targets by state, and the coarse and fine passes.
struct FrameStats {
  int tracked = 0, lost = 0, started = 0;
  PassStats coarse, fine;
};

class Engine; // the backend (rcdtrack_engine.hpp)

// ------------------------------------------------------------------------------------------------
// Tracker: several targets, one batched device pass per stage and frame.
class Tracker {
public:
  explicit Tracker(std::unique_ptr<Engine> engine);
  ~Tracker();
  Tracker(const Tracker&) = delete;
  Tracker& operator=(const Tracker&) = delete;

  Backend backend() const;
  // Validates and allocates for frames of this size and format; drops all targets.
  // Errors: kInvalidArgument, kUnsupportedFormat, kOutOfMemory, kCudaError.
  Status configure(const Params& params, int width, int height, PixelFormat format);
  // Settings that may change while tracking (update_rate, lost_threshold, weights, search radius,
  // step, scales, top_k); features, distance and ridge need configure().
  Status update_params(const Params& params);
  const Params& params() const { return params_; }
  // Forgets every target (keeps allocations).
  void reset();

  // Starts target `id` (caller's choice, unique) on the next process()ed frame, from that frame's
  // pixels inside `box` (clipped to the frame; at least kMinTargetSide x kMinTargetSide pixels
  // must remain). While lost it is
  // searched within `lost_radius` target sizes of where it was last seen, or over the whole frame
  // when `lost_radius` < 0 (a whole-frame search of a small target costs the frame's area over
  // its step squared windows per scale: a detector that restarts targets makes it unnecessary).
  // `aligned_steps`: with the auto step (Params::step 0) its coarse steps are rounded down to a
  // multiple of 4 from 8 pixels and of 2 from 4 (a finer or equal grid on integrals of 4x4 or 2x2
  // pixel cells instead of single pixels where the step is odd: several times cheaper; the
  // windows differ, so the tracking does too). For the many targets a detector starts.
  Status add_target(int id, const Box& box, double lost_radius = -1.0, bool aligned_steps = false);
  // Starts target `id` from a model (e.g. a saved one): lost until found by a whole-frame search.
  Status add_target_model(int id, const Model& model);
  // Stops target `id` (also a pending one). False when there is none.
  bool remove_target(int id);
  int target_count() const;
  // The current model of target `id` (kInvalidArgument when there is none or it has not started).
  Status get_model(int id, Model* out) const;

  // Tracks every target in `frame` (host or device view of the configured size and format) and
  // gives one result per target, in the order the targets were added. Work runs on `stream`
  // (CUDA backend), which is synchronised before the results return.
  Status process(const ImageView& frame, StreamHandle stream, std::vector<TargetResult>* out);
  // What the last process() did (zeros before the first).
  const FrameStats& last_stats() const { return stats_; }

  struct Target; // implementation (rcdtrack_tracker_target.hpp)

private:
  struct Impl;
  std::unique_ptr<Engine> engine_;
  Params params_;
  int width_ = 0, height_ = 0;
  bool configured_ = false;
  FrameStats stats_;
  std::unique_ptr<Impl> impl_;
};

// Detector: one template, every frame searched whole.
class Detector {
public:
  explicit Detector(std::unique_ptr<Engine> engine);
  ~Detector();
  Detector(const Detector&) = delete;
  Detector& operator=(const Detector&) = delete;

  Backend backend() const;
  // As Tracker::configure; the template's features replace params.features.
  Status configure(const Params& params, const Model& model, int width, int height,
                   PixelFormat format);
  Status update_params(const Params& params); // threshold, nms_iou, max_detections, step, scales
  // Detections in `frame`, best first, at most max_detections.
  Status process(const ImageView& frame, StreamHandle stream, std::vector<Detection>* out);

private:
  std::unique_ptr<Engine> engine_;
  Params params_;
  Model model_;
  int width_ = 0, height_ = 0;
  bool configured_ = false;
};

// `backend` must be kCpu or kCuda (resolve kAuto first). nullptr and *status = kNoDevice when the
// CUDA backend is not in this build.
std::unique_ptr<Tracker> make_tracker(Backend backend, Status* status);
std::unique_ptr<Detector> make_detector(Backend backend, Status* status);

} // namespace cvis::rcdtrack

// The front end of the action recogniser: space-time interest points and their HoG/HoF
// descriptors, computed frame by frame over a ring of frames, so that a stream yields the scene
// graph nodes (cvis::actionmatch::Graph) the matcher consumes. README.md gives the equations, the
// choices where the papers leave room and the CPU/CUDA parity.
//
// Per frame n (luma 0..255 -> 0..1, optionally divided by twice the frame's mean):
//   S_n   = G_sigma * I_n                                  (2-D Gaussian, separable)
//   E, O  = sum_k h_ev(k) S_{n-k}, sum_k h_od(k) S_{n-k}   (temporal quadrature Gabor pair)
//   R     = E^2 + O^2                                      (periodic detector, Dollar et al.)
//   or, with Detector::kHarris (Laptev's space-time Harris), from L = g_tau * S_n (temporal
//   Gaussian): scale-normalised gradients (sigma Lx, sigma Ly, tau Lt), their second-moment
//   matrix mu integrated by a Gaussian of harris_scale x (sigma, tau), R = det mu - k trace^3 mu;
//   points: 3-D local maxima of R (3 frames x (2r+1)^2 pixels) above `threshold`, the
//   `max_points` strongest per frame;
//   flow  (u, v)_n from frame n-1 to n: dense pyramidal Lucas-Kanade;
//   descriptor of a point: 3x3 spatial x 2 temporal cells around it, per cell a 4-bin histogram of
//   the orientation of grad S (HoG) and a 5-bin histogram of the flow (4 directions + "no motion",
//   HoF): 72 + 90 = 162 values, each part L2-normalised and scaled by 1/sqrt(2). With
//   FlowHistogram::kSpeed the HoF has 9 bins per cell (4 directions below the speed split,
//   "no motion", 4 directions at or above it): 72 + 162 = 234 values.
// This header includes no CUDA header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "actionmatch.hpp"
#include "common/backend.hpp"
#include "common/image.hpp"
#include "common/status.hpp"

namespace cvis::stip {

// HoG (72) + speed-split HoF (18 cells x 9 bins = 162): FlowHistogram::kSpeed.
inline constexpr int kSpeedDescriptorDim = 234;

// How a descriptor's flow part bins the flow (README.md).
// A dictionary records it (actionlearn.hpp): descriptors of different kinds are not comparable.
enum class FlowHistogram : uint32_t {
  kPaper = 0, // 4 directions + "no motion" per cell, L2-normalised: direction only
  kSpeed = 1, // 4 directions slower than the split, "no motion", 4 directions faster: the
              // normalised histogram keeps how much of the motion is fast
};
const char* flow_histogram_name(FlowHistogram h); // "paper", "speed"
bool parse_flow_histogram(const std::string& s, FlowHistogram* out);
// Limits of the speed split (pixels per frame).
inline constexpr double kMinSpeedSplit = 0.1, kMaxSpeedSplit = 20.0;

// Descriptor layout (kPaperDescriptorDim = 162 values): HoG first, cell-major
// (t, y, x) with 4 orientation bins per cell, then HoF, cell-major with 5 bins per cell
// (kHofSpeedBins = 9 with FlowHistogram::kSpeed: kSpeedDescriptorDim = 234 values).
inline constexpr int kCellsX = 3, kCellsY = 3, kCellsT = 2;
inline constexpr int kCells = kCellsX * kCellsY * kCellsT;
inline constexpr int kHogBins = 4, kHofBins = 5, kHofSpeedBins = 9;
inline constexpr int kHogDim = kCells * kHogBins; // 72
inline constexpr int kHofDim = kCells * kHofBins; // 90

// The interest point detector.
enum class Detector : int {
  kPeriodic = 0, // Dollar et al.: spatial Gaussian, temporal Gabor pair (the default)
  kHarris = 1,   // Laptev: space-time Harris corners (the paper's best results used it)
};
const char* detector_name(Detector d); // "periodic", "harris"
bool parse_detector(const std::string& s, Detector* out);

// Detector and descriptor parameters. Defaults were chosen on held-out generated subjects
// (README.md).
struct FrontEndParams {
  double sigma = 2.0;       // spatial scale of the Gaussian (pixels), 0.5..8
  double tau = 2.5;         // temporal scale of the Gabor envelope exp(-t^2/tau^2) (frames), 0.5..8
  double omega = 0;         // Gabor frequency (cycles per frame); 0 = 1 / (2 tau)
  double threshold = 1e-4;  // minimum response R (intensities in 0..1)
  int nms_radius = 3;       // spatial half-size of the non-maximum suppression window, 1..8
  int max_points = 4;       // strongest points kept per frame (top-K), 1..64
  double cell_size = 6;     // spatial descriptor cell (pixels); the patch is 3 cells wide, 2..64
  int cell_frames = 4;      // temporal descriptor cell (frames); the patch spans 2 cells, 1..16
  int flow_levels = 3;      // Lucas-Kanade pyramid levels, 1..5
  int flow_iterations = 2;  // warping iterations per level, 1..8
  int flow_radius = 2;      // half-size of the Lucas-Kanade window, 1..7
  double flow_min = 0.1;    // pixels/frame: slower pixels vote "no motion" (HoF bin 5)
  bool normalise_gain = true; // divide each frame by its mean brightness (x 0.5): global
                              // illumination changes (flicker, auto gain) give no response
  // HoF binning: the paper's (direction only after normalisation) or split by speed, so that
  // fast and slow motion in the same direction (running, jogging) differ.
  FlowHistogram flow_histogram = FlowHistogram::kPaper;
  double speed_split = 2.0; // pixels/frame, kMinSpeedSplit..kMaxSpeedSplit (used with kSpeed)
  Detector detector = Detector::kPeriodic;
  double harris_k = 0.005;    // Harris: weight of trace^3, 0..0.1 (Laptev: 0.005)
  double harris_scale = 2.0;  // Harris: integration scale / (sigma, tau), 1..4; harris_scale x
                              // sigma and harris_scale x tau at most 8

  int temporal_radius() const; // half-length of the Gabor filters and of the Harris temporal
                               // smoothing: ceil(2 tau)
  int integration_radius() const; // Harris: half-length of the temporal integration,
                                  // ceil(2 harris_scale tau)
  // Frames the response of a frame reaches on either side: temporal_radius() (periodic), or
  // temporal_radius() + integration_radius() (Harris).
  int detector_radius() const;
  double frequency() const;    // omega, or its default
};
Status validate(const FrontEndParams& p);
// Values per descriptor: kPaperDescriptorDim, or kSpeedDescriptorDim with FlowHistogram::kSpeed.
int descriptor_dim(const FrontEndParams& p);

// One interest point: frame number, integer pixel position, detector response.
struct InterestPoint {
  int64_t frame = 0;
  int32_t x = 0, y = 0;
  float response = 0;
};

// The points of one frame, strongest first, with their descriptors (`dim` values each).
struct FramePoints {
  int64_t frame = 0;
  int dim = actionmatch::kPaperDescriptorDim; // descriptor_dim() of the front end's parameters
  std::vector<InterestPoint> points;
  std::vector<float> desc; // points.size() * dim
};

// Interest points and descriptors of a stream. Frames are numbered from 0 in push order after
// configure() or reset(). A frame is final `lag()` pushes after its own (its response needs the
// Gabor support ahead, its descriptor the cells ahead); frames within temporal_radius() of the
// start or the end of the stream carry no points (their filters would reach outside it).
class FrontEnd {
public:
  virtual ~FrontEnd() = default;
  virtual Backend backend() const = 0;

  // Frame size and parameters; allocates the ring. Errors: kInvalidArgument.
  virtual Status configure(int width, int height, const FrontEndParams& p) = 0;
  // Frames between a push and the result for that frame.
  virtual int lag() const = 0;
  // Enters the next frame (GRAY8, or the luma plane of NV12/I420; host or device memory as the
  // backend takes: the CPU backend reads host memory, the CUDA backend either) and appends to
  // `ready` the frames that became final (at most one per push). Errors: kInvalidArgument (size,
  // format), kCudaError.
  virtual Status push(const ImageView& frame, StreamHandle stream,
                      std::vector<FramePoints>* ready) = 0;
  // End of the stream: appends every frame not yet final (without points where the filters would
  // need frames after the last), then forgets the stream (as reset()).
  virtual Status finish(StreamHandle stream, std::vector<FramePoints>* ready) = 0;
  // Forgets the stream (frame numbers restart at 0); keeps the configuration.
  virtual void reset() = 0;
};

std::unique_ptr<FrontEnd> make_frontend(Backend backend, Status* status);

// The filter taps both backends use: the spatial Gaussian (2 r + 1 taps, sum 1, r = ceil(3 sigma))
// and the temporal pair h_ev (made zero-mean: a static scene gives no response), h_od
// (2 temporal_radius() + 1 taps; index k holds the tap of frame offset k - radius).
void gaussian_taps(double sigma, std::vector<float>* taps);
void gabor_taps(const FrontEndParams& p, std::vector<float>* even, std::vector<float>* odd);
// The Harris detector's taps: the temporal Gaussian `smooth` (std tau, sum 1) and the derivative
// of Gaussian `deriv` (antisymmetric, sum_k deriv[k] (k - radius) = 1, so that sum_k deriv[k]
// S_{m-radius+k} is dS/dt on a ramp; tap k weighs frame offset k - radius), both
// 2 temporal_radius() + 1 long; the integration Gaussians `space` (std harris_scale sigma, 2 ceil(3 harris_scale sigma) + 1
// taps) and `time` (std harris_scale tau, 2 integration_radius() + 1 taps), each of sum 1.
void harris_taps(const FrontEndParams& p, std::vector<float>* smooth, std::vector<float>* deriv,
                 std::vector<float>* space, std::vector<float>* time);

} // namespace cvis::stip

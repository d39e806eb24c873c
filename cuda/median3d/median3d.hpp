// Spatio-temporal (x, y, t) median background model and motion segmentation against it, after
// Poostchi, Palaniappan, Bunyak, Becchi and Seetharaman, "Realtime motion detection based on the
// spatio-temporal median filter using GPU integral histogram" (ICVGIP 2012; README.md).
//
// The window of output frame j is m x n pixels (clipped at the image borders) by the frames the
// caller keeps in it (`temporal` of them once the stream is running; fewer at its start and end).
// Values are quantised into `bins` uniform bins; the median bin is the paper's Algorithm 1 (the
// first bin whose cumulative count exceeds half the window count) and the background value is
// bin_value() of it (median3d_math.hpp): exact at 256 bins.
//
// Methods (all give identical results except kSeparable, which is a different filter):
// - kIntegralHistogram (the paper's): a joint integral histogram over the window, updated per
//   frame with the integral histogram of (head - tail), medians from four corners per bin.
// - kSeparable (the paper's M2D+t): 2-D median per frame, then the temporal median of those.
// - kSlidingHistogram (ours, the fastest): per-pixel temporal histograms updated with the head and
//   tail frames, summed over each pixel's box with sliding sums, then the median search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/backend.hpp"
#include "common/blob.hpp"
#include "common/image.hpp"
#include "common/status.hpp"

namespace cvis::median3d {

enum class Method : int { kIntegralHistogram = 0, kSeparable = 1, kSlidingHistogram = 2 };
enum class Channels : int { kLuma = 0, kRgb = 1 };
const char* method_name(Method m); // "integral-histogram", "separable", "sliding-histogram"

inline constexpr int kMaxSpatial = 31;        // m, n <= 31
inline constexpr int kMaxTemporal = 255;      // per-pixel counts fit one byte
inline constexpr uint32_t kMaxWindow = 65535; // m * n * temporal: box sums fit 16-bit lanes
inline constexpr int kMaxDimension = 16384;   // width, height (row scans use int16)

struct Params {
  int spatial_w = 3; // m: odd, 1..31
  int spatial_h = 3; // n: odd, 1..31
  int temporal = 15; // T + 1 frames, 1..255
  int bins = 16;     // 8..256 (the paper's timing runs use 16)
  Method method = Method::kSlidingHistogram;
  Channels channels = Channels::kLuma;
};

// kInvalidArgument when a value is out of range (message names it).
Status validate(const Params& p);

// A foreground blob: an 8-connected component of the mask (find_blobs below;
// cuda/common/blob.hpp).
using Blob = cvis::Blob;

// What compute() produces. Every view is optional (nullptr); views may be host or device (CUDA
// backend) and must be width x height. `background`: any format, written with store_background().
// `mask`, `mask_copy`: GRAY8, 255 where |I - median| > tau else 0 (luma: I and median are the
// luma; per-channel: the largest difference over the channels). `mask_copy` is a second
// destination for the same mask (e.g. a host copy of a device mask).
// `blobs`: the foreground blobs of the mask (Blob above) into FrameResult::blobs, computed by
// the backend itself (CUDA: on the device, from the mask it writes; no mask view is needed, the
// mask is then computed into scratch). Both backends give identical blobs (cuda/ccl).
struct BlobRequest {
  bool enabled = false;
  uint32_t min_area = 1;                      // smaller components are left out
  size_t max_blobs = static_cast<size_t>(-1); // at most this many: the largest (see find_blobs)
};

struct Request {
  const ImageView* background = nullptr;
  const ImageView* mask = nullptr;
  const ImageView* mask_copy = nullptr;
  int threshold = -1; // tau: 0..255 fixed, -1 = Otsu's threshold of this frame's differences
  BlobRequest blobs;
};

struct FrameResult {
  int threshold = -1;      // tau used; -1 when no mask was requested
  uint64_t foreground = 0; // mask pixels set
  uint64_t pixels = 0;     // width * height
  bool has_blobs = false;  // blobs were requested
  std::vector<Blob> blobs; // Request::blobs: as find_blobs() of the mask with its settings
};

struct MemoryUse {
  size_t device_bytes = 0;
  size_t host_bytes = 0;
};

// The estimator keeps the window's frames (a ring of their channel values) and the method's
// running state. Frames enter at the head (push) and leave from the tail (push with drop_oldest,
// or pop); compute() gives the outputs of any frame of the window over the whole window.
// The timing policy (centered or causal window, drain at end of stream) is the caller's: see
// WindowTracker below. All calls run on `stream` (CUDA backend; ignored by the CPU backend); the
// CUDA backend does not synchronise the stream: device outputs are valid once it is, and result()
// waits for the figures itself.
class Estimator {
public:
  virtual ~Estimator() = default;
  virtual Backend backend() const = 0;

  // Validates, allocates for `format` frames of width x height, and empties the window.
  // Errors: kInvalidArgument (params, size), kUnsupportedFormat, kOutOfMemory / kCudaError.
  virtual Status configure(const Params& params, int width, int height, PixelFormat format) = 0;
  // Empties the window (keeps allocations).
  virtual void reset() = 0;
  // Frames in the window now.
  virtual int frames() const = 0;

  // Adds `frame` as the newest frame (host or device view of the configured size and format; the
  // pixels are copied). With drop_oldest the oldest frame leaves in the same update; without it
  // the window must not be full (frames() < temporal). The view may be reused after the call
  // returns only once the stream is synchronised (CUDA backend, device views).
  virtual Status push(const ImageView& frame, bool drop_oldest, StreamHandle stream) = 0;
  // Removes the oldest frame (draining at end of stream). Error when the window is empty.
  virtual Status pop(StreamHandle stream) = 0;
  // Outputs for the window's frame `index` (0 = oldest, frames() - 1 = newest) over the current
  // window. Error when the window is empty or the index is outside it.
  virtual Status compute(int index, const Request& request, StreamHandle stream) = 0;
  // The last compute()'s figures. CUDA backend: waits for that compute()'s work (an event recorded
  // at its end, not a stream synchronisation) and returns its error.
  virtual Status result(FrameResult* out) = 0;

  virtual MemoryUse memory() const = 0;
};

// `backend` must be kCpu or kCuda (resolve kAuto with cvis::resolve_backend first). Returns nullptr
// and sets *status (kNoDevice) when the CUDA backend is not in this build.
std::unique_ptr<Estimator> make_estimator(Backend backend, Status* status);

// Device bytes the CUDA backend will allocate for these settings (for logs and docs); `blobs`:
// with blob requests (the labelling's scratch, ~24 bytes per pixel).
size_t estimate_device_bytes(const Params& p, int width, int height, PixelFormat format,
                             bool blobs = false);

// ---------------------------------------------------------------------------------------------
// Timing. Output frame j uses the frames j - before .. j + after (those that exist).
//   centered (the paper's): after = (temporal - 1) / 2 (the output lags that many frames),
//            before = temporal - 1 - after;
//   causal (live sources):  after = 0, before = temporal - 1.
enum class Timing : int { kCentered = 0, kCausal = 1 };

class WindowTracker {
public:
  WindowTracker() = default;
  WindowTracker(int temporal, Timing timing);
  int lag() const { return after_; } // frames an output lags its input
  void reset();

  // A frame arrives: returns whether it must be pushed with drop_oldest.
  bool arrive();
  // Whether the next output is ready: after arrive() (draining = false) or at end of stream
  // (draining = true, repeat until false). When true, the caller first pops `*pops` frames, then
  // computes the window's frame `*index` and the output is counted as done.
  bool next_output(bool draining, int* pops, int* index);
  int pending() const { return static_cast<int>(newest_ - next_out_ + 1); } // outputs owed

private:
  int before_ = 0, after_ = 0, temporal_ = 1;
  int64_t oldest_ = 0;   // frame number of the oldest frame in the window
  int64_t newest_ = -1;  // frame number of the newest frame (-1: none yet)
  int64_t next_out_ = 0; // frame number of the next output
};

// ---------------------------------------------------------------------------------------------
// Brute-force definitions (tests and documentation). `window` holds the window's frames (host
// views, same size and format), oldest first; the result is the median bin of every pixel and
// channel over that window, planar: out[c * w * h + y * w + x] (channels: 1 for luma, else 3).
// - median3d_reference: eq. (2) with Algorithm 1 over the clipped m x n x |window| box.
// - separable_reference: eq. (3), the median over the window of each frame's clipped m x n median.
Status median3d_reference(const std::vector<ImageView>& window, const Params& p,
                          std::vector<uint8_t>* out);
Status separable_reference(const std::vector<ImageView>& window, const Params& p,
                           std::vector<uint8_t>* out);

// ---------------------------------------------------------------------------------------------
// Foreground blobs: 8-connected components of a host GRAY8 mask (non-zero = foreground), as
// bounding boxes, in raster order of their first pixel (cuda/ccl: ccl::connected_blobs).
// Components smaller than `min_area` pixels are left out; when more than `max_blobs` remain, the
// `max_blobs` largest are kept (by area; among equal areas the earlier ones in raster order), still
// in raster order (ccl::keep_largest). Blob: above.
Status find_blobs(const ImageView& mask, uint32_t min_area, size_t max_blobs,
                  std::vector<Blob>* blobs);

} // namespace cvis::median3d

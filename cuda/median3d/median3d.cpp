// Backend-independent parts: parameter checks, the window schedule, the factory, memory estimate
// and the foreground blobs of a host mask (cuda/ccl).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>

#include "ccl/ccl.hpp"
#include "median3d.hpp"
#include "median3d_internal.hpp"

namespace cvis::median3d {

const char* method_name(Method m) {
  switch (m) {
  case Method::kIntegralHistogram:
    return "integral-histogram";
  case Method::kSeparable:
    return "separable";
  case Method::kSlidingHistogram:
    return "sliding-histogram";
  }
  return "unknown";
}

Status validate(const Params& p) {
  auto odd_in = [](int v) { return v >= 1 && v <= kMaxSpatial && (v & 1) == 1; };
  if (!odd_in(p.spatial_w) || !odd_in(p.spatial_h)) {
    return invalid_argument("spatial size " + std::to_string(p.spatial_w) + "x" +
                            std::to_string(p.spatial_h) + ": each side must be odd, 1.." +
                            std::to_string(kMaxSpatial));
  }
  if (p.temporal < 1 || p.temporal > kMaxTemporal) {
    return invalid_argument("temporal size " + std::to_string(p.temporal) + " not in 1.." +
                            std::to_string(kMaxTemporal));
  }
  if (p.bins < 8 || p.bins > 256) {
    return invalid_argument("bins " + std::to_string(p.bins) + " not in 8..256");
  }
  const uint64_t window = static_cast<uint64_t>(p.spatial_w) * p.spatial_h * p.temporal;
  if (window > kMaxWindow) {
    return invalid_argument("window " + std::to_string(p.spatial_w) + "x" +
                            std::to_string(p.spatial_h) + "x" + std::to_string(p.temporal) +
                            " holds " + std::to_string(window) + " values; at most " +
                            std::to_string(kMaxWindow) + " are supported");
  }
  switch (p.method) {
  case Method::kIntegralHistogram:
  case Method::kSeparable:
  case Method::kSlidingHistogram:
    break;
  default:
    return invalid_argument("unknown method");
  }
  if (p.channels != Channels::kLuma && p.channels != Channels::kRgb) {
    return invalid_argument("unknown channels value");
  }
  return Status::Ok();
}

Status validate_geometry(int width, int height, PixelFormat format) {
  if (width < 1 || height < 1 || width > kMaxDimension || height > kMaxDimension) {
    return invalid_argument("frame size " + std::to_string(width) + "x" + std::to_string(height) +
                            " not in 1.." + std::to_string(kMaxDimension));
  }
  if (static_cast<uint64_t>(width) * height * kMaxTemporal >= (1ull << 32)) {
    return invalid_argument("frame too large for 32-bit integral histograms");
  }
  if (static_cast<int>(format) < 0 ||
      static_cast<int>(format) > static_cast<int>(PixelFormat::kI420)) {
    return unsupported_format("unknown pixel format");
  }
  return Status::Ok();
}

int channel_count(const Params& p) {
  return p.channels == Channels::kLuma ? 1 : 3;
}

Status check_frame(const ImageView& v, int width, int height, PixelFormat format,
                   const char* what) {
  CVIS_RETURN_IF_ERROR(validate_view(v, what));
  if (v.width != width || v.height != height || v.format != format) {
    return invalid_argument(std::string(what) + ": " + pixel_format_name(v.format) + " " +
                            std::to_string(v.width) + "x" + std::to_string(v.height) +
                            " does not match the configured " + pixel_format_name(format) + " " +
                            std::to_string(width) + "x" + std::to_string(height));
  }
  return Status::Ok();
}

Status check_output(const ImageView& v, int width, int height, bool gray, const char* what) {
  CVIS_RETURN_IF_ERROR(validate_view(v, what));
  if (v.width != width || v.height != height) {
    return invalid_argument(std::string(what) + ": size " + std::to_string(v.width) + "x" +
                            std::to_string(v.height) + " differs from the frames' " +
                            std::to_string(width) + "x" + std::to_string(height));
  }
  if (gray && v.format != PixelFormat::kGRAY8) {
    return unsupported_format(std::string(what) + " must be GRAY8, not " +
                              pixel_format_name(v.format));
  }
  return Status::Ok();
}

Status check_request(int index, int count, const Request& rq, int width, int height,
                     bool host_outputs) {
  if (count == 0 || index < 0 || index >= count) {
    return invalid_argument("compute: index " + std::to_string(index) + " outside a window of " +
                            std::to_string(count));
  }
  if (host_outputs) {
    for (const ImageView* v : {rq.background, rq.mask, rq.mask_copy}) {
      if (v && v->space != MemorySpace::kHost)
        return unsupported_format("CPU backend: host outputs only");
    }
  }
  if (rq.background)
    CVIS_RETURN_IF_ERROR(check_output(*rq.background, width, height, false, "background"));
  if (rq.mask)
    CVIS_RETURN_IF_ERROR(check_output(*rq.mask, width, height, true, "mask"));
  if (rq.mask_copy)
    CVIS_RETURN_IF_ERROR(check_output(*rq.mask_copy, width, height, true, "mask copy"));
  if (rq.threshold < -1 || rq.threshold > 255)
    return invalid_argument("threshold not in -1..255");
  return Status::Ok();
}

PixelDest make_pixel_dest(const ImageView& v) {
  PixelDest d{};
  d.format = v.format;
  d.width = v.width;
  d.height = v.height;
  for (int p = 0; p < 3; ++p) {
    d.plane[p] = v.data[p];
    d.pitch[p] = v.pitch[p];
  }
  d.layout = is_yuv(v.format) ? PackedLayout{0, -1, -1, -1, -1} : packed_layout(v.format);
  return d;
}

// ---------------------------------------------------------------------------------------------

WindowTracker::WindowTracker(int temporal, Timing timing) : temporal_(std::max(1, temporal)) {
  after_ = timing == Timing::kCentered ? (temporal_ - 1) / 2 : 0;
  before_ = temporal_ - 1 - after_;
}

void WindowTracker::reset() {
  oldest_ = 0;
  newest_ = -1;
  next_out_ = 0;
}

bool WindowTracker::arrive() {
  const bool full = newest_ - oldest_ + 1 >= temporal_;
  ++newest_;
  if (full)
    ++oldest_;
  return full;
}

bool WindowTracker::next_output(bool draining, int* pops, int* index) {
  if (next_out_ > newest_)
    return false;
  if (!draining && newest_ < next_out_ + after_)
    return false;
  const int64_t first = next_out_ - before_;
  const int64_t n = first > oldest_ ? first - oldest_ : 0;
  oldest_ += n;
  *pops = static_cast<int>(n);
  *index = static_cast<int>(next_out_ - oldest_);
  ++next_out_;
  return true;
}

// ---------------------------------------------------------------------------------------------

std::unique_ptr<Estimator> make_estimator(Backend backend, Status* status) {
  *status = Status::Ok();
  if (backend == Backend::kCpu)
    return make_cpu_estimator();
  if (backend == Backend::kCuda) {
#ifdef CVIS_HAVE_CUDA
    return make_cuda_estimator();
#else
    *status = Status(StatusCode::kNoDevice, "this build has no CUDA backend");
    return nullptr;
#endif
  }
  *status = invalid_argument("make_estimator: resolve the backend first (kCpu or kCuda)");
  return nullptr;
}

size_t estimate_device_bytes(const Params& p, int width, int height, PixelFormat format,
                             bool blobs) {
  const size_t px = static_cast<size_t>(width) * height;
  // Planes from cudaMallocPitch: rows padded (to 512 bytes on current GPUs).
  auto pitched = [](size_t row_bytes, size_t rows) { return (row_bytes + 511) / 512 * 512 * rows; };
  const size_t plane = pitched(width, height);
  const size_t c = static_cast<size_t>(channel_count(p));
  const size_t slots = static_cast<size_t>(p.temporal) + 1;
  const size_t chunks = static_cast<size_t>((p.bins + 15) / 16);
  size_t bytes = slots * c * plane;          // ring of channel values
  bytes += c * plane + 2 * plane + 1024 * 4; // median bins, differences, mask copy, histogram
  for (int pl = 0; pl < plane_count(format); ++pl) { // host frames: upload and background copy
    bytes += 2 * pitched(plane_row_bytes(format, pl, width), plane_rows(format, pl, height));
  }
  if (blobs) { // the labelling: 3 x 4 bytes per pixel, two records (24 bytes) per 2x2 cell
    bytes += 12 * px + 2 * 24 * static_cast<size_t>((width + 1) / 2) * ((height + 1) / 2) + 16;
  }
  switch (p.method) {
  case Method::kSlidingHistogram:
    bytes += c * chunks * 16 * px;
    break;
  case Method::kSeparable:
    bytes += c * chunks * 16 * px + slots * c * plane;
    break;
  case Method::kIntegralHistogram:
    bytes += c * static_cast<size_t>(p.bins) * px * (4 + 2); // uint32 JIH + int16 row scans
    bytes += c * static_cast<size_t>(p.bins) * ((height + 31) / 32) * width * 4;
    break;
  }
  return bytes;
}

// ---------------------------------------------------------------------------------------------

// The blobs of area >= min_area of a host mask (ccl::connected_blobs), the max_blobs largest.
Status find_blobs(const ImageView& mask, uint32_t min_area, size_t max_blobs,
                  std::vector<Blob>* blobs) {
  CVIS_RETURN_IF_ERROR(validate_view(mask, "mask"));
  if (mask.format != PixelFormat::kGRAY8 || mask.space != MemorySpace::kHost) {
    return unsupported_format("find_blobs needs a host GRAY8 mask");
  }
  std::vector<Blob> found;
  ccl::connected_blobs(mask.data[0], mask.pitch[0], mask.width, mask.height, ccl_min_area(min_area),
                       &found, nullptr);
  select_blobs(std::move(found), max_blobs, blobs);
  return Status::Ok();
}

int ccl_min_area(uint32_t min_area) {
  return static_cast<int>(std::min<uint32_t>(min_area, static_cast<uint32_t>(INT32_MAX)));
}

void select_blobs(std::vector<Blob> found, size_t max_blobs, std::vector<Blob>* blobs) {
  ccl::keep_largest(&found, max_blobs);
  *blobs = std::move(found);
}

} // namespace cvis::median3d

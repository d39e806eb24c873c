// Front end: parameters, filter taps, geometry, factory (shared by both backends).
#include <algorithm>
#include <cmath>
#include <string>

#include "stip_internal.hpp"

namespace cvis::stip {

int FrontEndParams::temporal_radius() const { return static_cast<int>(std::ceil(2.0 * tau)); }

int FrontEndParams::integration_radius() const {
  return static_cast<int>(std::ceil(2.0 * harris_scale * tau));
}

int FrontEndParams::detector_radius() const {
  return detector == Detector::kHarris ? temporal_radius() + integration_radius()
                                       : temporal_radius();
}

const char* detector_name(Detector d) { return d == Detector::kHarris ? "harris" : "periodic"; }

bool parse_detector(const std::string& s, Detector* out) {
  if (s == "periodic")
    *out = Detector::kPeriodic;
  else if (s == "harris")
    *out = Detector::kHarris;
  else
    return false;
  return true;
}

double FrontEndParams::frequency() const { return omega > 0 ? omega : 1.0 / (2.0 * tau); }

Status validate(const FrontEndParams& p) {
  auto range = [](const char* name, double v, double lo, double hi) -> Status {
    if (!(v >= lo && v <= hi))
      return invalid_argument(std::string("front end: ") + name + " " + std::to_string(v) +
                              " out of range " + std::to_string(lo) + ".." + std::to_string(hi));
    return Status::Ok();
  };
  CVIS_RETURN_IF_ERROR(range("sigma", p.sigma, 0.5, 8));
  CVIS_RETURN_IF_ERROR(range("tau", p.tau, 0.5, 8));
  CVIS_RETURN_IF_ERROR(range("omega", p.omega, 0, 0.5));
  CVIS_RETURN_IF_ERROR(range("threshold", p.threshold, 0, 1e6));
  CVIS_RETURN_IF_ERROR(range("nms-radius", p.nms_radius, 1, 8));
  CVIS_RETURN_IF_ERROR(range("max-points", p.max_points, 1, 64));
  CVIS_RETURN_IF_ERROR(range("cell-size", p.cell_size, 2, 64));
  CVIS_RETURN_IF_ERROR(range("cell-frames", p.cell_frames, 1, 16));
  CVIS_RETURN_IF_ERROR(range("flow-levels", p.flow_levels, 1, 5));
  CVIS_RETURN_IF_ERROR(range("flow-iterations", p.flow_iterations, 1, 8));
  CVIS_RETURN_IF_ERROR(range("flow-radius", p.flow_radius, 1, 7));
  CVIS_RETURN_IF_ERROR(range("flow-min", p.flow_min, 0, 10));
  if (p.flow_histogram != FlowHistogram::kPaper && p.flow_histogram != FlowHistogram::kSpeed)
    return invalid_argument("front end: unknown flow histogram");
  CVIS_RETURN_IF_ERROR(range("speed-split", p.speed_split, kMinSpeedSplit, kMaxSpeedSplit));
  if (p.detector != Detector::kPeriodic && p.detector != Detector::kHarris)
    return invalid_argument("front end: unknown detector");
  CVIS_RETURN_IF_ERROR(range("harris-k", p.harris_k, 0, 0.1));
  CVIS_RETURN_IF_ERROR(range("harris-scale", p.harris_scale, 1, 4));
  if (p.detector == Detector::kHarris) {
    // The kernels' tap tables hold Gaussians up to std 8 (README.md, "Harris detector").
    CVIS_RETURN_IF_ERROR(range("harris-scale x sigma", p.harris_scale * p.sigma, 0.5, 8));
    CVIS_RETURN_IF_ERROR(range("harris-scale x tau", p.harris_scale * p.tau, 0.5, 8));
  }
  return Status::Ok();
}

int descriptor_dim(const FrontEndParams& p) {
  return p.flow_histogram == FlowHistogram::kSpeed ? kSpeedDescriptorDim
                                                   : actionmatch::kPaperDescriptorDim;
}

const char* flow_histogram_name(FlowHistogram h) {
  return h == FlowHistogram::kSpeed ? "speed" : "paper";
}

bool parse_flow_histogram(const std::string& s, FlowHistogram* out) {
  if (s == "paper")
    *out = FlowHistogram::kPaper;
  else if (s == "speed")
    *out = FlowHistogram::kSpeed;
  else
    return false;
  return true;
}

void gaussian_taps(double sigma, std::vector<float>* taps) {
  const int r = static_cast<int>(std::ceil(3.0 * sigma));
  std::vector<double> g(2 * r + 1);
  double sum = 0;
  for (int k = -r; k <= r; ++k)
    sum += g[k + r] = std::exp(-0.5 * k * k / (sigma * sigma));
  taps->resize(g.size());
  for (size_t i = 0; i < g.size(); ++i)
    (*taps)[i] = static_cast<float>(g[i] / sum);
}

void gabor_taps(const FrontEndParams& p, std::vector<float>* even, std::vector<float>* odd) {
  // Dollar et al.: h_ev = -cos(2 pi t omega) exp(-t^2/tau^2), h_od = -sin(2 pi t omega)
  // exp(-t^2/tau^2). h_ev is made zero-mean (its DC would answer to static texture).
  const int r = p.temporal_radius();
  const double w = p.frequency(), pi = 3.14159265358979323846;
  std::vector<double> ev(2 * r + 1), od(2 * r + 1);
  double mean = 0;
  for (int k = -r; k <= r; ++k) {
    const double env = std::exp(-static_cast<double>(k * k) / (p.tau * p.tau));
    ev[k + r] = -std::cos(2 * pi * k * w) * env;
    od[k + r] = -std::sin(2 * pi * k * w) * env;
    mean += ev[k + r];
  }
  mean /= static_cast<double>(ev.size());
  even->resize(ev.size());
  odd->resize(od.size());
  for (size_t i = 0; i < ev.size(); ++i) {
    (*even)[i] = static_cast<float>(ev[i] - mean);
    (*odd)[i] = static_cast<float>(od[i]);
  }
}

namespace {

// Gaussian of std `s` sampled at -r..r, normalised to sum 1 (double), and the derivative taps
// k g(k) normalised so that sum_k dg(k) k = 1: the correlation with a ramp gives its slope
// exactly, whatever the truncation at r.
void sampled_gaussian(double s, int r, std::vector<float>* g, std::vector<float>* dg) {
  std::vector<double> v(2 * r + 1);
  double sum = 0, moment = 0;
  for (int k = -r; k <= r; ++k) {
    sum += v[k + r] = std::exp(-0.5 * k * k / (s * s));
    moment += static_cast<double>(k) * k * v[k + r];
  }
  g->resize(v.size());
  if (dg)
    dg->resize(v.size());
  for (int k = -r; k <= r; ++k) {
    (*g)[k + r] = static_cast<float>(v[k + r] / sum);
    if (dg)
      (*dg)[k + r] = static_cast<float>(k * v[k + r] / moment);
  }
}

} // namespace

void harris_taps(const FrontEndParams& p, std::vector<float>* smooth, std::vector<float>* deriv,
                 std::vector<float>* space, std::vector<float>* time) {
  sampled_gaussian(p.tau, p.temporal_radius(), smooth, deriv);
  gaussian_taps(p.harris_scale * p.sigma, space);
  sampled_gaussian(p.harris_scale * p.tau, p.integration_radius(), time, nullptr);
}

std::unique_ptr<FrontEnd> make_frontend(Backend backend, Status* status) {
  *status = Status::Ok();
  if (backend == Backend::kCpu)
    return detail::make_cpu_frontend();
  if (backend == Backend::kCuda) {
#if defined(CVIS_HAVE_CUDA)
    return detail::make_cuda_frontend();
#else
    *status = Status(StatusCode::kNoDevice, "actionmatch front end: this build has no CUDA backend");
    return nullptr;
#endif
  }
  *status = invalid_argument("actionmatch front end: resolve the backend (auto) first");
  return nullptr;
}

namespace detail {

FrontEndGeometry frontend_geometry(const FrontEndParams& p) {
  FrontEndGeometry g;
  g.radius = p.detector_radius();
  g.cell = static_cast<int>(std::lround(p.cell_size));
  g.cell_frames = p.cell_frames;
  g.lag = std::max(g.radius + 1, g.cell_frames - 1);
  g.harris = p.detector == Detector::kHarris;
  g.smooth_ring = 2 * p.temporal_radius() + 1;
  g.harris_ring = g.harris ? 2 * p.integration_radius() + 1 : 0;
  g.response_ring = g.lag - g.radius + 2;
  g.vote_ring = g.lag + g.cell_frames + 1;
  g.hof_bins = p.flow_histogram == FlowHistogram::kSpeed ? kHofSpeedBins : kHofBins;
  g.dim = kHogDim + kCells * g.hof_bins;
  g.speed_split = p.flow_histogram == FlowHistogram::kSpeed ? static_cast<float>(p.speed_split)
                                                            : 0.0f;
  return g;
}

Status validate_frame(const ImageView& v, int width, int height, bool device_ok) {
  if (v.format != PixelFormat::kGRAY8 && v.format != PixelFormat::kNV12 &&
      v.format != PixelFormat::kI420)
    return unsupported_format(std::string("front end: format ") + pixel_format_name(v.format) +
                              " (GRAY8, NV12 or I420: the luma plane is used)");
  if (v.width != width || v.height != height)
    return invalid_argument("front end: frame " + std::to_string(v.width) + "x" +
                            std::to_string(v.height) + " but configured for " +
                            std::to_string(width) + "x" + std::to_string(height));
  if (v.space == MemorySpace::kDevice && !device_ok)
    return unsupported_format("front end: the CPU backend reads host memory");
  if (!v.data[0] || v.pitch[0] < static_cast<size_t>(width))
    return invalid_argument("front end: bad luma plane (null or pitch below the width)");
  return Status::Ok();
}

void pyramid_sizes(int width, int height, int levels, int* w, int* h) {
  w[0] = width;
  h[0] = height;
  for (int l = 1; l < levels; ++l) {
    w[l] = (w[l - 1] + 1) / 2;
    h[l] = (h[l - 1] + 1) / 2;
  }
}

} // namespace detail

} // namespace cvis::stip

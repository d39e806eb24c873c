// Backend-independent parts of the background subtraction: parameters, names, tables.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "bgsub_internal.hpp"

namespace cvis::bgsub {

namespace {
constexpr const char* kKernelNames[kKernelCount] = {
    "exact",           "fast",       "cpwl-texture", "cpwl-manual", "cpwl-opt-texture",
    "cpwl-opt-manual", "cpwl-slope", "fast-fused"};
constexpr double kPi = 3.14159265358979323846;
} // namespace

const char* kernel_name(Kernel k) {
  const int i = static_cast<int>(k);
  return (i >= 0 && i < kKernelCount) ? kKernelNames[i] : "?";
}

bool parse_kernel(const std::string& s, Kernel* out) {
  for (int i = 0; i < kKernelCount; ++i) {
    if (s == kKernelNames[i]) {
      *out = static_cast<Kernel>(i);
      return true;
    }
  }
  return false;
}

Status validate(const Params& p) {
  auto bad = [](const std::string& m) { return invalid_argument("bgsub: " + m); };
  if (p.num_samples < 2 || p.num_samples > kMaxSamples) {
    return bad("num_samples must be in [2, " + std::to_string(kMaxSamples) + "]");
  }
  if (p.neighborhood < 0 || p.neighborhood > kMaxRadius) {
    return bad("neighborhood must be in [0, " + std::to_string(kMaxRadius) + "]");
  }
  if (p.update_period < 1)
    return bad("update_period must be >= 1");
  if (!(p.threshold > 0.0) || !std::isfinite(p.threshold))
    return bad("threshold must be > 0");
  if (static_cast<int>(p.kernel) < 0 || static_cast<int>(p.kernel) >= kKernelCount) {
    return bad("unknown kernel");
  }
  if (p.cpwl_points < cpwl::kMinSegments || p.cpwl_points > cpwl::kMaxSegments) {
    return bad("cpwl_points must be in [" + std::to_string(cpwl::kMinSegments) + ", " +
               std::to_string(cpwl::kMaxSegments) + "]");
  }
  if (!(p.cpwl_range > 0.5f) || !(p.cpwl_range <= 16.0f))
    return bad("cpwl_range must be in (0.5, 16]");
  if (!(p.sigma_min > 0.0f) || !(p.sigma_max >= p.sigma_min) || !std::isfinite(p.sigma_max)) {
    return bad("need 0 < sigma_min <= sigma_max");
  }
  if (!(p.intensity_sigma_scale > 0.0f) || !std::isfinite(p.intensity_sigma_scale)) {
    return bad("intensity_sigma_scale must be > 0");
  }
  if (!(p.spatial_sigma > 0.0f) || !std::isfinite(p.spatial_sigma)) {
    return bad("spatial_sigma must be > 0");
  }
  if (!(p.update_margin >= 1.0) || !std::isfinite(p.update_margin)) {
    return bad("update_margin must be >= 1");
  }
  if (p.min_blob_area < 1)
    return bad("min_blob_area must be >= 1");
  if (p.cpu_threads < 0)
    return bad("cpu_threads must be >= 0");
  if (!(p.shadow_low > 0.0f) || !(p.shadow_high >= p.shadow_low) || !(p.shadow_high < 16.0f))
    return bad("need 0 < shadow_low <= shadow_high < 16");
  if (p.shadow_chroma < 0)
    return bad("shadow_chroma must be >= 0");
  if (p.shadow_samples < 1)
    return bad("shadow_samples must be >= 1");
  if (!(p.cut_fraction > 0.0) || !(p.cut_fraction <= 1.0))
    return bad("cut_fraction must be in (0, 1]");
  if (p.cut_frames < 1)
    return bad("cut_frames must be >= 1");
  if (p.cut_warmup < 2)
    return bad("cut_warmup must be >= 2");
  if (p.cut_refill < 0)
    return bad("cut_refill must be >= 0");
  if (p.min_mask_area < 0)
    return bad("min_mask_area must be >= 0");
  if (!(p.persistence >= 0.0f) || !(p.persistence <= 1.0f))
    return bad("persistence must be in [0, 1]");
  if (p.ghost_passes < 0)
    return bad("ghost_passes must be >= 0");
  if (!(p.still_lend_fraction > 0.0f) || !(p.still_lend_fraction <= 0.5f))
    return bad("still_lend_fraction must be in (0, 0.5]");
  if (!(p.dynamic_fraction >= 0.0f) || !(p.dynamic_fraction <= 1.0f))
    return bad("dynamic_fraction must be in [0, 1]");
  if (p.shift_levels < 1)
    return bad("shift_levels must be >= 1");
  if (p.ghost_levels < 0)
    return bad("ghost_levels must be >= 0");
  if (p.ghost_matches < 1)
    return bad("ghost_matches must be >= 1");
  if (p.ghost_still < 0 || p.ghost_still > 255)
    return bad("ghost_still must be in [0, 255]");
  return Status::Ok();
}

Params paper_params() {
  Params p;
  p.illumination = false;
  p.shadows = false;
  p.shift_test = false;
  p.shot_change = false;
  p.min_mask_area = 0;
  p.persistence = 0.0f;
  p.ghost_passes = 0;
  p.update_own = false;
  p.threshold = 1e-6; // the default before the corpus's defaults (3e-7)
  return p;
}

int64_t evaluations_per_pixel(const Params& p) {
  const int64_t side = 2 * p.neighborhood + 1;
  return 3 * side * side * p.num_samples;
}

std::vector<float> bandwidth_table(const Params& p) {
  std::vector<float> t(3 * 256);
  const double k = 1.0 / (0.68 * std::sqrt(2.0));
  for (int c = 0; c < 3; ++c) {
    const double scale =
        (p.color == ColorSpace::kChromaticity && c == 2) ? p.intensity_sigma_scale : 1.0;
    for (int m = 0; m < 256; ++m) {
      const double sigma = std::min<double>(std::max<double>(m * k, p.sigma_min), p.sigma_max);
      t[c * 256 + m] = static_cast<float>(1.0 / (sigma * scale));
    }
  }
  return t;
}

int median_bits(const Params& p) {
  // The table clamps sigma = m k to sigma_max from m >= sigma_max / k on; one extra level of
  // margin covers the rounding of that bound.
  const double k = 1.0 / (0.68 * std::sqrt(2.0));
  const int cap = static_cast<int>(std::ceil(p.sigma_max / k)) + 1;
  int bits = 1;
  while (bits < 8 && (1 << bits) - 1 < cap)
    ++bits;
  return bits;
}

bool kernel_indexes_uniform_table(Kernel k) {
  return k == Kernel::kTextureUniform || k == Kernel::kManualUniform || k == Kernel::kSlopeUniform;
}

Status build_table(const Params& p, cpwl::Table* out) {
  *out = cpwl::Table();
  if (p.kernel == Kernel::kExact || p.kernel == Kernel::kFast || p.kernel == Kernel::kFastFused) {
    return Status::Ok();
  }
  const cpwl::Partition part = cpwl::evaluator_partition(static_cast<cpwl::Evaluator>(p.kernel));
  cpwl::Cpwl g;
  CVIS_RETURN_IF_ERROR(
      cpwl::approximate(cpwl::gaussian(0.0, p.cpwl_range), p.cpwl_points, part, p.cpwl_fit, &g));
  return cpwl::make_table(g, part, out);
}

ModelConsts model_consts(const Params& p, int width, int height, const cpwl::Table& table) {
  ModelConsts m;
  m.width = width;
  m.height = height;
  m.num_samples = p.num_samples;
  m.radius = p.neighborhood;
  const int side = 2 * p.neighborhood + 1;
  const double s2 = 2.0 * p.spatial_sigma * p.spatial_sigma;
  for (int dy = -p.neighborhood; dy <= p.neighborhood; ++dy) {
    for (int dx = -p.neighborhood; dx <= p.neighborhood; ++dx) {
      m.weights[(dy + p.neighborhood) * side + dx + p.neighborhood] =
          static_cast<float>(std::exp(-(dx * dx + dy * dy) / s2));
    }
  }
  m.norm = static_cast<float>(std::pow(2.0 * kPi, -1.5) / p.num_samples);
  m.threshold = static_cast<float>(p.threshold);
  m.update_threshold = static_cast<float>(p.threshold * p.update_margin);
  m.update_own = p.update_own;
  m.own_levels = p.ghost_levels;
  if (kernel_indexes_uniform_table(p.kernel))
    m.arg_scale = table.scale;
  else if (p.kernel == Kernel::kFastFused)
    m.arg_scale = static_cast<float>(std::sqrt(0.5 / std::log(2.0)));
  if (p.color == ColorSpace::kChromaticity)
    m.norm_scale[2] = p.intensity_sigma_scale;
  return m;
}

Status validate_mask(const ImageView& mask, int width, int height, bool allow_device) {
  if (mask.format != PixelFormat::kGRAY8)
    return invalid_argument("bgsub: mask must be GRAY8");
  if (mask.width != width || mask.height != height) {
    return invalid_argument("bgsub: mask size " + std::to_string(mask.width) + "x" +
                            std::to_string(mask.height) + " differs from the frame's " +
                            std::to_string(width) + "x" + std::to_string(height));
  }
  if (mask.space == MemorySpace::kDevice && !allow_device) {
    return unsupported_format("bgsub: the CPU backend needs a host mask");
  }
  return validate_view(mask, "mask");
}

Status SubtractorBase::configure(const Params& p) {
  CVIS_RETURN_IF_ERROR(validate(p));
  cpwl::Table table;
  CVIS_RETURN_IF_ERROR(build_table(p, &table));
  CVIS_RETURN_IF_ERROR(prepare(p));
  const bool structural = !configured_ || p.num_samples != p_.num_samples || p.color != p_.color;
  p_ = p;
  table_ = std::move(table);
  lut_ = bandwidth_table(p_);
  schedule_.configure(p_);
  configured_ = true;
  configured();
  if (structural) {
    w_ = h_ = 0; // reallocate at the next frame
    reset();
  }
  return Status::Ok();
}

int64_t SubtractorBase::wide_limit() const {
  return static_cast<int64_t>(
      std::floor(static_cast<double>(p_.dynamic_fraction) * (static_cast<double>(w_) * h_)));
}

int SubtractorBase::lend_need_still() const {
  // Both factors are exact in double (a float times an int below 2^8): 0.125 x 48 is 6, not 6.0001.
  const double need = std::ceil(static_cast<double>(p_.still_lend_fraction) * p_.num_samples);
  return std::max(1, static_cast<int>(need));
}

} // namespace cvis::bgsub

// Pieces shared by the two backends of the background subtraction (host code, no CUDA types).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "bgsub.hpp"
#include "bgsub_math.hpp"

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

#if defined(CVIS_HAVE_CUDA)
std::unique_ptr<Subtractor> make_cuda_subtractor(Status* status);
#endif

} // namespace cvis::bgsub

// Host-side declarations shared by the search backends.
#pragma once

#include <cstdint>
#include <memory>

#include "cedd/cedd_search.hpp"

namespace cvis::cedd::search {

// The packed form of 144 levels (the same bits as gst_cvis_cedd_pack).
void pack_levels(const uint8_t* levels, uint8_t* packed);
Status check_k(int k);

std::unique_ptr<DescriptorSet> make_cpu_set();
#if defined(CVIS_HAVE_CUDA)
std::unique_ptr<DescriptorSet> make_cuda_set();
#endif

} // namespace cvis::cedd::search

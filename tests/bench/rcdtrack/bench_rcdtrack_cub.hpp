// CUB-scan integral images for bench_rcdtrack (bench_rcdtrack_cub.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/color.hpp"
#include "rcdtrack_math.hpp"

namespace bench {

// Inclusive integral images (h x w int64 per plane, planes stacked) of every plane of `layout`
// over the whole frame into `a` (b: the same size, scratch). temp == nullptr: sets *temp_bytes.
cudaError_t cub_integrals(const cvis::PixelSource& src, const cvis::rcdtrack::Layout& layout,
                          int64_t* a, int64_t* b, void* temp, size_t* temp_bytes,
                          cudaStream_t stream);

// Adds to *bad_device the entries where the two builds differ.
cudaError_t count_mismatches(const int64_t* cubv, const int64_t* engine, int w, int h, int planes,
                             unsigned long long* bad_device, cudaStream_t stream);

} // namespace bench

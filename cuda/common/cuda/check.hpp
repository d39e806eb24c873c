// CUDA error checks that turn failures into cvis::Status (never exceptions, never aborts).
#pragma once

#include <cuda_runtime_api.h>

#include "../status.hpp"

namespace cvis::cuda {

// Status for a failed CUDA call: "cudaMalloc(&p, n) failed: cudaErrorMemoryAllocation (out of
// memory) at cedd_cuda.cpp:42". Allocation failures get kOutOfMemory, the rest kCudaError.
Status make_error(cudaError_t err, const char* call, const char* file, int line);

// After a kernel launch: reports a launch error (cudaGetLastError); when the debug-sync switch is on
// (cvis::cuda_debug_sync()) also synchronises `stream` so that an execution error surfaces here.
Status check_launch(cudaStream_t stream, const char* kernel, const char* file, int line);

}  // namespace cvis::cuda

#define CVIS_CUDA_CHECK(call)                                                      \
  do {                                                                             \
    cudaError_t cvis_err_ = (call);                                                \
    if (cvis_err_ != cudaSuccess)                                                  \
      return ::cvis::cuda::make_error(cvis_err_, #call, __FILE__, __LINE__);       \
  } while (0)

#define CVIS_CUDA_CHECK_LAUNCH(stream, kernel) \
  CVIS_RETURN_IF_ERROR(::cvis::cuda::check_launch((stream), (kernel), __FILE__, __LINE__))

// CPWL evaluator kernels and their launchers (CUDA builds only).
#pragma once

#include <cuda_runtime_api.h>

#include "common/status.hpp"
#include "cpwl_eval.hpp"

namespace cvis::cpwl::kernels {

// Block size of the evaluator kernel.
inline constexpr int kBlock = 256;

// out[i] = evaluator(x[i]) for i < count; `table` holds device pointers (and the texture).
Status launch_evaluate(int evaluator, const TableView& table, const float* x, int count, float* out,
                       cudaStream_t stream);

} // namespace cvis::cpwl::kernels

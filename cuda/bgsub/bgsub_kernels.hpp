// Background subtraction kernels and their launchers (CUDA builds only).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "bgsub_math.hpp"
#include "common/color.hpp"
#include "common/status.hpp"
#include "cpwl/cpwl_eval.hpp"

namespace cvis::bgsub::kernels {

// Device state of one model. Per-pixel arrays share the row stride `stride` (elements).
struct DeviceModel {
  int width = 0, height = 0;
  size_t stride = 0;
  int num_samples = 0;
  int median_bits = 8;         // bgsub::median_bits() of the parameters
  uint32_t* feat = nullptr;    // current frame's features
  uint32_t* samples = nullptr; // num_samples planes of height x stride
  uint32_t* medians = nullptr; // packed bandwidth medians
  uint8_t* head = nullptr;     // per pixel: slot of the oldest sample (next to overwrite)
  uint8_t* raw = nullptr;      // classification before clean-up
  uint8_t* mask = nullptr;     // final mask
  uint8_t* tmp = nullptr;      // clean-up scratch
  float* density = nullptr;    // optional density output (height x stride), nullptr: none
  const float* lut = nullptr;  // 3 x 256 inverse bandwidths
};

// Packed features of `src` (device planes) into m.feat.
Status launch_features(const PixelSource& src, bool chromaticity, const DeviceModel& m,
                       cudaStream_t stream);

// How the update kernel runs for a number of samples on the current device: differences in shared
// memory (dynamic, above 48 KiB with the function attribute set) or in local memory.
struct UpdatePlan {
  int num_samples = 0;
  bool shared = false;
  size_t smem = 0;
};
// Queries the device's opt-in shared-memory limit and sets the kernel's attribute when needed:
// once per configuration, not per frame.
Status plan_update(int num_samples, UpdatePlan* plan);

// update = false: bandwidth medians of every pixel (end of warm-up). update = true: selective
// update, the pixels `updatable` allows (m.mask, m.raw) store m.feat at their head slot, advance
// it and recompute their medians. `plan`: plan_update() for m.num_samples.
Status launch_update(const DeviceModel& m, const UpdatePlan& plan, bool update, bool conservative,
                     cudaStream_t stream);

// KDE classification into m.raw (and m.density) with Kernel `kernel` (bgsub::Kernel value);
// `table` holds device pointers (CPWL kernels).
Status launch_classify(int kernel, const DeviceModel& m, const ModelConsts& consts,
                       const cpwl::TableView& table, cudaStream_t stream);

// m.raw -> m.mask with Cleanup `cleanup` (bgsub::Cleanup value).
Status launch_cleanup(int cleanup, const DeviceModel& m, cudaStream_t stream);

// Connected components of m.mask: cuda/ccl (ccl::launch_blobs, ccl::launch_count).

} // namespace cvis::bgsub::kernels

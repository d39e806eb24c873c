// Background subtraction kernels and their launchers (CUDA builds only).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "bgsub_math.hpp"
#include "common/color.hpp"
#include "common/status.hpp"
#include "cpwl/cpwl_eval.hpp"

namespace cvis::bgsub::kernels {

// One connected component of the mask (root = its smallest linear pixel index = its first pixel
// in raster order).
struct BlobRecord {
  int32_t root, x0, y0, x1, y1, area;
};

struct CclCounters {
  unsigned long long foreground; // foreground pixels
  int32_t roots;                 // components
  int32_t kept;                  // components with area >= min_area (records written)
};

// Device state of one model. Per-pixel arrays share the row stride `stride` (elements).
struct DeviceModel {
  int width = 0, height = 0;
  size_t stride = 0;
  int num_samples = 0;
  int median_bits = 8;              // bgsub::median_bits() of the parameters
  uint32_t* feat = nullptr;         // current frame's features
  uint32_t* samples = nullptr;      // num_samples planes of height x stride
  uint32_t* medians = nullptr;      // packed bandwidth medians
  uint8_t* head = nullptr;          // per pixel: slot of the oldest sample (next to overwrite)
  uint8_t* raw = nullptr;           // classification before clean-up
  uint8_t* mask = nullptr;          // final mask
  uint8_t* tmp = nullptr;           // clean-up scratch
  float* density = nullptr;         // optional density output (height x stride), nullptr: none
  int32_t* labels = nullptr;        // CCL labels
  int32_t* slot = nullptr;          // CCL: record index of each root
  uint32_t* tile_stats = nullptr;   // CCL: packed stats of tile components at their tile roots
  const float* lut = nullptr;       // 3 x 256 inverse bandwidths
  BlobRecord* components = nullptr; // one per root (capacity blob_capacity)
  BlobRecord* kept = nullptr;       // components with area >= min_area (capacity blob_capacity)
  CclCounters* counters = nullptr;
  int blob_capacity = 0;
};

// Packed features of `src` (device planes) into m.feat.
Status launch_features(const PixelSource& src, bool chromaticity, const DeviceModel& m,
                       cudaStream_t stream);

// update = false: bandwidth medians of every pixel (end of warm-up). update = true: selective
// update, the pixels `updatable` allows (m.mask, m.raw) store m.feat at their head slot, advance
// it and recompute their medians.
Status launch_update(const DeviceModel& m, bool update, bool conservative, cudaStream_t stream);

// KDE classification into m.raw (and m.density) with Kernel `kernel` (bgsub::Kernel value);
// `table` holds device pointers (CPWL kernels).
Status launch_classify(int kernel, const DeviceModel& m, const ModelConsts& consts,
                       const cpwl::TableView& table, cudaStream_t stream);

// m.raw -> m.mask with Cleanup `cleanup` (bgsub::Cleanup value).
Status launch_cleanup(int cleanup, const DeviceModel& m, cudaStream_t stream);

// Connected components of m.mask (bgsub_ccl.cu): counters and records (m.kept, unordered).
Status launch_blobs(const DeviceModel& m, int min_area, cudaStream_t stream);

// Only the foreground count (counters->foreground) of m.mask.
Status launch_count(const DeviceModel& m, cudaStream_t stream);

} // namespace cvis::bgsub::kernels

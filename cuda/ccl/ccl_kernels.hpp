// Kernels of the CUDA connected-component labelling (ccl_kernels.cu) and their launchers; only
// ccl_cuda.cpp includes this header.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "ccl.hpp"
#include "common/mask_area.hpp"
#include "common/status.hpp"

namespace cvis::ccl::kernels {

// One labelling: the mask and the scratch (per-pixel arrays dense, `width` elements per row).
struct DeviceLabels {
  int width = 0, height = 0;
  size_t pitch = 0;                 // mask row pitch (bytes)
  const uint8_t* mask = nullptr;    // non-zero = foreground
  int32_t* labels = nullptr;        // CCL labels
  int32_t* slot = nullptr;          // CCL: record index of each root
  uint32_t* tile_stats = nullptr;   // CCL: packed stats of tile components at their tile roots
  BlobRecord* components = nullptr; // one per root (capacity blob_capacity)
  BlobRecord* kept = nullptr;       // components with area >= min_area (capacity blob_capacity)
  CclCounters* counters = nullptr;
  int blob_capacity = 0;
  const int32_t* gate = nullptr; // launch_blobs does nothing while *gate == 0 (nullptr: always runs)
};

// Connected components of m.mask (ccl_kernels.cu): counters and records (m.kept, unordered).
Status launch_blobs(const DeviceLabels& m, int min_area, cudaStream_t stream);

// Clears from `mask` (m.mask, writable) the components of the last launch_blobs(m) smaller than
// min_area pixels.
Status launch_area_filter(const DeviceLabels& m, uint8_t* mask, int min_area, cudaStream_t stream);

// The persistence filter on m.mask labelled by the last launch_blobs(m): `overlap` (3 x
// blob_capacity + 1 int32, zeroed here) counts per record the pixels `prev` holds and, with
// `prev2` and light.frame, those both hold and the lit ones (seg::persistent's added-light rule);
// `out` = the kept components as 255, trimmed with light.trim_radius > 0 (the last int set to 1
// when a pixel was: trimmed_flag()); then m.mask is written into prev2 (with prev2: the caller
// exchanges the two, prev becoming the older) or else into prev; then the counters' foreground and
// kept records are those of the kept components (out's unless trimmed). prev2 has prev's pitch.
Status launch_persistence(const DeviceLabels& m, uint8_t* prev, size_t prev_pitch, uint8_t* prev2,
                          const seg::AddedLight& light, int32_t* overlap, float persistence,
                          int min_area, uint8_t* out, size_t out_pitch, cudaStream_t stream);

// Where launch_persistence() flags a trimmed pixel in its `overlap` array.
inline int32_t* trimmed_flag(int32_t* overlap, int blob_capacity) {
  return overlap + 3 * static_cast<size_t>(blob_capacity);
}

} // namespace cvis::ccl::kernels

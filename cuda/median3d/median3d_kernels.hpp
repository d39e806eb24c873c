// CUDA kernels of the median3d methods and their launchers (grid shape, launch, launch status).
// Only median3d_cuda.cpp includes this header. Every launcher returns the launch status
// (CVIS_CUDA_CHECK_LAUNCH); none allocates, synchronises or validates beyond its preconditions.
//
// Layouts (all device memory, `nc` = 1 or 3 channels, px = w * h):
// - Planes: channel c of a frame at base + c * plane_bytes, rows `pitch` bytes apart.
// - Per-pixel histograms (sliding, separable): uint8 counts, [c][chunk][y][x][16], 16 bins per
//   chunk (chunk k holds bins 16k..16k+15; bins past `bins` stay 0).
// - Integral histogram: uint32 [c][bin][y][x] (dense, w per row); row scans int16 in the same
//   layout; column segment totals int32 [c][bin][segment][x], segments of kScanSegment rows.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "common/color.hpp"
#include "common/status.hpp"
#include "median3d_math.hpp"

namespace cvis::median3d::kernels {

struct Planes {
  uint8_t* data;      // channel 0, row 0
  size_t pitch;       // bytes per row
  size_t plane_bytes; // bytes from one channel's plane to the next
};

// Figures of one frame's mask, written by launch_threshold.
struct DeviceResult {
  int32_t threshold;
  uint32_t reserved;
  unsigned long long foreground;
};

// Channel values of every pixel of `src` (fetch_channels) into `dst`.
Status launch_ingest(const PixelSource& src, bool luma, int nc, Planes dst, cudaStream_t s);

// Per-pixel histograms: +1 at the bin of `head`, -1 at the bin of `tail` (either may be null).
// `quantized`: the planes hold bins already (separable: spatial medians), else 8-bit values.
Status launch_hist_update(const uint8_t* head, const uint8_t* tail, size_t pitch,
                          size_t plane_bytes, bool quantized, int bins, int w, int h, int nc,
                          uint8_t* hist, cudaStream_t s);

// Median bin of every pixel over the (2rx+1) x (2ry+1) box (clipped) of the per-pixel histograms,
// whose counts add up to `frames` per pixel; into `med` (uint8 bins).
Status launch_box_median(const uint8_t* hist, int bins, int w, int h, int nc, int rx, int ry,
                         uint32_t frames, Planes med, cudaStream_t s);

// Separable method: the 2-D median bin of every pixel of `src` (8-bit values) into `dst`.
Status launch_spatial_median(Planes src, int bins, int w, int h, int nc, int rx, int ry, Planes dst,
                             cudaStream_t s);

// Integral histogram update JIH += IH(head) - IH(tail) (either may be null; values, not bins):
// row scans into `rows`, column segment totals into `seg`, then the column scans added to `jih`.
Status launch_integral_update(const uint8_t* head, const uint8_t* tail, size_t pitch,
                              size_t plane_bytes, int bins, int w, int h, int nc, int16_t* rows,
                              int32_t* seg, uint32_t* jih, cudaStream_t s);

// Median bin of every pixel from the four corners of its box in the joint integral histogram.
Status launch_integral_median(const uint32_t* jih, int bins, int w, int h, int nc, int rx, int ry,
                              uint32_t frames, Planes med, cudaStream_t s);

// Background (optional: has_background), differences |I - median| (max over channels) into
// `diff` and their 256-bin histogram added into `dhist` (must be zeroed before; null: skip).
Status launch_finish(Planes med, Planes center, int bins, bool luma, int w, int h, int nc,
                     bool has_background, const PixelDest& background, uint8_t* diff,
                     size_t diff_pitch, uint32_t* dhist, cudaStream_t s);

// One block: tau (Otsu of `dhist`, or `fixed` >= 0) and the foreground count into `out`.
Status launch_threshold(const uint32_t* dhist, int fixed, DeviceResult* out, cudaStream_t s);

// mask = diff > out->threshold ? 255 : 0.
Status launch_mask(const uint8_t* diff, size_t diff_pitch, int w, int h, const DeviceResult* res,
                   uint8_t* mask, size_t mask_pitch, cudaStream_t s);

} // namespace cvis::median3d::kernels

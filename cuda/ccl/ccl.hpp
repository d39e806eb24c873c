// Connected-component labelling (8-connectivity) of a binary mask: the bounding box and pixel
// count of every foreground component ("blob"), and the number of foreground pixels.
//
// Masks are GRAY8, width x height, rows `pitch` bytes apart; any non-zero byte is foreground (the
// algorithms' masks are 0/255). Blobs are reported in raster order of their first pixel (the
// smallest y * width + x of the component), which both backends produce:
// - connected_blobs(): the CPU function (host mask), a run-based union-find; the reference.
// - CUDA builds: launch_blobs() on a device mask, a block union-find on 32x8 tiles
//   (ccl_kernels.cu, README.md), with the per-size device scratch in a DeviceScratch;
//   enqueue_readback() and read_blobs() bring the results back and sort them into raster order.
//   Results are identical to connected_blobs() (same blobs, same order).
//
// This header includes no CUDA header (GStreamer-side code may include it); the device part is
// declared only in CUDA builds (CVIS_HAVE_CUDA).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/blob.hpp"
#include "common/hd.hpp"
#include "common/image.hpp"
#include "common/mask_area.hpp"
#include "common/status.hpp"

namespace cvis::ccl {

// A connected foreground region (8-connectivity): cuda/common/blob.hpp.
using Blob = cvis::Blob;

// CPU labelling of a host mask: the blobs of area >= min_area (all for min_area <= 1) in raster
// order of their first pixel into *blobs (replaced), and the number of foreground pixels into
// *foreground (may be null). width, height >= 0; pitch >= width.
void connected_blobs(const uint8_t* mask, size_t pitch, int width, int height, int min_area,
                     std::vector<Blob>* blobs, int64_t* foreground);

// Keeps the `max_blobs` largest blobs (by area; among equal areas the earlier ones in the list),
// in their original (raster) order. Nothing changes when there are at most max_blobs.
void keep_largest(std::vector<Blob>* blobs, size_t max_blobs);

// A minimum blob area relative to the frame: 1/3000 of its area, at least 25 pixels (76 at
// 640x360, 691 at 1920x1080). Smaller blobs of a compressed street video are mostly coding noise;
// a pedestrian 25 pixels tall at 640x360 has more pixels. The elements' `min-blob-area` 0.
uint32_t auto_min_area(int width, int height);

#if defined(CVIS_HAVE_CUDA)

// What the kernels write for one component (root = its first pixel's index y * width + x; the
// box is inclusive: x0..x1, y0..y1).
struct BlobRecord {
  int32_t root, x0, y0, x1, y1, area;
};

struct CclCounters {
  unsigned long long foreground; // foreground pixels
  int32_t roots;                 // components
  int32_t kept;                  // components with area >= min_area (records written)
};

// Device scratch of the labelling (labels, tile statistics, records, counters) and the pinned
// host memory of the read-back, for masks up to width x height pixels. RAII: freed in the CUDA
// context current at destruction (as cvis::cuda::DeviceArray). Move-only.
class DeviceScratch {
public:
  DeviceScratch();
  ~DeviceScratch();
  DeviceScratch(DeviceScratch&&) noexcept;
  DeviceScratch& operator=(DeviceScratch&&) noexcept;
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;

  // Ensures room for masks of width x height (keeps a larger allocation), growing in stream order
  // on `stream`, the stream of the launches that will use it (nullptr: usable on every stream at
  // once; see cuda/common/cuda/device_buffer.hpp). Errors: kOutOfMemory, kCudaError,
  // kInvalidArgument (size < 1).
  Status reserve(int width, int height, StreamHandle stream = nullptr);
  void release();
  // Device and pinned host bytes held now.
  size_t device_bytes() const;
  size_t host_bytes() const;

  // The last launch's device results (for tests): its counters and kept records (unordered).
  const CclCounters* device_counters() const;
  const BlobRecord* device_records() const;

  struct Impl; // ccl_cuda.cpp
  Impl* impl() const { return impl_.get(); }

private:
  std::unique_ptr<Impl> impl_;
};

// Records of at most one component per 2x2 cell: the capacity a w x h mask needs.
inline int blob_capacity(int width, int height) {
  return ((width + 1) / 2) * ((height + 1) / 2);
}

// Connected components of the device mask (`mask`, rows `pitch` bytes apart, width x height within
// the scratch's reserved size): resets the counters, then writes the foreground count, the number
// of components and the records of those with area >= min_area (unordered) into the scratch.
// Asynchronous on `stream`; the mask must stay unchanged until the launches have run.
Status launch_blobs(const uint8_t* mask, size_t pitch, int width, int height, int min_area,
                    DeviceScratch* scratch, StreamHandle stream);

// Clears from the device mask the 8-connected components smaller than `min_area` pixels, as
// seg::remove_small_components (cuda/common/mask_area.hpp): reads the labels and areas of the last
// launch_blobs() of the scratch, which must have been on this mask, unchanged since (the launch's
// own min_area does not matter). The blobs it kept and its counters are those of the mask before.
// Asynchronous on `stream`.
Status launch_area_filter(uint8_t* mask, size_t pitch, int width, int height, int min_area,
                          DeviceScratch* scratch, StreamHandle stream);
// Read-only device view of the last launch_blobs() of a scratch: what the area filter reads, for a
// kernel of another module that applies the filter in its own pass over the mask instead of
// launch_area_filter() (in_small_component()). Valid until the next launch on the scratch.
struct ComponentAreas {
  const int32_t* labels = nullptr;
  const int32_t* slot = nullptr;
  const BlobRecord* components = nullptr;
  int width = 0, capacity = 0;
};
ComponentAreas component_areas(const DeviceScratch& scratch);

// Whether foreground pixel (x, y) of the labelled mask belongs to a component smaller than
// min_area pixels (what launch_area_filter() clears): its label is its tile root, whose label is
// the component's root, whose slot is its record. Device code only (the pointers are device
// memory).
CVIS_HD bool in_small_component(const ComponentAreas& a, int x, int y, int min_area) {
  const int i = y * a.width + x;
  const int k = a.slot[a.labels[a.labels[i]]];
  return k >= 0 && k < a.capacity && a.components[k].area < min_area;
}

// The persistence filter's references on the device: the previous frame's mask and, for the
// added-light rule, the mask before it (null without), both rows `pitch` apart. With prev2,
// launch_persistence() moves them on without a copy: it writes the new mask into prev2's buffer
// and exchanges the two pointers. Keep this struct between frames, not the pointers.
struct MaskReferences {
  uint8_t* prev = nullptr;
  uint8_t* prev2 = nullptr;
  size_t pitch = 0;
};

// The persistence filter (seg::persistent, cuda/common/mask_area.hpp; the CPU reference is
// seg::keep_persistent_components) on the device mask of the last launch_blobs() of the scratch,
// unchanged since except for whole components cleared (launch_area_filter): writes into `out`
// (rows out_pitch apart) 255 at the pixels of the components with at least persistence x their
// area in refs->prev, 0 elsewhere, then makes the mask the next frame's refs->prev. With
// refs->prev2 and `light`, seg::persistent's added-light rule (a mostly lit component against the
// pixels of both previous masks), and the old prev becomes refs->prev2; neither or both;
// light->trim_radius > 0 also trims the kept components (seg::AddedLight). `out` must not be
// `mask` or a reference; persistence > 0. Afterwards the scratch's foreground count and kept
// records are out's, as launch_blobs(out, min_area) would give them, ready for enqueue_readback():
// without trimming out is a union of whole components of the mask, which needs no labelling of
// its own (the labels stay the mask's); when trimming cleared a pixel, out is labelled again on
// the device (the labels then become out's; no host round trip decides it). Asynchronous on
// `stream`.
Status launch_persistence(const uint8_t* mask, size_t pitch, MaskReferences* refs, int width,
                          int height, float persistence, int min_area, uint8_t* out,
                          size_t out_pitch, DeviceScratch* scratch, StreamHandle stream,
                          const seg::AddedLight* light = nullptr);

// Enqueues the copy of the counters and (with_records) of the first records of the last launch
// into the scratch's pinned memory, on `stream`, and records an event after them.
Status enqueue_readback(bool with_records, DeviceScratch* scratch, StreamHandle stream);

// Waits for the last readback (its event; no stream synchronisation needed) and returns its error,
// then gives the foreground count of the last launch (may be null) and, when `blobs` is not null
// (the readback must have been enqueued with_records), its kept blobs in raster order of their
// first pixel. Records past the first ones are copied on the readback's stream and waited for; the
// scratch must not be launched on again before this call.
Status read_blobs(DeviceScratch* scratch, std::vector<Blob>* blobs, int64_t* foreground);

#endif // CVIS_HAVE_CUDA

} // namespace cvis::ccl

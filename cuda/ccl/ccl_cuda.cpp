// CUDA labelling: the device scratch, the launch on a caller's mask and the read-back (records
// sorted into raster order of their first pixel, as connected_blobs() reports them).
#include <algorithm>
#include <utility>

#include "ccl.hpp"
#include "ccl_kernels.hpp"
#include "common/cuda/device_buffer.hpp"

namespace cvis::ccl {

namespace {
// Records copied back with the counters in the first transfer; more need a second one.
constexpr int kFirstRecords = 256;
} // namespace

struct DeviceScratch::Impl {
  int width = 0, height = 0; // reserved size
  cuda::DeviceArray<int32_t> labels, slot;
  cuda::DeviceArray<int32_t> overlap; // launch_persistence: three counts per record
  cuda::DeviceArray<uint32_t> tile_stats;
  cuda::DeviceArray<BlobRecord> components, kept;
  cuda::DeviceArray<CclCounters> counters;
  cuda::PinnedArray<CclCounters> h_counters;
  cuda::PinnedArray<BlobRecord> h_kept, h_more; // first records; those past them (read_blobs)
  cuda::Event copied;                           // after the last readback's copies
  cudaStream_t stream = nullptr;                // of the last readback
  int capacity = 0;                             // blob_capacity of the last launch
  int last_width = 0;                           // mask width of the last launch_blobs
  bool read_back = false;    // a readback was enqueued since the scratch was reserved
  bool read_records = false; // ... with the records
  bool pending = false;      // its copies may still run

  kernels::DeviceLabels labels_for(const uint8_t* mask, size_t pitch, int w, int h) const {
    kernels::DeviceLabels m;
    m.width = w;
    m.height = h;
    m.pitch = pitch;
    m.mask = mask;
    m.labels = labels.get();
    m.slot = slot.get();
    m.tile_stats = tile_stats.get();
    m.components = components.get();
    m.kept = kept.get();
    m.counters = counters.get();
    m.blob_capacity = blob_capacity(w, h);
    return m;
  }

  Status check(const uint8_t* mask, size_t pitch, int w, int h) const {
    if (!mask || w < 1 || h < 1 || pitch < static_cast<size_t>(w))
      return invalid_argument("ccl: bad mask view");
    if (w > width || h > height || !counters.get())
      return invalid_argument("ccl: mask larger than the scratch (reserve first)");
    return Status::Ok();
  }
};

DeviceScratch::DeviceScratch() : impl_(std::make_unique<Impl>()) {}
DeviceScratch::~DeviceScratch() = default;
DeviceScratch::DeviceScratch(DeviceScratch&&) noexcept = default;
DeviceScratch& DeviceScratch::operator=(DeviceScratch&&) noexcept = default;

Status DeviceScratch::reserve(int width, int height, StreamHandle stream) {
  if (width < 1 || height < 1)
    return invalid_argument("ccl: scratch size must be at least 1x1");
  Impl& s = *impl_;
  const cudaStream_t st = static_cast<cudaStream_t>(stream);
  const int w = std::max(width, s.width), h = std::max(height, s.height);
  if (w == s.width && h == s.height)
    return Status::Ok();
  const size_t npix = static_cast<size_t>(w) * h;
  const size_t cap = static_cast<size_t>(blob_capacity(w, h));
  const bool grows = cap > s.kept.capacity();
  CVIS_RETURN_IF_ERROR(s.labels.reserve(npix, st));
  CVIS_RETURN_IF_ERROR(s.slot.reserve(npix, st));
  CVIS_RETURN_IF_ERROR(s.tile_stats.reserve(npix, st));
  CVIS_RETURN_IF_ERROR(s.components.reserve(cap, st));
  CVIS_RETURN_IF_ERROR(s.kept.reserve(cap, st));
  CVIS_RETURN_IF_ERROR(s.overlap.reserve(3 * static_cast<size_t>(cap) + 1, st));
  CVIS_RETURN_IF_ERROR(s.counters.reserve(1, st));
  CVIS_RETURN_IF_ERROR(s.h_counters.reserve(1));
  CVIS_RETURN_IF_ERROR(s.h_kept.reserve(kFirstRecords));
  CVIS_RETURN_IF_ERROR(s.copied.create());
  if (grows) {
    // The readback copies the first records whether or not the labelling wrote them (it cannot
    // know how many before the counters are back): they hold zeros, never uninitialised memory.
    const size_t first = std::min<size_t>(kFirstRecords, cap);
    CVIS_CUDA_CHECK(cudaMemsetAsync(s.kept.get(), 0, first * sizeof(BlobRecord), st));
    if (!st) // usable on every stream at once, as the allocation
      CVIS_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  }
  s.width = w;
  s.height = h;
  return Status::Ok();
}

void DeviceScratch::release() {
  impl_ = std::make_unique<Impl>(); // frees the old allocations
}

size_t DeviceScratch::device_bytes() const {
  const Impl& s = *impl_;
  return s.labels.capacity() * 4 + s.slot.capacity() * 4 + s.tile_stats.capacity() * 4 +
         (s.components.capacity() + s.kept.capacity()) * sizeof(BlobRecord) +
         s.overlap.capacity() * 4 + s.counters.capacity() * sizeof(CclCounters);
}

size_t DeviceScratch::host_bytes() const {
  const Impl& s = *impl_;
  return s.h_counters.capacity() * sizeof(CclCounters) +
         (s.h_kept.capacity() + s.h_more.capacity()) * sizeof(BlobRecord);
}

const CclCounters* DeviceScratch::device_counters() const {
  return impl_->counters.get();
}

const BlobRecord* DeviceScratch::device_records() const {
  return impl_->kept.get();
}

Status launch_blobs(const uint8_t* mask, size_t pitch, int width, int height, int min_area,
                    DeviceScratch* scratch, StreamHandle stream) {
  DeviceScratch::Impl& s = *scratch->impl();
  CVIS_RETURN_IF_ERROR(s.check(mask, pitch, width, height));
  const kernels::DeviceLabels m = s.labels_for(mask, pitch, width, height);
  s.capacity = m.blob_capacity;
  s.last_width = width;
  return kernels::launch_blobs(m, min_area, static_cast<cudaStream_t>(stream));
}

Status launch_area_filter(uint8_t* mask, size_t pitch, int width, int height, int min_area,
                          DeviceScratch* scratch, StreamHandle stream) {
  DeviceScratch::Impl& s = *scratch->impl();
  CVIS_RETURN_IF_ERROR(s.check(mask, pitch, width, height));
  const kernels::DeviceLabels m = s.labels_for(mask, pitch, width, height);
  return kernels::launch_area_filter(m, mask, min_area, static_cast<cudaStream_t>(stream));
}

Status launch_persistence(const uint8_t* mask, size_t pitch, MaskReferences* refs, int width,
                          int height, float persistence, int min_area, uint8_t* out,
                          size_t out_pitch, DeviceScratch* scratch, StreamHandle stream,
                          const seg::AddedLight* light) {
  DeviceScratch::Impl& s = *scratch->impl();
  CVIS_RETURN_IF_ERROR(s.check(mask, pitch, width, height));
  if (!refs || !refs->prev || !out || refs->pitch < static_cast<size_t>(width) ||
      out_pitch < static_cast<size_t>(width))
    return invalid_argument("ccl: bad persistence views");
  if (!(persistence > 0.0f) || !(persistence <= 1.0f))
    return invalid_argument("ccl: persistence must be in (0, 1]");
  if ((refs->prev2 != nullptr) != (light != nullptr) ||
      (light && (!light->frame || !light->background || light->pitch < static_cast<size_t>(width))))
    return invalid_argument("ccl: added light needs prev2 and both luma views");
  if (light && light->trim_radius < 0)
    return invalid_argument("ccl: trim radius must be >= 0");
  const kernels::DeviceLabels m = s.labels_for(mask, pitch, width, height);
  const cudaStream_t st = static_cast<cudaStream_t>(stream);
  CVIS_RETURN_IF_ERROR(kernels::launch_persistence(m, refs->prev, refs->pitch, refs->prev2,
                                                   light ? *light : seg::AddedLight{},
                                                   s.overlap.get(), persistence, min_area, out,
                                                   out_pitch, st));
  if (refs->prev2) // the kernels wrote the mask into prev2's buffer
    std::swap(refs->prev, refs->prev2);
  if (!light || light->trim_radius == 0)
    return Status::Ok();
  // Trimmed components are no union of the mask's: when a pixel was trimmed, the output's blobs
  // need a labelling of their own (gated on the device: no host round trip).
  kernels::DeviceLabels o = s.labels_for(out, out_pitch, width, height);
  o.gate = kernels::trimmed_flag(s.overlap.get(), m.blob_capacity);
  return kernels::launch_blobs(o, min_area, st);
}

ComponentAreas component_areas(const DeviceScratch& scratch) {
  const DeviceScratch::Impl& s = *scratch.impl();
  ComponentAreas a;
  a.labels = s.labels.get();
  a.slot = s.slot.get();
  a.components = s.components.get();
  a.width = s.last_width;
  a.capacity = s.capacity;
  return a;
}

Status enqueue_readback(bool with_records, DeviceScratch* scratch, StreamHandle stream) {
  DeviceScratch::Impl& s = *scratch->impl();
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  if (!s.counters.get())
    return internal_error("ccl: readback before any launch");
  if (s.pending) {
    // The pinned buffers may still be the target of the previous readback's copies.
    CVIS_RETURN_IF_ERROR(::cvis::cuda::event_wait(s.copied.get()));
    s.pending = false;
  }
  CVIS_CUDA_CHECK(cudaMemcpyAsync(s.h_counters.get(), s.counters.get(), sizeof(CclCounters),
                                  cudaMemcpyDeviceToHost, st));
  s.read_records = with_records;
  if (with_records) {
    const int first = std::min(kFirstRecords, s.capacity);
    CVIS_CUDA_CHECK(cudaMemcpyAsync(s.h_kept.get(), s.kept.get(), first * sizeof(BlobRecord),
                                    cudaMemcpyDeviceToHost, st));
  }
  CVIS_CUDA_CHECK(cudaEventRecord(s.copied.get(), st));
  s.stream = st;
  s.pending = s.read_back = true;
  return Status::Ok();
}

Status read_blobs(DeviceScratch* scratch, std::vector<Blob>* blobs, int64_t* foreground) {
  DeviceScratch::Impl& s = *scratch->impl();
  if (!s.read_back)
    return internal_error("ccl: read_blobs before any readback");
  // The copies (and the labelling before them) may still run: wait for them, and report their
  // error (an execution error of the launches surfaces here).
  CVIS_RETURN_IF_ERROR(::cvis::cuda::event_wait(s.copied.get()));
  s.pending = false;
  const CclCounters counters = *s.h_counters.get();
  if (foreground)
    *foreground = static_cast<int64_t>(counters.foreground);
  if (!blobs)
    return Status::Ok();
  blobs->clear();
  if (!s.read_records)
    return internal_error("ccl: read_blobs without a readback of the records");
  const int first = std::min(kFirstRecords, s.capacity);
  const int kept = std::min(counters.kept, s.capacity);
  std::vector<BlobRecord> records(s.h_kept.get(), s.h_kept.get() + std::min(kept, first));
  if (kept > first) {
    // The rest, on the readback's stream (a synchronous copy would run on the legacy stream,
    // which waits for every blocking stream of the context and does not wait for ours).
    const size_t more = static_cast<size_t>(kept - first);
    CVIS_RETURN_IF_ERROR(s.h_more.reserve(more));
    CVIS_CUDA_CHECK(cudaMemcpyAsync(s.h_more.get(), s.kept.get() + first, more * sizeof(BlobRecord),
                                    cudaMemcpyDeviceToHost, s.stream));
    CVIS_CUDA_CHECK(cudaEventRecord(s.copied.get(), s.stream));
    CVIS_RETURN_IF_ERROR(::cvis::cuda::event_wait(s.copied.get()));
    records.insert(records.end(), s.h_more.get(), s.h_more.get() + more);
  }
  // Atomics fill the records in any order; the reference order is raster order of the first
  // pixel, i.e. of the root.
  std::sort(records.begin(), records.end(),
            [](const BlobRecord& a, const BlobRecord& b) { return a.root < b.root; });
  blobs->reserve(records.size());
  for (const BlobRecord& r : records) {
    blobs->push_back(Blob{r.x0, r.y0, r.x1 - r.x0 + 1, r.y1 - r.y0 + 1, r.area});
  }
  return Status::Ok();
}

} // namespace cvis::ccl

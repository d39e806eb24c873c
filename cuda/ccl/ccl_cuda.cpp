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
  cuda::DeviceArray<uint32_t> tile_stats;
  cuda::DeviceArray<BlobRecord> components, kept;
  cuda::DeviceArray<CclCounters> counters;
  cuda::PinnedArray<CclCounters> h_counters;
  cuda::PinnedArray<BlobRecord> h_kept;
  int capacity = 0;  // blob_capacity of the last launch
  bool read_records = false;

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

Status DeviceScratch::reserve(int width, int height) {
  if (width < 1 || height < 1)
    return invalid_argument("ccl: scratch size must be at least 1x1");
  Impl& s = *impl_;
  const int w = std::max(width, s.width), h = std::max(height, s.height);
  const size_t npix = static_cast<size_t>(w) * h;
  const size_t cap = static_cast<size_t>(blob_capacity(w, h));
  CVIS_RETURN_IF_ERROR(s.labels.reserve(npix));
  CVIS_RETURN_IF_ERROR(s.slot.reserve(npix));
  CVIS_RETURN_IF_ERROR(s.tile_stats.reserve(npix));
  CVIS_RETURN_IF_ERROR(s.components.reserve(cap));
  CVIS_RETURN_IF_ERROR(s.kept.reserve(cap));
  CVIS_RETURN_IF_ERROR(s.counters.reserve(1));
  CVIS_RETURN_IF_ERROR(s.h_counters.reserve(1));
  CVIS_RETURN_IF_ERROR(s.h_kept.reserve(kFirstRecords));
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
         s.counters.capacity() * sizeof(CclCounters);
}

size_t DeviceScratch::host_bytes() const {
  const Impl& s = *impl_;
  return s.h_counters.capacity() * sizeof(CclCounters) + s.h_kept.capacity() * sizeof(BlobRecord);
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
  return kernels::launch_blobs(m, min_area, static_cast<cudaStream_t>(stream));
}

Status launch_count(const uint8_t* mask, size_t pitch, int width, int height,
                    DeviceScratch* scratch, StreamHandle stream) {
  DeviceScratch::Impl& s = *scratch->impl();
  CVIS_RETURN_IF_ERROR(s.check(mask, pitch, width, height));
  const kernels::DeviceLabels m = s.labels_for(mask, pitch, width, height);
  s.capacity = m.blob_capacity;
  return kernels::launch_count(m, static_cast<cudaStream_t>(stream));
}

Status enqueue_readback(bool with_records, DeviceScratch* scratch, StreamHandle stream) {
  DeviceScratch::Impl& s = *scratch->impl();
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  if (!s.counters.get())
    return internal_error("ccl: readback before any launch");
  CVIS_CUDA_CHECK(cudaMemcpyAsync(s.h_counters.get(), s.counters.get(), sizeof(CclCounters),
                                  cudaMemcpyDeviceToHost, st));
  s.read_records = with_records;
  if (with_records) {
    const int first = std::min(kFirstRecords, s.capacity);
    CVIS_CUDA_CHECK(cudaMemcpyAsync(s.h_kept.get(), s.kept.get(), first * sizeof(BlobRecord),
                                    cudaMemcpyDeviceToHost, st));
  }
  return Status::Ok();
}

Status read_blobs(DeviceScratch* scratch, std::vector<Blob>* blobs, int64_t* foreground) {
  DeviceScratch::Impl& s = *scratch->impl();
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
    records.resize(kept);
    CVIS_CUDA_CHECK(cudaMemcpy(records.data() + first, s.kept.get() + first,
                               (kept - first) * sizeof(BlobRecord), cudaMemcpyDeviceToHost));
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

// CUDA backend of the background subtraction: device memory, view validation, launch sequence.
#include <algorithm>
#include <cstring>
#include <vector>

#include "bgsub_internal.hpp"
#include "bgsub_kernels.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/cuda/upload.hpp"
#include "cpwl/cpwl_cuda.hpp"

namespace cvis::bgsub {

namespace {

using kernels::BlobRecord;
using kernels::CclCounters;

// Records copied back with the counters in the first transfer; more need a second one.
constexpr int kFirstRecords = 256;

class CudaSubtractor final : public Subtractor {
public:
  Backend backend() const override { return Backend::kCuda; }
  const Params& params() const override { return p_; }

  Status configure(const Params& p) override {
    CVIS_RETURN_IF_ERROR(validate(p));
    cpwl::Table table;
    CVIS_RETURN_IF_ERROR(build_table(p, &table));
    if (table.n > 0) {
      CVIS_RETURN_IF_ERROR(dtable_.upload(table));
    } else {
      dtable_.release();
    }
    const std::vector<float> lut = bandwidth_table(p);
    CVIS_RETURN_IF_ERROR(lut_.reserve(lut.size()));
    CVIS_CUDA_CHECK(
        cudaMemcpy(lut_.get(), lut.data(), lut.size() * sizeof(float), cudaMemcpyHostToDevice));
    const bool structural = !configured_ || p.num_samples != p_.num_samples || p.color != p_.color;
    p_ = p;
    table_ = std::move(table);
    configured_ = true;
    if (structural) {
      w_ = h_ = 0; // reallocate at the next frame
      reset();
    }
    return Status::Ok();
  }

  void reset() override { frame_ = 0; }

  Status process(const ImageView& frame, const ImageView& mask, FrameResult* result,
                 StreamHandle stream_handle, float* density) override {
    if (!configured_)
      CVIS_RETURN_IF_ERROR(configure(Params()));
    CVIS_RETURN_IF_ERROR(validate_view(frame, "frame"));
    CVIS_RETURN_IF_ERROR(validate_mask(mask, frame.width, frame.height, true));
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    if (frame.width != w_ || frame.height != h_) {
      CVIS_RETURN_IF_ERROR(allocate(frame.width, frame.height));
    }
    ImageView dev_frame;
    CVIS_RETURN_IF_ERROR(uploader_.upload(frame, stream, &dev_frame));
    kernels::DeviceModel m = model_;
    m.density = density ? density_.get() : nullptr;
    m.median_bits = median_bits(p_);
    const int L = p_.num_samples;
    const size_t plane = static_cast<size_t>(h_) * m.stride;

    CVIS_RETURN_IF_ERROR(kernels::launch_features(
        make_pixel_source(dev_frame), p_.color == ColorSpace::kChromaticity, m, stream));
    *result = FrameResult();
    result->frame = ++frame_;
    if (frame_ <= L) { // warm-up: sample k = frame k - 1 of every pixel, blindly
      CVIS_CUDA_CHECK(cudaMemcpyAsync(m.samples + (frame_ - 1) * plane, m.feat,
                                      plane * sizeof(uint32_t), cudaMemcpyDeviceToDevice, stream));
      if (frame_ == L) {
        CVIS_CUDA_CHECK(cudaMemsetAsync(m.head, 0, plane, stream));
        CVIS_RETURN_IF_ERROR(kernels::launch_update(m, false, false, stream));
      }
      CVIS_RETURN_IF_ERROR(zero_mask(mask, stream));
      CVIS_RETURN_IF_ERROR(stream_synchronize(stream));
      if (density)
        std::fill(density, density + static_cast<size_t>(w_) * h_, 0.0f);
      result->warming_up = true;
      return Status::Ok();
    }

    const ModelConsts c = model_consts(p_, w_, h_, table_);
    CVIS_RETURN_IF_ERROR(
        kernels::launch_classify(static_cast<int>(p_.kernel), m, c, dtable_.view(), stream));
    CVIS_RETURN_IF_ERROR(kernels::launch_cleanup(static_cast<int>(p_.cleanup), m, stream));
    if ((frame_ - L - 1) % p_.update_period == 0) {
      CVIS_RETURN_IF_ERROR(kernels::launch_update(m, true, p_.conservative_update, stream));
    }
    if (p_.blobs) {
      CVIS_RETURN_IF_ERROR(kernels::launch_blobs(m, p_.min_blob_area, stream));
    } else {
      CVIS_RETURN_IF_ERROR(kernels::launch_count(m, stream));
    }
    CVIS_CUDA_CHECK(cudaMemcpyAsync(h_counters_.get(), m.counters, sizeof(CclCounters),
                                    cudaMemcpyDeviceToHost, stream));
    const int first = std::min(kFirstRecords, m.blob_capacity);
    if (p_.blobs) {
      CVIS_CUDA_CHECK(cudaMemcpyAsync(h_kept_.get(), m.kept, first * sizeof(BlobRecord),
                                      cudaMemcpyDeviceToHost, stream));
    }
    const cudaMemcpyKind kind =
        mask.space == MemorySpace::kDevice ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
    CVIS_CUDA_CHECK(
        cudaMemcpy2DAsync(mask.data[0], mask.pitch[0], m.mask, m.stride, w_, h_, kind, stream));
    if (density) {
      CVIS_CUDA_CHECK(cudaMemcpy2DAsync(density, w_ * sizeof(float), m.density,
                                        m.stride * sizeof(float), w_ * sizeof(float), h_,
                                        cudaMemcpyDeviceToHost, stream));
    }
    CVIS_RETURN_IF_ERROR(stream_synchronize(stream));
    const CclCounters counters = *h_counters_.get();
    result->foreground_pixels = static_cast<int64_t>(counters.foreground);
    result->foreground_fraction =
        static_cast<double>(counters.foreground) / (static_cast<double>(w_) * h_);
    if (p_.blobs) {
      const int kept = std::min(counters.kept, m.blob_capacity);
      std::vector<BlobRecord> records(h_kept_.get(), h_kept_.get() + std::min(kept, first));
      if (kept > first) {
        records.resize(kept);
        CVIS_CUDA_CHECK(cudaMemcpy(records.data() + first, m.kept + first,
                                   (kept - first) * sizeof(BlobRecord), cudaMemcpyDeviceToHost));
      }
      // Atomics fill the records in any order; the reference order is raster order of the first
      // pixel, i.e. of the root.
      std::sort(records.begin(), records.end(),
                [](const BlobRecord& a, const BlobRecord& b) { return a.root < b.root; });
      for (const BlobRecord& r : records) {
        result->blobs.push_back(Blob{r.x0, r.y0, r.x1 - r.x0 + 1, r.y1 - r.y0 + 1, r.area});
      }
    }
    return Status::Ok();
  }

private:
  Status allocate(int w, int h) {
    w_ = h_ = 0;
    kernels::DeviceModel m;
    m.width = w;
    m.height = h;
    m.stride = (static_cast<size_t>(w) + 31) / 32 * 32; // 128-byte rows for the 32-bit arrays
    m.num_samples = p_.num_samples;
    const size_t plane = m.stride * h, npix = static_cast<size_t>(w) * h;
    m.blob_capacity = ((w + 1) / 2) * ((h + 1) / 2); // at most one 8-connected blob per 2x2 cell
    CVIS_RETURN_IF_ERROR(feat_.reserve(plane));
    CVIS_RETURN_IF_ERROR(samples_.reserve(plane * p_.num_samples));
    CVIS_RETURN_IF_ERROR(medians_.reserve(plane));
    CVIS_RETURN_IF_ERROR(head_.reserve(plane));
    CVIS_RETURN_IF_ERROR(raw_.reserve(plane));
    CVIS_RETURN_IF_ERROR(mask_.reserve(plane));
    CVIS_RETURN_IF_ERROR(tmp_.reserve(plane));
    CVIS_RETURN_IF_ERROR(density_.reserve(plane));
    CVIS_RETURN_IF_ERROR(labels_.reserve(npix));
    CVIS_RETURN_IF_ERROR(slot_.reserve(npix));
    CVIS_RETURN_IF_ERROR(tile_stats_.reserve(npix));
    CVIS_RETURN_IF_ERROR(components_.reserve(m.blob_capacity));
    CVIS_RETURN_IF_ERROR(kept_.reserve(m.blob_capacity));
    CVIS_RETURN_IF_ERROR(counters_.reserve(1));
    CVIS_RETURN_IF_ERROR(h_counters_.reserve(1));
    CVIS_RETURN_IF_ERROR(h_kept_.reserve(kFirstRecords));
    m.feat = feat_.get();
    m.samples = samples_.get();
    m.medians = medians_.get();
    m.head = head_.get();
    m.raw = raw_.get();
    m.mask = mask_.get();
    m.tmp = tmp_.get();
    m.labels = labels_.get();
    m.slot = slot_.get();
    m.tile_stats = tile_stats_.get();
    m.lut = lut_.get();
    m.components = components_.get();
    m.kept = kept_.get();
    m.counters = counters_.get();
    model_ = m;
    w_ = w;
    h_ = h;
    frame_ = 0;
    return Status::Ok();
  }

  Status zero_mask(const ImageView& mask, cudaStream_t stream) {
    if (mask.space == MemorySpace::kDevice) {
      CVIS_CUDA_CHECK(cudaMemset2DAsync(mask.data[0], mask.pitch[0], 0, w_, h_, stream));
    } else {
      for (int y = 0; y < h_; ++y)
        std::memset(mask.data[0] + y * mask.pitch[0], 0, w_);
    }
    return Status::Ok();
  }

  Params p_;
  bool configured_ = false;
  int w_ = 0, h_ = 0;
  int64_t frame_ = 0;
  cpwl::Table table_;
  cpwl::DeviceTable dtable_;
  cuda::DeviceArray<float> lut_, density_;
  cuda::DeviceArray<uint32_t> feat_, samples_, medians_;
  cuda::DeviceArray<uint8_t> head_, raw_, mask_, tmp_;
  cuda::DeviceArray<int32_t> labels_, slot_;
  cuda::DeviceArray<uint32_t> tile_stats_;
  cuda::DeviceArray<BlobRecord> components_, kept_;
  cuda::DeviceArray<CclCounters> counters_;
  cuda::PinnedArray<CclCounters> h_counters_;
  cuda::PinnedArray<BlobRecord> h_kept_;
  cuda::HostUploader uploader_;
  kernels::DeviceModel model_;
};

} // namespace

std::unique_ptr<Subtractor> make_cuda_subtractor(Status* status) {
  if (cuda_device_count() <= 0) {
    *status = Status(StatusCode::kNoDevice, cuda_device_description(0));
    return nullptr;
  }
  *status = Status::Ok();
  return std::make_unique<CudaSubtractor>();
}

} // namespace cvis::bgsub

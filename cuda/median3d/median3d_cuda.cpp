// CUDA backend: device memory, view checks and the launch sequence of each method. Frames live in
// a device ring of channel planes (temporal + 1 slots: the head is stored before the tail leaves,
// so one update pass can add the head and subtract the tail).
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "ccl/ccl.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/cuda/upload.hpp"
#include "median3d_internal.hpp"
#include "median3d_kernels.hpp"

namespace cvis::median3d {

namespace {

using cuda::DeviceArray;
using cuda::PinnedArray;
using cuda::PitchedBuffer;
using kernels::Planes;

class CudaEstimator final : public Estimator {
public:
  Backend backend() const override { return Backend::kCuda; }

  Status configure(const Params& params, int width, int height, PixelFormat format) override {
    configured_ = false;
    CVIS_RETURN_IF_ERROR(validate(params));
    CVIS_RETURN_IF_ERROR(validate_geometry(width, height, format));
    p_ = params;
    w_ = width;
    h_ = height;
    format_ = format;
    nc_ = channel_count(params);
    cap_ = p_.temporal + 1;
    const size_t px = static_cast<size_t>(w_) * h_;
    const size_t chunks = static_cast<size_t>((p_.bins + 15) / 16);
    const size_t segs = static_cast<size_t>((h_ + kScanSegment - 1) / kScanSegment);
    bytes_ = 0;
    // Buffers of other methods are freed: a stream's memory is what its settings need.
    auto need = [&](bool used, auto& buf, size_t n, size_t elem) -> Status {
      if (!used) {
        buf.release();
        return Status::Ok();
      }
      bytes_ += n * elem;
      return buf.reserve(n);
    };
    const bool sliding = p_.method == Method::kSlidingHistogram;
    const bool sep = p_.method == Method::kSeparable;
    const bool integral = p_.method == Method::kIntegralHistogram;
    CVIS_RETURN_IF_ERROR(ring_.reserve(w_, static_cast<size_t>(cap_) * nc_ * h_));
    CVIS_RETURN_IF_ERROR(med_.reserve(w_, static_cast<size_t>(nc_) * h_));
    CVIS_RETURN_IF_ERROR(diff_.reserve(w_, h_));
    bytes_ += ring_.pitch() * cap_ * nc_ * h_ + med_.pitch() * nc_ * h_ + diff_.pitch() * h_;
    CVIS_RETURN_IF_ERROR(need(true, dhist_, 256, 4));
    CVIS_RETURN_IF_ERROR(need(true, dres_, 1, sizeof(kernels::DeviceResult)));
    CVIS_RETURN_IF_ERROR(host_res_.reserve(1));
    CVIS_RETURN_IF_ERROR(need(sliding || sep, hist_, nc_ * chunks * px * 16, 1));
    CVIS_RETURN_IF_ERROR(need(integral, jih_, nc_ * p_.bins * px, 4));
    CVIS_RETURN_IF_ERROR(need(integral, rows_, nc_ * p_.bins * px, 2));
    CVIS_RETURN_IF_ERROR(need(integral, seg_, nc_ * p_.bins * segs * w_, 4));
    if (sep) {
      CVIS_RETURN_IF_ERROR(spatial_.reserve(w_, static_cast<size_t>(cap_) * nc_ * h_));
      bytes_ += spatial_.pitch() * cap_ * nc_ * h_;
    } else {
      spatial_.release();
    }
    configured_ = true;
    reset();
    return Status::Ok();
  }

  void reset() override {
    computed_ = false;
    oldest_ = 0;
    count_ = 0;
    needs_clear_ = true; // done on the caller's stream at the next push
    mask_done_ = false;
    blobs_done_ = false;
  }

  int frames() const override { return count_; }

  Status push(const ImageView& frame, bool drop_oldest, StreamHandle stream) override {
    if (!configured_)
      return internal_error("push before configure");
    CVIS_RETURN_IF_ERROR(check_frame(frame, w_, h_, format_, "frame"));
    if (drop_oldest && count_ == 0)
      return invalid_argument("push: nothing to drop");
    if (!drop_oldest && count_ >= p_.temporal)
      return invalid_argument("push: the window is full");
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    CVIS_RETURN_IF_ERROR(clear_state(s));
    ImageView dev = frame;
    if (frame.space == MemorySpace::kHost)
      CVIS_RETURN_IF_ERROR(uploader_.upload(frame, s, &dev));
    const int head = (oldest_ + count_) % cap_;
    CVIS_RETURN_IF_ERROR(kernels::launch_ingest(
        make_pixel_source(dev), p_.channels == Channels::kLuma, nc_, slot(ring_, head), s));
    if (p_.method == Method::kSeparable) {
      CVIS_RETURN_IF_ERROR(kernels::launch_spatial_median(slot(ring_, head), p_.bins, w_, h_, nc_,
                                                          p_.spatial_w / 2, p_.spatial_h / 2,
                                                          slot(spatial_, head), s));
    }
    CVIS_RETURN_IF_ERROR(update(head, drop_oldest ? oldest_ : -1, s));
    if (drop_oldest) {
      oldest_ = (oldest_ + 1) % cap_;
    } else {
      ++count_;
    }
    return Status::Ok();
  }

  Status pop(StreamHandle stream) override {
    if (count_ == 0)
      return invalid_argument("pop: the window is empty");
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    CVIS_RETURN_IF_ERROR(clear_state(s));
    CVIS_RETURN_IF_ERROR(update(-1, oldest_, s));
    oldest_ = (oldest_ + 1) % cap_;
    --count_;
    return Status::Ok();
  }

  Status compute(int index, const Request& rq, StreamHandle stream) override {
    computed_ = false;
    CVIS_RETURN_IF_ERROR(enqueue_compute(index, rq, static_cast<cudaStream_t>(stream)));
    // result() waits for this, not for the whole stream.
    CVIS_RETURN_IF_ERROR(done_.create());
    CVIS_CUDA_CHECK(cudaEventRecord(done_.get(), static_cast<cudaStream_t>(stream)));
    computed_ = true;
    return Status::Ok();
  }

  Status result(FrameResult* out) override {
    *out = FrameResult();
    out->pixels = static_cast<uint64_t>(w_) * h_;
    if (!computed_)
      return Status::Ok();
    // The figures and the blob records are copied into pinned memory by compute()'s stream.
    CVIS_RETURN_IF_ERROR(::cvis::cuda::event_wait(done_.get()));
    if (mask_done_) {
      out->threshold = host_res_.get()->threshold;
      out->foreground = host_res_.get()->foreground;
    }
    if (blobs_done_) {
      std::vector<Blob> found;
      CVIS_RETURN_IF_ERROR(ccl::read_blobs(&ccl_, &found, nullptr));
      select_blobs(std::move(found), max_blobs_, &out->blobs);
      out->has_blobs = true;
    }
    return Status::Ok();
  }

  MemoryUse memory() const override {
    MemoryUse m;
    m.device_bytes = bytes_ + scratch_bytes_ + ccl_.device_bytes();
    m.host_bytes = sizeof(kernels::DeviceResult) + ccl_.host_bytes();
    return m;
  }

private:
  Status enqueue_compute(int index, const Request& rq, cudaStream_t s) {
    CVIS_RETURN_IF_ERROR(check_request(index, count_, rq, w_, h_, false));
    CVIS_RETURN_IF_ERROR(clear_state(s));
    const Planes med = planes(med_, 0);
    const uint32_t frames = static_cast<uint32_t>(count_);
    const int rx = p_.spatial_w / 2, ry = p_.spatial_h / 2;
    switch (p_.method) {
    case Method::kIntegralHistogram:
      CVIS_RETURN_IF_ERROR(kernels::launch_integral_median(jih_.get(), p_.bins, w_, h_, nc_, rx, ry,
                                                           frames, med, s));
      break;
    case Method::kSlidingHistogram:
      CVIS_RETURN_IF_ERROR(
          kernels::launch_box_median(hist_.get(), p_.bins, w_, h_, nc_, rx, ry, frames, med, s));
      break;
    case Method::kSeparable: // eq. (3), outer median: the temporal histogram of the 2-D medians
      CVIS_RETURN_IF_ERROR(
          kernels::launch_box_median(hist_.get(), p_.bins, w_, h_, nc_, 0, 0, frames, med, s));
      break;
    }

    const bool want_blobs = rq.blobs.enabled;
    const bool want_mask = rq.mask || rq.mask_copy || want_blobs;
    ImageView bg{};
    if (rq.background) {
      bg = *rq.background;
      if (bg.space == MemorySpace::kHost)
        CVIS_RETURN_IF_ERROR(scratch_view(bg.format, &bg, s));
    }
    if (want_mask)
      CVIS_CUDA_CHECK(cudaMemsetAsync(dhist_.get(), 0, 256 * sizeof(uint32_t), s));
    CVIS_RETURN_IF_ERROR(kernels::launch_finish(
        med, slot(ring_, (oldest_ + index) % cap_), p_.bins, p_.channels == Channels::kLuma, w_, h_,
        nc_, rq.background != nullptr, make_pixel_dest(bg), want_mask ? diff_.get() : nullptr,
        diff_.pitch(), want_mask ? dhist_.get() : nullptr, s));
    if (rq.background && rq.background->space == MemorySpace::kHost) {
      CVIS_RETURN_IF_ERROR(copy_planes(bg, *rq.background, cudaMemcpyDeviceToHost, s));
    }
    mask_done_ = want_mask;
    blobs_done_ = false;
    if (!want_mask)
      return Status::Ok();
    CVIS_RETURN_IF_ERROR(kernels::launch_threshold(dhist_.get(), rq.threshold, dres_.get(), s));
    bool scratch_written = false;
    const uint8_t* dev_mask = nullptr; // a device copy of the mask, for the blobs
    size_t dev_pitch = 0;
    auto write_scratch = [&]() -> Status {
      if (scratch_written)
        return Status::Ok();
      CVIS_RETURN_IF_ERROR(mask_.reserve(w_, h_, s));
      CVIS_RETURN_IF_ERROR(kernels::launch_mask(diff_.get(), diff_.pitch(), w_, h_, dres_.get(),
                                                mask_.get(), mask_.pitch(), s));
      scratch_written = true;
      return Status::Ok();
    };
    for (const ImageView* mv : {rq.mask, rq.mask_copy}) {
      if (!mv)
        continue;
      if (mv->space == MemorySpace::kDevice) {
        CVIS_RETURN_IF_ERROR(kernels::launch_mask(diff_.get(), diff_.pitch(), w_, h_, dres_.get(),
                                                  mv->data[0], mv->pitch[0], s));
        if (!dev_mask) {
          dev_mask = mv->data[0];
          dev_pitch = mv->pitch[0];
        }
        continue;
      }
      CVIS_RETURN_IF_ERROR(write_scratch());
      CVIS_CUDA_CHECK(cudaMemcpy2DAsync(mv->data[0], mv->pitch[0], mask_.get(), mask_.pitch(), w_,
                                        h_, cudaMemcpyDeviceToHost, s));
    }
    if (want_blobs) {
      // Blobs on the device from the mask just written (a device output, else the scratch):
      // records and counters come back with the figures, at the caller's synchronisation.
      if (!dev_mask) {
        CVIS_RETURN_IF_ERROR(write_scratch());
        dev_mask = mask_.get();
        dev_pitch = mask_.pitch();
      }
      CVIS_RETURN_IF_ERROR(ccl_.reserve(w_, h_, s));
      CVIS_RETURN_IF_ERROR(ccl::launch_blobs(dev_mask, dev_pitch, w_, h_,
                                             ccl_min_area(rq.blobs.min_area), &ccl_, s));
      CVIS_RETURN_IF_ERROR(ccl::enqueue_readback(true, &ccl_, s));
      max_blobs_ = rq.blobs.max_blobs;
      blobs_done_ = true;
    }
    CVIS_CUDA_CHECK(cudaMemcpyAsync(host_res_.get(), dres_.get(), sizeof(kernels::DeviceResult),
                                    cudaMemcpyDeviceToHost, s));
    return Status::Ok();
  }

  Planes planes(const PitchedBuffer& b, size_t first_plane) const {
    const size_t plane_bytes = b.pitch() * h_;
    return Planes{b.get() + first_plane * plane_bytes, b.pitch(), plane_bytes};
  }
  Planes slot(const PitchedBuffer& b, int s) const {
    return planes(b, static_cast<size_t>(s) * nc_);
  }

  // Zeroes the running state after configure/reset, on the stream that uses it next.
  Status clear_state(cudaStream_t s) {
    if (!needs_clear_)
      return Status::Ok();
    if (hist_.get())
      CVIS_CUDA_CHECK(cudaMemsetAsync(hist_.get(), 0, hist_.capacity(), s));
    if (jih_.get())
      CVIS_CUDA_CHECK(cudaMemsetAsync(jih_.get(), 0, jih_.capacity() * 4, s));
    needs_clear_ = false;
    return Status::Ok();
  }

  // Adds the frame in ring slot `head`, subtracts the one in `tail` (-1: none).
  Status update(int head, int tail, cudaStream_t s) {
    const PitchedBuffer& src = p_.method == Method::kSeparable ? spatial_ : ring_;
    const uint8_t* hp = head >= 0 ? slot(src, head).data : nullptr;
    const uint8_t* tp = tail >= 0 ? slot(src, tail).data : nullptr;
    const size_t plane_bytes = src.pitch() * h_;
    if (p_.method == Method::kIntegralHistogram) {
      return kernels::launch_integral_update(hp, tp, src.pitch(), plane_bytes, p_.bins, w_, h_, nc_,
                                             rows_.get(), seg_.get(), jih_.get(), s);
    }
    return kernels::launch_hist_update(hp, tp, src.pitch(), plane_bytes,
                                       p_.method == Method::kSeparable, p_.bins, w_, h_, nc_,
                                       hist_.get(), s);
  }

  // A device image of `format` for a background that goes to host memory.
  Status scratch_view(PixelFormat format, ImageView* v, cudaStream_t s) {
    *v = ImageView();
    v->format = format;
    v->space = MemorySpace::kDevice;
    v->width = w_;
    v->height = h_;
    scratch_bytes_ = 0;
    for (int p = 0; p < plane_count(format); ++p) {
      CVIS_RETURN_IF_ERROR(
          bg_[p].reserve(plane_row_bytes(format, p, w_), plane_rows(format, p, h_), s));
      v->data[p] = bg_[p].get();
      v->pitch[p] = bg_[p].pitch();
      scratch_bytes_ += bg_[p].pitch() * plane_rows(format, p, h_);
    }
    return Status::Ok();
  }

  static Status copy_planes(const ImageView& from, const ImageView& to, cudaMemcpyKind kind,
                            cudaStream_t s) {
    for (int p = 0; p < plane_count(from.format); ++p) {
      CVIS_CUDA_CHECK(cudaMemcpy2DAsync(to.data[p], to.pitch[p], from.data[p], from.pitch[p],
                                        plane_row_bytes(from.format, p, from.width),
                                        plane_rows(from.format, p, from.height), kind, s));
    }
    return Status::Ok();
  }

  Params p_;
  int w_ = 0, h_ = 0, nc_ = 1, cap_ = 1;
  PixelFormat format_ = PixelFormat::kGRAY8;
  bool configured_ = false, needs_clear_ = true, mask_done_ = false, blobs_done_ = false;
  bool computed_ = false; // done_ follows the last compute()
  size_t max_blobs_ = 0;
  int oldest_ = 0, count_ = 0;
  size_t bytes_ = 0, scratch_bytes_ = 0;

  PitchedBuffer ring_;          // [slot][channel] planes of values
  PitchedBuffer spatial_;       // separable: [slot][channel] planes of 2-D median bins
  PitchedBuffer med_;           // [channel] median bins
  PitchedBuffer diff_;          // |I - median|
  PitchedBuffer mask_;          // mask for host destinations
  PitchedBuffer bg_[3];         // background for host destinations
  DeviceArray<uint8_t> hist_;   // per-pixel histograms
  DeviceArray<uint32_t> jih_;   // joint integral histogram
  DeviceArray<int16_t> rows_;   // row scans of the update
  DeviceArray<int32_t> seg_;    // column segment totals
  DeviceArray<uint32_t> dhist_; // histogram of differences
  DeviceArray<kernels::DeviceResult> dres_;
  PinnedArray<kernels::DeviceResult> host_res_;
  cuda::Event done_;       // recorded after each compute()'s work
  ccl::DeviceScratch ccl_; // blob requests: labelling of the mask
  cuda::HostUploader uploader_;
};

} // namespace

std::unique_ptr<Estimator> make_cuda_estimator() {
  return std::make_unique<CudaEstimator>();
}

} // namespace cvis::median3d

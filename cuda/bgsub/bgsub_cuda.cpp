// CUDA backend of the background subtraction: device memory, view validation, launch sequence.
#include <algorithm>
#include <cstring>
#include <vector>

#include "bgsub_internal.hpp"
#include "bgsub_kernels.hpp"
#include "bgsub_scene.hpp"
#include "ccl/ccl.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/cuda/upload.hpp"
#include "cpwl/cpwl_cuda.hpp"

namespace cvis::bgsub {

namespace {

class CudaSubtractor final : public SubtractorBase {
public:
  Backend backend() const override { return Backend::kCuda; }

  Status process(const ImageView& frame, const ImageView& mask, FrameResult* result,
                 StreamHandle stream_handle, float* density) override {
    if (!configured_)
      CVIS_RETURN_IF_ERROR(configure(Params()));
    CVIS_RETURN_IF_ERROR(validate_view(frame, "frame"));
    CVIS_RETURN_IF_ERROR(validate_mask(mask, frame.width, frame.height, true));
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    if (tables_pending_)
      CVIS_RETURN_IF_ERROR(upload_tables(stream));
    if (frame.width != w_ || frame.height != h_) {
      CVIS_RETURN_IF_ERROR(allocate(frame.width, frame.height, stream));
    }
    ImageView dev_frame;
    CVIS_RETURN_IF_ERROR(uploader_.upload(frame, stream, &dev_frame));
    kernels::DeviceModel m = model_;
    m.lut = dlut_.get();
    m.density = density ? density_.get() : nullptr;
    m.median_bits = median_bits(p_);
    CVIS_RETURN_IF_ERROR(kernels::launch_features(
        make_pixel_source(dev_frame), p_.color == ColorSpace::kChromaticity, m, stream));
    *result = FrameResult();
    const FramePlan plan = schedule_.begin();
    result->frame = plan.frame;
    result->shot_change = plan.shot_change;
    if (plan.warming_up) {
      CVIS_RETURN_IF_ERROR(
          kernels::launch_warm_fill(m, static_cast<int>(plan.frame - 1), plan.warm_len, stream));
      if (plan.last_warm) {
        CVIS_CUDA_CHECK(cudaMemsetAsync(m.head, 0, static_cast<size_t>(h_) * m.stride, stream));
        CVIS_RETURN_IF_ERROR(kernels::launch_update(m, plan_, false, false, false, stream));
      }
      CVIS_RETURN_IF_ERROR(zero_mask(mask, stream));
      CVIS_RETURN_IF_ERROR(stream_synchronize(stream));
      if (density)
        std::fill(density, density + static_cast<size_t>(w_) * h_, 0.0f);
      result->warming_up = true;
      return Status::Ok();
    }

    const bool illumination = p_.illumination && p_.color == ColorSpace::kRgb;
    CVIS_RETURN_IF_ERROR(kernels::launch_scene_begin(m, illumination, stream));
    if (illumination)
      CVIS_RETURN_IF_ERROR(kernels::launch_gains(m, stream));
    CVIS_RETURN_IF_ERROR(kernels::launch_compensate(m, p_.ghost_levels, stream));
    const ModelConsts c = model_consts(p_, w_, h_, table_);
    kernels::ShadowConsts sh;
    sh.enabled = p_.shadows && p_.color == ColorSpace::kRgb;
    sh.lo16 = shadow_lo16(p_);
    sh.hi16 = shadow_hi16(p_);
    sh.chroma = p_.shadow_chroma;
    sh.need = std::min(p_.shadow_samples, p_.num_samples);
    CVIS_RETURN_IF_ERROR(
        kernels::launch_classify(static_cast<int>(p_.kernel), m, c, sh, dtable_.view(), stream));
    if (p_.shift_test && p_.color == ColorSpace::kRgb)
      CVIS_RETURN_IF_ERROR(kernels::launch_shift(m, p_.shift_levels, shift_reach(), stream));
    CVIS_RETURN_IF_ERROR(kernels::launch_cleanup(static_cast<int>(p_.cleanup), m, stream));
    CVIS_RETURN_IF_ERROR(kernels::launch_ghosts(m, p_.ghost_passes, p_.ghost_levels,
                                                p_.ghost_matches, p_.ghost_still, stream));
    // One labelling of the cleaned mask: the area filter's components, and the blobs of the
    // filtered mask (its components of at least min_mask_area pixels, unchanged by the filter).
    const bool filter = p_.min_mask_area > 1, persist = p_.persistence > 0.0f;
    const int min_area = std::max(p_.min_blob_area, filter ? p_.min_mask_area : 1);
    if (filter || p_.blobs || persist) {
      CVIS_RETURN_IF_ERROR(ccl::launch_blobs(m.mask, m.stride, w_, h_, min_area, &ccl_, stream));
      if (filter) {
        CVIS_RETURN_IF_ERROR(
            ccl::launch_area_filter(m.mask, m.stride, w_, h_, p_.min_mask_area, &ccl_, stream));
      }
      if (p_.blobs && !persist)
        CVIS_RETURN_IF_ERROR(ccl::enqueue_readback(true, &ccl_, stream));
    }
    CVIS_RETURN_IF_ERROR(
        kernels::launch_scene_counts(m, p_.color == ColorSpace::kChromaticity, stream));
    if (plan.update) {
      if (p_.update_own && !plan.blind)
        CVIS_RETURN_IF_ERROR(
            kernels::launch_lend(m, p_.ghost_levels, lend_need_moving(), lend_need_still(),
                                 static_cast<unsigned long long>(wide_limit()), stream));
      CVIS_RETURN_IF_ERROR(
          kernels::launch_update(m, plan_, true, p_.conservative_update, plan.blind, stream));
    }
    const bool device_out = mask.space == MemorySpace::kDevice;
    if (persist) {
      // The output is the persistent components of m.mask (the model keeps m.mask), written
      // straight into a device mask; blobs and foreground count are the output's.
      uint8_t* out = device_out ? mask.data[0] : m.tmp;
      const size_t out_pitch = device_out ? mask.pitch[0] : m.stride;
      // Glints: a mostly lit component must persist in both previous masks, and lit pixels away
      // from the previous mask are trimmed from the kept ones.
      const seg::AddedLight light{m.light, m.light + m.stride * h_, m.stride,
                                  seg::kAddedLightLevels, seg::trim_radius_for(w_, h_)};
      ccl::MaskReferences refs{m.mask_prev, m.mask_prev2, m.stride};
      CVIS_RETURN_IF_ERROR(ccl::launch_persistence(m.mask, m.stride, &refs, w_, h_,
                                                   p_.persistence, min_area, out, out_pitch, &ccl_,
                                                   stream, &light));
      model_.mask_prev = refs.prev; // the two buffers take turns (no copy)
      model_.mask_prev2 = refs.prev2;
      CVIS_RETURN_IF_ERROR(ccl::enqueue_readback(p_.blobs, &ccl_, stream));
      if (!device_out) {
        CVIS_CUDA_CHECK(cudaMemcpy2DAsync(mask.data[0], mask.pitch[0], m.tmp, m.stride, w_, h_,
                                          cudaMemcpyDeviceToHost, stream));
      }
    } else {
      const cudaMemcpyKind kind = device_out ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
      CVIS_CUDA_CHECK(
          cudaMemcpy2DAsync(mask.data[0], mask.pitch[0], m.mask, m.stride, w_, h_, kind, stream));
    }
    if (density) {
      CVIS_CUDA_CHECK(cudaMemcpy2DAsync(density, w_ * sizeof(float), m.density,
                                        m.stride * sizeof(float), w_ * sizeof(float), h_,
                                        cudaMemcpyDeviceToHost, stream));
    }
    CVIS_CUDA_CHECK(cudaMemcpyAsync(fig_.get(), m.fig, sizeof(kernels::SceneFigures),
                                    cudaMemcpyDeviceToHost, stream));
    CVIS_RETURN_IF_ERROR(stream_synchronize(stream));
    const kernels::SceneFigures& f = *fig_.get();
    schedule_.end(static_cast<int64_t>(f.raw), static_cast<int64_t>(f.changed),
                  static_cast<int64_t>(w_) * h_);
    for (int ch = 0; ch < 3; ++ch)
      result->gain[ch] = f.gains.g[ch];
    result->shadow_pixels = static_cast<int64_t>(f.shadow);
    result->moving_background = static_cast<int64_t>(f.wide) > wide_limit();
    note_scene(result->moving_background);
    result->foreground_pixels = static_cast<int64_t>(f.foreground);
    // Blobs in raster order of their first pixel (ccl sorts the device's records).
    if (persist) {
      CVIS_RETURN_IF_ERROR(
          ccl::read_blobs(&ccl_, p_.blobs ? &result->blobs : nullptr, &result->foreground_pixels));
    } else if (p_.blobs) {
      CVIS_RETURN_IF_ERROR(ccl::read_blobs(&ccl_, &result->blobs, nullptr));
    }
    result->foreground_fraction =
        static_cast<double>(result->foreground_pixels) / (static_cast<double>(w_) * h_);
    return Status::Ok();
  }

private:
  // configure() is host work only, plus the update kernel's plan (device attributes, once per
  // configuration): the tables reach the device at the next process(), in order on its stream.
  Status prepare(const Params& p) override {
    kernels::UpdatePlan plan;
    CVIS_RETURN_IF_ERROR(kernels::plan_update(p.num_samples, &plan));
    plan_ = plan;
    return Status::Ok();
  }
  void configured() override { tables_pending_ = true; }

  // The bandwidth LUT and the CPWL table of the last configure(), in order on `stream`: the
  // classification enqueued after them on `stream` reads the new values.
  Status upload_tables(cudaStream_t stream) {
    CVIS_RETURN_IF_ERROR(lut_copied_.create());
    if (lut_pending_) { // the previous upload may still read the staging buffer
      CVIS_RETURN_IF_ERROR(::cvis::cuda::event_wait(lut_copied_.get()));
      lut_pending_ = false;
    }
    CVIS_RETURN_IF_ERROR(lut_staging_.reserve(lut_.size()));
    CVIS_RETURN_IF_ERROR(dlut_.reserve(lut_.size(), stream));
    std::copy(lut_.begin(), lut_.end(), lut_staging_.get());
    CVIS_CUDA_CHECK(cudaMemcpyAsync(dlut_.get(), lut_staging_.get(), lut_.size() * sizeof(float),
                                    cudaMemcpyHostToDevice, stream));
    CVIS_CUDA_CHECK(cudaEventRecord(lut_copied_.get(), stream));
    lut_pending_ = true;
    if (table_.n > 0) {
      CVIS_RETURN_IF_ERROR(dtable_.upload(table_, stream));
    } else {
      dtable_.release(stream);
    }
    tables_pending_ = false;
    return Status::Ok();
  }

  Status allocate(int w, int h, cudaStream_t stream) {
    w_ = h_ = 0;
    kernels::DeviceModel m;
    m.width = w;
    m.height = h;
    m.stride = (static_cast<size_t>(w) + 31) / 32 * 32; // 128-byte rows for the 32-bit arrays
    m.num_samples = p_.num_samples;
    const size_t plane = m.stride * h;
    CVIS_RETURN_IF_ERROR(feat_.reserve(plane, stream));
    CVIS_RETURN_IF_ERROR(cur_.reserve(plane, stream));
    CVIS_RETURN_IF_ERROR(prev_.reserve(plane, stream));
    CVIS_RETURN_IF_ERROR(gain_hist_.reserve(3 * seg::kGainBins, stream));
    CVIS_RETURN_IF_ERROR(dfig_.reserve(1, stream));
    CVIS_RETURN_IF_ERROR(fig_.reserve(1));
    CVIS_RETURN_IF_ERROR(samples_.reserve(plane * p_.num_samples, stream));
    CVIS_RETURN_IF_ERROR(medians_.reserve(plane, stream));
    CVIS_RETURN_IF_ERROR(head_.reserve(plane, stream));
    CVIS_RETURN_IF_ERROR(raw_.reserve(plane, stream));
    CVIS_RETURN_IF_ERROR(mask_.reserve(plane, stream));
    CVIS_RETURN_IF_ERROR(mask_prev_.reserve(plane, stream));
    CVIS_RETURN_IF_ERROR(mask_prev2_.reserve(plane, stream));
    CVIS_RETURN_IF_ERROR(light_.reserve(2 * plane, stream));
    CVIS_RETURN_IF_ERROR(tmp_.reserve(plane, stream));
    CVIS_RETURN_IF_ERROR(still_.reserve(plane, stream));
    CVIS_RETURN_IF_ERROR(density_.reserve(plane, stream));
    CVIS_RETURN_IF_ERROR(ccl_.reserve(w, h, stream));
    m.feat = feat_.get();
    m.cur = cur_.get();
    m.prev = prev_.get();
    m.gain_hist = gain_hist_.get();
    m.fig = dfig_.get();
    m.samples = samples_.get();
    m.medians = medians_.get();
    m.head = head_.get();
    m.raw = raw_.get();
    m.mask = mask_.get();
    m.mask_prev = mask_prev_.get();
    m.mask_prev2 = mask_prev2_.get();
    m.light = light_.get();
    m.tmp = tmp_.get();
    m.still = still_.get();
    model_ = m;
    w_ = w;
    h_ = h;
    schedule_.reset();
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

  kernels::UpdatePlan plan_;
  bool tables_pending_ = false; // table_ and lut_ not yet uploaded
  cpwl::DeviceTable dtable_;
  cuda::DeviceArray<float> dlut_, density_;
  cuda::PinnedArray<float> lut_staging_;
  cuda::Event lut_copied_;
  bool lut_pending_ = false;
  cuda::DeviceArray<uint32_t> feat_, cur_, prev_, samples_, medians_, gain_hist_;
  cuda::DeviceArray<kernels::SceneFigures> dfig_;
  cuda::PinnedArray<kernels::SceneFigures> fig_; // read after the frame's synchronisation
  cuda::DeviceArray<uint8_t> head_, raw_, mask_, mask_prev_, mask_prev2_, light_, tmp_, still_;
  ccl::DeviceScratch ccl_; // connected components of the final mask
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

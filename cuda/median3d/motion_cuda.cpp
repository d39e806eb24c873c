// CUDA backend of the motion detector (motion.hpp): device memory, view checks and the launch
// sequence of one frame; the passes are motion_kernels.cu. The frame's figures (counts, gain) come
// back in one copy at the end of the frame, after which the stream is synchronised: the
// shot-change rule (host state) reads them, as the CPU reference does after its passes.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>

#include "ccl/ccl.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/cuda/upload.hpp"
#include "common/segmentation.hpp"
#include "median3d_internal.hpp"
#include "motion_kernels.hpp"
#include "motion_math.hpp"

namespace cvis::median3d {

namespace {

using cuda::DeviceArray;
using cuda::PinnedArray;
using cuda::PitchedBuffer;

class CudaMotionDetector final : public MotionDetectorBase {
public:
  Backend backend() const override { return Backend::kCuda; }

  Status process(const ImageView& frame, const ImageView* mask, const ImageView* background,
                 MotionResult* result, StreamHandle stream) override {
    CVIS_RETURN_IF_ERROR(validate_view(frame, "frame"));
    if (mask)
      CVIS_RETURN_IF_ERROR(check_output(*mask, frame.width, frame.height, true, "mask"));
    if (background)
      CVIS_RETURN_IF_ERROR(
          check_output(*background, frame.width, frame.height, false, "background"));
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (frame.width != m_.w || frame.height != m_.h)
      CVIS_RETURN_IF_ERROR(allocate(frame.width, frame.height, s));
    ImageView dev = frame;
    if (frame.space == MemorySpace::kHost)
      CVIS_RETURN_IF_ERROR(uploader_.upload(frame, s, &dev));
    *result = MotionResult();
    result->frame = ++frame_;
    result->pixels = static_cast<int64_t>(m_.px);
    kernels::MotionConsts k = consts(frame);
    m_.src = make_pixel_source(dev); // valid until the synchronisation at the end of the frame

    if (restart_pending_ || frame_ <= p_.history) {
      if (restart_pending_) { // a shot change confirmed at the previous frame
        restart_pending_ = false;
        CVIS_RETURN_IF_ERROR(kernels::launch_motion_restart(m_, k, s));
        fill_ = p_.history - 1;
        rule_.reset();
        result->shot_change = true;
      } else { // initial fill: sample k = frame k, blindly
        CVIS_RETURN_IF_ERROR(kernels::launch_motion_fill(m_, k, static_cast<int>(frame_ - 1),
                                                         frame_ == p_.history, s));
        result->warming_up = true;
      }
      // The model (or, filling, the frame) is the background; the mask is empty.
      CVIS_CUDA_CHECK(cudaMemsetAsync(mask_prev_.get(), 0, 2 * m_.px, s));
      CVIS_RETURN_IF_ERROR(write_outputs(k, mask, background, true, s));
      CVIS_CUDA_CHECK(cudaStreamSynchronize(s));
      return Status::Ok();
    }

    CVIS_RETURN_IF_ERROR(kernels::launch_motion_gain(m_, k, p_.illumination, s));
    CVIS_RETURN_IF_ERROR(kernels::launch_motion_classify(m_, k, s));
    const bool filter = p_.min_mask_area > 1, persist = p_.persistence > 0.0f;
    const int min_area = std::max(p_.min_blob_area, filter ? p_.min_mask_area : 1);
    kernels::MaskFinish finish;
    if (filter || p_.blobs || persist) {
      // One labelling of the cleaned mask: the area filter's components, and the blobs of the
      // filtered mask (its components of at least min_mask_area pixels, unchanged by the filter).
      // The update pass applies the filter (ccl::launch_area_filter's rule, no pass of its own).
      CVIS_RETURN_IF_ERROR(ccl::launch_blobs(m_.mask, m_.w, m_.w, m_.h, min_area, &ccl_, s));
      finish.filter = filter;
      finish.areas = ccl::component_areas(ccl_);
      finish.min_area = p_.min_mask_area;
      if (p_.blobs && !persist)
        CVIS_RETURN_IF_ERROR(ccl::enqueue_readback(true, &ccl_, s));
    }
    // A device mask output is written by the update pass (the final mask is known there), or with
    // persistence by the persistence filter.
    const bool dev_mask = mask && mask->space != MemorySpace::kHost;
    if (dev_mask && !persist) {
      finish.out = mask->data[0];
      finish.out_pitch = mask->pitch[0];
    }
    k.blind = fill_ > 0;
    if (clear_ages_) {
      CVIS_CUDA_CHECK(cudaMemsetAsync(m_.age, 0, m_.px * sizeof(uint16_t), s));
      clear_ages_ = false;
    }
    CVIS_RETURN_IF_ERROR(kernels::launch_motion_update(m_, k, finish, s));
    if (fill_ > 0)
      --fill_;
    if (persist) {
      // The output is the persistent components of m_.mask (the model keeps m_.mask); blobs and
      // foreground count are the output's.
      uint8_t* out = dev_mask ? mask->data[0] : out_.get();
      const size_t out_pitch = dev_mask ? mask->pitch[0] : static_cast<size_t>(m_.w);
      // Glints: this frame's compensated luma (m_.prev, written by the classification) against
      // the background luma (m_.bg's first plane), as the CPU reference's cur_ and bg_.
      const seg::AddedLight light{m_.prev, m_.bg, static_cast<size_t>(m_.w),
                                  seg::kAddedLightLevels, seg::trim_radius_for(m_.w, m_.h)};
      CVIS_RETURN_IF_ERROR(ccl::launch_persistence(m_.mask, m_.w, &refs_, m_.w, m_.h,
                                                   p_.persistence, min_area, out, out_pitch,
                                                   &ccl_, s, &light));
      CVIS_RETURN_IF_ERROR(ccl::enqueue_readback(p_.blobs, &ccl_, s));
      if (mask && !dev_mask) {
        CVIS_CUDA_CHECK(cudaMemcpy2DAsync(mask->data[0], mask->pitch[0], out_.get(), m_.w, m_.w,
                                          m_.h, cudaMemcpyDeviceToHost, s));
      }
    }
    CVIS_RETURN_IF_ERROR(
        write_outputs(k, dev_mask || persist ? nullptr : mask, background, false, s));
    CVIS_CUDA_CHECK(cudaMemcpyAsync(fig_.get(), m_.fig, sizeof(kernels::MotionFigures),
                                    cudaMemcpyDeviceToHost, s));
    CVIS_CUDA_CHECK(cudaStreamSynchronize(s));

    const kernels::MotionFigures& f = *fig_.get();
    result->gain = f.g16 == 65536u ? 1.0f : f.gain;
    result->chroma_offset[0] = f.offset[0];
    result->chroma_offset[1] = f.offset[1];
    result->shadow = static_cast<int64_t>(f.shadow);
    result->shifted = static_cast<int64_t>(f.shifted);
    result->foreground = static_cast<int64_t>(f.foreground);
    if (persist)
      CVIS_RETURN_IF_ERROR(
          ccl::read_blobs(&ccl_, p_.blobs ? &result->blobs : nullptr, &result->foreground));
    // A confirmed shot change restarts the model at the next frame (as the CPU reference).
    note_scene(static_cast<int64_t>(f.wide), static_cast<int64_t>(f.changed), static_cast<int64_t>(m_.px));
    const double n = static_cast<double>(m_.px);
    if (p_.shot_change &&
        rule_.update(static_cast<double>(f.raw + f.shifted) / n, static_cast<double>(f.diff) / n)) {
      restart_pending_ = true;
    }
    if (p_.blobs) {
      if (!persist)
        CVIS_RETURN_IF_ERROR(ccl::read_blobs(&ccl_, &result->blobs, nullptr));
      ccl::keep_largest(&result->blobs, p_.max_blobs);
    }
    return Status::Ok();
  }

private:
  kernels::MotionConsts consts(const ImageView& frame) const {
    kernels::MotionConsts k{};
    k.black = is_yuv(frame.format) && !frame.yuv.full_range ? 16 : 0;
    k.factor16 = static_cast<int>(std::lround(p_.noise_factor * 16.0f));
    k.tau_min = p_.tau_min;
    k.tau_min_chroma = p_.tau_min_chroma;
    k.tau_max = p_.tau_max;
    for (int c = 0; c < 2; ++c) {
      kernels::TauRange& r = k.tau_range[c];
      r.factor16 = k.factor16;
      r.tau_min = c == 0 ? p_.tau_min : p_.tau_min_chroma;
      r.tau_max = p_.tau_max;
      tau_clamp_range(r.factor16, r.tau_min, r.tau_max, &r.low, &r.high);
    }
    k.radius = p_.radius;
    k.shadows = p_.color && p_.shadows;
    k.lo16 = static_cast<int>(std::lround(p_.shadow_low * 16.0f));
    k.hi16 = static_cast<int>(std::lround(p_.shadow_high * 16.0f));
    k.shadow_chroma = p_.shadow_chroma;
    k.adopt_frames = adopt_frames_now();
    k.wide_tau = wide_tau();
    k.adopt_tight = p_.adopt_tight;
    k.shift_test = p_.shift_test;
    k.absorb_frames = p_.absorb_frames;
    k.cleanup = p_.cleanup;
    k.sample_period = p_.sample_period;
    k.frame = frame_;
    k.blind = false;
    k.live_background = p_.live_background;
    return k;
  }

  Status allocate(int w, int h, cudaStream_t s) {
    m_.w = m_.h = 0;
    const size_t px = static_cast<size_t>(w) * h;
    const int nc = p_.color ? 3 : 1;
    const int stride = kernels::sample_stride(p_.history);
    // The layout groups the pixels of the current sample period's turns (a later period is as
    // exact, with scattered blocks).
    const int group = p_.sample_period;
    const size_t sample_bytes = kernels::sample_bytes(w, h, nc, stride, group);
    CVIS_RETURN_IF_ERROR(samples_.reserve(sample_bytes, s));
    CVIS_RETURN_IF_ERROR(planes_.reserve(2 * nc * px + 3 * 256, s)); // bg, tau; table
    CVIS_RETURN_IF_ERROR(pixels_.reserve(8 * px, s));                // head .. shadow, adopt
    CVIS_RETURN_IF_ERROR(age_.reserve(px, s));
    CVIS_RETURN_IF_ERROR(hist_.reserve(seg::kGainBins + 2 * seg::kOffsetBins, s));
    CVIS_RETURN_IF_ERROR(dfig_.reserve(1, s));
    CVIS_RETURN_IF_ERROR(fig_.reserve(1));
    CVIS_RETURN_IF_ERROR(ccl_.reserve(w, h, s));
    CVIS_RETURN_IF_ERROR(mask_prev_.reserve(2 * px, s));
    CVIS_RETURN_IF_ERROR(out_.reserve(px, s));
    CVIS_CUDA_CHECK(cudaMemsetAsync(mask_prev_.get(), 0, 2 * px, s));
    refs_ = ccl::MaskReferences{mask_prev_.get(), mask_prev_.get() + px, static_cast<size_t>(w)};
    m_.nc = nc;
    m_.history = p_.history;
    m_.stride = stride;
    m_.group = group;
    m_.group_w = (w + group - 1) / group;
    m_.sample_plane = sample_bytes / nc;
    m_.px = px;
    m_.samples = samples_.get();
    uint8_t* pl = planes_.get();
    m_.bg = pl;
    m_.tau = pl + nc * px;
    m_.lut = pl + 2 * nc * px;
    uint8_t* pp = pixels_.get();
    uint8_t** per_pixel[] = {&m_.head, &m_.cnt, &m_.prev, &m_.raw, &m_.mask, &m_.hold, &m_.shadow};
    for (size_t j = 0; j < 7; ++j)
      *per_pixel[j] = pp + j * px;
    m_.adopt = reinterpret_cast<int8_t*>(pp + 7 * px);
    m_.age = age_.get();
    m_.gain_hist = hist_.get();
    m_.off_hist = hist_.get() + seg::kGainBins;
    m_.fig = dfig_.get();
    // Every per-pixel state starts at 0 (as the CPU's allocate()). The samples are written by the
    // initial fill before they are used, but the refresh loads whole padded blocks: the padding
    // (never counted) is cleared once so that no load reads memory nothing wrote.
    CVIS_CUDA_CHECK(cudaMemsetAsync(m_.samples, 0, sample_bytes, s));
    CVIS_CUDA_CHECK(cudaMemsetAsync(pp, 0, 7 * px, s));
    CVIS_CUDA_CHECK(cudaMemsetAsync(m_.adopt, 0xff, px, s));
    CVIS_CUDA_CHECK(cudaMemsetAsync(m_.age, 0, px * sizeof(uint16_t), s));
    CVIS_CUDA_CHECK(cudaMemsetAsync(pl, 0, 2 * nc * px + 3 * 256, s));
    CVIS_CUDA_CHECK(cudaMemsetAsync(m_.gain_hist, 0,
                                    (seg::kGainBins + 2 * seg::kOffsetBins) * sizeof(uint32_t), s));
    m_.w = w;
    m_.h = h;
    restart_counters();
    return Status::Ok();
  }

  // The mask and background outputs: device views are written by the output kernel, host views
  // through device scratch and a copy.
  Status write_outputs(const kernels::MotionConsts& k, const ImageView* mask,
                       const ImageView* background, bool raw, cudaStream_t s) {
    const bool dev_mask = mask && mask->space != MemorySpace::kHost;
    ImageView bg_dev;
    const bool has_bg = background != nullptr;
    if (has_bg) {
      bg_dev = *background;
      if (background->space == MemorySpace::kHost)
        CVIS_RETURN_IF_ERROR(scratch_view(*background, &bg_dev, s));
    }
    const PixelDest d = has_bg ? make_pixel_dest(bg_dev) : PixelDest{};
    CVIS_RETURN_IF_ERROR(kernels::launch_motion_output(m_, k, dev_mask ? mask->data[0] : nullptr,
                                                       dev_mask ? mask->pitch[0] : 0, has_bg, d,
                                                       raw, s));
    if (mask && !dev_mask) {
      CVIS_CUDA_CHECK(cudaMemcpy2DAsync(mask->data[0], mask->pitch[0], m_.mask, m_.w, m_.w, m_.h,
                                        cudaMemcpyDeviceToHost, s));
    }
    if (has_bg && background->space == MemorySpace::kHost) {
      for (int p = 0; p < plane_count(background->format); ++p) {
        CVIS_CUDA_CHECK(
            cudaMemcpy2DAsync(background->data[p], background->pitch[p], bg_dev.data[p],
                              bg_dev.pitch[p], plane_row_bytes(background->format, p, m_.w),
                              plane_rows(background->format, p, m_.h), cudaMemcpyDeviceToHost, s));
      }
    }
    return Status::Ok();
  }

  // A device image shaped like the host view `v` (its planes in bg_).
  Status scratch_view(const ImageView& v, ImageView* out, cudaStream_t s) {
    *out = v;
    out->space = MemorySpace::kDevice;
    for (int p = 0; p < plane_count(v.format); ++p) {
      const size_t rows = static_cast<size_t>(plane_rows(v.format, p, v.height));
      CVIS_RETURN_IF_ERROR(bg_[p].reserve(plane_row_bytes(v.format, p, v.width), rows, s));
      out->data[p] = bg_[p].get();
      out->pitch[p] = bg_[p].pitch();
    }
    return Status::Ok();
  }

  void drop_state() override { m_.w = m_.h = 0; }

  kernels::MotionState m_;
  DeviceArray<uint8_t> samples_, planes_, pixels_;
  // Params::persistence: the previous mask and the one before it (px each), a host output.
  DeviceArray<uint8_t> mask_prev_, out_;
  ccl::MaskReferences refs_; // mask_prev_'s two halves, taking turns
  DeviceArray<uint16_t> age_;
  DeviceArray<uint32_t> hist_;
  DeviceArray<kernels::MotionFigures> dfig_;
  PinnedArray<kernels::MotionFigures> fig_;
  PitchedBuffer bg_[3];
  ccl::DeviceScratch ccl_;
  cuda::HostUploader uploader_;
};

} // namespace

std::unique_ptr<MotionDetector> make_cuda_motion_detector() {
  return std::make_unique<CudaMotionDetector>();
}

} // namespace cvis::median3d

// The front end's CUDA backend: the CPU backend's ring logic (actionmatch_frontend_cpu.cpp) with
// device rings allocated by configure(). A push enqueues the frame's steps on the caller's stream;
// when a frame with points becomes final, its NMS, ranking and descriptors follow and one copy
// brings them back to pinned memory, the only host wait of the push.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "stip_internal.hpp"
#include "stip_kernels.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/cuda/upload.hpp"

namespace cvis::stip::detail {

namespace {

using kernels::Pass;
using kernels::Taps;

Taps make_taps(const std::vector<float>& t) {
  Taps k;
  k.n = static_cast<int>(t.size());
  std::copy(t.begin(), t.end(), k.t);
  return k;
}

class CudaFrontEnd final : public FrontEnd {
public:
  Backend backend() const override { return Backend::kCuda; }

  Status configure(int width, int height, const FrontEndParams& p) override {
    CVIS_RETURN_IF_ERROR(validate(p));
    if (width < 8 || height < 8 || width > 16384 || height > 16384)
      return invalid_argument("front end: frame size " + std::to_string(width) + "x" +
                              std::to_string(height) + " out of range 8..16384");
    configured_ = false;
    w_ = width;
    h_ = height;
    p_ = p;
    g_ = frontend_geometry(p);
    std::vector<float> gauss, even, odd;
    gaussian_taps(p.sigma, &gauss);
    gabor_taps(p, &even, &odd);
    if (static_cast<int>(gauss.size()) > kernels::kMaxTaps ||
        static_cast<int>(even.size()) > kernels::kMaxGabor || g_.dim > kernels::kMaxDescDim)
      return internal_error("front end cuda: filter longer than the kernels' tables");
    gauss_ = make_taps(gauss);
    binomial_ = make_taps({0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f});
    box_ = make_taps(std::vector<float>(2 * p.flow_radius + 1, 1.0f));
    gabor_ = kernels::Gabor();
    gabor_.n = static_cast<int>(even.size());
    std::copy(even.begin(), even.end(), gabor_.even);
    std::copy(odd.begin(), odd.end(), gabor_.odd);
    if (g_.harris) {
      // The temporal Gaussian and its derivative take the Gabor pair's slots.
      std::vector<float> space, time;
      harris_taps(p, &even, &odd, &space, &time);
      if (static_cast<int>(space.size()) > kernels::kMaxTaps ||
          static_cast<int>(time.size()) > kernels::kMaxGabor ||
          static_cast<int>(even.size()) > kernels::kMaxGabor)
        return internal_error("front end cuda: Harris filter longer than the kernels' tables");
      std::copy(even.begin(), even.end(), gabor_.even);
      std::copy(odd.begin(), odd.end(), gabor_.odd);
      space_ = make_taps(space);
      harris_ = kernels::HarrisSum();
      harris_.n = static_cast<int>(time.size());
      std::copy(time.begin(), time.end(), harris_.taps);
      harris_.k = static_cast<float>(p.harris_k);
    }

    pyramid_sizes(w_, h_, p.flow_levels, lw_, lh_);
    size_t total = 0;
    for (int l = 0; l < p.flow_levels; ++l) {
      lo_[l] = total;
      total += static_cast<size_t>(lw_[l]) * lh_[l];
    }
    const size_t N = static_cast<size_t>(w_) * h_;
    // Local maxima are more than nms_radius apart in x or y, so this many fit in any frame.
    cand_capacity_ = ((w_ + p.nms_radius) / (p.nms_radius + 1)) *
                     ((h_ + p.nms_radius) / (p.nms_radius + 1));
    CVIS_RETURN_IF_ERROR(scratch_.reserve((g_.harris ? 9 : 8) * N));
    if (g_.harris)
      CVIS_RETURN_IF_ERROR(products_.reserve(6 * static_cast<size_t>(g_.harris_ring) * N));
    CVIS_RETURN_IF_ERROR(smooth_.reserve(g_.smooth_ring * N));
    CVIS_RETURN_IF_ERROR(response_.reserve(g_.response_ring * N));
    CVIS_RETURN_IF_ERROR(pyr_.reserve(2 * total));
    CVIS_RETURN_IF_ERROR(flow_.reserve(2 * total));
    CVIS_RETURN_IF_ERROR(bins_.reserve(2 * g_.vote_ring * N));
    CVIS_RETURN_IF_ERROR(weights_.reserve(2 * g_.vote_ring * N));
    CVIS_RETURN_IF_ERROR(cand_.reserve(cand_capacity_));
    CVIS_RETURN_IF_ERROR(counters_.reserve(1));
    CVIS_RETURN_IF_ERROR(result_.reserve(1));
    CVIS_RETURN_IF_ERROR(host_result_.reserve(1));
    CVIS_RETURN_IF_ERROR(uploader_.reserve(PixelFormat::kGRAY8, w_, h_));
    CVIS_RETURN_IF_ERROR(done_.create());
    pyr_total_ = total;
    reset();
    configured_ = true;
    return Status::Ok();
  }

  int lag() const override { return g_.lag; }

  Status push(const ImageView& frame, StreamHandle stream,
              std::vector<FramePoints>* ready) override {
    if (!configured_)
      return invalid_argument("front end: push before configure");
    CVIS_RETURN_IF_ERROR(validate_frame(frame, w_, h_, true));
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    const uint8_t* luma = frame.data[0];
    size_t pitch = frame.pitch[0];
    if (frame.space == MemorySpace::kHost) {
      ImageView plane = frame; // the luma plane alone: chroma is never read
      plane.format = PixelFormat::kGRAY8;
      ImageView dev;
      CVIS_RETURN_IF_ERROR(uploader_.upload(plane, st, &dev));
      luma = dev.data[0];
      pitch = dev.pitch[0];
    }
    const int64_t n = next_++;
    CVIS_RETURN_IF_ERROR(enter_frame(n, luma, pitch, st));
    const int64_t f = n - g_.lag;
    if (f >= 0) {
      ready->emplace_back();
      CVIS_RETURN_IF_ERROR(final_frame(f, n, st, &ready->back()));
    }
    return Status::Ok();
  }

  Status finish(StreamHandle stream, std::vector<FramePoints>* ready) override {
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    const int64_t last = next_ - 1;
    for (int64_t f = std::max<int64_t>(0, next_ - g_.lag); f <= last; ++f) {
      ready->emplace_back();
      CVIS_RETURN_IF_ERROR(final_frame(f, last, st, &ready->back()));
    }
    reset();
    return Status::Ok();
  }

  void reset() override { next_ = 0; }

private:
  size_t npix() const { return static_cast<size_t>(w_) * h_; }
  float* smooth(int64_t frame) const { return smooth_.get() + (frame % g_.smooth_ring) * npix(); }
  float* response(int64_t frame) const {
    return response_.get() + (frame % g_.response_ring) * npix();
  }
  float* pyramid(int64_t frame, int level) const {
    return pyr_.get() + (frame % 2) * pyr_total_ + lo_[level];
  }
  float* scratch(int k) const { return scratch_.get() + k * npix(); }

  // Everything of frame n that does not wait for later frames: S_n, its pyramid, the flow from
  // frame n - 1, the votes, and R_{n-r} once 2 r + 1 frames are in.
  Status enter_frame(int64_t n, const uint8_t* luma, size_t pitch, cudaStream_t st) {
    kernels::Counters* c = counters_.get();
    if (p_.normalise_gain) {
      CVIS_CUDA_CHECK(cudaMemsetAsync(&c->byte_sum, 0, sizeof(c->byte_sum), st));
      CVIS_RETURN_IF_ERROR(kernels::launch_luma_sum(luma, pitch, w_, h_, c, st));
    }
    CVIS_RETURN_IF_ERROR(kernels::launch_load_rows(luma, pitch, w_, h_, p_.normalise_gain, c,
                                                   gauss_, binomial_, scratch(6), scratch(7), st));
    const Pass first{{scratch(6), scratch(7)}, {smooth(n), pyramid(n, 0)}, 2, w_, h_, w_, h_, 1};
    CVIS_RETURN_IF_ERROR(kernels::launch_cols(first, gauss_, binomial_, st));
    for (int l = 1; l < p_.flow_levels; ++l) {
      // Blur of level l - 1 sampled at even coordinates = the passes evaluated there only.
      Pass rows{{pyramid(n, l - 1)}, {scratch(0)}, 1, lw_[l - 1], lh_[l - 1], lw_[l], lh_[l - 1], 2};
      Pass cols{{scratch(0)}, {pyramid(n, l)}, 1, lw_[l], lh_[l - 1], lw_[l], lh_[l], 2};
      CVIS_RETURN_IF_ERROR(kernels::launch_rows(rows, binomial_, binomial_, st));
      CVIS_RETURN_IF_ERROR(kernels::launch_cols(cols, binomial_, binomial_, st));
    }
    const float* u = nullptr;
    const float* v = nullptr;
    if (n > 0) {
      CVIS_RETURN_IF_ERROR(flow(n, st));
      u = flow_.get();
      v = flow_.get() + pyr_total_;
    }
    const size_t slot = (n % g_.vote_ring) * npix();
    const size_t ring = g_.vote_ring * npix();
    CVIS_RETURN_IF_ERROR(kernels::launch_votes(smooth(n), u, v, w_, h_,
                                               static_cast<float>(p_.flow_min), g_.speed_split,
                                               bins_.get() + slot,
                                               weights_.get() + slot, bins_.get() + ring + slot,
                                               weights_.get() + ring + slot, st));
    if (g_.harris)
      return harris(n, st);
    if (n >= 2 * g_.radius) {
      kernels::Gabor g = gabor_;
      for (int k = 0; k < g.n; ++k)
        g.frames[k] = smooth(n - 2 * g_.radius + k);
      CVIS_RETURN_IF_ERROR(kernels::launch_response(g, w_, h_, response(n - g_.radius), st));
    }
    return Status::Ok();
  }

  // The Harris steps of CpuFrontEnd::push: the integrated products of frame m = n - rl into the
  // product ring, then R of frame m - R once the integration window is in.
  Status harris(int64_t n, cudaStream_t st) {
    const int rl = p_.temporal_radius();
    if (n < 2 * rl)
      return Status::Ok();
    const int64_t m = n - rl;
    kernels::Gabor g = gabor_;
    for (int k = 0; k < g.n; ++k)
      g.frames[k] = smooth(n - 2 * rl + k);
    CVIS_RETURN_IF_ERROR(kernels::launch_harris_temporal(g, w_, h_, scratch(0), scratch(1), st));
    float* const prod[6] = {scratch(2), scratch(3), scratch(4), scratch(5), scratch(6), scratch(7)};
    CVIS_RETURN_IF_ERROR(kernels::launch_harris_products(
        scratch(0), scratch(1), w_, h_, static_cast<float>(p_.sigma), static_cast<float>(p_.tau),
        prod, st));
    float* slot = products_.get() + static_cast<size_t>(m % g_.harris_ring) * 6 * npix();
    for (int half = 0; half < 2; ++half) { // the passes take 3 images at a time
      const Pass rows{{prod[3 * half], prod[3 * half + 1], prod[3 * half + 2]},
                      {scratch(0), scratch(1), scratch(8)}, 3, w_, h_, w_, h_, 1};
      const Pass cols{{scratch(0), scratch(1), scratch(8)},
                      {slot + (3 * half) * npix(), slot + (3 * half + 1) * npix(),
                       slot + (3 * half + 2) * npix()},
                      3, w_, h_, w_, h_, 1};
      CVIS_RETURN_IF_ERROR(kernels::launch_rows(rows, space_, space_, st));
      CVIS_RETURN_IF_ERROR(kernels::launch_cols(cols, space_, space_, st));
    }
    if (n < 2 * g_.radius)
      return Status::Ok();
    kernels::HarrisSum a = harris_;
    const int R = harris_.n / 2;
    for (int j = 0; j < a.n; ++j)
      a.slot[j] = static_cast<int>((m - 2 * R + j) % g_.harris_ring);
    a.ring = products_.get();
    return kernels::launch_harris_response(a, w_, h_, response(n - g_.radius), st);
  }

  // Pyramidal Lucas-Kanade from frame n - 1 to n (ref::lk_flow); the result is level 0 of flow_.
  Status flow(int64_t n, cudaStream_t st) {
    float* U = flow_.get();
    float* V = flow_.get() + pyr_total_;
    for (int l = p_.flow_levels - 1; l >= 0; --l) {
      const float* P = pyramid(n - 1, l);
      const float* C = pyramid(n, l);
      const int w = lw_[l], h = lh_[l];
      const bool coarsest = l == p_.flow_levels - 1;
      const int rad = p_.flow_radius;
      float* u = U + lo_[l];
      float* v = V + lo_[l];
      CVIS_RETURN_IF_ERROR(kernels::launch_lk_tensor_rows(
          P, w, h, rad, coarsest ? nullptr : U + lo_[l + 1], coarsest ? nullptr : V + lo_[l + 1],
          coarsest ? 0 : lw_[l + 1], u, v, scratch(0), scratch(1), scratch(2), st));
      const Pass cols{{scratch(0), scratch(1), scratch(2)}, {scratch(3), scratch(4), scratch(5)},
                      3, w, h, w, h, 1};
      CVIS_RETURN_IF_ERROR(kernels::launch_cols(cols, box_, box_, st));
      for (int it = 0; it < p_.flow_iterations; ++it) {
        CVIS_RETURN_IF_ERROR(kernels::launch_lk_mismatch_rows(P, C, u, v, w, h, rad, scratch(6),
                                                              scratch(7), st));
        CVIS_RETURN_IF_ERROR(kernels::launch_lk_update(scratch(3), scratch(4), scratch(5),
                                                       scratch(6), scratch(7), w, h, rad, u, v,
                                                       st));
      }
    }
    return Status::Ok();
  }

  // Points and descriptors of frame f once frames up to `last` were entered (CpuFrontEnd's
  // final_frame); waits for the stream when the frame can carry points.
  Status final_frame(int64_t f, int64_t last, cudaStream_t st, FramePoints* fp) {
    fp->frame = f;
    fp->dim = g_.dim;
    const int64_t r = g_.radius;
    if (f < r || f > last - r)
      return Status::Ok();
    kernels::Counters* c = counters_.get();
    kernels::FrameResult* res = result_.get();
    CVIS_CUDA_CHECK(cudaMemsetAsync(&c->candidates, 0, sizeof(c->candidates), st));
    CVIS_RETURN_IF_ERROR(kernels::launch_nms(
        f - 1 >= r ? response(f - 1) : nullptr, response(f), f + 1 <= last - r ? response(f + 1)
                                                                               : nullptr,
        w_, h_, p_.nms_radius, static_cast<float>(p_.threshold), cand_.get(), c, st));
    CVIS_RETURN_IF_ERROR(
        kernels::launch_rank(cand_.get(), c, cand_capacity_, p_.max_points, res, st));
    kernels::DescArgs a;
    const size_t ring = g_.vote_ring * npix();
    a.hog_bin = bins_.get();
    a.hog_w = weights_.get();
    a.hof_bin = bins_.get() + ring;
    a.hof_w = weights_.get() + ring;
    a.w = w_;
    a.h = h_;
    a.ring = g_.vote_ring;
    a.cell = g_.cell;
    a.cell_frames = g_.cell_frames;
    a.max_points = p_.max_points;
    a.hof_bins = g_.hof_bins;
    a.dim = g_.dim;
    a.f = f;
    a.first = std::max<int64_t>(0, last - g_.vote_ring + 1);
    a.last = last;
    CVIS_RETURN_IF_ERROR(kernels::launch_descriptors(a, res, st));
    kernels::FrameResult* h = host_result_.get();
    const size_t head =
        offsetof(kernels::FrameResult, points) + sizeof(kernels::Candidate) * p_.max_points;
    CVIS_CUDA_CHECK(cudaMemcpyAsync(h, res, head, cudaMemcpyDeviceToHost, st));
    const size_t desc_bytes = sizeof(float) * g_.dim * p_.max_points;
    CVIS_CUDA_CHECK(
        cudaMemcpyAsync(h->desc, res->desc, desc_bytes, cudaMemcpyDeviceToHost, st));
    CVIS_CUDA_CHECK(cudaEventRecord(done_.get(), st));
    CVIS_RETURN_IF_ERROR(cuda::event_wait(done_.get()));
    const int kept = std::min(h->candidates, p_.max_points);
    fp->points.resize(kept);
    for (int i = 0; i < kept; ++i) {
      InterestPoint& ip = fp->points[i];
      ip.frame = f;
      ip.x = h->points[i].x;
      ip.y = h->points[i].y;
      ip.response = h->points[i].r;
    }
    fp->desc.assign(h->desc, h->desc + static_cast<size_t>(kept) * g_.dim);
    return Status::Ok();
  }

  int w_ = 0, h_ = 0;
  bool configured_ = false;
  FrontEndParams p_;
  FrontEndGeometry g_;
  Taps gauss_, binomial_, box_, space_;
  kernels::Gabor gabor_;
  kernels::HarrisSum harris_;
  int lw_[5] = {}, lh_[5] = {};
  size_t lo_[5] = {};
  size_t pyr_total_ = 0;
  int cand_capacity_ = 0;
  cuda::DeviceArray<float> scratch_, smooth_, response_, pyr_, flow_, weights_;
  cuda::DeviceArray<float> products_; // Harris: 6 integrated products x harris_ring frames
  cuda::DeviceArray<uint8_t> bins_;
  cuda::DeviceArray<kernels::Candidate> cand_;
  cuda::DeviceArray<kernels::Counters> counters_;
  cuda::DeviceArray<kernels::FrameResult> result_;
  cuda::PinnedArray<kernels::FrameResult> host_result_;
  cuda::HostUploader uploader_;
  cuda::Event done_;
  int64_t next_ = 0;
};

} // namespace

std::unique_ptr<FrontEnd> make_cuda_frontend() { return std::make_unique<CudaFrontEnd>(); }

} // namespace cvis::stip::detail

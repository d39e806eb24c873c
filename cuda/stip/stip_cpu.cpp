// The front end's CPU reference: clear loops over a ring of frames (README.md, "The method", maps
// each step to the papers). Every float sum runs in a fixed order that the CUDA kernels repeat, so both
// backends give the same bits.
#include <algorithm>
#include <cstring>
#include <vector>

#include "stip_internal.hpp"
#include "stip_ops.hpp"
#include "stip_ref.hpp"

namespace cvis::stip {
namespace detail {

namespace {

class CpuFrontEnd final : public FrontEnd {
public:
  Backend backend() const override { return Backend::kCpu; }

  Status configure(int width, int height, const FrontEndParams& p) override {
    CVIS_RETURN_IF_ERROR(validate(p));
    if (width < 8 || height < 8 || width > 16384 || height > 16384)
      return invalid_argument("front end: frame size " + std::to_string(width) + "x" +
                              std::to_string(height) + " out of range 8..16384");
    w_ = width;
    h_ = height;
    p_ = p;
    g_ = frontend_geometry(p);
    gaussian_taps(p.sigma, &gauss_);
    gabor_taps(p, &even_, &odd_);
    harris_taps(p, &h_smooth_, &h_deriv_, &h_space_, &h_time_);
    smooth_.assign(g_.smooth_ring, ref::Image());
    products_.assign(g_.harris_ring, ref::Products());
    response_.assign(g_.response_ring, ref::Image());
    votes_.assign(g_.vote_ring, ref::Votes());
    reset();
    configured_ = true;
    return Status::Ok();
  }

  int lag() const override { return g_.lag; }

  Status push(const ImageView& frame, StreamHandle, std::vector<FramePoints>* ready) override {
    if (!configured_)
      return invalid_argument("front end: push before configure");
    CVIS_RETURN_IF_ERROR(validate_frame(frame, w_, h_, false));
    const int64_t n = next_++;
    ref::Image in;
    ref::load_luma(frame, p_.normalise_gain, &in);
    ref::Image& s = smooth_[n % g_.smooth_ring];
    ref::gaussian(in, gauss_, &s);
    std::vector<ref::Image> pyr;
    ref::pyramid(in, p_.flow_levels, &pyr);
    ref::Image u, v;
    if (n == 0) {
      u.resize(w_, h_);
      v.resize(w_, h_);
    } else {
      ref::lk_flow(prev_pyr_, pyr, p_, &u, &v);
    }
    prev_pyr_ = std::move(pyr);
    ref::votes(s, u, v, static_cast<float>(p_.flow_min), g_.speed_split, &votes_[n % g_.vote_ring]);
    if (g_.harris) {
      // Products of frame m = n - rl (its temporal smoothing needs S up to n), then R of frame
      // m - R once the integration window m - 2 R .. m is in.
      const int rl = p_.temporal_radius();
      if (n >= 2 * rl) {
        const int64_t m = n - rl;
        ref::harris_products(smooth_, n, rl, h_smooth_, h_deriv_, h_space_,
                             static_cast<float>(p_.sigma), static_cast<float>(p_.tau),
                             &products_[m % g_.harris_ring]);
        if (n >= 2 * g_.radius)
          ref::harris_response(products_, m, h_time_, static_cast<float>(p_.harris_k),
                               &response_[(n - g_.radius) % g_.response_ring]);
      }
    } else if (n >= 2 * g_.radius) {
      const int64_t f = n - g_.radius;
      ref::temporal_response(smooth_, n, g_.radius, even_, odd_, &response_[f % g_.response_ring]);
    }
    const int64_t f = n - g_.lag;
    if (f >= 0)
      ready->push_back(final_frame(f, n));
    return Status::Ok();
  }

  Status finish(StreamHandle, std::vector<FramePoints>* ready) override {
    const int64_t last = next_ - 1;
    for (int64_t f = std::max<int64_t>(0, next_ - g_.lag); f <= last; ++f)
      ready->push_back(final_frame(f, last));
    reset();
    return Status::Ok();
  }

  void reset() override {
    next_ = 0;
    prev_pyr_.clear();
  }

private:
  // Points and descriptors of frame f once frames up to `last` were pushed.
  FramePoints final_frame(int64_t f, int64_t last) const {
    FramePoints fp;
    fp.frame = f;
    fp.dim = g_.dim;
    const int64_t r = g_.radius;
    if (f < r || f > last - r)
      return fp; // the Gabor support would leave the stream
    const int ring = g_.response_ring;
    const ref::Image* prev = f - 1 >= r ? &response_[(f - 1) % ring] : nullptr;
    const ref::Image* next = f + 1 <= last - r ? &response_[(f + 1) % ring] : nullptr;
    ref::select_points(prev, response_[f % ring], next, p_, &fp.points);
    for (InterestPoint& ip : fp.points)
      ip.frame = f;
    fp.desc.resize(fp.points.size() * static_cast<size_t>(g_.dim));
    const int64_t first = std::max<int64_t>(0, last - g_.vote_ring + 1);
    for (size_t i = 0; i < fp.points.size(); ++i) {
      ref::descriptor(votes_, g_, f, fp.points[i].x, fp.points[i].y, first, last,
                      &fp.desc[i * g_.dim]);
    }
    return fp;
  }

  int w_ = 0, h_ = 0;
  bool configured_ = false;
  FrontEndParams p_;
  FrontEndGeometry g_;
  std::vector<float> gauss_, even_, odd_;
  std::vector<float> h_smooth_, h_deriv_, h_space_, h_time_; // Harris taps
  std::vector<ref::Products> products_;                      // Harris: integrated products ring
  std::vector<ref::Image> smooth_, response_;
  std::vector<ref::Votes> votes_;
  std::vector<ref::Image> prev_pyr_;
  int64_t next_ = 0;
};

} // namespace

std::unique_ptr<FrontEnd> make_cpu_frontend() { return std::make_unique<CpuFrontEnd>(); }

} // namespace detail
} // namespace cvis::stip

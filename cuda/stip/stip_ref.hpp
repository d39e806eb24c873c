// The front end's reference stages (CPU, float, fixed operation order), one function per step.
// The CPU backend chains them over its ring; tests call them one by one against the kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "stip.hpp"
#include "stip_internal.hpp"

namespace cvis::stip::detail::ref {

// A float image, rows packed (pitch = width).
struct Image {
  int w = 0, h = 0;
  std::vector<float> p;
  void resize(int width, int height) {
    w = width;
    h = height;
    p.assign(static_cast<size_t>(w) * h, 0.0f);
  }
  float at(int x, int y) const { return p[static_cast<size_t>(y) * w + x]; }
};

// Per-pixel HoG and HoF votes of one frame (bins and weights, actionmatch_frontend_ops.hpp).
struct Votes {
  int w = 0, h = 0;
  std::vector<uint8_t> hog_bin, hof_bin;
  std::vector<float> hog_w, hof_w;
};

// Luma bytes -> 0..1 (multiplied by 1/255), then by gain_scale(): 0.5 / mean when normalising.
void load_luma(const ImageView& v, bool normalise_gain, Image* out);
// The frame's gain factor from the exact integer sum of its luma bytes.
float gain_scale(uint64_t byte_sum, int64_t pixels);
// Separable convolution with odd-length `taps` (horizontal pass, then vertical; borders clamped).
void gaussian(const Image& in, const std::vector<float>& taps, Image* out);
// Flow pyramid: level 0 = binomial [1 4 6 4 1]/16 blur of the frame, level l+1 = blur of level l
// sampled at even coordinates.
void pyramid(const Image& frame, int levels, std::vector<Image>* pyr);
// Dense pyramidal Lucas-Kanade from `prev` to `cur` (README.md: warped-image variant).
void lk_flow(const std::vector<Image>& prev, const std::vector<Image>& cur,
             const FrontEndParams& p, Image* u, Image* v);
// HoG votes of grad S (central differences) and HoF votes of the flow (fe::hof_vote; split 0:
// the paper's bins).
void votes(const Image& s, const Image& u, const Image& v, float flow_min, float split,
           Votes* out);
// R_f = E^2 + O^2 for f = n - radius from the ring of smoothed frames (slot = frame % ring size).
void temporal_response(const std::vector<Image>& smooth, int64_t n, int radius,
                       const std::vector<float>& even, const std::vector<float>& odd, Image* r);
// Harris (actionmatch_frontend_ref_harris.cpp). The six integrated products of one frame m, in
// the order xx, xy, xt, yy, yt, tt.
struct Products {
  Image c[6];
};
// Frame m = n - temporal_radius() from the ring of smoothed frames (slot = frame % ring size):
// L = sum_k smooth[k] S, Lt = sum_k deriv[k] S over frames m - r .. m + r; Lx, Ly central
// differences of L; the products of (sigma Lx, sigma Ly, tau Lt), each convolved with `space`.
void harris_products(const std::vector<Image>& smooth, int64_t n, int radius,
                     const std::vector<float>& smooth_t, const std::vector<float>& deriv_t,
                     const std::vector<float>& space, float sigma, float tau, Products* out);
// R_f = det mu - k trace^3 mu for f = m - R (R = integration radius), mu = sum_j time[j]
// products(m - 2 R + j) from the product ring (slot = frame % ring size).
void harris_response(const std::vector<Products>& ring, int64_t m, const std::vector<float>& time,
                     float k, Image* r);
// 3-D local maxima of `cur` (with `prev`/`next` when not null) above the threshold, the strongest
// max_points first (fe::point_before order).
void select_points(const Image* prev, const Image& cur, const Image* next,
                   const FrontEndParams& p, std::vector<InterestPoint>* out);
// The g.dim values of the point (f, x, y) from the vote ring (slot = frame % ring size); frames
// outside first..last are skipped.
void descriptor(const std::vector<Votes>& ring, const FrontEndGeometry& g, int64_t f, int x, int y,
                int64_t first, int64_t last, float* out);

} // namespace cvis::stip::detail::ref

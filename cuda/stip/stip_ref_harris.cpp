// Reference stages of the space-time Harris detector (actionmatch_frontend_ref.hpp; README.md
// "Harris"). Sums accumulate from 0.0f in increasing tap order, as the kernels in
// actionmatch_frontend_kernels_harris.cu do.
#include "stip_ops.hpp"
#include "stip_ref.hpp"

namespace cvis::stip::detail::ref {

using fe::clampi;

void harris_products(const std::vector<Image>& smooth, int64_t n, int radius,
                     const std::vector<float>& smooth_t, const std::vector<float>& deriv_t,
                     const std::vector<float>& space, float sigma, float tau, Products* out) {
  const int ring = static_cast<int>(smooth.size());
  const int w = smooth[n % ring].w, h = smooth[n % ring].h;
  Image L, Lt;
  L.resize(w, h);
  Lt.resize(w, h);
  for (size_t i = 0; i < L.p.size(); ++i) {
    float l = 0.0f, lt = 0.0f;
    for (int k = 0; k <= 2 * radius; ++k) {
      const float sv = smooth[(n - 2 * radius + k) % ring].p[i];
      l = l + smooth_t[k] * sv;
      lt = lt + deriv_t[k] * sv;
    }
    L.p[i] = l;
    Lt.p[i] = lt;
  }
  Image prod[6];
  for (Image& im : prod)
    im.resize(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const size_t i = static_cast<size_t>(y) * w + x;
      float v[6];
      fe::harris_products(L.at(clampi(x - 1, 0, w - 1), y), L.at(clampi(x + 1, 0, w - 1), y),
                          L.at(x, clampi(y - 1, 0, h - 1)), L.at(x, clampi(y + 1, 0, h - 1)),
                          Lt.p[i], sigma, tau, v);
      for (int c = 0; c < 6; ++c)
        prod[c].p[i] = v[c];
    }
  for (int c = 0; c < 6; ++c)
    gaussian(prod[c], space, &out->c[c]);
}

void harris_response(const std::vector<Products>& ring, int64_t m, const std::vector<float>& time,
                     float k, Image* r) {
  const int n = static_cast<int>(ring.size()), R = static_cast<int>(time.size() / 2);
  const Image& any = ring[m % n].c[0];
  r->resize(any.w, any.h);
  for (size_t i = 0; i < r->p.size(); ++i) {
    float mu[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (int j = 0; j <= 2 * R; ++j) {
      const Products& pr = ring[(m - 2 * R + j) % n];
      for (int c = 0; c < 6; ++c)
        mu[c] = mu[c] + time[j] * pr.c[c].p[i];
    }
    r->p[i] = fe::harris_response(mu, k);
  }
}

} // namespace cvis::stip::detail::ref

// Per-pixel and per-point operations of the front end shared verbatim by the CPU reference and the
// CUDA kernels (CVIS_HD). With the same operation order, IEEE float operations only (+ - * / sqrt,
// floor, comparisons) and no FMA contraction on either side, both backends compute the same bits
// (README.md, "Exactness: CUDA == CPU").
#pragma once

#include <cmath>
#include <cstdint>

#include "common/hd.hpp"

namespace cvis::stip::fe {

CVIS_HD int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// The frame's gain factor (normalise_gain) from the exact integer sum of its `pixels` luma bytes:
// 0.5 / mean brightness (0..1), the mean taken as at least 1/255 (black frames). Double
// arithmetic, correctly rounded on both sides, then one rounding to float.
CVIS_HD float gain_scale(uint64_t byte_sum, int64_t pixels) {
  const double mean = static_cast<double>(byte_sum) / (255.0 * static_cast<double>(pixels));
  const double floor_mean = 1.0 / 255.0;
  return static_cast<float>(0.5 / (mean < floor_mean ? floor_mean : mean));
}

// Bilinear sample of a w x h float image (row pitch in elements) at (x, y), coordinates clamped
// to the image.
CVIS_HD float bilinear(const float* img, int pitch, int w, int h, float x, float y) {
  x = x < 0.0f ? 0.0f : (x > w - 1.0f ? w - 1.0f : x);
  y = y < 0.0f ? 0.0f : (y > h - 1.0f ? h - 1.0f : y);
  const float fx = floorf(x), fy = floorf(y);
  const int x0 = static_cast<int>(fx), y0 = static_cast<int>(fy);
  const int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
  const float ax = x - fx, ay = y - fy;
  const float a = img[y0 * pitch + x0], b = img[y0 * pitch + x1];
  const float c = img[y1 * pitch + x0], d = img[y1 * pitch + x1];
  const float top = (1.0f - ax) * a + ax * b;
  const float bottom = (1.0f - ax) * c + ax * d;
  return (1.0f - ay) * top + ay * bottom;
}

// HoG vote of a gradient: unsigned orientation (mod pi, so that contrast polarity does not
// matter) in 4 bins of 45 degrees starting at 0, by comparisons only (no arctangent: the bin of a
// gradient is the same on both backends). Weight: the gradient magnitude.
CVIS_HD void hog_vote(float gx, float gy, uint8_t* bin, float* weight) {
  if (gy < 0.0f || (gy == 0.0f && gx < 0.0f)) {
    gx = -gx;
    gy = -gy;
  }
  uint8_t b;
  if (gx > 0.0f && gy < gx)
    b = 0; // [0, 45)
  else if (gx > 0.0f)
    b = 1; // [45, 90)
  else if (gy > -gx)
    b = 2; // [90, 135)
  else
    b = 3; // [135, 180)
  *bin = b;
  *weight = sqrtf(gx * gx + gy * gy);
}

// HoF vote of a flow vector: 4 direction bins of 90 degrees centred on right, down, left, up, by
// comparisons; vectors shorter than `flow_min` vote for bin 4 ("no motion") with weight flow_min.
// With `split` > 0, vectors at least `split` long vote for the direction bins 5..8 instead (the
// speed class is a comparison of the magnitude both backends compute identically).
CVIS_HD void hof_vote(float u, float v, float flow_min, float split, uint8_t* bin,
                      float* weight) {
  const float m = sqrtf(u * u + v * v);
  if (m < flow_min) {
    *bin = 4;
    *weight = flow_min;
    return;
  }
  const float au = u < 0.0f ? -u : u, av = v < 0.0f ? -v : v;
  const uint8_t fast = split > 0.0f && m >= split ? 5 : 0;
  if (au >= av)
    *bin = static_cast<uint8_t>(fast + (u > 0.0f ? 0 : 2));
  else
    *bin = static_cast<uint8_t>(fast + (v > 0.0f ? 1 : 3));
  *weight = m;
}

// Harris: the second-moment products (xx, xy, xt, yy, yt, tt) of the scale-normalised gradient
// (sigma Lx, sigma Ly, tau Lt), Lx and Ly central differences of L from its four neighbours.
CVIS_HD void harris_products(float left, float right, float up, float down, float lt, float sigma,
                             float tau, float* v) {
  const float gx = (right - left) * 0.5f * sigma, gy = (down - up) * 0.5f * sigma;
  const float gt = lt * tau;
  v[0] = gx * gx;
  v[1] = gx * gy;
  v[2] = gx * gt;
  v[3] = gy * gy;
  v[4] = gy * gt;
  v[5] = gt * gt;
}

// Harris: H = det mu - k trace^3 mu of the symmetric mu = [a b c; b d e; c e f] given as
// (a, b, c, d, e, f), by cofactors along the first row.
CVIS_HD float harris_response(const float* mu, float k) {
  const float a = mu[0], b = mu[1], c = mu[2], d = mu[3], e = mu[4], f = mu[5];
  const float det = a * (d * f - e * e) - b * (b * f - e * c) + c * (b * e - d * c);
  const float tr = a + d + f;
  return det - k * (tr * tr * tr);
}

// One Lucas-Kanade update from the window sums of the structure tensor (g11, g12, g22) and of the
// mismatch (b1 = sum Ix It, b2 = sum Iy It); no update where the tensor is near singular
// (textureless or aperture-limited windows), steps limited to 2 pixels per iteration.
CVIS_HD void lk_update(float g11, float g12, float g22, float b1, float b2, float* u, float* v) {
  const float det = g11 * g22 - g12 * g12;
  if (!(det > 1e-7f))
    return;
  float du = -(g22 * b1 - g12 * b2) / det;
  float dv = -(g11 * b2 - g12 * b1) / det;
  du = du < -2.0f ? -2.0f : (du > 2.0f ? 2.0f : du);
  dv = dv < -2.0f ? -2.0f : (dv > 2.0f ? 2.0f : dv);
  *u += du;
  *v += dv;
}

// True when response `r` at (t, y, x) beats a neighbour `q` at (tq, yq, xq): strictly larger than
// neighbours before it in (t, y, x) order, at least as large as those after it (ties go to the
// first, so that a plateau keeps exactly one maximum).
CVIS_HD bool beats(float r, float q, int t, int y, int x, int tq, int yq, int xq) {
  const bool before = tq < t || (tq == t && (yq < y || (yq == y && xq < x)));
  return before ? r > q : r >= q;
}

// Order of the points of a frame: stronger first, then by row, then by column.
CVIS_HD bool point_before(float ra, int ya, int xa, float rb, int yb, int xb) {
  if (ra != rb)
    return ra > rb;
  if (ya != yb)
    return ya < yb;
  return xa < xb;
}

} // namespace cvis::stip::fe

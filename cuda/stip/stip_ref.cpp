// Reference stages of the front end (actionmatch_frontend_ref.hpp). Sums accumulate from 0.0f in
// increasing tap / pixel order; the kernels in actionmatch_frontend_kernels.cu do the same.
#include "stip_ref.hpp"

#include <algorithm>

#include "stip_ops.hpp"

namespace cvis::stip::detail::ref {

using fe::clampi;

float gain_scale(uint64_t byte_sum, int64_t pixels) { return fe::gain_scale(byte_sum, pixels); }

void load_luma(const ImageView& v, bool normalise_gain, Image* out) {
  out->resize(v.width, v.height);
  uint64_t sum = 0;
  for (int y = 0; y < v.height; ++y)
    for (int x = 0; x < v.width; ++x)
      sum += v.data[0][y * v.pitch[0] + x];
  const float g = normalise_gain ? gain_scale(sum, static_cast<int64_t>(v.width) * v.height) : 1.0f;
  for (int y = 0; y < v.height; ++y)
    for (int x = 0; x < v.width; ++x)
      out->p[static_cast<size_t>(y) * v.width + x] =
          static_cast<float>(v.data[0][y * v.pitch[0] + x]) * (1.0f / 255.0f) * g;
}

void gaussian(const Image& in, const std::vector<float>& taps, Image* out) {
  const int r = static_cast<int>(taps.size() / 2), w = in.w, h = in.h;
  Image tmp;
  tmp.resize(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float acc = 0.0f;
      for (int k = 0; k <= 2 * r; ++k)
        acc = acc + taps[k] * in.at(clampi(x + k - r, 0, w - 1), y);
      tmp.p[static_cast<size_t>(y) * w + x] = acc;
    }
  out->resize(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float acc = 0.0f;
      for (int k = 0; k <= 2 * r; ++k)
        acc = acc + taps[k] * tmp.at(x, clampi(y + k - r, 0, h - 1));
      out->p[static_cast<size_t>(y) * w + x] = acc;
    }
}

void pyramid(const Image& frame, int levels, std::vector<Image>* pyr) {
  static const std::vector<float> binomial = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
  pyr->assign(levels, Image());
  gaussian(frame, binomial, &(*pyr)[0]);
  for (int l = 1; l < levels; ++l) {
    const Image& src = (*pyr)[l - 1];
    Image blurred;
    gaussian(src, binomial, &blurred);
    Image& dst = (*pyr)[l];
    dst.resize((src.w + 1) / 2, (src.h + 1) / 2);
    for (int y = 0; y < dst.h; ++y)
      for (int x = 0; x < dst.w; ++x)
        dst.p[static_cast<size_t>(y) * dst.w + x] = blurred.at(2 * x, 2 * y);
  }
}

namespace {

// Sum over the (2r+1)^2 window (clamped coordinates): horizontal pass, then vertical.
void box(const Image& in, int r, Image* out) {
  std::vector<float> ones(2 * r + 1, 1.0f);
  gaussian(in, ones, out);
}

} // namespace

void lk_flow(const std::vector<Image>& prev, const std::vector<Image>& cur,
             const FrontEndParams& p, Image* u, Image* v) {
  Image uu, vv;
  for (int l = static_cast<int>(prev.size()) - 1; l >= 0; --l) {
    const Image& P = prev[l];
    const Image& C = cur[l];
    const int w = P.w, h = P.h;
    Image nu, nv;
    nu.resize(w, h);
    nv.resize(w, h);
    if (!uu.p.empty()) { // coarser estimate, doubled, nearest neighbour
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          nu.p[static_cast<size_t>(y) * w + x] = 2.0f * uu.at(x / 2, y / 2);
          nv.p[static_cast<size_t>(y) * w + x] = 2.0f * vv.at(x / 2, y / 2);
        }
    }
    Image ix, iy, ixx, ixy, iyy;
    ix.resize(w, h);
    iy.resize(w, h);
    ixx.resize(w, h);
    ixy.resize(w, h);
    iyy.resize(w, h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const size_t i = static_cast<size_t>(y) * w + x;
        ix.p[i] = (P.at(clampi(x + 1, 0, w - 1), y) - P.at(clampi(x - 1, 0, w - 1), y)) * 0.5f;
        iy.p[i] = (P.at(x, clampi(y + 1, 0, h - 1)) - P.at(x, clampi(y - 1, 0, h - 1))) * 0.5f;
        ixx.p[i] = ix.p[i] * ix.p[i];
        ixy.p[i] = ix.p[i] * iy.p[i];
        iyy.p[i] = iy.p[i] * iy.p[i];
      }
    Image g11, g12, g22;
    box(ixx, p.flow_radius, &g11);
    box(ixy, p.flow_radius, &g12);
    box(iyy, p.flow_radius, &g22);
    for (int it = 0; it < p.flow_iterations; ++it) {
      Image bx, by;
      bx.resize(w, h);
      by.resize(w, h);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const size_t i = static_cast<size_t>(y) * w + x;
          const float warped = fe::bilinear(C.p.data(), w, w, h, static_cast<float>(x) + nu.p[i],
                                            static_cast<float>(y) + nv.p[i]);
          const float t = warped - P.p[i];
          bx.p[i] = ix.p[i] * t;
          by.p[i] = iy.p[i] * t;
        }
      Image b1, b2;
      box(bx, p.flow_radius, &b1);
      box(by, p.flow_radius, &b2);
      for (size_t i = 0; i < nu.p.size(); ++i)
        fe::lk_update(g11.p[i], g12.p[i], g22.p[i], b1.p[i], b2.p[i], &nu.p[i], &nv.p[i]);
    }
    uu = std::move(nu);
    vv = std::move(nv);
  }
  *u = std::move(uu);
  *v = std::move(vv);
}

void votes(const Image& s, const Image& u, const Image& v, float flow_min, float split,
           Votes* out) {
  const int w = s.w, h = s.h;
  const size_t n = static_cast<size_t>(w) * h;
  out->w = w;
  out->h = h;
  out->hog_bin.resize(n);
  out->hof_bin.resize(n);
  out->hog_w.resize(n);
  out->hof_w.resize(n);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const size_t i = static_cast<size_t>(y) * w + x;
      const float gx = (s.at(clampi(x + 1, 0, w - 1), y) - s.at(clampi(x - 1, 0, w - 1), y)) * 0.5f;
      const float gy = (s.at(x, clampi(y + 1, 0, h - 1)) - s.at(x, clampi(y - 1, 0, h - 1))) * 0.5f;
      fe::hog_vote(gx, gy, &out->hog_bin[i], &out->hog_w[i]);
      fe::hof_vote(u.p[i], v.p[i], flow_min, split, &out->hof_bin[i], &out->hof_w[i]);
    }
}

void temporal_response(const std::vector<Image>& smooth, int64_t n, int radius,
                       const std::vector<float>& even, const std::vector<float>& odd, Image* r) {
  const int ring = static_cast<int>(smooth.size());
  const Image& any = smooth[n % ring];
  r->resize(any.w, any.h);
  for (size_t i = 0; i < r->p.size(); ++i) {
    float e = 0.0f, o = 0.0f;
    for (int k = 0; k <= 2 * radius; ++k) {
      const float sv = smooth[(n - 2 * radius + k) % ring].p[i];
      e = e + even[k] * sv;
      o = o + odd[k] * sv;
    }
    r->p[i] = e * e + o * o;
  }
}

void select_points(const Image* prev, const Image& cur, const Image* next,
                   const FrontEndParams& p, std::vector<InterestPoint>* out) {
  const int w = cur.w, h = cur.h, rs = p.nms_radius;
  const float thr = static_cast<float>(p.threshold);
  const Image* frames[3] = {prev, &cur, next};
  out->clear();
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float r = cur.at(x, y);
      if (!(r > thr))
        continue;
      bool is_max = true;
      for (int t = 0; t < 3 && is_max; ++t) {
        if (!frames[t])
          continue;
        for (int yy = std::max(0, y - rs); yy <= std::min(h - 1, y + rs) && is_max; ++yy)
          for (int xx = std::max(0, x - rs); xx <= std::min(w - 1, x + rs); ++xx) {
            if (t == 1 && yy == y && xx == x)
              continue;
            if (!fe::beats(r, frames[t]->at(xx, yy), 1, y, x, t, yy, xx)) {
              is_max = false;
              break;
            }
          }
      }
      if (is_max) {
        InterestPoint ip;
        ip.x = x;
        ip.y = y;
        ip.response = r;
        out->push_back(ip);
      }
    }
  std::sort(out->begin(), out->end(), [](const InterestPoint& a, const InterestPoint& b) {
    return fe::point_before(a.response, a.y, a.x, b.response, b.y, b.x);
  });
  if (static_cast<int>(out->size()) > p.max_points)
    out->resize(p.max_points);
}

void descriptor(const std::vector<Votes>& ring, const FrontEndGeometry& g, int64_t f, int x, int y,
                int64_t first, int64_t last, float* out) {
  const int c = g.cell, ct = g.cell_frames, n = static_cast<int>(ring.size());
  const int x0 = x - (3 * c) / 2, y0 = y - (3 * c) / 2;
  std::fill(out, out + g.dim, 0.0f);
  for (int t = 0; t < kCellsT; ++t)
    for (int cy = 0; cy < kCellsY; ++cy)
      for (int cx = 0; cx < kCellsX; ++cx) {
        const int cell = (t * kCellsY + cy) * kCellsX + cx;
        float* hog = out + cell * kHogBins;
        float* hof = out + kHogDim + cell * g.hof_bins;
        for (int64_t fr = f - ct + t * ct; fr < f + t * ct; ++fr) {
          if (fr < first || fr > last)
            continue;
          const Votes& vt = ring[fr % n];
          for (int py = y0 + cy * c; py < y0 + (cy + 1) * c; ++py) {
            if (py < 0 || py >= vt.h)
              continue;
            for (int px = x0 + cx * c; px < x0 + (cx + 1) * c; ++px) {
              if (px < 0 || px >= vt.w)
                continue;
              const size_t i = static_cast<size_t>(py) * vt.w + px;
              hog[vt.hog_bin[i]] = hog[vt.hog_bin[i]] + vt.hog_w[i];
              hof[vt.hof_bin[i]] = hof[vt.hof_bin[i]] + vt.hof_w[i];
            }
          }
        }
      }
  // Each part L2-normalised, scaled by 1/sqrt(2): the whole vector has norm 1 (or 0).
  const int parts[2][2] = {{0, kHogDim}, {kHogDim, g.dim}};
  for (const auto& part : parts) {
    float ss = 0.0f;
    for (int i = part[0]; i < part[1]; ++i)
      ss = ss + out[i] * out[i];
    if (ss > 0.0f) {
      const float s = 0.70710678f / sqrtf(ss);
      for (int i = part[0]; i < part[1]; ++i)
        out[i] = out[i] * s;
    }
  }
}

} // namespace cvis::stip::detail::ref

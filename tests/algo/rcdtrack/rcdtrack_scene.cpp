#include "rcdtrack_scene.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

namespace cvis::rcdtrack::test {

namespace {

uint8_t* px(HostImage* im, int x, int y) {
  return im->plane(0) + static_cast<size_t>(y) * im->pitch(0) + static_cast<size_t>(x) * 4;
}
const uint8_t* cpx(const HostImage& im, int x, int y) {
  return im.view().data[0] + static_cast<size_t>(y) * im.pitch(0) + static_cast<size_t>(x) * 4;
}
uint8_t clamp8(double v) {
  return static_cast<uint8_t>(std::min(255.0, std::max(0.0, std::round(v))));
}

} // namespace

HostImage make_background(int w, int h, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int gx = w / 24 + 2, gy = h / 24 + 2;
  std::vector<double> grid(static_cast<size_t>(gx) * gy * 3);
  for (double& v : grid)
    v = 40 + 170 * u(rng);
  HostImage im(PixelFormat::kRGBA, w, h);
  std::normal_distribution<double> grain(0.0, 6.0);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const double fx = x / 24.0, fy = y / 24.0;
      const int ix = static_cast<int>(fx), iy = static_cast<int>(fy);
      const double ax = fx - ix, ay = fy - iy;
      uint8_t* p = px(&im, x, y);
      for (int c = 0; c < 3; ++c) {
        auto g = [&](int i, int j) { return grid[(static_cast<size_t>(j) * gx + i) * 3 + c]; };
        const double v = (1 - ay) * ((1 - ax) * g(ix, iy) + ax * g(ix + 1, iy)) +
                         ay * ((1 - ax) * g(ix, iy + 1) + ax * g(ix + 1, iy + 1));
        p[c] = clamp8(v + grain(rng));
      }
      p[3] = 255;
    }
  }
  return im;
}

HostImage make_texture(int w, int h, uint32_t seed, int style) {
  std::mt19937 rng(seed * 2654435761u + static_cast<uint32_t>(style));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  HostImage im(PixelFormat::kRGBA, w, h);
  const double base[4][3] = {{200, 60, 50}, {50, 90, 200}, {60, 170, 70}, {220, 200, 60}};
  const double* b = base[style & 3];
  std::normal_distribution<double> grain(0.0, 8.0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = px(&im, x, y);
      for (int c = 0; c < 3; ++c)
        p[c] = clamp8(b[c] + grain(rng));
      p[3] = 255;
    }
  // Stripes across the object (orientation and period from the seed), then blobs.
  const double ang = u(rng) * M_PI, period = 5 + 6 * u(rng);
  const double sc = std::cos(ang), sn = std::sin(ang);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double t = std::sin((x * sc + y * sn) * 2 * M_PI / period);
      uint8_t* p = px(&im, x, y);
      for (int c = 0; c < 3; ++c)
        p[c] = clamp8(p[c] + 45 * t * (c == (style % 3) ? 1.0 : -0.5));
    }
  const int blobs = 4 + static_cast<int>(6 * u(rng));
  for (int k = 0; k < blobs; ++k) {
    const double cx = u(rng) * w, cy = u(rng) * h, rx = 2 + u(rng) * w / 4, ry = 2 + u(rng) * h / 4;
    double col[3];
    for (double& c : col)
      c = 255 * u(rng);
    for (int y = std::max(0, static_cast<int>(cy - ry));
         y < std::min(h, static_cast<int>(cy + ry) + 1); ++y)
      for (int x = std::max(0, static_cast<int>(cx - rx));
           x < std::min(w, static_cast<int>(cx + rx) + 1); ++x) {
        const double dx = (x - cx) / rx, dy = (y - cy) / ry;
        if (dx * dx + dy * dy <= 1.0) {
          uint8_t* p = px(&im, x, y);
          for (int c = 0; c < 3; ++c)
            p[c] = clamp8(0.5 * p[c] + 0.5 * col[c]);
        }
      }
  }
  return im;
}

HostImage recolour_like(const HostImage& other, const HostImage& tex) {
  auto stats = [](const HostImage& im, double* mean, double* dev) {
    double s[3] = {}, s2[3] = {};
    const double n = static_cast<double>(im.width()) * im.height();
    for (int y = 0; y < im.height(); ++y)
      for (int x = 0; x < im.width(); ++x)
        for (int c = 0; c < 3; ++c) {
          const double v = cpx(im, x, y)[c];
          s[c] += v;
          s2[c] += v * v;
        }
    for (int c = 0; c < 3; ++c) {
      mean[c] = s[c] / n;
      dev[c] = std::sqrt(std::max(1e-6, s2[c] / n - mean[c] * mean[c]));
    }
  };
  double m0[3], d0[3], m1[3], d1[3];
  stats(other, m0, d0);
  stats(tex, m1, d1);
  HostImage out = copy_image(other);
  for (int y = 0; y < out.height(); ++y)
    for (int x = 0; x < out.width(); ++x) {
      uint8_t* p = px(&out, x, y);
      for (int c = 0; c < 3; ++c)
        p[c] = clamp8((p[c] - m0[c]) / d0[c] * d1[c] + m1[c]);
    }
  return out;
}

HostImage shuffle_blocks(const HostImage& tex, int block, uint32_t seed) {
  const int bx = tex.width() / block, by = tex.height() / block;
  std::vector<int> order(static_cast<size_t>(bx) * by);
  for (size_t k = 0; k < order.size(); ++k)
    order[k] = static_cast<int>(k);
  std::mt19937 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  HostImage out = copy_image(tex);
  for (int k = 0; k < bx * by; ++k) {
    const int sx = (order[k] % bx) * block, sy = (order[k] / bx) * block;
    const int dx = (k % bx) * block, dy = (k / bx) * block;
    for (int y = 0; y < block; ++y)
      std::memcpy(px(&out, dx, dy + y), cpx(tex, sx, sy + y), static_cast<size_t>(block) * 4);
  }
  return out;
}

Box draw_object(HostImage* frame, const HostImage& tex, double cx, double cy, double scale,
                double angle) {
  const double hw = 0.5 * tex.width() * scale, hh = 0.5 * tex.height() * scale;
  const double c = std::cos(angle), s = std::sin(angle);
  const double ex = std::fabs(hw * c) + std::fabs(hh * s),
               ey = std::fabs(hw * s) + std::fabs(hh * c);
  const int x0 = std::max(0, static_cast<int>(std::floor(cx - ex)) - 1);
  const int x1 = std::min(frame->width() - 1, static_cast<int>(std::ceil(cx + ex)) + 1);
  const int y0 = std::max(0, static_cast<int>(std::floor(cy - ey)) - 1);
  const int y1 = std::min(frame->height() - 1, static_cast<int>(std::ceil(cy + ey)) + 1);
  int bx0 = frame->width(), by0 = frame->height(), bx1 = -1, by1 = -1;
  for (int y = y0; y <= y1; ++y) {
    for (int x = x0; x <= x1; ++x) {
      // Pixel centre in object coordinates (inverse rotation and scale).
      const double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
      const double u = (c * dx + s * dy) / scale + 0.5 * tex.width();
      const double v = (-s * dx + c * dy) / scale + 0.5 * tex.height();
      const int iu = static_cast<int>(std::floor(u)), iv = static_cast<int>(std::floor(v));
      if (iu < 0 || iv < 0 || iu >= tex.width() || iv >= tex.height())
        continue;
      std::memcpy(px(frame, x, y), cpx(tex, iu, iv), 4);
      bx0 = std::min(bx0, x);
      by0 = std::min(by0, y);
      bx1 = std::max(bx1, x);
      by1 = std::max(by1, y);
    }
  }
  if (bx1 < 0)
    return {};
  return {bx0, by0, bx1 - bx0 + 1, by1 - by0 + 1};
}

void draw_occluder(HostImage* frame, const Box& box, uint8_t r, uint8_t g, uint8_t b,
                   uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> grain(0.0, 5.0);
  for (int y = std::max(0, box.y); y < std::min(frame->height(), box.y + box.h); ++y)
    for (int x = std::max(0, box.x); x < std::min(frame->width(), box.x + box.w); ++x) {
      uint8_t* p = px(frame, x, y);
      p[0] = clamp8(r + grain(rng));
      p[1] = clamp8(g + grain(rng));
      p[2] = clamp8(b + grain(rng));
      p[3] = 255;
    }
}

Status
run_one_target(Tracker* tracker, const HostImage& bg, const HostImage& tex, int frames,
               const std::function<Pose(int t)>& pose,
               const std::function<void(int t, const Box& truth, const TargetResult& r)>& on_result,
               int id, const std::function<void(int t, HostImage* frame)>& overlay) {
  std::vector<TargetResult> r;
  for (int t = 0; t < frames; ++t) {
    HostImage f = copy_image(bg);
    const Pose p = pose(t);
    const Box truth = p.visible ? draw_object(&f, tex, p.cx, p.cy, p.scale, p.angle) : Box{};
    if (overlay)
      overlay(t, &f);
    if (t == 0) {
      CVIS_RETURN_IF_ERROR(tracker->add_target(id, truth));
    }
    CVIS_RETURN_IF_ERROR(tracker->process(f.view(), nullptr, &r));
    if (r.size() != 1)
      return internal_error("frame " + std::to_string(t) + ": " + std::to_string(r.size()) +
                            " results for one target");
    on_result(t, truth, r[0]);
  }
  return Status::Ok();
}

HostImage copy_image(const HostImage& src) {
  HostImage out(src.format(), src.width(), src.height(),
                src.pitch(0) - plane_row_bytes(src.format(), 0, src.width()));
  for (int p = 0; p < plane_count(src.format()); ++p)
    std::memcpy(out.plane(p), src.view().data[p],
                src.pitch(p) * static_cast<size_t>(plane_rows(src.format(), p, src.height())));
  return out;
}

HostImage make_random(PixelFormat f, int w, int h, size_t pad, uint32_t seed) {
  std::mt19937 rng(seed);
  HostImage im(f, w, h, pad);
  for (int p = 0; p < plane_count(f); ++p) {
    const size_t row = plane_row_bytes(f, p, w);
    for (int y = 0; y < plane_rows(f, p, h); ++y)
      for (size_t x = 0; x < row; ++x)
        im.plane(p)[static_cast<size_t>(y) * im.pitch(p) + x] = static_cast<uint8_t>(rng() >> 24);
  }
  return im;
}

} // namespace cvis::rcdtrack::test

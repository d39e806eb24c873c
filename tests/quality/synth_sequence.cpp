#include "synth_sequence.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace cvis::test {

namespace {

constexpr float kTwoPi = 6.28318530718f;

// Smooth value noise: random values on a coarse grid, bilinear in between.
std::vector<float> value_noise(int w, int h, int cell, std::mt19937& rng, float lo, float hi) {
  const int gw = w / cell + 2, gh = h / cell + 2;
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> grid(static_cast<size_t>(gw) * gh);
  for (float& v : grid)
    v = d(rng);
  std::vector<float> out(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const float fx = float(x) / cell, fy = float(y) / cell;
      const int ix = int(fx), iy = int(fy);
      const float tx = fx - ix, ty = fy - iy;
      auto g = [&](int a, int b) { return grid[static_cast<size_t>(b) * gw + a]; };
      out[static_cast<size_t>(y) * w + x] =
          (g(ix, iy) * (1 - tx) + g(ix + 1, iy) * tx) * (1 - ty) +
          (g(ix, iy + 1) * (1 - tx) + g(ix + 1, iy + 1) * tx) * ty;
    }
  }
  return out;
}

} // namespace

std::vector<SequenceSpec> quality_presets(int width, int height, int frames) {
  std::vector<SequenceSpec> v;
  SequenceSpec s;
  s.width = width;
  s.height = height;
  s.frames = frames;
  s.name = "static";
  s.seed = 11;
  s.wave_fraction = 0.0f;
  s.illumination_drift = 0.0f;
  v.push_back(s);
  s.name = "waving";
  s.seed = 22;
  s.wave_fraction = 0.45f;
  v.push_back(s);
  s.name = "illumination";
  s.seed = 33;
  s.wave_fraction = 0.0f;
  s.illumination_drift = 0.35f;
  v.push_back(s);
  s.name = "combined";
  s.seed = 44;
  s.wave_fraction = 0.35f;
  s.illumination_drift = 0.25f;
  s.noise_sigma = 6.0f;
  v.push_back(s);
  // The paper's hard case (its Fig. 8): most of the scene moves, by several pixels.
  s.name = "dynamic";
  s.seed = 55;
  s.wave_fraction = 0.7f;
  s.wave_amplitude = 5.0f;
  s.illumination_drift = 0.1f;
  s.noise_sigma = 5.0f;
  v.push_back(s);
  return v;
}

SyntheticSequence::SyntheticSequence(const SequenceSpec& spec) : spec_(spec) {
  std::mt19937 rng(spec.seed);
  const int w = spec.width, h = spec.height;
  // Static background: per channel, smooth noise at two scales plus a gentle gradient.
  base_.assign(static_cast<size_t>(w) * h * 3, 0.0f);
  for (int c = 0; c < 3; ++c) {
    const std::vector<float> coarse = value_noise(w, h, 24, rng, 50.0f, 190.0f);
    const std::vector<float> fine = value_noise(w, h, 5, rng, -25.0f, 25.0f);
    for (size_t i = 0; i < coarse.size(); ++i)
      base_[i * 3 + c] = coarse[i] + fine[i];
  }
  // Waving region texture ("foliage"): high contrast blobs, tiled.
  leaves_w_ = 64;
  leaves_h_ = 64;
  const std::vector<float> l0 = value_noise(leaves_w_, leaves_h_, 4, rng, 0.0f, 1.0f);
  leaves_.assign(static_cast<size_t>(leaves_w_) * leaves_h_ * 3, 0.0f);
  for (size_t i = 0; i < l0.size(); ++i) {
    const float t = l0[i] > 0.5f ? 1.0f : 0.0f; // hard edges: strongly multimodal pixels
    leaves_[i * 3 + 0] = 40 + 60 * t;
    leaves_[i * 3 + 1] = 70 + 110 * t;
    leaves_[i * 3 + 2] = 30 + 50 * t;
  }
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int i = 0; i < spec.objects; ++i) {
    Object o;
    o.w = std::max(4, int(w * (0.12f + 0.12f * u(rng))));
    o.h = std::max(4, int(h * (0.15f + 0.15f * u(rng))));
    o.x = u(rng) * (w - o.w);
    o.y = u(rng) * (h - o.h);
    const float speed = 0.6f + 1.4f * u(rng), ang = kTwoPi * u(rng);
    o.vx = speed * std::cos(ang);
    o.vy = speed * std::sin(ang);
    o.ellipse = (i % 2) == 1;
    for (int c = 0; c < 3; ++c) {
      o.c0[c] = static_cast<uint8_t>(20 + 215 * u(rng));
      o.c1[c] = static_cast<uint8_t>(20 + 215 * u(rng));
    }
    o.stripe = (i % 3 == 2) ? -6 : 4 + int(6 * u(rng));
    o.start = spec.first_object_frame + int(i * spec.frames * 0.1f);
    objects_.push_back(o);
  }
}

float SyntheticSequence::waving(float x, float y, int c) const {
  const int ix = ((int(std::floor(x)) % leaves_w_) + leaves_w_) % leaves_w_;
  const int iy = ((int(std::floor(y)) % leaves_h_) + leaves_h_) % leaves_h_;
  return leaves_[(static_cast<size_t>(iy) * leaves_w_ + ix) * 3 + c];
}

float SyntheticSequence::background(int x, int y, int c) const {
  return base_[(static_cast<size_t>(y) * spec_.width + x) * 3 + c];
}

void SyntheticSequence::render(int t, HostImage* rgb, std::vector<uint8_t>* truth) const {
  const int w = spec_.width, h = spec_.height;
  *rgb = HostImage(PixelFormat::kRGB, w, h);
  truth->assign(static_cast<size_t>(w) * h, 0);
  std::mt19937 rng(spec_.seed * 7919u + static_cast<uint32_t>(t) * 104729u + 1u);
  std::normal_distribution<float> noise(0.0f, spec_.noise_sigma);
  const float gain = 1.0f + spec_.illumination_drift * float(t) / float(std::max(1, spec_.frames));
  const int wave_top = int(h * (1.0f - spec_.wave_fraction));
  // Object positions at frame t: straight lines bouncing on the borders.
  std::vector<std::pair<float, float>> pos;
  for (const Object& o : objects_) {
    float x = o.x, y = o.y;
    const int steps = std::max(0, t - o.start);
    const float spanx = float(w - o.w), spany = float(h - o.h);
    auto bounce = [](float p, float v, int n, float span) {
      float q = std::fmod(p + v * n, 2 * span);
      if (q < 0)
        q += 2 * span;
      return q > span ? 2 * span - q : q;
    };
    x = bounce(x, o.vx, steps, spanx);
    y = bounce(y, o.vy, steps, spany);
    pos.emplace_back(x, y);
  }
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      float v[3];
      const bool wave = y >= wave_top && spec_.wave_fraction > 0.0f;
      for (int c = 0; c < 3; ++c) {
        if (wave) {
          const float a = spec_.wave_amplitude;
          const float dx = a * std::sin(kTwoPi * t / 23.0f + y * 0.21f);
          const float dy = 0.6f * a * std::cos(kTwoPi * t / 31.0f + x * 0.17f);
          v[c] = waving(x + dx, y + dy, c);
        } else {
          v[c] = background(x, y, c);
        }
      }
      for (size_t i = 0; i < objects_.size(); ++i) {
        const Object& o = objects_[i];
        if (t < o.start)
          continue;
        const float lx = x - pos[i].first, ly = y - pos[i].second;
        if (lx < 0 || ly < 0 || lx >= o.w || ly >= o.h)
          continue;
        if (o.ellipse) {
          const float ex = (lx + 0.5f) / o.w - 0.5f, ey = (ly + 0.5f) / o.h - 0.5f;
          if (ex * ex + ey * ey > 0.25f)
            continue;
        }
        const int ix = int(lx), iy = int(ly);
        const bool second = o.stripe > 0 ? ((ix + iy) / o.stripe) % 2 == 1
                                         : ((ix / -o.stripe) + (iy / -o.stripe)) % 2 == 1;
        for (int c = 0; c < 3; ++c)
          v[c] = second ? o.c1[c] : o.c0[c];
        (*truth)[static_cast<size_t>(y) * w + x] = 255;
      }
      uint8_t out[3];
      for (int c = 0; c < 3; ++c) {
        const float q = v[c] * gain + noise(rng);
        out[c] = static_cast<uint8_t>(std::lround(std::min(255.0f, std::max(0.0f, q))));
      }
      rgb->set_rgb(x, y, out[0], out[1], out[2]);
    }
  }
}

HostImage to_gray(const HostImage& rgb, size_t pad) {
  HostImage g(PixelFormat::kGRAY8, rgb.width(), rgb.height(), pad);
  const ImageView v = rgb.view();
  const PackedLayout l = packed_layout(v.format);
  for (int y = 0; y < rgb.height(); ++y) {
    for (int x = 0; x < rgb.width(); ++x) {
      const uint8_t* p = v.data[0] + static_cast<size_t>(y) * v.pitch[0] + x * l.bytes_per_pixel;
      g.plane(0)[static_cast<size_t>(y) * g.pitch(0) + x] =
          static_cast<uint8_t>((77 * p[l.r] + 150 * p[l.g] + 29 * p[l.b] + 128) >> 8);
    }
  }
  return g;
}

void FMeasure::add(const uint8_t* mask, size_t pitch, const std::vector<uint8_t>& truth, int w,
                   int h) {
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const bool m = mask[static_cast<size_t>(y) * pitch + x] != 0;
      const bool t = truth[static_cast<size_t>(y) * w + x] != 0;
      tp += m && t;
      fp += m && !t;
      fn += !m && t;
    }
  }
}

} // namespace cvis::test

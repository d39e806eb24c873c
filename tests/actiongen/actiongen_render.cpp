// Clip rendering: background (procedural outdoor/indoor/texture or a real image/video), the figure
// moving along its path, the camera (zoom in scenario 2, jitter, gain flicker, noise).
#include <algorithm>
#include <cmath>

#include "actiongen_priv.hpp"

namespace actiongen {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Smooth value noise on the integer lattice, several octaves, values in about 0..1.
struct Noise {
  uint64_t seed;
  double lattice(int64_t x, int64_t y) const {
    uint64_t h = seed ^ (static_cast<uint64_t>(x) * 0x9E3779B185EBCA87ull) ^
                 (static_cast<uint64_t>(y) * 0xC2B2AE3D27D4EB4Full);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return static_cast<double>(h & 0xFFFFFF) / 16777215.0;
  }
  double at(double x, double y) const {
    const double fx = std::floor(x), fy = std::floor(y);
    const int64_t ix = static_cast<int64_t>(fx), iy = static_cast<int64_t>(fy);
    double u = x - fx, v = y - fy;
    u = u * u * (3 - 2 * u);
    v = v * v * (3 - 2 * v);
    const double a = lattice(ix, iy), b = lattice(ix + 1, iy), c = lattice(ix, iy + 1),
                 d = lattice(ix + 1, iy + 1);
    return (a * (1 - u) + b * u) * (1 - v) + (c * (1 - u) + d * u) * v;
  }
  double fbm(double x, double y, int octaves) const {
    double s = 0, amp = 0.5, norm = 0;
    for (int o = 0; o < octaves; ++o) {
      s += amp * at(x, y);
      norm += amp;
      x *= 2.03;
      y *= 2.03;
      amp *= 0.5;
    }
    return s / norm;
  }
};

// A procedural background: a function of frame coordinates (before zoom) and time.
struct ProcBackground {
  int kind = 0; // 0 outdoor (sky, trees, ground), 1 indoor (wall, floor), 2 texture
  Noise n{1};
  double horizon = 0.5, scale = 0.1, drift = 0, contrast = 1;
  float c0[3], c1[3], c2[3], c3[3];
  int pattern = 0; // indoor wall: 0 plain, 1 bricks, 2 tiles, 3 stripes
  double brick = 8;

  void colour(double x, double y, double t, float out[3]) const {
    auto mix = [&](const float a[3], const float b[3], double k) {
      for (int i = 0; i < 3; ++i)
        out[i] = static_cast<float>(a[i] * (1 - k) + b[i] * k);
    };
    if (kind == 0) {
      if (y < horizon) {
        const double cloud = n.fbm(x * scale * 0.5 + drift * t, y * scale, 4);
        mix(c0, c1, std::clamp((cloud - 0.45) * 2.5 * contrast, 0.0, 1.0));
        const double tree = n.fbm(x * scale * 0.7, 7.0, 3);
        if (y > horizon - tree * 0.35 * horizon)
          mix(c3, c2, 0.3 * n.fbm(x * scale * 2, y * scale * 2, 3));
      } else {
        const double g = n.fbm(x * scale * 1.5, y * scale * 3.0, 5);
        mix(c2, c3, std::clamp(0.5 + (g - 0.5) * 2 * contrast, 0.0, 1.0));
      }
    } else if (kind == 1) {
      if (y < horizon) {
        double k = 0.5 + (n.fbm(x * scale * 2, y * scale * 2, 3) - 0.5) * contrast;
        if (pattern == 1 || pattern == 2) {
          const double row = std::floor(y / brick);
          const double off = pattern == 1 ? 0.5 * std::fmod(row, 2.0) * 2 * brick : 0;
          const double bx = std::fmod(x + off + 1e6, 2 * brick), by = std::fmod(y + 1e6, brick);
          if (bx < 1.0 || by < 1.0)
            k = 0.05;
        } else if (pattern == 3) {
          k = 0.5 + 0.5 * std::sin(x / brick * kPi) * contrast;
        }
        mix(c0, c1, std::clamp(k, 0.0, 1.0));
      } else {
        const double g = n.fbm(x * scale * 3, y * scale * 6, 3);
        mix(c2, c3, std::clamp(0.5 + (g - 0.5) * contrast, 0.0, 1.0));
      }
    } else {
      const double g = n.fbm(x * scale, y * scale, 5);
      const double h = n.fbm(x * scale * 3 + 50, y * scale * 3, 3);
      mix(c0, c1, std::clamp(0.5 + (g - 0.5) * 2.5 * contrast, 0.0, 1.0));
      if (h > 0.62)
        mix(out, c2, 0.6);
    }
  }
};

void random_colour(Rng& r, float c[3], double lo, double hi) {
  const double v = r.uniform(lo, hi);
  for (int i = 0; i < 3; ++i)
    c[i] = static_cast<float>(std::clamp(v + r.uniform(-0.12, 0.12), 0.0, 1.0));
}

ProcBackground make_background(Rng& r, int scenario) {
  ProcBackground b;
  b.n.seed = static_cast<uint64_t>(r.uniform(0, 1e15));
  b.kind = scenario == 4 ? 1 : (r.uniform(0, 1) < 0.75 ? 0 : 2);
  b.horizon = r.uniform(0.25, 0.65);
  b.scale = r.uniform(0.04, 0.25);
  b.drift = r.uniform(-0.6, 0.6);
  b.contrast = r.uniform(0.3, 1.4);
  b.pattern = static_cast<int>(r.uniform(0, 4));
  b.brick = r.uniform(4, 14);
  if (b.kind == 0) {
    random_colour(r, b.c0, 0.55, 0.95); // sky
    random_colour(r, b.c1, 0.6, 1.0);   // clouds
    random_colour(r, b.c2, 0.2, 0.7);   // ground
    random_colour(r, b.c3, 0.1, 0.5);   // trees / ground variation
  } else {
    random_colour(r, b.c0, 0.2, 0.9);
    random_colour(r, b.c1, 0.2, 0.9);
    random_colour(r, b.c2, 0.1, 0.8);
    random_colour(r, b.c3, 0.1, 0.8);
  }
  return b;
}

void draw_capsules(const std::vector<Capsule>& caps, double px, double py, double aa,
                   float rgb[3]) {
  for (const Capsule& c : caps) {
    const double dx = c.x1 - c.x0, dy = c.y1 - c.y0, len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((px - c.x0) * dx + (py - c.y0) * dy) / len2 : 0;
    t = std::clamp(t, 0.0, 1.0);
    const double ex = px - (c.x0 + t * dx), ey = py - (c.y0 + t * dy);
    const double dist = std::sqrt(ex * ex + ey * ey) - c.r;
    const double cover = std::clamp(0.5 - dist / aa, 0.0, 1.0);
    if (cover <= 0)
      continue;
    // Round limbs: lighter in the middle; stripes across the limb's length.
    double shade = 1.0 - 0.25 * std::min(1.0, std::sqrt(ex * ex + ey * ey) / std::max(c.r, 1e-6));
    if (c.stripes > 0 && std::fmod(t * std::sqrt(len2) + 1e3, 2.0 * c.stripes) < c.stripes)
      shade *= 0.6;
    for (int i = 0; i < 3; ++i)
      rgb[i] = static_cast<float>(rgb[i] * (1 - cover) + c.rgb[i] * shade * cover);
  }
}

} // namespace

std::vector<std::vector<uint8_t>> render_clip(const Subject& subject, const ClipSpec& c,
                                              const std::vector<BackgroundClip>& backgrounds) {
  Rng r{c.seed * 0x2545F4914F6CDD1Dull + 99};
  Subject s = subject;
  FigurePlace fp;
  if (c.scenario == 3) { // other clothes, sometimes a coat
    random_clothes(r, &s);
    fp.coat = r.uniform(0, 1) < 0.5;
  }
  const int W = c.width, Hh = c.height;
  const double clip_scale = r.uniform(0.85, 1.12);
  fp.height_px = s.height * Hh * clip_scale;
  fp.ground_y = Hh * r.uniform(0.88, 1.0);
  fp.facing = r.uniform(0, 1) < 0.5 ? 1 : -1;
  const ProcBackground pb = make_background(r, c.scenario);
  const BackgroundClip* real = nullptr;
  if (!backgrounds.empty() && r.uniform(0, 1) < 0.5) {
    real = &backgrounds[static_cast<size_t>(r.uniform(0, 1) * backgrounds.size()) %
                        backgrounds.size()];
  }
  const int real_start = real ? static_cast<int>(r.uniform(0, 1) * real->frames.size()) : 0;
  // Lighting and camera.
  const double gain = c.scenario == 4 ? r.uniform(0.55, 0.9) : r.uniform(0.8, 1.15);
  const double noise_sigma = (c.scenario == 4 ? r.uniform(2, 7) : r.uniform(0.8, 4)) / 255.0;
  const double flicker = r.uniform(0, 0.03), flicker_f = r.uniform(0.5, 6);
  const double zoom_amp = c.scenario == 2 ? r.uniform(0.15, 0.35) : 0.0;
  const double zoom_period = r.uniform(2.5, 6), zoom_phase = r.uniform(0, 2 * kPi);
  const double jitter = r.uniform(0, 0.15); // tripod shake (std up to 0.25 pixel)
  // Movement: cadence with a slowly wandering tempo; walkers leave the frame and come back.
  const double freq = action_frequency(c.action) * s.speed * r.uniform(0.9, 1.1);
  const double tempo_amp = r.uniform(0.1, 0.5), tempo_f = r.uniform(0.1, 0.4);
  const double phase0 = r.uniform(0, 2 * kPi), tempo_phase = r.uniform(0, 2 * kPi);
  const double v_px = action_speed(c.action) * s.speed * fp.height_px * r.uniform(0.9, 1.1);
  double x = v_px > 0 ? W * r.uniform(0.1, 0.9) : W * r.uniform(0.3, 0.7);
  double dir = fp.facing, wait = 0;
  const double margin = 0.35 * fp.height_px;

  std::vector<std::vector<uint8_t>> frames(c.frames);
  std::vector<Capsule> caps;
  double jx = 0, jy = 0;
  for (int f = 0; f < c.frames; ++f) {
    const double t = f / c.fps;
    const double phi = phase0 + 2 * kPi * freq * t +
                       tempo_amp * std::sin(2 * kPi * tempo_f * t + tempo_phase);
    if (v_px > 0) {
      if (wait > 0) {
        wait -= 1 / c.fps;
        if (wait <= 0)
          dir = -dir;
      } else {
        x += dir * v_px / c.fps;
        if ((dir > 0 && x > W + margin) || (dir < 0 && x < -margin))
          wait = r.uniform(0.2, 0.8);
      }
    } else {
      x += 0.3 * r.normal(); // a little sway on the spot
      x = std::clamp(x, W * 0.25, W * 0.75);
    }
    fp.x = x;
    fp.facing = dir;
    caps.clear();
    figure_capsules(s, c.action, phi, fp, &caps);
    const double zoom = 1 + zoom_amp * std::sin(2 * kPi * t / zoom_period + zoom_phase);
    jx = 0.8 * jx + jitter * r.normal();
    jy = 0.8 * jy + jitter * r.normal();
    const double g = gain * (1 + flicker * std::sin(2 * kPi * flicker_f * t));
    const std::vector<uint8_t>* bgf =
        real ? &real->frames[(real_start + f) % real->frames.size()] : nullptr;
    std::vector<uint8_t>& out = frames[f];
    out.resize(static_cast<size_t>(W) * Hh * 3);
    for (int py = 0; py < Hh; ++py) {
      for (int px = 0; px < W; ++px) {
        // Frame coordinates of this pixel before the zoom about the centre.
        const double wx = (px + 0.5 - W / 2.0) / zoom + W / 2.0 + jx;
        const double wy = (py + 0.5 - Hh / 2.0) / zoom + Hh / 2.0 + jy;
        float rgb[3];
        if (bgf) {
          const int sx = std::clamp(static_cast<int>(wx), 0, W - 1);
          const int sy = std::clamp(static_cast<int>(wy), 0, Hh - 1);
          const uint8_t* p = bgf->data() + (static_cast<size_t>(sy) * W + sx) * 3;
          for (int i = 0; i < 3; ++i)
            rgb[i] = p[i] / 255.0f;
        } else {
          pb.colour(wx, wy, t, rgb);
        }
        draw_capsules(caps, wx, wy, 1.0 / zoom, rgb);
        for (int i = 0; i < 3; ++i) {
          const double v = rgb[i] * g + noise_sigma * r.normal();
          out[(static_cast<size_t>(py) * W + px) * 3 + i] =
              static_cast<uint8_t>(std::clamp(std::lround(v * 255.0), 0L, 255L));
        }
      }
    }
  }
  return frames;
}

} // namespace actiongen

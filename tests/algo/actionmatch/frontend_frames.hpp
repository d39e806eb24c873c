// Test inputs of the front end's CPU tests: GRAY8 frames with row padding and a seeded smooth
// texture.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "stip.hpp"
#include "common/image.hpp"

namespace cvis::stip::test {

// A GRAY8 frame with row padding.
struct Frame {
  int w, h, pitch;
  std::vector<uint8_t> px;
  Frame(int width, int height, int pad) : w(width), h(height), pitch(width + pad) {
    px.assign(static_cast<size_t>(pitch) * h, 0);
  }
  uint8_t& at(int x, int y) { return px[static_cast<size_t>(y) * pitch + x]; }
  ImageView view() {
    ImageView v;
    v.format = PixelFormat::kGRAY8;
    v.width = w;
    v.height = h;
    v.data[0] = px.data();
    v.pitch[0] = pitch;
    return v;
  }
};

// Smooth random texture (seeded), 0..255.
inline std::vector<float> texture(int w, int h, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0, 1);
  const int gw = w / 4 + 3, gh = h / 4 + 3;
  std::vector<float> g(static_cast<size_t>(gw) * gh);
  for (float& v : g)
    v = u(rng);
  std::vector<float> t(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float fx = x / 4.0f, fy = y / 4.0f;
      const int ix = static_cast<int>(fx), iy = static_cast<int>(fy);
      const float ax = fx - ix, ay = fy - iy;
      auto G = [&](int a, int b) { return g[static_cast<size_t>(b) * gw + a]; };
      t[static_cast<size_t>(y) * w + x] =
          255.0f * ((1 - ay) * ((1 - ax) * G(ix, iy) + ax * G(ix + 1, iy)) +
                    ay * ((1 - ax) * G(ix, iy + 1) + ax * G(ix + 1, iy + 1)));
    }
  return t;
}

// Every final frame of the CPU front end over `frames` (configure, every push, finish); an empty
// result when a call fails.
inline std::vector<FramePoints> run_cpu(std::vector<Frame>& frames, const FrontEndParams& p) {
  Status st;
  auto fe = make_frontend(Backend::kCpu, &st);
  std::vector<FramePoints> out;
  if (!st.ok() || !fe->configure(frames[0].w, frames[0].h, p).ok())
    return {};
  for (Frame& f : frames)
    if (!fe->push(f.view(), nullptr, &out).ok())
      return {};
  if (!fe->finish(nullptr, &out).ok())
    return {};
  return out;
}

} // namespace cvis::stip::test

// Synthetic foreground-segmentation sequences with exact ground truth: moving textured objects over
// a textured background with a waving (dynamic) region, sensor noise and a slow illumination
// change. Fully determined by the spec (seeded), so every machine renders the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "test_images.hpp"

namespace cvis::test {

struct SequenceSpec {
  std::string name = "combined";
  int width = 160, height = 120;
  int frames = 200;
  uint32_t seed = 1;
  int objects = 3;
  int first_object_frame = 60; // no object before this frame (the models warm up on background)
  float noise_sigma = 4.0f;    // Gaussian sensor noise per channel, in levels
  float wave_fraction = 0.35f; // share of the image rows covered by the waving region
  float wave_amplitude = 2.5f; // displacement of the waving texture, in pixels
  float illumination_drift = 0.25f; // relative gain change over the whole sequence (linear)
};

// The presets of the quality report: "static" (noise only), "waving", "illumination", "combined"
// (waving + drift + more noise), "dynamic" (most of the scene waving by 5 pixels).
std::vector<SequenceSpec> quality_presets(int width, int height, int frames);

class SyntheticSequence {
public:
  explicit SyntheticSequence(const SequenceSpec& spec);
  const SequenceSpec& spec() const { return spec_; }

  // Frame t (0-based) as packed RGB, and its ground truth (width*height bytes, 255 = object).
  void render(int t, HostImage* rgb, std::vector<uint8_t>* truth) const;

private:
  struct Object {
    float x, y, vx, vy; // top-left and velocity (pixels, pixels/frame)
    int w, h;
    bool ellipse;
    uint8_t c0[3], c1[3]; // two-colour texture
    int stripe;           // stripe period in pixels (checker when negative)
    int start;            // first frame
  };
  float background(int x, int y, int c) const;
  float waving(float x, float y, int c) const;

  SequenceSpec spec_;
  std::vector<float> base_;   // static background, 3 floats per pixel
  std::vector<float> leaves_; // high-contrast texture of the waving region (tiled)
  int leaves_w_ = 0, leaves_h_ = 0;
  std::vector<Object> objects_;
};

// Luma (BT.601 integer weights) of a packed RGB image, as GRAY8 with `pad` bytes of row padding.
HostImage to_gray(const HostImage& rgb, size_t pad = 0);

// Pixel-level precision/recall/F-measure accumulated over frames.
struct FMeasure {
  int64_t tp = 0, fp = 0, fn = 0;
  void add(const uint8_t* mask, size_t pitch, const std::vector<uint8_t>& truth, int w, int h);
  double precision() const { return tp + fp ? double(tp) / double(tp + fp) : 0.0; }
  double recall() const { return tp + fn ? double(tp) / double(tp + fn) : 0.0; }
  double f() const {
    const double p = precision(), r = recall();
    return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
  }
};

} // namespace cvis::test

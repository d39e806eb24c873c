// Procedural KTH-like action clips: an articulated figure (capsule limbs) animated for one of six
// actions, over a textured or real-video background, with camera noise, jitter, gain flicker and
// (scenario 2) zoom. Used by gen_actions (the dataset generator) and by tests that need clips.
// Everything is a function of a seed: the same seed gives the same pixels.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace actiongen {

// The six KTH actions, in KTH's order.
inline const char* const kActions[6] = {"boxing",  "handclapping", "handwaving",
                                        "jogging", "running",      "walking"};

// What stays fixed for one person across actions and scenarios (KTH: 25 people).
struct Subject {
  double height = 0.75;           // body height / frame height
  double torso = 0.30, neck = 0.04, head_r = 0.065; // fractions of the body height
  double upper_arm = 0.17, forearm = 0.16, thigh = 0.245, shin = 0.235;
  double shoulder_w = 0.11, hip_w = 0.07; // frontal half widths
  double limb_r = 0.035, torso_r = 0.07;  // capsule radii
  double speed = 1.0;                     // cadence and translation factor
  double energy = 1.0;                    // amplitude factor of the movements
  float skin[3], shirt[3], trousers[3], shoes[3], hair[3];
  bool long_sleeves = true;
  int stripes = 0; // shirt texture: 0 plain, else stripe period in pixels
};

// A clip's setting (KTH scenarios: d1 outdoors, d2 outdoors with zoom, d3 outdoors in other
// clothes, d4 indoors); anything beyond the scenario's nature is drawn at random per clip.
struct ClipSpec {
  int action = 0;   // index into kActions
  int scenario = 1; // 1..4
  int width = 160, height = 120, frames = 100;
  double fps = 25;
  uint64_t seed = 1;
};

// One RGB background source: a still image or a video's frames, already at clip size.
struct BackgroundClip {
  int width = 0, height = 0;
  std::vector<std::vector<uint8_t>> frames; // RGB, width * height * 3 each
};

Subject make_subject(int index, uint64_t dataset_seed);

// Renders a whole clip (frames of width * height * 3 RGB bytes). `backgrounds` may be empty (then
// every background is procedural) or hold real images/videos to draw from.
std::vector<std::vector<uint8_t>> render_clip(const Subject& s, const ClipSpec& c,
                                              const std::vector<BackgroundClip>& backgrounds);

} // namespace actiongen

// Internals of the clip renderer shared by its two files (kinematics, rendering).
#pragma once

#include <cstdint>
#include <vector>

#include "actiongen.hpp"

namespace actiongen {

// splitmix64: the same numbers on every platform (std:: distributions are not specified).
struct Rng {
  uint64_t s;
  double uniform(double lo, double hi);
  double normal();
};

// A limb: the segment (x0, y0)-(x1, y1) thickened by r (pixels), one colour (linear 0..1), with
// horizontal stripes of period `stripes` pixels when non-zero.
struct Capsule {
  double x0, y0, x1, y1, r;
  float rgb[3];
  int stripes = 0;
};

// Where and how big the figure stands in the frame (frame pixels, before the camera zoom).
struct FigurePlace {
  double x = 0, ground_y = 0, height_px = 0;
  double facing = 1; // +1 right, -1 left (side views)
  bool coat = false; // scenario 3: a long coat over the hips
};

void random_clothes(Rng& r, Subject* s);
double action_frequency(int action); // movement cycles per second at speed 1
double action_speed(int action);     // translation in body heights per second (0: in place)
// Capsules of the figure doing `action` at movement phase `phi` (radians), far limbs first.
void figure_capsules(const Subject& s, int action, double phi, const FigurePlace& fp,
                     std::vector<Capsule>* out);

} // namespace actiongen

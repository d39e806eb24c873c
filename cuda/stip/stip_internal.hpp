// Front-end internals shared by the two backends: the ring geometry and the factory hooks.
#pragma once

#include <memory>

#include "stip.hpp"

namespace cvis::stip::detail {

// Sizes derived from the parameters, the same for both backends.
struct FrontEndGeometry {
  int radius = 0;      // detector_radius() r (frames): R_f needs S_{f-r} .. S_{f+r}
  bool harris = false; // Detector::kHarris
  int cell = 0;        // spatial cell (pixels)
  int cell_frames = 0; // temporal cell (frames); descriptor frames f - cell_frames .. f + cell_frames - 1
  int lag = 0;         // frame f is final at push f + lag
  int smooth_ring = 0; // S frames kept: 2 temporal_radius() + 1
  int harris_ring = 0; // Harris: frames of the 6 integrated products kept, 2 integration_radius() + 1
  int response_ring = 0; // R frames kept: R_{f-1} .. R_{n-r} when f = n - lag is final: lag - r + 2
  int vote_ring = 0;   // HoG/HoF vote frames kept: lag + cell_frames + 1
  int hof_bins = 0;    // HoF bins per cell: kHofBins, or kHofSpeedBins (speed split)
  int dim = 0;         // values per descriptor
  float speed_split = 0; // fe::hof_vote's split (0: none, the paper's bins)
};
FrontEndGeometry frontend_geometry(const FrontEndParams& p);

// Checks a pushed frame: size, 8-bit luma (GRAY8, NV12, I420 plane 0), memory space allowed.
Status validate_frame(const ImageView& v, int width, int height, bool device_ok);

// Sizes of the flow pyramid levels (level 0 = the frame).
void pyramid_sizes(int width, int height, int levels, int* w, int* h);

std::unique_ptr<FrontEnd> make_cpu_frontend();
std::unique_ptr<FrontEnd> make_cuda_frontend();

} // namespace cvis::stip::detail

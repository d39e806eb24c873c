// In-plane rotation of a target from the layout of its first window (not public; tracker only).
//
// The reported box of a turned target needs its rotation. The gradient structure tensor gives it
// only for anisotropic textures (rotation_box's gate); this estimator also works for textures whose
// gradients point every way: at the start, the region around the first box is described as a grid
// of small cells (their plane sums, one describe window each, once); the window that an axis-
// aligned search window of the target's size would cover if the target were turned by an angle is
// then a union of (fractions of) those cells, so its five part covariances can be made on the host
// for a set of angles, with the gradient features turned as well. Each frame, the angle whose
// made-up window is nearest (sum of the part distances minus the largest, as the search) to the
// matched window is the measurement. Host code only: both backends give the same sums.
#pragma once

#include <vector>

#include "rcdtrack_engine.hpp"

namespace cvis::rcdtrack {

// Every part's covariance with its Ix, Iy rows and columns turned by `angle` (rad): the covariance
// of the same texture turned in-plane by `angle` (Sobel gradients turn with the image, up to the
// filter's small anisotropy). Colours and luma are unchanged. False (out untouched) when the
// features lack signed Ix or Iy.
bool rotate_gradients(const Layout& layout, const std::vector<double>& cov, double angle,
                      std::vector<double>* out);

// The made-up covariances of the first window turned by each of `angles`.
struct RotationModels {
  std::vector<double> angles;
  std::vector<std::vector<double>> cov;  // per angle: parts x n x n, with the ridge
  std::vector<std::vector<double>> ldet; // per angle: each part's log-determinant
};

// The cells to describe around `init` (clipped to the frame; at least 2 x 2 pixels each). Empty
// when the layout cannot be turned (no signed Ix, Iy, or spatial features, whose sums are not
// kept).
std::vector<Box> rotation_cells(const Layout& layout, const Box& init, int frame_w, int frame_h);

// Appends to `pass` one integral over the cells' bounding box (cell size 1) and one describe group
// per cell (a window, no model), in the order of `cells`: one integral, not one per cell (merging
// hundreds of per-cell integrals costs host time when many targets start on one frame).
void add_cell_describes(Pass* pass, const std::vector<Box>& cells);

// Builds the models from the cells' plane sums (`sums[i]`: GroupResult::sums of cells[i]). False
// when a made-up matrix is not positive definite (e.g. a target at the frame's edge with too few
// cells inside).
bool make_rotation_models(const Layout& layout, const Box& init, const std::vector<Box>& cells,
                          const std::vector<std::vector<int64_t>>& sums, RotationModels* out);

// The angle whose model is nearest to `window_cov` (parts x n x n, no ridge; a matched window's
// GroupResult::cov); false when there are no models.
bool estimate_rotation(const Layout& layout, const RotationModels& m,
                       const std::vector<double>& window_cov, double* angle);

} // namespace cvis::rcdtrack

// Search planning shared by the tracker and the detector (not public): which windows a search
// evaluates, and on which integral image.
#pragma once

#include <vector>

#include "rcdtrack_engine.hpp"

namespace cvis::rcdtrack {

// Coarse grid step for a target of w x h pixels: `step` when > 0, else max(1, round(min(w, h) /
// 8)). `aligned` (targets that asked for it, Tracker::add_target) rounds the auto step down to a
// multiple of 4 from 8 pixels and of 2 from 4: a grid at least as fine, whose integrals have cells
// of 4 or 2 pixels (a sixteenth or a quarter of the bytes of cell 1).
int coarse_step(int step, double w, double h, bool aligned = false);
// Fine grid step for a coarse step: the largest power of two not above step / 4 (at least 1), so
// the fine integral's cell is the step itself (never finer than a quarter of the coarse step).
int fine_step(int step);
// Cell size of the integral for a grid step: the largest of 1, 2, 4, 8 that divides it.
int cell_for_step(int step);
// Size factors of a search: `scales` values geometric from scale_min to scale_max (one: 1 clamped
// into the range).
std::vector<double> scale_factors(const Params& p);
// Ratio between neighbouring factors (1.25 when there is one factor).
double scale_ratio(const Params& p);

// A search area: window centres within (rx, ry) pixels of (cx, cy), or the whole frame.
struct Area {
  double cx = 0.0, cy = 0.0;
  double rx = 0.0, ry = 0.0;
  bool whole_frame = false;
};

// Appends to `pass` the grids of one search (windows of factor * (w, h) for each factor, top-left
// corners on multiples of `step`, inside the frame and the area) and its integral (shared with an
// identical one already in the pass), then a group using them. Windows are whole cells of
// cell_for_step(step), at least 4 pixels and (with `parts` 5) 2 cells wide and high. False (pass
// unchanged) when no window fits the frame.
bool add_search(Pass* pass, const Area& area, double w, double h,
                const std::vector<double>& factors, int step, int parts, int frame_w, int frame_h,
                const GroupSpec& group_template);

// Replaces integrals of the same cell size by one over their bounding box wherever that box has
// no more cells than the two it replaces (overlapping search areas of nearby targets), and points
// the groups at the merged ones. Results do not change: box sums are exact integers, covariance
// numerators N S_ab - S_a S_b do not depend on the region's origin, and a window's context ring
// lies inside its own group's region (add_search's margin) or is clipped by the frame in both.
// Only the plane sums reported with a winner are relative to the (new) region's origin.
void merge_integrals(Pass* pass);

// Groups, integrals, pixels covered and windows of a pass.
PassStats pass_stats(const Pass& pass);

// Appends a group describing exactly `box` (inside the frame): one window, no model.
void add_describe(Pass* pass, const Box& box);

// Non-maximum suppression of hits ordered best first: a hit overlapping a kept one by more than
// `max_iou` is dropped; at most `limit` are kept.
std::vector<Hit> nms(const std::vector<Hit>& hits, double max_iou, int limit);

} // namespace cvis::rcdtrack

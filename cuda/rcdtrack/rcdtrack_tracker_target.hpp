// The tracker's per-target state and the two halves of Tracker::process() (not public):
// rcdtrack_tracker_search.cpp builds the frame's coarse pass (every target's search, plus the
// regions of targets starting on this frame) and its fine pass (around each coarse hit, finer sizes
// and a power-of-two step up to a quarter of it), both batched over all targets;
// rcdtrack_tracker_state.cpp updates each target from the passes' results: position, size,
// velocity, log-Euclidean model update, loss and re-acquisition.
#pragma once

#include <cstdint>
#include <vector>

#include "rcdtrack.hpp"
#include "rcdtrack_plan.hpp"
#include "rcdtrack_rotation.hpp"

namespace cvis::rcdtrack {

// The fine pass tries 2 * kFineHalf + 1 sizes spanning two coarse scale steps (one either side of
// the coarse hit: a coarse hit inside a textured target is often one step too small).
constexpr int kFineHalf = 4;
// Tracking frames after a re-acquisition without the scale prior: the size a target had when it
// was lost says little about the size it comes back at (it may have come nearer while hidden),
// and the window found again by the whole-frame search is often a part of it (the largest size
// tried, or the part that shows), which the prior would then hold.
constexpr int kFreeSizeFrames = 10;

// The reported box is turned by this share of the estimated rotation. The estimate errs on targets
// that do not turn (cars driving away in the tracking set's two dev splits: 0.11 rad on average,
// up to 0.5), and any error only widens the box; half of it gave both dev splits their best mean
// (cuda/rcdtrack/README.md, rotation_box).
constexpr double kReportedRotation = 0.5;

enum class Stage { kPending, kFromModel, kActive };

struct Tracker::Target {
  int id = 0;
  Stage stage = Stage::kPending;
  Box init;
  bool located = false;
  double cx = 0, cy = 0, w = 0, h = 0, w0 = 0, h0 = 0, vx = 0, vy = 0;
  double svx = 0, svy = 0; // slowly smoothed velocity of the confident frames (coast_frames)
  double vs = 0;           // smoothed per-frame change of ln(size) (scale_prediction)
  double bw = 0, bh = 0;   // this frame's search base size (the predicted size)
  double orient0 = 0;      // rotation_box: orientation of the first window's gradients (rad)
  bool oriented = false;   // the first window's gradients have an orientation
  double rot = 0;          // estimated in-plane rotation since the first frame (rad)
  std::vector<Box> cells;  // rotation_source: cells described around the first box
  int cell_group = -1;     // this frame (start): the first cell's describe group
  RotationModels rmodels;  // rotation_source: the first window turned by each angle
  bool lost = false;
  int lost_frames = 0;     // frames since it was lost
  double lost_radius = -1; // < 0: a lost target is searched over the whole frame
  bool aligned = false;    // auto coarse steps rounded down to multiples of 4 (2 under 8)
  // Tracking frames since its last re-acquisition, up to kFreeSizeFrames.
  int found_frames = kFreeSizeFrames;
  uint64_t age = 0;
  double distance = 0;
  double dref = 0;       // running distance over the confident tracking frames (0: none yet)
  bool coasting = false; // a frame above lost_threshold since the last confident one
  int uncertain_run = 0; // uncertain tracking frames since the last confident one (coast_frames)
  Box box;
  std::vector<double> cov;      // current model, ridged, n x n
  std::vector<double> log_cov;  // the running mean's matrix logarithm (update_rate > 0)
  std::vector<double> log_cov0; // the first model's (model_anchor > 0)
  ModelData data;
  // Template refinement: the first box's luma (tmpl_w x tmpl_h blocks, row-major).
  std::vector<uint8_t> tmpl;
  int tmpl_w = 0, tmpl_h = 0;
  // This frame.
  bool take_template = false;        // started: its template is taken from this frame's box
  int capture = -1;                  // its region in the frame's luma read-back
  bool refine = false;               // a confident tracking frame: the template refines its box
  int tmpl_first = 0, tmpl_jobs = 0; // its jobs in the template pass
  int group = -1;                    // coarse group (describe group for kPending)
  int fine_first = -1, fine_count = 0;
  int same_group = -1; // fine group of the predicted size alone (occlusion_ratio)
  int step = 1;
  Prior prior;
  // This frame, a lost target's local search (local_reacquire): coarse group, fine groups.
  int local_group = -1, local_fine = -1, local_fine_count = 0;
  int local_step = 1;
  Prior local_prior;
};

// The ratio between neighbouring sizes of the fine pass.
double fine_ratio(const Params& params);

// Fills `pass` with this frame's coarse searches of every target (a describe group for targets
// starting now) and records in each target which groups are its own.
void plan_coarse(const Params& params, const Layout& layout, int width, int height,
                 std::vector<Tracker::Target>* targets, Pass* pass);

// Fills `pass` with the fine searches around each target's coarse hits (`coarse_out`, the
// results of `coarse`) and records in each target which groups are its own.
void plan_fine(const Params& params, int width, int height, const Pass& coarse,
               const std::vector<GroupResult>& coarse_out, std::vector<Tracker::Target>* targets,
               Pass* pass);

// The frame's two passes and their results.
struct PassResults {
  const Pass& coarse;
  const std::vector<GroupResult>& coarse_out;
  const Pass& fine;
  const std::vector<GroupResult>& fine_out;
};

// A pending target's first frame: its model from the describe group of the coarse pass. An
// internal error when the ridged covariance is not positive definite.
Status start_target(const Params& params, const Layout& layout, const PassResults& passes,
                    Tracker::Target* t);

// A started target's state after this frame's passes; res->event says what happened (unchanged
// when the target tracked or stayed lost).
void update_target(const Params& params, const Layout& layout, int width, int height,
                   const PassResults& passes, Tracker::Target* t, TargetResult* res);

// The frame-clipped axis-aligned box of a w x h rectangle centred on (cx, cy) and rotated by
// `rot` (rot 0: the rectangle itself).
Box rotated_box(double cx, double cy, double w, double h, double rot, int frame_w, int frame_h);

// Template refinement (rcdtrack_template.cpp). After the targets' update: the luma regions of the
// targets started this frame (their templates), then, for every target tracked with confidence
// this frame and away from the frame's border, template jobs around its box at its size and 8%
// either side; the best correlation, when high enough, moves the box's centre to where the first
// frame's appearance matches best (the size stays the windows').
void plan_capture(std::vector<Tracker::Target>* targets, std::vector<LumaRegion>* regions);
void take_templates(const std::vector<LumaRegion>& regions, const std::vector<uint8_t>& luma,
                    std::vector<Tracker::Target>* targets);
void plan_templates(int width, int height, std::vector<Tracker::Target>* targets,
                    TemplatePass* pass);
void apply_templates(int width, int height, const TemplatePass& pass,
                     const std::vector<TemplateHit>& hits, std::vector<Tracker::Target>* targets);

} // namespace cvis::rcdtrack

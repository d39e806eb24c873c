// The backend interface of cuda/rcdtrack (not public): an Engine evaluates batched search passes on
// one frame. A pass lists integral images (a region of the frame at a cell size), window grids,
// groups (one target's search: its grids, model, prior and how many hits to keep) and models. The
// CPU engine is the reference; the CUDA engine computes the same values (rcdtrack_math.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "rcdtrack.hpp"
#include "rcdtrack_math.hpp"

namespace cvis::rcdtrack {

// Layout of a validated feature set with the ridge of `ridge` and `parts` covariances per window.
Layout make_layout(const FeatureSet& f, double ridge, int parts);

// An integral image of the region x .. x + cols*cell, y .. y + rows*cell (inside the frame), built
// from cell sums of `cell` x `cell` pixels (cell = 1, 2, 4 or 8).
struct IntegralSpec {
  int x = 0, y = 0, cols = 0, rows = 0, cell = 1;
};

// Windows of ww x wh pixels with top-left corners x0 + i*step, y0 + j*step (0 <= i < nx,
// 0 <= j < ny), frame coordinates. Corners and sizes are whole cells of the group's integral.
struct GridSpec {
  int x0 = 0, y0 = 0, nx = 1, ny = 1, step = 1, ww = 2, wh = 2;
  double factor = 1.0;    // size relative to the target (reported)
  double ln_factor = 0.0; // its logarithm (scale prior)
};

struct GroupSpec {
  int integral = 0;
  int model = -1; // index into Pass::models; -1: no model, distance 0 (describe a region)
  int first_grid = 0, grid_count = 0;
  Prior prior;
  int top_k = 1;         // 1..kMaxTopK
  double threshold = -1; // >= 0: also collect every window whose distance is under it
};

struct Pass {
  std::vector<IntegralSpec> integrals;
  std::vector<GridSpec> grids;
  std::vector<GroupSpec> groups;
  std::vector<ModelData> models;
};

struct Hit {
  double score = HUGE_VAL, distance = HUGE_VAL;
  int64_t index = -1; // window index in the group: grids in order, row-major within a grid
  int grid = -1;      // index into Pass::grids
  Box box;
};

struct GroupResult {
  std::vector<Hit> top;      // best first (hit_before), at most top_k
  std::vector<double> cov;   // of top[0]: parts x n x n row-major, scale-normalised, no ridge
  std::vector<int64_t> sums; // of top[0]: the plane sums, then the pixel count
  std::vector<Hit> below;    // threshold >= 0: the windows under it, ordered by hit_before
  bool overflow = false;     // more than kMaxCandidates were under it (below is then a subset)
};

// Template matching (the tracker's refinement, rcdtrack_ncc.hpp): a grey template of tw x th
// samples compared by normalised cross-correlation with the frame's luma blocks (means of stride x
// stride pixels) at every offset (ox, oy), 0 <= ox < nx, 0 <= oy < ny: template sample (i, j)
// against the block at (x0 + (ox + i) * stride, y0 + (oy + j) * stride). Every block of a job lies
// inside the frame; tw, th <= kMaxTemplateSide, nx, ny <= kMaxOffsetSide.
struct TemplateJob {
  int x0 = 0, y0 = 0, nx = 1, ny = 1, tw = 1, th = 1, stride = 1;
  int64_t first = 0; // its first sample in TemplatePass::samples (row-major)
};

struct TemplatePass {
  std::vector<TemplateJob> jobs;
  std::vector<uint8_t> samples;
};

struct TemplateHit {
  double score = -2.0; // ncc_score; -2: flat everywhere
  int index = -1;      // the best offset, oy * nx + ox (ncc_before)
};

// Luma blocks read back (to take a template): cols x rows means of stride x stride pixels from
// (x, y), inside the frame.
struct LumaRegion {
  int x = 0, y = 0, cols = 1, rows = 1, stride = 1;
};

class Engine {
public:
  virtual ~Engine() = default;
  virtual Backend backend() const = 0;
  // Frames of width x height in `format` (any cvis format; validated by the caller).
  virtual Status configure(const Layout& layout, Distance distance, int width, int height,
                           PixelFormat format) = 0;
  // The frame the next run()s search (host view, or device view for the CUDA engine). The view
  // must stay valid until the last run() on it has returned.
  virtual Status set_frame(const ImageView& frame, StreamHandle stream) = 0;
  // Evaluates every window of `pass` on the current frame; one result per group. Synchronous.
  virtual Status run(const Pass& pass, std::vector<GroupResult>* out, StreamHandle stream) = 0;
  // Every job of `pass` on the current frame: its best offset. Synchronous.
  virtual Status match_templates(const TemplatePass& pass, std::vector<TemplateHit>* out,
                                 StreamHandle stream) = 0;
  // The luma blocks of every region on the current frame, region after region (row-major).
  // Synchronous.
  virtual Status read_luma(const std::vector<LumaRegion>& regions, std::vector<uint8_t>* out,
                           StreamHandle stream) = 0;
};

std::unique_ptr<Engine> make_cpu_engine();
#ifdef CVIS_HAVE_CUDA
std::unique_ptr<Engine> make_cuda_engine();
#endif

// Checks that a pass is consistent with the layout and a width x height frame (kInternal: the
// planners build passes, so an inconsistent one is a bug). With five parts, windows of groups with
// a model must be at least 2 x 2 cells.
Status validate_pass(const Pass& pass, const Layout& layout, int width, int height);
// Checks a template pass or luma regions against a width x height frame (kInternal, as above).
Status validate_templates(const TemplatePass& pass, int width, int height);
Status validate_regions(const std::vector<LumaRegion>& regions, int width, int height);
// The CPU reference (rcdtrack_template.cpp) of Engine::match_templates and Engine::read_luma.
void match_templates_cpu(const PixelSource& src, const TemplatePass& pass,
                         std::vector<TemplateHit>* out);
void read_luma_cpu(const PixelSource& src, const std::vector<LumaRegion>& regions,
                   std::vector<uint8_t>* out);
// Windows in a group (sum of nx * ny of its grids).
int64_t group_windows(const Pass& pass, const GroupSpec& g);
// The box of window `index` of group g (index < group_windows), and its grid.
Box window_box(const Pass& pass, const GroupSpec& g, int64_t index, int* grid);

// The prepared form of a model's covariances (layout.parts x n x n, row-major, without the ridge).
// False when a ridged matrix is not positive definite or the size is wrong.
bool prepare_model(const Layout& layout, const std::vector<double>& cov, ModelData* out);
// Ridge added to (or, with sign -1, removed from) every part's covariance, in place.
void add_ridge(const Layout& layout, std::vector<double>* cov, double sign = 1.0);

// Host matrix functions of symmetric positive definite n x n matrices (row-major): eigen-
// decomposition by cyclic Jacobi rotations, and the matrix logarithm and exponential built on it
// (log-Euclidean model update: exp((1 - r) log A + r log B)).
void sym_eigen(int n, const std::vector<double>& a, std::vector<double>* values,
               std::vector<double>* vectors); // vectors: column k belongs to values[k]
std::vector<double> sym_log(int n, const std::vector<double>& a); // a must be positive definite
std::vector<double> sym_exp(int n, const std::vector<double>& l);

// Plane sums of box (x, y, w, h), frame coordinates, computed directly from the pixels (for tests:
// the exact sums that every integral must reproduce), then the pixel count.
std::vector<int64_t> brute_force_sums(const ImageView& frame, const Layout& layout, const Box& box,
                                      int region_x, int region_y);

} // namespace cvis::rcdtrack

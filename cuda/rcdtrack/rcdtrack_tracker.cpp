// The tracker: per frame one coarse pass (every target's search at `scales` sizes on the coarse
// grid, plus the regions of targets starting on this frame) and one fine pass (around each coarse
// hit, finer sizes and a power-of-two step up to a quarter of it), both batched over all targets;
// then the state of each target: position, size, velocity, log-Euclidean model update, loss and
// re-acquisition.
#include <algorithm>
#include <cmath>
#include <string>

#include "rcdtrack_plan.hpp"
#include "rcdtrack_rotation.hpp"

namespace cvis::rcdtrack {

namespace {

// A target whose best window is under this fraction of lost_threshold updates its model: windows
// nearer the threshold are likely partly occluded, and learning them would drift the model.
constexpr double kUpdateGate = 0.5;
// A lost target is re-acquired only by a window nearer than this fraction of lost_threshold: a
// whole-frame search offers many more candidates than a tracking search, so a chance match must be
// rarer (hysteresis between losing and finding).
constexpr double kReacquireGate = 0.5;
// local_reacquire: a lost target's search around where it was last seen accepts a window nearer
// than this fraction of lost_threshold: between the tracking gate (1) and the whole-frame gate
// (kReacquireGate), as that area holds fewer chance matches than the frame but more than the
// tracking search; at 1 it took the background and a passing distractor (DEV sequences).
constexpr double kLocalGate = 0.75;
// That area is search_radius target sizes times sqrt(1 + frames lost), at most this factor: the
// position's uncertainty grows while the target is unseen, but a wide area finds background
// matches (unbounded, the DEV sequences' frame-edge exits were taken by far background windows).
constexpr double kLocalWidenMax = 2.0;
// rotation_box: the gradient structure tensor (the Ix, Iy block of a window's covariance) gives an
// orientation only when it is anisotropic, (l1 - l2) / (l1 + l2) at least this (both the first
// model's and the window's); a nearly isotropic texture leaves the rotation as it was.
constexpr double kMinAnisotropy = 0.1;
// Smoothing of the estimated rotation: r = r + a * (measured - r), angles wrapped to half turns.
constexpr double kRotationGain = 0.5;
// Velocity smoothing: v = (1 - a) v + a * displacement.
constexpr double kVelocityGain = 0.5;
// The fine pass tries 2 * kFineHalf + 1 sizes spanning two coarse scale steps (one either side of
// the coarse hit: a coarse hit inside a textured target is often one step too small).
constexpr int kFineHalf = 4;
// occlusion_ratio: a frame is uncertain only above this fraction of lost_threshold as well (the
// running distance of a target that matches almost exactly is near 0, and small changes of its
// appearance are not occlusions)...
constexpr double kOcclusionFloor = 0.25;
// ...and always above this fraction: a target tracked at large distances (a textureless or
// articulated one, or one already partly lost) would otherwise never be uncertain (DEV sequences:
// without it the second occlusion of a target whose running distance had risen shrank its box).
constexpr double kOcclusionCap = 0.5;
// An uncertain frame whose best window of another size is nearer than (1 - this) times the best
// window of the predicted size is a size change after all (a target shrinking fast is far from
// its model at the old size, as an occluded one is; DEV: without it a running distance ratio of 3
// froze the size of a shrinking target).
constexpr double kSizeMargin = 0.35;
// The running distance: d = (1 - a) d + a * distance over the confident tracking frames.
constexpr double kDistanceGain = 0.1;
// coast_frames: the velocity an uncertain frame coasts with, smoothed over the confident frames
// with this gain (the tracking velocity, kVelocityGain, follows the window's jitter).
constexpr double kCoastGain = 0.1;
// coast_frames: a tracking frame up to this many times lost_threshold coasts; farther, the target
// is lost (the search area holds nothing like it: it left, or the prediction is wrong).
constexpr double kCoastMax = 2.0;

} // namespace

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
  // This frame.
  int group = -1; // coarse group (describe group for kPending)
  int fine_first = -1, fine_count = 0;
  int same_group = -1; // fine group of the predicted size alone (occlusion_ratio)
  int step = 1;
  Prior prior;
  // This frame, a lost target's local search (local_reacquire): coarse group, fine groups.
  int local_group = -1, local_fine = -1, local_fine_count = 0;
  int local_step = 1;
  Prior local_prior;
};

namespace {

// Log-Euclidean running mean: log A <- (1 - r) log A + r log B, B the matched window's covariance
// with the ridge (both positive definite).
void update_model(const Layout& layout, double rate, double anchor,
                  const std::vector<double>& matched, Tracker::Target* t);

} // namespace

struct Tracker::Impl {
  std::vector<Target> targets;
  Pass coarse, fine;
  std::vector<GroupResult> coarse_out, fine_out;
  Layout layout;
};

namespace {

void update_model(const Layout& layout, double rate, double anchor,
                  const std::vector<double>& matched, Tracker::Target* t) {
  const int n = layout.n;
  const size_t nn = static_cast<size_t>(n) * n;
  std::vector<double> b = matched;
  add_ridge(layout, &b);
  if (t->log_cov.empty()) {
    t->log_cov.resize(t->cov.size());
    for (int p = 0; p < layout.parts; ++p) {
      const std::vector<double> a(t->cov.begin() + p * nn, t->cov.begin() + (p + 1) * nn);
      const std::vector<double> la = sym_log(n, a);
      std::copy(la.begin(), la.end(), t->log_cov.begin() + p * nn);
    }
    t->log_cov0 = t->log_cov; // the first update: the model is still the first one
  }
  std::vector<double> next(t->cov.size());
  for (int p = 0; p < layout.parts; ++p) {
    const std::vector<double> bp(b.begin() + p * nn, b.begin() + (p + 1) * nn);
    const std::vector<double> lb = sym_log(n, bp);
    for (size_t k = 0; k < nn; ++k)
      t->log_cov[p * nn + k] = (1.0 - rate) * t->log_cov[p * nn + k] + rate * lb[k];
    std::vector<double> lp(t->log_cov.begin() + p * nn, t->log_cov.begin() + (p + 1) * nn);
    if (anchor > 0.0)
      for (size_t k = 0; k < nn; ++k)
        lp[k] = (1.0 - anchor) * lp[k] + anchor * t->log_cov0[p * nn + k];
    const std::vector<double> a = sym_exp(n, lp);
    std::copy(a.begin(), a.end(), next.begin() + p * nn);
  }
  std::vector<double> unridged = next;
  add_ridge(layout, &unridged, -1.0);
  ModelData d;
  if (prepare_model(layout, unridged, &d)) { // keeps the old model if the new one were singular
    t->cov = next;
    t->data = d;
  }
}

// rotation_box: orientation (rad, in (-pi/2, pi/2]) and anisotropy of the Ix, Iy block of the
// whole window's covariance (part 0), the structure tensor of the window's gradients: it turns
// with the target. False when the features lack signed Ix or Iy.
bool gradient_orientation(const Layout& layout, const std::vector<double>& cov, double* angle,
                          double* anisotropy) {
  int ix = -1, iy = -1;
  for (int k = 0; k < layout.n; ++k) {
    if (layout.kind[k] == static_cast<uint8_t>(Feature::kIx))
      ix = k;
    if (layout.kind[k] == static_cast<uint8_t>(Feature::kIy))
      iy = k;
  }
  if (ix < 0 || iy < 0 || cov.size() < static_cast<size_t>(layout.n) * layout.n)
    return false;
  const double a = cov[ix * layout.n + ix], c = cov[iy * layout.n + iy];
  const double b = cov[ix * layout.n + iy];
  if (!(a + c > 0.0))
    return false;
  *angle = 0.5 * std::atan2(2.0 * b, a - c);
  *anisotropy = std::sqrt((a - c) * (a - c) + 4.0 * b * b) / (a + c);
  return true;
}

// An angle difference wrapped to [-pi/2, pi/2) (orientations are defined up to half turns).
double wrap_half_turn(double d) {
  const double pi = 3.14159265358979323846;
  d = std::fmod(d + 0.5 * pi, pi);
  if (d < 0.0)
    d += pi;
  return d - 0.5 * pi;
}

// The frame-clipped axis-aligned box of a w x h rectangle centred on (cx, cy) and rotated by
// `rot` (rot 0: the rectangle itself).
Box rotated_box(double cx, double cy, double w, double h, double rot, int frame_w, int frame_h) {
  const double c = std::fabs(std::cos(rot)), s = std::fabs(std::sin(rot));
  const double bw = w * c + h * s, bh = w * s + h * c;
  const int x0 = std::max(0, static_cast<int>(std::lround(cx - 0.5 * bw)));
  const int y0 = std::max(0, static_cast<int>(std::lround(cy - 0.5 * bh)));
  const int x1 = std::min(frame_w, static_cast<int>(std::lround(cx + 0.5 * bw)));
  const int y1 = std::min(frame_h, static_cast<int>(std::lround(cy + 0.5 * bh)));
  return {x0, y0, std::max(1, x1 - x0), std::max(1, y1 - y0)};
}

} // namespace

Tracker::Tracker(std::unique_ptr<Engine> engine)
    : engine_(std::move(engine)), impl_(std::make_unique<Impl>()) {}
Tracker::~Tracker() = default;

Backend Tracker::backend() const {
  return engine_->backend();
}

Status Tracker::configure(const Params& params, int width, int height, PixelFormat format) {
  configured_ = false;
  CVIS_RETURN_IF_ERROR(validate(params));
  if (width < 8 || height < 8 || width > kMaxDimension || height > kMaxDimension)
    return invalid_argument("frame size " + std::to_string(width) + "x" + std::to_string(height) +
                            " not in 8..16384");
  impl_->layout = make_layout(params.features, params.ridge, params.parts);
  CVIS_RETURN_IF_ERROR(engine_->configure(impl_->layout, params.distance, width, height, format));
  params_ = params;
  width_ = width;
  height_ = height;
  impl_->targets.clear();
  configured_ = true;
  return Status::Ok();
}

Status Tracker::update_params(const Params& params) {
  CVIS_RETURN_IF_ERROR(validate(params));
  if (!(params.features == params_.features) || params.distance != params_.distance ||
      params.ridge != params_.ridge || params.parts != params_.parts)
    return invalid_argument("features, distance, parts and ridge change only with configure()");
  params_ = params;
  return Status::Ok();
}

void Tracker::reset() {
  impl_->targets.clear();
}

int Tracker::target_count() const {
  return static_cast<int>(impl_->targets.size());
}

Status Tracker::add_target(int id, const Box& box, double lost_radius, bool aligned_steps) {
  if (!configured_)
    return internal_error("add_target before configure");
  for (const Target& t : impl_->targets)
    if (t.id == id)
      return invalid_argument("target id " + std::to_string(id) + " is in use");
  const Box in = clip_box(box, width_, height_);
  if (in.w < kMinTargetSide || in.h < kMinTargetSide)
    return invalid_argument("box " + std::to_string(box.x) + "," + std::to_string(box.y) + "," +
                            std::to_string(box.w) + "," + std::to_string(box.h) +
                            " leaves less than 4x4 pixels inside the " + std::to_string(width_) +
                            "x" + std::to_string(height_) + " frame");
  Target t;
  t.id = id;
  t.init = in;
  t.lost_radius = lost_radius;
  t.aligned = aligned_steps;
  impl_->targets.push_back(t);
  return Status::Ok();
}

Status Tracker::add_target_model(int id, const Model& model) {
  if (!configured_)
    return internal_error("add_target_model before configure");
  for (const Target& t : impl_->targets)
    if (t.id == id)
      return invalid_argument("target id " + std::to_string(id) + " is in use");
  if (!(model.features == params_.features) || model.parts != params_.parts)
    return invalid_argument("model features " + feature_names(model.features) + ", parts " +
                            std::to_string(model.parts) + " differ from the tracker's " +
                            feature_names(params_.features) + ", " + std::to_string(params_.parts));
  if (model.width < 4 || model.height < 4 || model.width > width_ || model.height > height_)
    return invalid_argument("model size does not fit the frame");
  Target t;
  t.id = id;
  t.stage = Stage::kFromModel;
  t.lost = true;
  t.cov = model.cov;
  add_ridge(impl_->layout, &t.cov);
  if (!prepare_model(impl_->layout, model.cov, &t.data))
    return invalid_argument("model covariance is not positive definite");
  t.w = t.w0 = model.width;
  t.h = t.h0 = model.height;
  t.cx = 0.5 * width_;
  t.cy = 0.5 * height_;
  impl_->targets.push_back(t);
  return Status::Ok();
}

bool Tracker::remove_target(int id) {
  auto& ts = impl_->targets;
  auto it = std::find_if(ts.begin(), ts.end(), [id](const Target& t) { return t.id == id; });
  if (it == ts.end())
    return false;
  ts.erase(it);
  return true;
}

Status Tracker::get_model(int id, Model* out) const {
  for (const Target& t : impl_->targets) {
    if (t.id != id || t.cov.empty())
      continue;
    out->features = params_.features;
    out->parts = params_.parts;
    out->width = std::max(4, static_cast<int>(std::lround(t.w)));
    out->height = std::max(4, static_cast<int>(std::lround(t.h)));
    out->cov = t.cov;
    add_ridge(impl_->layout, &out->cov, -1.0);
    return Status::Ok();
  }
  return invalid_argument("no started target with id " + std::to_string(id));
}

Status Tracker::process(const ImageView& frame, StreamHandle stream,
                        std::vector<TargetResult>* out) {
  if (!configured_)
    return internal_error("process before configure");
  CVIS_RETURN_IF_ERROR(engine_->set_frame(frame, stream));
  Impl& im = *impl_;
  const std::vector<double> factors = scale_factors(params_);
  const double fine_q = std::pow(scale_ratio(params_), 1.0 / kFineHalf);

  // Coarse pass: every target's search, and the regions of targets starting now.
  Pass& cp = im.coarse;
  cp = Pass();
  for (Target& t : im.targets) {
    t.group = -1;
    t.fine_count = 0;
    t.same_group = -1;
    t.local_group = -1;
    t.local_fine_count = 0;
    if (t.stage == Stage::kPending) {
      t.group = static_cast<int>(cp.groups.size());
      add_describe(&cp, t.init);
      t.cells.clear();
      t.cell_group = -1;
      if (params_.rotation_box && params_.rotation_source != RotationSource::kTensor) {
        t.cells = rotation_cells(im.layout, t.init, width_, height_);
        t.cell_group = static_cast<int>(cp.groups.size());
        add_cell_describes(&cp, t.cells);
      }
      continue;
    }
    GroupSpec g;
    g.model = static_cast<int>(cp.models.size());
    g.top_k = params_.top_k;
    Area area;
    t.prior = Prior();
    // Search sizes are factors of the predicted size (the current one unless scale_prediction).
    const double ps = t.lost ? 1.0 : std::exp(t.vs);
    t.bw = t.w * ps;
    t.bh = t.h * ps;
    t.prior.w = t.bw;
    t.prior.h = t.bh;
    if ((t.lost && t.lost_radius < 0.0) || params_.search_radius < 0.0) {
      area.whole_frame = true;
      t.prior.cx = t.cx;
      t.prior.cy = t.cy;
    } else if (t.lost) { // around where it was last seen
      area.cx = t.prior.cx = t.cx;
      area.cy = t.prior.cy = t.cy;
      area.rx = t.lost_radius * t.w;
      area.ry = t.lost_radius * t.h;
    } else {
      area.cx = t.cx + t.vx;
      area.cy = t.cy + t.vy;
      area.rx = params_.search_radius * t.bw;
      area.ry = params_.search_radius * t.bh;
      t.prior.cx = area.cx;
      t.prior.cy = area.cy;
    }
    if (!t.lost) {
      t.prior.motion_weight = params_.motion_weight;
      t.prior.scale_weight = params_.scale_weight;
    }
    t.prior.context_weight = params_.context_weight; // whole-frame searches too
    g.prior = t.prior;
    t.step = coarse_step(params_.step, t.bw, t.bh, t.aligned);
    // A lost target's search (the whole frame, or lost_radius target sizes around where it was
    // last seen: 3 by default in the element, 7^2 times a tracking search's area) on a twice
    // coarser grid (auto step): the fine pass still refines the best window, and lost targets
    // otherwise dominate the frame's cost (half the windows of the street full chain).
    if (t.lost && params_.step == 0)
      t.step = coarse_step(0, 2 * t.bw, 2 * t.bh, t.aligned);
    if (add_search(&cp, area, t.bw, t.bh, factors, t.step, params_.parts, width_, height_, g)) {
      t.group = static_cast<int>(cp.groups.size()) - 1;
      cp.models.push_back(t.data);
    }
    // A lost target is most likely still near where it was last seen (a partial occlusion, a
    // short disappearance): search there too, with the tracking priors (the motion prior
    // weakened as the area widens, the scale prior keeping the size it had before it was lost),
    // so that it is found again under kLocalGate instead of waiting for a whole-frame match
    // under kReacquireGate (which a passing distractor can delay for a long time). Only where the
    // lost search is the whole frame: targets with a lost radius (init-roi-type) are already
    // searched there, and a second search of the same area doubled their cost in the full chain.
    if (t.lost && t.located && params_.local_reacquire && area.whole_frame) {
      const double widen = std::min(kLocalWidenMax, std::sqrt(1.0 + t.lost_frames));
      GroupSpec lg;
      lg.model = static_cast<int>(cp.models.size());
      lg.top_k = params_.top_k;
      t.local_prior = Prior();
      t.local_prior.cx = t.cx;
      t.local_prior.cy = t.cy;
      t.local_prior.w = t.bw;
      t.local_prior.h = t.bh;
      t.local_prior.motion_weight = params_.motion_weight / (widen * widen);
      t.local_prior.scale_weight = params_.scale_weight;
      t.local_prior.context_weight = params_.context_weight;
      lg.prior = t.local_prior;
      Area la;
      la.whole_frame = params_.search_radius < 0.0;
      la.cx = t.cx;
      la.cy = t.cy;
      la.rx = params_.search_radius * t.bw * widen;
      la.ry = params_.search_radius * t.bh * widen;
      t.local_step = coarse_step(params_.step, t.bw, t.bh, t.aligned);
      if (add_search(&cp, la, t.bw, t.bh, factors, t.local_step, params_.parts, width_, height_,
                     lg)) {
        t.local_group = static_cast<int>(cp.groups.size()) - 1;
        cp.models.push_back(t.data);
      }
    }
  }
  merge_integrals(&cp);
  stats_ = FrameStats();
  stats_.coarse = pass_stats(cp);
  if (!cp.groups.empty())
    CVIS_RETURN_IF_ERROR(engine_->run(cp, &im.coarse_out, stream));

  // Fine pass: around each coarse hit, sizes within one coarse scale step either side, a step of
  // the largest power of two up to a quarter of the coarse one (fine_step).
  Pass& fp = im.fine;
  fp = Pass();
  // Appends the fine searches around the hits of coarse group `r` (model `model` of the fine
  // pass); returns how many fitted.
  auto add_fine = [&](const Target& t, const GroupResult& r, const Prior& prior, int step,
                      int model) {
    GroupSpec g;
    g.model = model;
    g.prior = prior;
    const int fstep = fine_step(step);
    int count = 0;
    for (const Hit& hit : r.top) {
      if (hit.grid < 0)
        continue;
      const double f = cp.grids[hit.grid].factor;
      std::vector<double> ff;
      for (int j = -kFineHalf; j <= kFineHalf; ++j) {
        const double v = f * std::pow(fine_q, j);
        if (v >= params_.scale_min * (1 - 1e-9) && v <= params_.scale_max * (1 + 1e-9))
          ff.push_back(v);
      }
      Area area;
      area.cx = hit.box.x + 0.5 * hit.box.w;
      area.cy = hit.box.y + 0.5 * hit.box.h;
      area.rx = area.ry = step;
      if (add_search(&fp, area, t.bw, t.bh, ff, fstep, params_.parts, width_, height_, g))
        ++count;
    }
    return count;
  };
  for (Target& t : im.targets) {
    if (t.stage == Stage::kPending || (t.group < 0 && t.local_group < 0))
      continue;
    const int model = static_cast<int>(fp.models.size());
    fp.models.push_back(t.data);
    if (t.group >= 0) {
      t.fine_first = static_cast<int>(fp.groups.size());
      t.fine_count = add_fine(t, im.coarse_out[t.group], t.prior, t.step, model);
      // The predicted size alone around the coarse hit: the window an uncertain frame takes
      // (occlusion_ratio).
      const GroupResult& r = im.coarse_out[t.group];
      if (!t.lost && params_.occlusion_ratio > 0.0 && !r.top.empty() && r.top[0].grid >= 0) {
        GroupSpec g;
        g.model = model;
        g.prior = t.prior;
        Area area;
        area.cx = r.top[0].box.x + 0.5 * r.top[0].box.w;
        area.cy = r.top[0].box.y + 0.5 * r.top[0].box.h;
        area.rx = area.ry = t.step;
        if (add_search(&fp, area, t.bw, t.bh, {1.0}, fine_step(t.step), params_.parts, width_,
                       height_, g))
          t.same_group = static_cast<int>(fp.groups.size()) - 1;
      }
    }
    if (t.local_group >= 0) {
      t.local_fine = static_cast<int>(fp.groups.size());
      t.local_fine_count =
          add_fine(t, im.coarse_out[t.local_group], t.local_prior, t.local_step, model);
    }
  }
  merge_integrals(&fp);
  stats_.fine = pass_stats(fp);
  if (!fp.groups.empty())
    CVIS_RETURN_IF_ERROR(engine_->run(fp, &im.fine_out, stream));

  // Target states.
  out->clear();
  for (Target& t : im.targets) {
    TargetResult res;
    res.id = t.id;
    if (t.stage == Stage::kPending) {
      const GroupResult& r = im.coarse_out[t.group];
      t.cov = r.cov;
      add_ridge(im.layout, &t.cov);
      if (!prepare_model(im.layout, r.cov, &t.data))
        return internal_error("ridged covariance not positive definite");
      t.log_cov.clear();
      double an = 0.0;
      t.oriented = gradient_orientation(im.layout, r.cov, &t.orient0, &an) && an >= kMinAnisotropy;
      t.rot = 0.0;
      t.rmodels = RotationModels();
      const bool need_layout = params_.rotation_source != RotationSource::kFallback || !t.oriented;
      if (!t.cells.empty() && need_layout) {
        std::vector<std::vector<int64_t>> sums;
        for (size_t i = 0; i < t.cells.size(); ++i)
          sums.push_back(im.coarse_out[t.cell_group + i].sums);
        if (!make_rotation_models(im.layout, t.init, t.cells, sums, &t.rmodels))
          t.rmodels = RotationModels();
      }
      t.stage = Stage::kActive;
      t.located = true;
      t.box = t.init;
      t.cx = t.init.x + 0.5 * t.init.w;
      t.cy = t.init.y + 0.5 * t.init.h;
      t.w = t.w0 = t.init.w;
      t.h = t.h0 = t.init.h;
      t.age = 0;
      t.distance = 0.0;
      res.event = Event::kStarted;
    } else {
      ++t.age;
      // The best fine hit (the coarse one when no fine search fitted).
      struct Found {
        const Hit* best = nullptr;
        const GroupResult* from = nullptr;
        double factor = 1.0;
      };
      auto find = [&](int fine_first, int fine_count, int coarse_group) {
        Found b;
        for (int k = 0; k < fine_count; ++k) {
          const GroupResult& r = im.fine_out[fine_first + k];
          if (!r.top.empty() && (!b.best || r.top[0].score < b.best->score)) {
            b.best = &r.top[0];
            b.from = &r;
            b.factor = fp.grids[b.best->grid].factor;
          }
        }
        if (!b.best && coarse_group >= 0 && !im.coarse_out[coarse_group].top.empty()) {
          b.from = &im.coarse_out[coarse_group];
          b.best = &b.from->top[0];
          b.factor = cp.grids[b.best->grid].factor;
        }
        return b;
      };
      Found found = find(t.fine_first, t.fine_count, t.group);
      // occlusion_ratio: a tracking match above this distance is uncertain.
      const double confident =
          params_.occlusion_ratio > 0.0 && t.dref > 0.0
              ? params_.lost_threshold *
                    std::clamp(params_.occlusion_ratio * t.dref / params_.lost_threshold,
                               kOcclusionFloor, kOcclusionCap)
              : HUGE_VAL;
      double gate = t.lost ? kReacquireGate * params_.lost_threshold : params_.lost_threshold;
      if (t.local_group >= 0) { // a lost target: near where it was last seen, kLocalGate
        const Found local = find(t.local_fine, t.local_fine_count, t.local_group);
        if (local.best && local.best->distance <= kLocalGate * params_.lost_threshold) {
          found = local;
          gate = kLocalGate * params_.lost_threshold;
        }
      }
      const Hit* best = found.best;
      const GroupResult* from = found.from;
      double factor = found.factor;
      t.distance = best ? best->distance : HUGE_VAL;
      // coast_frames: a tracking frame above the gate that follows an uncertain one (an
      // occlusion building up; a sudden jump, e.g. a camera shake, is lost and searched widely)
      // is uncertain instead of lost, and coasts at the predicted centre.
      const bool coast = !t.lost && params_.coast_frames > 0 && confident < HUGE_VAL &&
                         t.uncertain_run > 0 && t.uncertain_run < params_.coast_frames;
      const bool over =
          best && best->distance > gate && best->distance <= kCoastMax * gate && coast;
      const bool match = best && (best->distance <= gate || over);
      // occlusion_ratio: an uncertain tracking frame takes the best window of the predicted size,
      // unless a window of another size is clearly nearer (kSizeMargin).
      bool uncertain = match && !t.lost && best->distance > confident;
      const GroupResult* same = t.same_group >= 0 && !im.fine_out[t.same_group].top.empty()
                                    ? &im.fine_out[t.same_group]
                                    : nullptr;
      // While coasting a window of another size is no size change (DEV: the size exception took
      // a window off the half-hidden target).
      if (uncertain && !over && !t.coasting && same &&
          best->distance < (1.0 - kSizeMargin) * same->top[0].distance)
        uncertain = false;
      if (uncertain && same) {
        best = &same->top[0];
        from = same;
        factor = fp.grids[best->grid].factor;
      }
      if (t.lost && !match)
        ++t.lost_frames;
      if (!t.lost && !match) {
        t.lost = true;
        t.lost_frames = 0;
        t.vx = t.vy = t.vs = t.svx = t.svy = 0.0;
        res.event = Event::kLost;
      } else if (match) {
        double ncx = best->box.x + 0.5 * best->box.w, ncy = best->box.y + 0.5 * best->box.h;
        const bool tracking = !t.lost; // not a re-acquisition or a first match
        // Coasting: the window of a target mostly hidden is not where it is (it sticks to the
        // visible part or the occluder): the centre moves with the confident frames' velocity.
        if (tracking && uncertain && (over || (t.coasting && coast))) {
          t.vx = t.svx;
          t.vy = t.svy;
          ncx = t.cx + t.vx;
          ncy = t.cy + t.vy;
        }
        t.uncertain_run = tracking && uncertain ? t.uncertain_run + 1 : 0;
        t.coasting = tracking && uncertain && (over || t.coasting);
        if (t.lost) {
          res.event = t.located ? Event::kReacquired : Event::kStarted;
          t.lost = false;
          t.located = true;
          t.vx = t.vy = t.vs = t.svx = t.svy = 0.0;
        } else if (!uncertain) { // an uncertain frame keeps size, velocity, rotation and model
          t.dref = t.dref > 0.0 ? (1.0 - kDistanceGain) * t.dref + kDistanceGain * best->distance
                                : best->distance;
          const double ls = std::log(t.bw * factor / t.w); // this frame's size change
          t.vs = (1.0 - params_.scale_prediction) * t.vs + params_.scale_prediction * ls;
          // At most one fine size step per frame: one noisy size jump must not run away.
          t.vs = std::min(std::log(fine_q), std::max(-std::log(fine_q), t.vs));
          t.vx = (1.0 - kVelocityGain) * t.vx + kVelocityGain * (ncx - t.cx);
          t.vy = (1.0 - kVelocityGain) * t.vy + kVelocityGain * (ncy - t.cy);
          t.svx = (1.0 - kCoastGain) * t.svx + kCoastGain * (ncx - t.cx);
          t.svy = (1.0 - kCoastGain) * t.svy + kCoastGain * (ncy - t.cy);
          if (params_.update_rate > 0.0 && best->distance < kUpdateGate * params_.lost_threshold)
            update_model(im.layout, params_.update_rate, params_.model_anchor, from->cov, &t);
        }
        t.cx = ncx;
        t.cy = ncy;
        // rotation_box: this frame's measurement of the rotation since the first frame, from the
        // gradient structure tensor (anisotropic textures) and/or the first window's layout.
        double angle = 0.0, an = 0.0, from_tensor = 0.0, from_layout = 0.0;
        const RotationSource src = params_.rotation_source;
        const bool tensor = !uncertain && params_.rotation_box && src != RotationSource::kLayout &&
                            t.oriented && gradient_orientation(im.layout, from->cov, &angle, &an) &&
                            an >= kMinAnisotropy;
        if (tensor)
          from_tensor = wrap_half_turn(angle - t.orient0);
        const bool layout = !uncertain && params_.rotation_box && src != RotationSource::kTensor &&
                            (src != RotationSource::kFallback || !t.oriented) &&
                            estimate_rotation(im.layout, t.rmodels, from->cov, &from_layout);
        if (tensor || layout) {
          const double m = tensor && layout
                               ? from_tensor + 0.5 * wrap_half_turn(from_layout - from_tensor)
                           : tensor ? from_tensor
                                    : from_layout;
          t.rot += kRotationGain * wrap_half_turn(wrap_half_turn(m) - t.rot);
        }
        if (tracking && uncertain) {
          t.box = rotated_box(ncx, ncy, t.w, t.h, t.rot, width_, height_);
        } else if (tracking && params_.scale_gain < 1.0) {
          // Part of the measured change only: the box is the best window's centre with the
          // filtered size, clipped to the frame (the window itself is inside it).
          const double g = std::pow(factor, params_.scale_gain);
          t.w = t.bw * g;
          t.h = t.bh * g;
          t.box = rotated_box(ncx, ncy, t.w, t.h, t.rot, width_, height_);
        } else { // started or re-acquired: the window found, as is
          t.w = t.bw * factor;
          t.h = t.bh * factor;
          t.box = best->box;
          if (t.rot != 0.0)
            t.box = rotated_box(ncx, ncy, best->box.w, best->box.h, t.rot, width_, height_);
        }
      }
    }
    ++(res.event == Event::kStarted ? stats_.started : t.lost ? stats_.lost : stats_.tracked);
    res.box = t.box;
    res.distance = t.distance;
    res.scale = t.w0 > 0 ? t.w / t.w0 : 1.0;
    res.lost = t.lost;
    res.age = t.age;
    out->push_back(res);
  }
  return Status::Ok();
}

} // namespace cvis::rcdtrack

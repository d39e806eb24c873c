// Updating the tracker's targets from the frame's passes (rcdtrack_tracker_target.hpp).
#include <algorithm>
#include <cmath>

#include "rcdtrack_tracker_target.hpp"

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
// rotation_box: the gradient structure tensor (the Ix, Iy block of a window's covariance) gives an
// orientation only when it is anisotropic, (l1 - l2) / (l1 + l2) at least this (both the first
// model's and the window's); a nearly isotropic texture leaves the rotation as it was.
constexpr double kMinAnisotropy = 0.1;
// Smoothing of the estimated rotation: r = r + a * (measured - r), angles wrapped to half turns.
constexpr double kRotationGain = 0.5;
// Velocity smoothing: v = (1 - a) v + a * displacement.
constexpr double kVelocityGain = 0.5;
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

} // namespace

Box rotated_box(double cx, double cy, double w, double h, double rot, int frame_w, int frame_h) {
  const double c = std::fabs(std::cos(rot)), s = std::fabs(std::sin(rot));
  const double bw = w * c + h * s, bh = w * s + h * c;
  const int x0 = std::max(0, static_cast<int>(std::lround(cx - 0.5 * bw)));
  const int y0 = std::max(0, static_cast<int>(std::lround(cy - 0.5 * bh)));
  const int x1 = std::min(frame_w, static_cast<int>(std::lround(cx + 0.5 * bw)));
  const int y1 = std::min(frame_h, static_cast<int>(std::lround(cy + 0.5 * bh)));
  return {x0, y0, std::max(1, x1 - x0), std::max(1, y1 - y0)};
}

Status start_target(const Params& params, const Layout& layout, const PassResults& passes,
                    Tracker::Target* tp) {
  Tracker::Target& t = *tp;
  const std::vector<GroupResult>& coarse_out = passes.coarse_out;
  const GroupResult& r = coarse_out[t.group];
  t.cov = r.cov;
  add_ridge(layout, &t.cov);
  if (!prepare_model(layout, r.cov, &t.data))
    return internal_error("ridged covariance not positive definite");
  t.log_cov.clear();
  double an = 0.0;
  t.oriented = gradient_orientation(layout, r.cov, &t.orient0, &an) && an >= kMinAnisotropy;
  t.rot = 0.0;
  t.rmodels = RotationModels();
  const bool need_layout = params.rotation_source != RotationSource::kFallback || !t.oriented;
  if (!t.cells.empty() && need_layout) {
    std::vector<std::vector<int64_t>> sums;
    for (size_t i = 0; i < t.cells.size(); ++i)
      sums.push_back(coarse_out[t.cell_group + i].sums);
    if (!make_rotation_models(layout, t.init, t.cells, sums, &t.rmodels))
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
  t.take_template = params.template_refine;
  return Status::Ok();
}

void update_target(const Params& params, const Layout& layout, int width, int height,
                   const PassResults& passes, Tracker::Target* tp, TargetResult* res) {
  Tracker::Target& t = *tp;
  const Pass& cp = passes.coarse;
  const Pass& fp = passes.fine;
  const std::vector<GroupResult>& coarse_out = passes.coarse_out;
  const std::vector<GroupResult>& fine_out = passes.fine_out;
  const double fine_q = fine_ratio(params);
  ++t.age;
  t.refine = false;
  // The best fine hit (the coarse one when no fine search fitted).
  struct Found {
    const Hit* best = nullptr;
    const GroupResult* from = nullptr;
    double factor = 1.0;
  };
  auto find = [&](int fine_first, int fine_count, int coarse_group) {
    Found b;
    for (int k = 0; k < fine_count; ++k) {
      const GroupResult& r = fine_out[fine_first + k];
      if (!r.top.empty() && (!b.best || r.top[0].score < b.best->score)) {
        b.best = &r.top[0];
        b.from = &r;
        b.factor = fp.grids[b.best->grid].factor;
      }
    }
    if (!b.best && coarse_group >= 0 && !coarse_out[coarse_group].top.empty()) {
      b.from = &coarse_out[coarse_group];
      b.best = &b.from->top[0];
      b.factor = cp.grids[b.best->grid].factor;
    }
    return b;
  };
  Found found = find(t.fine_first, t.fine_count, t.group);
  // occlusion_ratio: a tracking match above this distance is uncertain.
  const double confident =
      params.occlusion_ratio > 0.0 && t.dref > 0.0
          ? params.lost_threshold *
                std::clamp(params.occlusion_ratio * t.dref / params.lost_threshold, kOcclusionFloor,
                           kOcclusionCap)
          : HUGE_VAL;
  double gate = t.lost ? kReacquireGate * params.lost_threshold : params.lost_threshold;
  if (t.local_group >= 0) { // a lost target: near where it was last seen, kLocalGate
    const Found local = find(t.local_fine, t.local_fine_count, t.local_group);
    if (local.best && local.best->distance <= kLocalGate * params.lost_threshold) {
      found = local;
      gate = kLocalGate * params.lost_threshold;
    }
  }
  const Hit* best = found.best;
  const GroupResult* from = found.from;
  double factor = found.factor;
  t.distance = best ? best->distance : HUGE_VAL;
  // coast_frames: a tracking frame above the gate that follows an uncertain one (an
  // occlusion building up; a sudden jump, e.g. a camera shake, is lost and searched widely)
  // is uncertain instead of lost, and coasts at the predicted centre.
  const bool coast = !t.lost && params.coast_frames > 0 && confident < HUGE_VAL &&
                     t.uncertain_run > 0 && t.uncertain_run < params.coast_frames;
  const bool over = best && best->distance > gate && best->distance <= kCoastMax * gate && coast;
  const bool match = best && (best->distance <= gate || over);
  // occlusion_ratio: an uncertain tracking frame takes the best window of the predicted size,
  // unless a window of another size is clearly nearer (kSizeMargin).
  bool uncertain = match && !t.lost && best->distance > confident;
  const GroupResult* same =
      t.same_group >= 0 && !fine_out[t.same_group].top.empty() ? &fine_out[t.same_group] : nullptr;
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
    res->event = Event::kLost;
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
      res->event = t.located ? Event::kReacquired : Event::kStarted;
      if (t.located)
        t.found_frames = 0;
      t.lost = false;
      t.located = true;
      t.vx = t.vy = t.vs = t.svx = t.svy = 0.0;
    } else if (!uncertain) { // an uncertain frame keeps size, velocity, rotation and model
      t.dref = t.dref > 0.0 ? (1.0 - kDistanceGain) * t.dref + kDistanceGain * best->distance
                            : best->distance;
      const double ls = std::log(t.bw * factor / t.w); // this frame's size change
      t.vs = (1.0 - params.scale_prediction) * t.vs + params.scale_prediction * ls;
      // At most one fine size step per frame: one noisy size jump must not run away.
      t.vs = std::min(std::log(fine_q), std::max(-std::log(fine_q), t.vs));
      t.vx = (1.0 - kVelocityGain) * t.vx + kVelocityGain * (ncx - t.cx);
      t.vy = (1.0 - kVelocityGain) * t.vy + kVelocityGain * (ncy - t.cy);
      t.svx = (1.0 - kCoastGain) * t.svx + kCoastGain * (ncx - t.cx);
      t.svy = (1.0 - kCoastGain) * t.svy + kCoastGain * (ncy - t.cy);
      if (params.update_rate > 0.0 && best->distance < kUpdateGate * params.lost_threshold)
        update_model(layout, params.update_rate, params.model_anchor, from->cov, &t);
      // Not a frame whose window is a size change above the occlusion test (uncertain = false by
      // kSizeMargin): a partly hidden target correlates best where its visible part lies.
      t.refine = params.template_refine && best->distance <= confident;
    }
    t.cx = ncx;
    t.cy = ncy;
    if (tracking)
      t.found_frames = std::min(t.found_frames + 1, kFreeSizeFrames);
    // rotation_box: this frame's measurement of the rotation since the first frame, from the
    // gradient structure tensor (anisotropic textures) and/or the first window's layout.
    double angle = 0.0, an = 0.0, from_tensor = 0.0, from_layout = 0.0;
    const RotationSource src = params.rotation_source;
    const bool tensor = !uncertain && params.rotation_box && src != RotationSource::kLayout &&
                        t.oriented && gradient_orientation(layout, from->cov, &angle, &an) &&
                        an >= kMinAnisotropy;
    if (tensor)
      from_tensor = wrap_half_turn(angle - t.orient0);
    const bool by_layout = !uncertain && params.rotation_box && src != RotationSource::kTensor &&
                           (src != RotationSource::kFallback || !t.oriented) &&
                           estimate_rotation(layout, t.rmodels, from->cov, &from_layout);
    if (tensor || by_layout) {
      const double m = tensor && by_layout
                           ? from_tensor + 0.5 * wrap_half_turn(from_layout - from_tensor)
                       : tensor ? from_tensor
                                : from_layout;
      t.rot += kRotationGain * wrap_half_turn(wrap_half_turn(m) - t.rot);
    }
    if (tracking && uncertain) {
      t.box = rotated_box(ncx, ncy, t.w, t.h, kReportedRotation * t.rot, width, height);
    } else if (tracking && params.scale_gain < 1.0) {
      // Part of the measured change only: the box is the best window's centre with the
      // filtered size, clipped to the frame (the window itself is inside it).
      const double g = std::pow(factor, params.scale_gain);
      t.w = t.bw * g;
      t.h = t.bh * g;
      t.box = rotated_box(ncx, ncy, t.w, t.h, kReportedRotation * t.rot, width, height);
    } else { // started or re-acquired: the window found, as is
      t.w = t.bw * factor;
      t.h = t.bh * factor;
      t.box = best->box;
      if (t.rot != 0.0)
        t.box = rotated_box(ncx, ncy, best->box.w, best->box.h, kReportedRotation * t.rot, width,
                            height);
    }
  }
}

} // namespace cvis::rcdtrack

// Building the tracker's passes from its targets (rcdtrack_tracker_target.hpp).
#include <algorithm>
#include <cmath>

#include "rcdtrack_tracker_target.hpp"

namespace cvis::rcdtrack {

namespace {

// local_reacquire: a lost target's local search covers search_radius target sizes times sqrt(1 +
// frames lost), at most this factor: the position's uncertainty grows while the target is unseen,
// but a wide area finds background matches (unbounded, the DEV sequences' frame-edge exits were
// taken by far background windows).
constexpr double kLocalWidenMax = 2.0;

} // namespace

double fine_ratio(const Params& params) {
  return std::pow(scale_ratio(params), 1.0 / kFineHalf);
}

void plan_coarse(const Params& params, const Layout& layout, int width, int height,
                 std::vector<Tracker::Target>* targets, Pass* pass) {
  using Target = Tracker::Target;
  const std::vector<double> factors = scale_factors(params);
  Pass& cp = *pass;
  cp = Pass();
  for (Target& t : *targets) {
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
      if (params.rotation_box && params.rotation_source != RotationSource::kTensor) {
        t.cells = rotation_cells(layout, t.init, width, height);
        t.cell_group = static_cast<int>(cp.groups.size());
        add_cell_describes(&cp, t.cells);
      }
      continue;
    }
    GroupSpec g;
    g.model = static_cast<int>(cp.models.size());
    g.top_k = params.top_k;
    Area area;
    t.prior = Prior();
    // Search sizes are factors of the predicted size (the current one unless scale_prediction).
    const double ps = t.lost ? 1.0 : std::exp(t.vs);
    t.bw = t.w * ps;
    t.bh = t.h * ps;
    t.prior.w = t.bw;
    t.prior.h = t.bh;
    if ((t.lost && t.lost_radius < 0.0) || params.search_radius < 0.0) {
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
      area.rx = params.search_radius * t.bw;
      area.ry = params.search_radius * t.bh;
      t.prior.cx = area.cx;
      t.prior.cy = area.cy;
    }
    if (!t.lost) {
      t.prior.motion_weight = params.motion_weight;
      t.prior.scale_weight = t.found_frames < kFreeSizeFrames ? 0.0 : params.scale_weight;
    }
    t.prior.context_weight = params.context_weight; // whole-frame searches too
    g.prior = t.prior;
    t.step = coarse_step(params.step, t.bw, t.bh, t.aligned);
    // A lost target's search (the whole frame, or lost_radius target sizes around where it was
    // last seen: 3 by default in the element, 7^2 times a tracking search's area) on a twice
    // coarser grid (auto step): the fine pass still refines the best window, and lost targets
    // otherwise dominate the frame's cost (half the windows of the street full chain).
    if (t.lost && params.step == 0)
      t.step = coarse_step(0, 2 * t.bw, 2 * t.bh, t.aligned);
    if (add_search(&cp, area, t.bw, t.bh, factors, t.step, params.parts, width, height, g)) {
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
    if (t.lost && t.located && params.local_reacquire && area.whole_frame) {
      const double widen = std::min(kLocalWidenMax, std::sqrt(1.0 + t.lost_frames));
      GroupSpec lg;
      lg.model = static_cast<int>(cp.models.size());
      lg.top_k = params.top_k;
      t.local_prior = Prior();
      t.local_prior.cx = t.cx;
      t.local_prior.cy = t.cy;
      t.local_prior.w = t.bw;
      t.local_prior.h = t.bh;
      t.local_prior.motion_weight = params.motion_weight / (widen * widen);
      t.local_prior.scale_weight = params.scale_weight;
      t.local_prior.context_weight = params.context_weight;
      lg.prior = t.local_prior;
      Area la;
      la.whole_frame = params.search_radius < 0.0;
      la.cx = t.cx;
      la.cy = t.cy;
      la.rx = params.search_radius * t.bw * widen;
      la.ry = params.search_radius * t.bh * widen;
      t.local_step = coarse_step(params.step, t.bw, t.bh, t.aligned);
      if (add_search(&cp, la, t.bw, t.bh, factors, t.local_step, params.parts, width, height, lg)) {
        t.local_group = static_cast<int>(cp.groups.size()) - 1;
        cp.models.push_back(t.data);
      }
    }
  }
  merge_integrals(&cp);
}

void plan_fine(const Params& params, int width, int height, const Pass& coarse,
               const std::vector<GroupResult>& coarse_out, std::vector<Tracker::Target>* targets,
               Pass* pass) {
  using Target = Tracker::Target;
  const Pass& cp = coarse;
  const double fine_q = fine_ratio(params);
  Pass& fp = *pass;
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
        if (v >= params.scale_min * (1 - 1e-9) && v <= params.scale_max * (1 + 1e-9))
          ff.push_back(v);
      }
      Area area;
      area.cx = hit.box.x + 0.5 * hit.box.w;
      area.cy = hit.box.y + 0.5 * hit.box.h;
      area.rx = area.ry = step;
      if (add_search(&fp, area, t.bw, t.bh, ff, fstep, params.parts, width, height, g))
        ++count;
    }
    return count;
  };
  for (Target& t : *targets) {
    if (t.stage == Stage::kPending || (t.group < 0 && t.local_group < 0))
      continue;
    const int model = static_cast<int>(fp.models.size());
    fp.models.push_back(t.data);
    if (t.group >= 0) {
      t.fine_first = static_cast<int>(fp.groups.size());
      t.fine_count = add_fine(t, coarse_out[t.group], t.prior, t.step, model);
      // The predicted size alone around the coarse hit: the window an uncertain frame takes
      // (occlusion_ratio).
      const GroupResult& r = coarse_out[t.group];
      if (!t.lost && params.occlusion_ratio > 0.0 && !r.top.empty() && r.top[0].grid >= 0) {
        GroupSpec g;
        g.model = model;
        g.prior = t.prior;
        Area area;
        area.cx = r.top[0].box.x + 0.5 * r.top[0].box.w;
        area.cy = r.top[0].box.y + 0.5 * r.top[0].box.h;
        area.rx = area.ry = t.step;
        if (add_search(&fp, area, t.bw, t.bh, {1.0}, fine_step(t.step), params.parts, width, height,
                       g))
          t.same_group = static_cast<int>(fp.groups.size()) - 1;
      }
    }
    if (t.local_group >= 0) {
      t.local_fine = static_cast<int>(fp.groups.size());
      t.local_fine_count =
          add_fine(t, coarse_out[t.local_group], t.local_prior, t.local_step, model);
    }
  }
  merge_integrals(&fp);
}

} // namespace cvis::rcdtrack

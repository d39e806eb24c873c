// The detector: the thesis's object detection (Fig. 3.19, 4.1). Every window of the template's
// sizes on the coarse grid over the whole frame, those under the threshold suppressed to local
// bests (non-maximum suppression), each refined by a fine search around it, suppressed again.
#include <algorithm>
#include <cmath>
#include <string>

#include "rcdtrack_plan.hpp"

namespace cvis::rcdtrack {

Detector::Detector(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}
Detector::~Detector() = default;

Backend Detector::backend() const {
  return engine_->backend();
}

Status Detector::configure(const Params& params, const Model& model, int width, int height,
                           PixelFormat format) {
  configured_ = false;
  Params p = params;
  p.features = model.features;
  p.parts = model.parts;
  CVIS_RETURN_IF_ERROR(validate(p));
  if (width < 8 || height < 8 || width > kMaxDimension || height > kMaxDimension)
    return invalid_argument("frame size " + std::to_string(width) + "x" + std::to_string(height) +
                            " not in 8..16384");
  if (static_cast<int>(model.cov.size()) != p.parts * p.features.count * p.features.count ||
      model.width < 4 || model.height < 4)
    return invalid_argument("template model is incomplete");
  const Layout layout = make_layout(p.features, p.ridge, p.parts);
  ModelData d;
  if (!prepare_model(layout, model.cov, &d))
    return invalid_argument("template covariance is not positive definite");
  CVIS_RETURN_IF_ERROR(engine_->configure(layout, p.distance, width, height, format));
  params_ = p;
  model_ = model;
  width_ = width;
  height_ = height;
  configured_ = true;
  return Status::Ok();
}

Status Detector::update_params(const Params& params) {
  Params p = params;
  p.features = params_.features;
  p.parts = params_.parts;
  CVIS_RETURN_IF_ERROR(validate(p));
  if (p.distance != params_.distance || p.ridge != params_.ridge)
    return invalid_argument("distance and ridge change only with configure()");
  params_ = p;
  return Status::Ok();
}

Status Detector::process(const ImageView& frame, StreamHandle stream, std::vector<Detection>* out) {
  if (!configured_)
    return internal_error("process before configure");
  out->clear();
  CVIS_RETURN_IF_ERROR(engine_->set_frame(frame, stream));
  const Layout layout = make_layout(params_.features, params_.ridge, params_.parts);
  ModelData md;
  if (!prepare_model(layout, model_.cov, &md))
    return internal_error("template covariance is not positive definite");
  const double w = model_.width, h = model_.height;
  const int step = coarse_step(params_.step, w, h);

  Pass cp;
  cp.models.push_back(md);
  GroupSpec g;
  g.model = 0;
  g.top_k = 1;
  g.threshold = params_.threshold;
  Area whole;
  whole.whole_frame = true;
  if (!add_search(&cp, whole, w, h, scale_factors(params_), step, params_.parts, width_, height_,
                  g))
    return Status::Ok(); // no template size fits the frame
  std::vector<GroupResult> cr;
  CVIS_RETURN_IF_ERROR(engine_->run(cp, &cr, stream));
  // Coarse suppression leaves one candidate per object; more candidates than detections are kept
  // so that refinement can reorder them.
  const std::vector<Hit> coarse = nms(cr[0].below, params_.nms_iou, 2 * params_.max_detections);
  if (coarse.empty())
    return Status::Ok();

  Pass fp;
  fp.models.push_back(md);
  const int fstep = fine_step(step);
  const double q = std::pow(scale_ratio(params_), 0.25);
  std::vector<int> group_of;
  for (size_t i = 0; i < coarse.size(); ++i) {
    const double f = cp.grids[coarse[i].grid].factor;
    std::vector<double> ff;
    for (int j = -2; j <= 2; ++j) {
      const double v = f * std::pow(q, j);
      if (v >= params_.scale_min * (1 - 1e-9) && v <= params_.scale_max * (1 + 1e-9))
        ff.push_back(v);
    }
    Area a;
    a.cx = coarse[i].box.x + 0.5 * coarse[i].box.w;
    a.cy = coarse[i].box.y + 0.5 * coarse[i].box.h;
    a.rx = a.ry = step;
    GroupSpec fg;
    fg.model = 0;
    if (add_search(&fp, a, w, h, ff, fstep, params_.parts, width_, height_, fg))
      group_of.push_back(static_cast<int>(i));
  }
  merge_integrals(&fp);
  std::vector<GroupResult> fr;
  if (!fp.groups.empty())
    CVIS_RETURN_IF_ERROR(engine_->run(fp, &fr, stream));
  std::vector<Hit> refined;
  for (size_t k = 0; k < fr.size(); ++k) {
    Hit h = fr[k].top[0];
    h.index = static_cast<int64_t>(k); // order among equal scores: the coarse rank
    h.score = h.distance;
    if (h.distance < params_.threshold)
      refined.push_back(h);
  }
  std::sort(refined.begin(), refined.end(), [](const Hit& a, const Hit& b) {
    return hit_before(a.score, a.index, b.score, b.index);
  });
  for (const Hit& h : nms(refined, params_.nms_iou, params_.max_detections)) {
    Detection d;
    d.box = h.box;
    d.distance = h.distance;
    d.scale = fp.grids[h.grid].factor;
    out->push_back(d);
  }
  return Status::Ok();
}

} // namespace cvis::rcdtrack

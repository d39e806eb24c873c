// The tracker's public face (rcdtrack.hpp): targets added, removed and described, and each frame
// the coarse pass, the fine pass and the targets' update (rcdtrack_tracker_target.hpp).
#include <algorithm>
#include <cmath>
#include <string>

#include "rcdtrack_tracker_target.hpp"

namespace cvis::rcdtrack {

struct Tracker::Impl {
  std::vector<Target> targets;
  Pass coarse, fine;
  std::vector<GroupResult> coarse_out, fine_out;
  Layout layout;
  std::vector<TargetResult> results;
  std::vector<LumaRegion> regions; // templates taken this frame
  std::vector<uint8_t> luma;
  TemplatePass templates;
  std::vector<TemplateHit> template_hits;
};

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
  plan_coarse(params_, im.layout, width_, height_, &im.targets, &im.coarse);
  stats_ = FrameStats();
  stats_.coarse = pass_stats(im.coarse);
  if (!im.coarse.groups.empty())
    CVIS_RETURN_IF_ERROR(engine_->run(im.coarse, &im.coarse_out, stream));
  plan_fine(params_, width_, height_, im.coarse, im.coarse_out, &im.targets, &im.fine);
  stats_.fine = pass_stats(im.fine);
  if (!im.fine.groups.empty())
    CVIS_RETURN_IF_ERROR(engine_->run(im.fine, &im.fine_out, stream));

  const PassResults passes{im.coarse, im.coarse_out, im.fine, im.fine_out};
  im.results.assign(im.targets.size(), TargetResult());
  for (size_t k = 0; k < im.targets.size(); ++k) {
    Target& t = im.targets[k];
    TargetResult& res = im.results[k];
    res.id = t.id;
    if (t.stage == Stage::kPending) {
      CVIS_RETURN_IF_ERROR(start_target(params_, im.layout, passes, &t));
      res.event = Event::kStarted;
    } else {
      update_target(params_, im.layout, width_, height_, passes, &t, &res);
    }
  }
  plan_capture(&im.targets, &im.regions);
  if (!im.regions.empty()) {
    CVIS_RETURN_IF_ERROR(engine_->read_luma(im.regions, &im.luma, stream));
    take_templates(im.regions, im.luma, &im.targets);
  }
  plan_templates(width_, height_, &im.targets, &im.templates);
  if (!im.templates.jobs.empty()) {
    CVIS_RETURN_IF_ERROR(engine_->match_templates(im.templates, &im.template_hits, stream));
    apply_templates(width_, height_, im.templates, im.template_hits, &im.targets);
  }
  out->clear();
  for (size_t k = 0; k < im.targets.size(); ++k) {
    const Target& t = im.targets[k];
    TargetResult res = im.results[k];
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

#include "actionlearn_recognise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "stip_internal.hpp"
#include "actionlearn_models.hpp"

namespace cvis::actionlearn {

using namespace actionmatch;
using namespace stip;

Status validate(const RecogniserParams& p) {
  CVIS_RETURN_IF_ERROR(validate(p.frontend));
  if (p.block_frames < 10 || p.block_frames > 10000)
    return invalid_argument("block-frames " + std::to_string(p.block_frames) +
                            " out of range 10..10000");
  if (p.overlap < 0 || p.overlap >= p.block_frames)
    return invalid_argument("overlap " + std::to_string(p.overlap) + " out of range 0.." +
                            std::to_string(p.block_frames - 1) + " (block-frames - 1)");
  if (p.min_nodes < 1 || p.min_nodes > kMaxSceneNodes)
    return invalid_argument("min-nodes out of range");
  if (p.ridge_blocks < 1 || p.ridge_blocks > 1000)
    return invalid_argument("ridge-blocks " + std::to_string(p.ridge_blocks) +
                            " out of range 1..1000");
  CVIS_RETURN_IF_ERROR(validate(p.matcher_options));
  if (static_cast<int64_t>(p.block_frames) * p.frontend.max_points > kMaxSceneNodes)
    return invalid_argument("block-frames " + std::to_string(p.block_frames) + " x max-points " +
                            std::to_string(p.frontend.max_points) + " exceeds the " +
                            std::to_string(kMaxSceneNodes) + " nodes a scene block may have");
  return Status::Ok();
}

Status Recogniser::configure(Backend frontend_backend, Backend matcher_backend, int width,
                             int height, const RecogniserParams& p, const Dictionary& dict) {
  CVIS_RETURN_IF_ERROR(validate(p));
  CVIS_RETURN_IF_ERROR(validate(dict));
  Dictionary made;
  describe(p.frontend, &made);
  if (dict.flow != made.flow || dict.speed_split != made.speed_split) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "dictionary: made with the %s flow histogram (speed split %g), the front end "
                  "is set to the %s one (speed split %g)",
                  flow_histogram_name(dict.flow), dict.speed_split,
                  flow_histogram_name(made.flow), made.speed_split);
    return invalid_argument(buf);
  }
  if (dict.dim != made.dim)
    return invalid_argument("dictionary: descriptors of dimension " + std::to_string(dict.dim) +
                            ", the front end computes " + std::to_string(made.dim));
  if (dict.has_ridge() && dict.ridge_distance != p.distance)
    return invalid_argument(std::string("dictionary: ridge classifier of the ") +
                            distance_name(dict.ridge_distance) + " distance, the recogniser uses " +
                            distance_name(p.distance));
  Status st;
  if (!fe_ || fe_backend_ != frontend_backend) {
    fe_ = make_frontend(frontend_backend, &st);
    if (!fe_)
      return st;
    fe_backend_ = frontend_backend;
  }
  CVIS_RETURN_IF_ERROR(fe_->configure(width, height, p.frontend));
  const CudaOptions& mo = p.matcher_options;
  if (!matcher_ || matcher_backend_ != matcher_backend ||
      mo.max_blocks_per_pair != p_.matcher_options.max_blocks_per_pair ||
      mo.max_angle_entries != p_.matcher_options.max_angle_entries) {
    matcher_ = make_matcher(matcher_backend, &st, 0, mo);
    if (!matcher_)
      return st;
    matcher_backend_ = matcher_backend;
  }
  CVIS_RETURN_IF_ERROR(matcher_->configure(dict.params, dict.models));
  p_ = p;
  dict_ = dict;
  reset();
  return Status::Ok();
}

int Recogniser::lag() const { return fe_ ? fe_->lag() : lag_of(p_); }

int Recogniser::lag_of(const RecogniserParams& p) {
  return stip::detail::frontend_geometry(p.frontend).lag;
}

void Recogniser::reset() {
  if (fe_)
    fe_->reset();
  frames_.clear();
  final_ = 0;
  next_start_ = 0;
  last_end_ = -1;
  ridge_history_.clear();
}

Status Recogniser::push(const ImageView& frame, StreamHandle stream,
                        std::vector<BlockResult>* out) {
  if (!fe_ || !matcher_)
    return invalid_argument("recogniser: push before configure");
  ready_.clear();
  CVIS_RETURN_IF_ERROR(fe_->push(frame, stream, &ready_));
  return take(ready_, stream, out);
}

Status Recogniser::finish(StreamHandle stream, std::vector<BlockResult>* out) {
  if (!fe_ || !matcher_)
    return invalid_argument("recogniser: finish before configure");
  ready_.clear();
  Status s = fe_->finish(stream, &ready_);
  if (s.ok())
    s = take(ready_, stream, out);
  const int64_t F = final_, B = p_.block_frames;
  if (s.ok() && F > 0) {
    if (last_end_ < 0)
      s = block(0, F, false, stream, out); // a stream shorter than one block
    else if (last_end_ < F)
      s = block(F - B, F, true, stream, out); // the tail the regular blocks left
  }
  reset();
  return s;
}

Status Recogniser::take(const std::vector<FramePoints>& frames, StreamHandle stream,
                        std::vector<BlockResult>* out) {
  const int64_t B = p_.block_frames, step = p_.block_frames - p_.overlap;
  for (const FramePoints& f : frames) {
    frames_.push_back(f);
    final_ = f.frame + 1;
    while (final_ >= next_start_ + B) {
      CVIS_RETURN_IF_ERROR(block(next_start_, next_start_ + B, true, stream, out));
      next_start_ += step;
    }
    // Kept: the next regular block's frames and the last B (a tail block at the end).
    const int64_t keep = std::min(next_start_, final_ - B);
    while (!frames_.empty() && frames_.front().frame < keep)
      frames_.pop_front();
  }
  return Status::Ok();
}

// Frames [first, end) as one scene (frames counted from the block's start: the energy depends on
// frame differences only), matched against every model.
Status Recogniser::block(int64_t first, int64_t end, bool complete, StreamHandle stream,
                         std::vector<BlockResult>* out) {
  BlockResult r;
  r.first_frame = first;
  r.last_frame = end - 1;
  r.complete = complete;
  last_end_ = end;
  Graph g;
  g.dim = dict_.dim;
  std::vector<int64_t> node_frame;
  for (const FramePoints& f : frames_) {
    if (f.frame < first || f.frame >= end)
      continue;
    for (size_t i = 0; i < f.points.size(); ++i) {
      const InterestPoint& ip = f.points[i];
      g.add(static_cast<int32_t>(f.frame - first), static_cast<float>(ip.x),
            static_cast<float>(ip.y), f.desc.data() + i * dict_.dim);
      node_frame.push_back(f.frame);
    }
  }
  r.nodes = g.size();
  if (r.nodes < p_.min_nodes) {
    out->push_back(std::move(r));
    return Status::Ok();
  }
  CVIS_RETURN_IF_ERROR(matcher_->match(&g, 1, &results_, nullptr, stream));
  const int M = static_cast<int>(dict_.models.size());
  std::vector<double> d(M);
  for (int m = 0; m < M; ++m)
    d[m] = node_distance(results_[m], p_.distance, dict_.models[m].graph.size());
  double score = 0;
  int best = choose(d, &score);
  // An optimum that assigns every model node the dummy is no evidence of any class (all models
  // then cost the same per node): no action. The ridge classifier weighs every model's distance,
  // all-dummy ones too (as the tool's does), so only a block that matched no model at all is none.
  bool any_matched = false;
  for (int m = 0; m < M && !any_matched; ++m)
    any_matched = matched_any(results_[m]);
  if (best >= 0 && (dict_.has_ridge() ? !any_matched : !matched_any(results_[best])))
    best = -1;
  if (best >= 0) {
    const Model& bm = dict_.models[best];
    const MatchResult& res = results_[best];
    r.model = best;
    r.label = bm.label;
    r.distance = d[best];
    r.energy = res.energy();
    r.appearance = res.appearance();
    r.dummies = res.dummies;
    r.score = score;
    for (int32_t n : res.assignment)
      if (n >= 0)
        r.points.push_back(MatchedPoint{node_frame[n], g.x[n], g.y[n]});
  }
  out->push_back(std::move(r));
  return Status::Ok();
}

bool Recogniser::matched_any(const MatchResult& r) {
  return r.dummies < static_cast<int>(r.assignment.size());
}

int Recogniser::choose(const std::vector<double>& d, double* score) {
  const int M = static_cast<int>(d.size());
  if (!dict_.has_ridge()) {
    int best = -1;
    for (int m = 0; m < M; ++m)
      if (std::isfinite(d[m]) && (best < 0 || d[m] < d[best]))
        best = m;
    if (best < 0)
      return -1;
    double other = std::numeric_limits<double>::infinity();
    for (int m = 0; m < M; ++m)
      if (dict_.models[m].label != dict_.models[best].label)
        other = std::min(other, d[m]);
    *score = !std::isfinite(other) ? 1.0 : other > 0 ? (other - d[best]) / other : 0.0;
    return best;
  }
  // The mean over the window in block order, as the tool's clip distance (sum, then divide; an
  // infinite distance stays infinite and the classifier takes its fill value).
  ridge_history_.push_back(d);
  while (static_cast<int>(ridge_history_.size()) > p_.ridge_blocks)
    ridge_history_.pop_front();
  std::vector<double> mean(M, 0.0);
  for (const std::vector<double>& h : ridge_history_)
    for (int m = 0; m < M; ++m)
      mean[m] += h[m];
  for (int m = 0; m < M; ++m)
    mean[m] /= static_cast<double>(ridge_history_.size());
  std::vector<double> s;
  const int q = ridge_class(dict_.ridge, mean, &s);
  if (q < 0)
    return -1;
  double second = -std::numeric_limits<double>::infinity();
  for (int k = 0; k < static_cast<int>(s.size()); ++k)
    if (k != q)
      second = std::max(second, s[k]);
  *score = std::isfinite(second) ? std::min(1.0, 0.5 * (s[q] - second)) : 1.0;
  // The nearest model of that class among those matching a scene point, else the nearest of all.
  int best = -1;
  for (int pass = 0; pass < 2 && best < 0; ++pass)
    for (int m = 0; m < M; ++m)
      if (dict_.models[m].label == dict_.classes[q] && std::isfinite(d[m]) &&
          (pass == 1 || matched_any(results_[m])) && (best < 0 || d[m] < d[best]))
        best = m;
  return best;
}

} // namespace cvis::actionlearn

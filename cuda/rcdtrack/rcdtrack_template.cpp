// Template matching: the passes' checks, the CPU reference (rcdtrack_ncc.hpp's arithmetic in
// plain loops) and the tracker's refinement step (rcdtrack_tracker_target.hpp).
#include <algorithm>
#include <cmath>

#include "rcdtrack_ncc.hpp"
#include "rcdtrack_tracker_target.hpp"

namespace cvis::rcdtrack {

namespace {

// A template job's geometric mean side in samples: the stride is chosen to give at least this
// many (and under twice it), so that large targets cost no more than small ones.
constexpr int kTemplateSamples = 24;
// The first box's luma is kept at about twice that resolution (a target may grow to twice its
// first size before its template is magnified).
constexpr int kCaptureSamples = 48;
// Offsets searched either side of the tracker's box, as a fraction of its size.
constexpr double kTemplateMargin = 0.25;
// A refinement is taken when the best correlation reaches this: below it the template and the
// frame have too little in common (a turned or deformed target, an occlusion) to say where it is.
constexpr double kTemplateMinScore = 0.7;
// The template is matched at the tracked size and 8% either side (the windows' size may be off),
// and the best of the three places the centre; the size stays the windows'.
constexpr double kTemplateFactors[] = {1.0, 1.0 / 1.08, 1.08};

// The stride for a w x h box: kTemplateSamples..2 kTemplateSamples samples along the geometric
// mean side, and no side over kMaxTemplateSide.
int template_stride(double w, double h) {
  int s = std::max(1, static_cast<int>(std::sqrt(w * h) / kTemplateSamples));
  const double side = std::max(w, h);
  while (side / s > kMaxTemplateSide)
    ++s;
  return std::min(s, kMaxTemplateStride);
}

// Area-weighted resampling of a sw x sh grey image to tw x th.
void resample(const std::vector<uint8_t>& src, int sw, int sh, int tw, int th,
              std::vector<uint8_t>* out) {
  const double fx = static_cast<double>(sw) / tw, fy = static_cast<double>(sh) / th;
  for (int j = 0; j < th; ++j) {
    const double y0 = j * fy, y1 = (j + 1) * fy;
    for (int i = 0; i < tw; ++i) {
      const double x0 = i * fx, x1 = (i + 1) * fx;
      double sum = 0.0, area = 0.0;
      for (int y = static_cast<int>(y0); y < sh && y < y1; ++y) {
        const double wy = std::min<double>(y + 1, y1) - std::max<double>(y, y0);
        for (int x = static_cast<int>(x0); x < sw && x < x1; ++x) {
          const double wx = std::min<double>(x + 1, x1) - std::max<double>(x, x0);
          sum += wx * wy * src[static_cast<size_t>(y) * sw + x];
          area += wx * wy;
        }
      }
      out->push_back(static_cast<uint8_t>(std::lround(area > 0.0 ? sum / area : 0.0)));
    }
  }
}

} // namespace

Status validate_templates(const TemplatePass& pass, int width, int height) {
  for (const TemplateJob& j : pass.jobs) {
    if (j.nx < 1 || j.ny < 1 || j.nx > kMaxOffsetSide || j.ny > kMaxOffsetSide || j.tw < 1 ||
        j.th < 1 || j.tw > kMaxTemplateSide || j.th > kMaxTemplateSide || j.stride < 1 ||
        j.stride > kMaxTemplateStride || j.x0 < 0 || j.y0 < 0 ||
        j.x0 + (j.nx - 1 + j.tw) * j.stride > width ||
        j.y0 + (j.ny - 1 + j.th) * j.stride > height || j.first < 0 ||
        j.first + static_cast<int64_t>(j.tw) * j.th > static_cast<int64_t>(pass.samples.size()))
      return internal_error("template pass: job outside the frame or too large");
  }
  return Status::Ok();
}

Status validate_regions(const std::vector<LumaRegion>& regions, int width, int height) {
  for (const LumaRegion& r : regions)
    if (r.cols < 1 || r.rows < 1 || r.stride < 1 || r.stride > kMaxTemplateStride || r.x < 0 ||
        r.y < 0 || r.x + r.cols * r.stride > width || r.y + r.rows * r.stride > height)
      return internal_error("luma region outside the frame");
  return Status::Ok();
}

void match_templates_cpu(const PixelSource& src, const TemplatePass& pass,
                         std::vector<TemplateHit>* out) {
  out->assign(pass.jobs.size(), TemplateHit());
  std::vector<int32_t> blocks;
  for (size_t k = 0; k < pass.jobs.size(); ++k) {
    const TemplateJob& j = pass.jobs[k];
    const int cols = j.nx - 1 + j.tw, rows = j.ny - 1 + j.th;
    blocks.resize(static_cast<size_t>(cols) * rows);
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x)
        blocks[static_cast<size_t>(y) * cols + x] =
            luma_block(src, j.x0 + x * j.stride, j.y0 + y * j.stride, j.stride);
    const uint8_t* t = pass.samples.data() + j.first;
    const int64_t n = static_cast<int64_t>(j.tw) * j.th;
    int64_t st = 0, stt = 0;
    for (int64_t i = 0; i < n; ++i) {
      st += t[i];
      stt += t[i] * t[i];
    }
    TemplateHit& best = (*out)[k];
    for (int oy = 0; oy < j.ny; ++oy) {
      for (int ox = 0; ox < j.nx; ++ox) {
        int32_t sf = 0, sff = 0, sft = 0;
        for (int y = 0; y < j.th; ++y) {
          const int32_t* f = &blocks[static_cast<size_t>(oy + y) * cols + ox];
          const uint8_t* tr = t + static_cast<size_t>(y) * j.tw;
          for (int x = 0; x < j.tw; ++x) {
            sf += f[x];
            sff += f[x] * f[x];
            sft += f[x] * tr[x];
          }
        }
        const double score = ncc_score(n, st, stt, sf, sff, sft);
        const int index = oy * j.nx + ox;
        if (ncc_before(score, index, best.score, best.index)) {
          best.score = score;
          best.index = index;
        }
      }
    }
  }
}

void read_luma_cpu(const PixelSource& src, const std::vector<LumaRegion>& regions,
                   std::vector<uint8_t>* out) {
  out->clear();
  for (const LumaRegion& r : regions)
    for (int y = 0; y < r.rows; ++y)
      for (int x = 0; x < r.cols; ++x)
        out->push_back(static_cast<uint8_t>(
            luma_block(src, r.x + x * r.stride, r.y + y * r.stride, r.stride)));
}

void plan_capture(std::vector<Tracker::Target>* targets, std::vector<LumaRegion>* regions) {
  regions->clear();
  for (Tracker::Target& t : *targets) {
    t.capture = -1;
    if (!t.take_template)
      continue;
    t.take_template = false;
    const Box& b = t.box;
    const int s = std::max(1, static_cast<int>(std::sqrt(double(b.w) * b.h) / kCaptureSamples));
    LumaRegion r;
    r.x = b.x;
    r.y = b.y;
    r.stride = std::min(s, kMaxTemplateStride);
    r.cols = b.w / r.stride;
    r.rows = b.h / r.stride;
    if (r.cols < 2 || r.rows < 2)
      continue;
    t.capture = static_cast<int>(regions->size());
    regions->push_back(r);
  }
}

void take_templates(const std::vector<LumaRegion>& regions, const std::vector<uint8_t>& luma,
                    std::vector<Tracker::Target>* targets) {
  std::vector<size_t> at(regions.size() + 1, 0);
  for (size_t k = 0; k < regions.size(); ++k)
    at[k + 1] = at[k] + static_cast<size_t>(regions[k].cols) * regions[k].rows;
  for (Tracker::Target& t : *targets) {
    if (t.capture < 0)
      continue;
    const LumaRegion& r = regions[t.capture];
    t.tmpl.assign(luma.begin() + at[t.capture], luma.begin() + at[t.capture + 1]);
    t.tmpl_w = r.cols;
    t.tmpl_h = r.rows;
    t.capture = -1;
  }
}

void plan_templates(int width, int height, std::vector<Tracker::Target>* targets,
                    TemplatePass* pass) {
  pass->jobs.clear();
  pass->samples.clear();
  for (Tracker::Target& t : *targets) {
    t.tmpl_first = static_cast<int>(pass->jobs.size());
    t.tmpl_jobs = 0;
    if (!t.refine || t.tmpl.empty())
      continue;
    for (double f : kTemplateFactors) {
      TemplateJob j;
      j.stride = template_stride(f * t.w, f * t.h);
      j.tw = std::clamp(static_cast<int>(std::lround(f * t.w / j.stride)), 2, kMaxTemplateSide);
      j.th = std::clamp(static_cast<int>(std::lround(f * t.h / j.stride)), 2, kMaxTemplateSide);
      const int half = (kMaxOffsetSide - 1) / 2;
      const int mx = std::min(half, static_cast<int>(std::ceil(kTemplateMargin * j.tw)));
      const int my = std::min(half, static_cast<int>(std::ceil(kTemplateMargin * j.th)));
      j.x0 = static_cast<int>(std::lround(t.cx - 0.5 * j.tw * j.stride)) - mx * j.stride;
      j.y0 = static_cast<int>(std::lround(t.cy - 0.5 * j.th * j.stride)) - my * j.stride;
      j.nx = 2 * mx + 1;
      j.ny = 2 * my + 1;
      // Near the frame's border (the search area not inside it) the target may lie partly
      // outside, where no template fits, and the best place inside would pull the box off it.
      if (j.x0 < 0 || j.y0 < 0 || j.x0 + (j.nx - 1 + j.tw) * j.stride > width ||
          j.y0 + (j.ny - 1 + j.th) * j.stride > height)
        continue;
      j.first = static_cast<int64_t>(pass->samples.size());
      resample(t.tmpl, t.tmpl_w, t.tmpl_h, j.tw, j.th, &pass->samples);
      pass->jobs.push_back(j);
      ++t.tmpl_jobs;
    }
  }
}

void apply_templates(int width, int height, const TemplatePass& pass,
                     const std::vector<TemplateHit>& hits, std::vector<Tracker::Target>* targets) {
  for (Tracker::Target& t : *targets) {
    int best = -1; // ties to the first job: the tracked size
    for (int k = t.tmpl_first; k < t.tmpl_first + t.tmpl_jobs; ++k)
      if (hits[k].index >= 0 && (best < 0 || hits[k].score > hits[best].score))
        best = k;
    if (best < 0 || hits[best].score < kTemplateMinScore)
      continue;
    const TemplateJob& j = pass.jobs[best];
    const int index = hits[best].index;
    t.cx = j.x0 + (index % j.nx + 0.5 * j.tw) * j.stride;
    t.cy = j.y0 + (index / j.nx + 0.5 * j.th) * j.stride;
    t.box = rotated_box(t.cx, t.cy, t.w, t.h, kReportedRotation * t.rot, width, height);
  }
}

} // namespace cvis::rcdtrack

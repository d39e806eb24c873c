#include "rcdtrack_plan.hpp"

#include <algorithm>
#include <cmath>

namespace cvis::rcdtrack {

int coarse_step(int step, double w, double h, bool aligned) {
  if (step > 0)
    return step;
  const int s = std::max(1, static_cast<int>(std::lround(std::min(w, h) / 8.0)));
  if (!aligned)
    return s;
  const int m = s >= 8 ? 4 : s >= 4 ? 2 : 1;
  return s / m * m;
}

int fine_step(int step) {
  int f = 1;
  while (2 * f <= step / 4)
    f *= 2;
  return f;
}

int cell_for_step(int step) {
  int c = 1;
  while (c < 8 && step % (2 * c) == 0)
    c *= 2;
  return c;
}

std::vector<double> scale_factors(const Params& p) {
  std::vector<double> f;
  if (p.scales == 1) {
    f.push_back(std::min(std::max(1.0, p.scale_min), p.scale_max));
    return f;
  }
  const double r = std::log(p.scale_max / p.scale_min);
  for (int k = 0; k < p.scales; ++k)
    f.push_back(p.scale_min * std::exp(r * k / (p.scales - 1)));
  return f;
}

double scale_ratio(const Params& p) {
  if (p.scales == 1 || p.scale_max <= p.scale_min)
    return 1.25;
  return std::pow(p.scale_max / p.scale_min, 1.0 / (p.scales - 1));
}

namespace {

int floor_to(double v, int step) {
  return static_cast<int>(std::floor(v / step)) * step;
}
int ceil_to(double v, int step) {
  return static_cast<int>(std::ceil(v / step)) * step;
}

// Origins on multiples of `step` within [lo, hi] and [0, limit]; when that is empty, the multiple
// nearest to `centre` inside [0, limit]. Returns false when limit < 0 (the window does not fit).
bool origin_range(double lo, double hi, double centre, int limit, int step, int* first,
                  int* count) {
  if (limit < 0)
    return false;
  const int top = floor_to(limit, step);
  int a = std::max(0, ceil_to(lo, step)), b = std::min(top, floor_to(hi, step));
  if (a > b) {
    a = std::min(top, std::max(0, static_cast<int>(std::lround(centre / step)) * step));
    b = a;
  }
  *first = a;
  *count = (b - a) / step + 1;
  return true;
}

} // namespace

bool add_search(Pass* pass, const Area& area, double w, double h,
                const std::vector<double>& factors, int step, int parts, int frame_w, int frame_h,
                const GroupSpec& group_template) {
  const int cell = cell_for_step(step);
  const int min_side = std::max(4, parts > 1 ? 2 * cell : cell); // whole cells (cell <= 8)
  std::vector<GridSpec> grids;
  int x_lo = frame_w, y_lo = frame_h, x_hi = 0, y_hi = 0, max_ww = 0, max_wh = 0;
  for (double f : factors) {
    GridSpec g;
    g.ww = std::max(min_side, static_cast<int>(std::lround(f * w / cell)) * cell);
    g.wh = std::max(min_side, static_cast<int>(std::lround(f * h / cell)) * cell);
    g.factor = f;
    g.ln_factor = std::log(f);
    g.step = step;
    const double ox = area.cx - 0.5 * g.ww, oy = area.cy - 0.5 * g.wh;
    const double ax0 = area.whole_frame ? 0.0 : ox - area.rx,
                 ax1 = area.whole_frame ? 1e9 : ox + area.rx;
    const double ay0 = area.whole_frame ? 0.0 : oy - area.ry,
                 ay1 = area.whole_frame ? 1e9 : oy + area.ry;
    if (!origin_range(ax0, ax1, ox, frame_w - g.ww, step, &g.x0, &g.nx) ||
        !origin_range(ay0, ay1, oy, frame_h - g.wh, step, &g.y0, &g.ny))
      continue;
    max_ww = std::max(max_ww, g.ww);
    max_wh = std::max(max_wh, g.wh);
    x_lo = std::min(x_lo, g.x0);
    y_lo = std::min(y_lo, g.y0);
    x_hi = std::max(x_hi, g.x0 + (g.nx - 1) * step + g.ww);
    y_hi = std::max(y_hi, g.y0 + (g.ny - 1) * step + g.wh);
    grids.push_back(g);
  }
  if (grids.empty())
    return false;
  IntegralSpec is;
  if (area.whole_frame) { // one frame-wide integral per cell size, shared by every such search
    is = {0, 0, frame_w / cell, frame_h / cell, cell};
  } else {
    if (group_template.prior.context_weight > 0.0) {
      // Room for the rings around the windows (kContextMargin of the largest window), in whole
      // cells: region corners stay multiples of the cell, like the grids' origins.
      const int mx = (static_cast<int>(std::ceil(kContextMargin * max_ww)) / cell + 1) * cell;
      const int my = (static_cast<int>(std::ceil(kContextMargin * max_wh)) / cell + 1) * cell;
      x_lo = std::max(0, x_lo - mx);
      y_lo = std::max(0, y_lo - my);
      x_hi = std::min(frame_w / cell * cell, x_hi + mx);
      y_hi = std::min(frame_h / cell * cell, y_hi + my);
    }
    is = {x_lo, y_lo, (x_hi - x_lo) / cell, (y_hi - y_lo) / cell, cell};
  }
  int index = -1;
  for (size_t k = 0; k < pass->integrals.size(); ++k) {
    const IntegralSpec& o = pass->integrals[k];
    if (o.x == is.x && o.y == is.y && o.cols == is.cols && o.rows == is.rows && o.cell == is.cell)
      index = static_cast<int>(k);
  }
  if (index < 0) {
    index = static_cast<int>(pass->integrals.size());
    pass->integrals.push_back(is);
  }
  GroupSpec g = group_template;
  g.integral = index;
  g.first_grid = static_cast<int>(pass->grids.size());
  g.grid_count = static_cast<int>(grids.size());
  pass->grids.insert(pass->grids.end(), grids.begin(), grids.end());
  pass->groups.push_back(g);
  return true;
}

void add_describe(Pass* pass, const Box& box) {
  IntegralSpec is{box.x, box.y, box.w, box.h, 1};
  GridSpec gr;
  gr.x0 = box.x;
  gr.y0 = box.y;
  gr.ww = box.w;
  gr.wh = box.h;
  GroupSpec g;
  g.integral = static_cast<int>(pass->integrals.size());
  g.first_grid = static_cast<int>(pass->grids.size());
  g.grid_count = 1;
  pass->integrals.push_back(is);
  pass->grids.push_back(gr);
  pass->groups.push_back(g);
}

void merge_integrals(Pass* pass) {
  std::vector<IntegralSpec>& in = pass->integrals;
  const size_t n = in.size();
  std::vector<size_t> into(n);
  for (size_t k = 0; k < n; ++k)
    into[k] = k;
  auto cells = [](const IntegralSpec& s) { return static_cast<int64_t>(s.cols) * s.rows; };
  bool merged = true;
  while (merged) {
    merged = false;
    for (size_t i = 0; i < n; ++i) {
      if (into[i] != i)
        continue;
      for (size_t j = i + 1; j < n; ++j) {
        if (into[j] != j || in[j].cell != in[i].cell)
          continue;
        const IntegralSpec &a = in[i], &b = in[j];
        const int c = a.cell;
        const int x0 = std::min(a.x, b.x), y0 = std::min(a.y, b.y);
        const int x1 = std::max(a.x + a.cols * c, b.x + b.cols * c);
        const int y1 = std::max(a.y + a.rows * c, b.y + b.rows * c);
        // Corners of regions of cell c > 1 are multiples of c or 0, so the box is whole cells.
        const IntegralSpec u{x0, y0, (x1 - x0) / c, (y1 - y0) / c, c};
        if (cells(u) > cells(a) + cells(b))
          continue;
        in[i] = u;
        into[j] = i;
        merged = true;
      }
    }
  }
  std::vector<int> index(n, -1);
  std::vector<IntegralSpec> kept;
  for (size_t k = 0; k < n; ++k)
    if (into[k] == k) {
      index[k] = static_cast<int>(kept.size());
      kept.push_back(in[k]);
    }
  for (GroupSpec& g : pass->groups) {
    size_t k = static_cast<size_t>(g.integral);
    while (into[k] != k)
      k = into[k];
    g.integral = index[k];
  }
  in.swap(kept);
}

PassStats pass_stats(const Pass& pass) {
  PassStats s;
  s.groups = static_cast<int>(pass.groups.size());
  s.integrals = static_cast<int>(pass.integrals.size());
  for (const IntegralSpec& is : pass.integrals)
    s.integral_pixels += static_cast<int64_t>(is.cols) * is.rows * is.cell * is.cell;
  for (const GroupSpec& g : pass.groups)
    s.windows += group_windows(pass, g);
  return s;
}

std::vector<Hit> nms(const std::vector<Hit>& hits, double max_iou, int limit) {
  std::vector<Hit> kept;
  for (const Hit& h : hits) {
    if (static_cast<int>(kept.size()) >= limit)
      break;
    bool keep = true;
    for (const Hit& k : kept)
      if (iou(h.box, k.box) > max_iou) {
        keep = false;
        break;
      }
    if (keep)
      kept.push_back(h);
  }
  return kept;
}

} // namespace cvis::rcdtrack

// Rotation from the first window's layout (rcdtrack_rotation.hpp).
#include "rcdtrack_rotation.hpp"

#include <algorithm>
#include <cmath>

namespace cvis::rcdtrack {

namespace {

// Cells per side of the described square (fewer for small targets: cells of at least 2 pixels).
constexpr int kCellsPerSide = 16;
// Sample points per cell side: a cell counts in a made-up window by the share of its k x k points
// inside (cells straddle the turned window's edges).
constexpr int kSamples = 3;
// Angles tried, -kMaxAngle .. kMaxAngle in kAngleStep (rad).
constexpr double kMaxAngle = 0.8;
constexpr double kAngleStep = 0.05;

bool gradient_rows(const Layout& layout, int* ix, int* iy) {
  *ix = *iy = -1;
  for (int k = 0; k < layout.n; ++k) {
    if (layout.kind[k] == static_cast<uint8_t>(Feature::kIx))
      *ix = k;
    if (layout.kind[k] == static_cast<uint8_t>(Feature::kIy))
      *iy = k;
  }
  return *ix >= 0 && *iy >= 0;
}

// ln det of a symmetric positive definite n x n matrix (Cholesky); false when it is not.
bool logdet(int n, const double* a, double* out) {
  double l[kMaxFeatures * kMaxFeatures];
  double s = 0.0;
  for (int j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (int k = 0; k < j; ++k)
      d -= l[j * n + k] * l[j * n + k];
    if (!(d > 0.0))
      return false;
    const double r = std::sqrt(d);
    l[j * n + j] = r;
    s += std::log(d);
    for (int i = j + 1; i < n; ++i) {
      double v = a[i * n + j];
      for (int k = 0; k < j; ++k)
        v -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = v / r;
    }
  }
  *out = s;
  return true;
}

} // namespace

bool rotate_gradients(const Layout& layout, const std::vector<double>& cov, double angle,
                      std::vector<double>* out) {
  int ix, iy;
  if (!gradient_rows(layout, &ix, &iy))
    return false;
  const int n = layout.n;
  const size_t nn = static_cast<size_t>(n) * n;
  const double c = std::cos(angle), sn = std::sin(angle);
  *out = cov;
  for (size_t p = 0; (p + 1) * nn <= cov.size(); ++p) {
    double* m = out->data() + p * nn;
    // M <- R M R^T, R the identity but [c -s; s c] on (ix, iy): the rows, then the columns.
    for (int j = 0; j < n; ++j) {
      const double a = m[ix * n + j], b = m[iy * n + j];
      m[ix * n + j] = c * a - sn * b;
      m[iy * n + j] = sn * a + c * b;
    }
    for (int i = 0; i < n; ++i) {
      const double a = m[i * n + ix], b = m[i * n + iy];
      m[i * n + ix] = c * a - sn * b;
      m[i * n + iy] = sn * a + c * b;
    }
  }
  return true;
}

std::vector<Box> rotation_cells(const Layout& layout, const Box& init, int frame_w, int frame_h) {
  std::vector<Box> cells;
  int ix, iy;
  if (layout.ns != 0 || !gradient_rows(layout, &ix, &iy))
    return cells;
  // A square of the box's diagonal holds the box turned by any angle.
  const double side = std::ceil(std::hypot(init.w, init.h));
  const int g = std::max(1, std::min(kCellsPerSide, static_cast<int>(side / 2)));
  const double x0 = init.x + 0.5 * init.w - 0.5 * side, y0 = init.y + 0.5 * init.h - 0.5 * side;
  for (int j = 0; j < g; ++j) {
    for (int i = 0; i < g; ++i) {
      const int ax = std::max(0, static_cast<int>(std::lround(x0 + side * i / g)));
      const int bx = std::min(frame_w, static_cast<int>(std::lround(x0 + side * (i + 1) / g)));
      const int ay = std::max(0, static_cast<int>(std::lround(y0 + side * j / g)));
      const int by = std::min(frame_h, static_cast<int>(std::lround(y0 + side * (j + 1) / g)));
      if (bx - ax >= 2 && by - ay >= 2)
        cells.push_back({ax, ay, bx - ax, by - ay});
    }
  }
  return cells;
}

void add_cell_describes(Pass* pass, const std::vector<Box>& cells) {
  if (cells.empty())
    return;
  int x0 = cells[0].x, y0 = cells[0].y, x1 = x0, y1 = y0;
  for (const Box& b : cells) {
    x0 = std::min(x0, b.x);
    y0 = std::min(y0, b.y);
    x1 = std::max(x1, b.x + b.w);
    y1 = std::max(y1, b.y + b.h);
  }
  const int integral = static_cast<int>(pass->integrals.size());
  pass->integrals.push_back({x0, y0, x1 - x0, y1 - y0, 1});
  for (const Box& b : cells) {
    GridSpec gr;
    gr.x0 = b.x;
    gr.y0 = b.y;
    gr.ww = b.w;
    gr.wh = b.h;
    GroupSpec g;
    g.integral = integral;
    g.first_grid = static_cast<int>(pass->grids.size());
    g.grid_count = 1;
    pass->grids.push_back(gr);
    pass->groups.push_back(g);
  }
}

bool make_rotation_models(const Layout& layout, const Box& init, const std::vector<Box>& cells,
                          const std::vector<std::vector<int64_t>>& sums, RotationModels* out) {
  *out = RotationModels();
  const int n = layout.n, nf = layout.nf, parts = layout.parts;
  const size_t nn = static_cast<size_t>(n) * n;
  if (cells.empty() || cells.size() != sums.size() || layout.ns != 0)
    return false;
  const double cx = init.x + 0.5 * init.w, cy = init.y + 0.5 * init.h;
  const double hw = 0.5 * init.w, hh = 0.5 * init.h;
  const int steps = static_cast<int>(std::lround(kMaxAngle / kAngleStep));
  for (int k = -steps; k <= steps; ++k) {
    const double angle = k * kAngleStep;
    const double c = std::cos(angle), s = std::sin(angle);
    // Weighted sums per part: the weight of a cell is the share of its sample points that the
    // target turned by `angle` brings into the part (q = R p, p relative to the box centre).
    std::vector<double> acc(static_cast<size_t>(parts) * (layout.planes + 1), 0.0);
    for (size_t i = 0; i < cells.size(); ++i) {
      const Box& b = cells[i];
      double wpart[kMaxParts] = {};
      for (int sy = 0; sy < kSamples; ++sy) {
        for (int sx = 0; sx < kSamples; ++sx) {
          const double px = b.x + (sx + 0.5) * b.w / kSamples - cx;
          const double py = b.y + (sy + 0.5) * b.h / kSamples - cy;
          const double qx = c * px - s * py, qy = s * px + c * py;
          if (qx < -hw || qx >= hw || qy < -hh || qy >= hh)
            continue;
          // Only the target's own pixels: the background around the first box is not the one
          // the turned target will be seen on (with it, every angle but 0 matched worse).
          if (px < -hw || px >= hw || py < -hh || py >= hh)
            continue;
          wpart[0] += 1.0;
          if (parts == 5) {
            wpart[qx < 0.0 ? 1 : 2] += 1.0;
            wpart[qy < 0.0 ? 3 : 4] += 1.0;
          }
        }
      }
      for (int p = 0; p < parts; ++p) {
        if (wpart[p] == 0.0)
          continue;
        const double wt = wpart[p] / (kSamples * kSamples);
        for (int q = 0; q <= layout.planes; ++q)
          acc[p * (layout.planes + 1) + q] += wt * static_cast<double>(sums[i][q]);
      }
    }
    std::vector<double> cov(parts * nn, 0.0);
    for (int p = 0; p < parts; ++p) {
      const double* a = acc.data() + p * (layout.planes + 1);
      const double cnt = a[layout.planes];
      if (cnt < 4.0)
        return false;
      for (int r = 0; r < nf; ++r)
        for (int q = 0; q <= r; ++q) {
          const double v = (cnt * a[second_plane(layout, q, r)] - a[q] * a[r]) / cnt / (cnt - 1.0);
          cov[p * nn + r * n + q] = cov[p * nn + q * n + r] = v;
        }
    }
    std::vector<double> turned;
    rotate_gradients(layout, cov, angle, &turned);
    add_ridge(layout, &turned);
    std::vector<double> ld(parts);
    for (int p = 0; p < parts; ++p)
      if (!logdet(n, turned.data() + p * nn, &ld[p]))
        return false;
    out->angles.push_back(angle);
    out->cov.push_back(std::move(turned));
    out->ldet.push_back(std::move(ld));
  }
  return true;
}

bool estimate_rotation(const Layout& layout, const RotationModels& m,
                       const std::vector<double>& window_cov, double* angle) {
  const int n = layout.n, parts = layout.parts;
  const size_t nn = static_cast<size_t>(n) * n;
  if (m.angles.empty() || window_cov.size() != parts * nn)
    return false;
  std::vector<double> w = window_cov;
  add_ridge(layout, &w);
  double lw[kMaxParts];
  for (int p = 0; p < parts; ++p)
    if (!logdet(n, w.data() + p * nn, &lw[p]))
      return false;
  double best = HUGE_VAL;
  std::vector<double> mid(nn);
  for (size_t k = 0; k < m.angles.size(); ++k) {
    // Jensen-Bregman LogDet divergence per part; with five parts the sum minus the largest.
    double sum = 0.0, largest = 0.0;
    for (int p = 0; p < parts; ++p) {
      for (size_t e = 0; e < nn; ++e)
        mid[e] = 0.5 * (m.cov[k][p * nn + e] + w[p * nn + e]);
      double lm;
      if (!logdet(n, mid.data(), &lm))
        return false;
      const double d = lm - 0.5 * (m.ldet[k][p] + lw[p]);
      sum += d;
      largest = std::max(largest, d);
    }
    const double dist = parts == 5 ? sum - largest : sum;
    if (dist < best) {
      best = dist;
      *angle = m.angles[k];
    }
  }
  return best < HUGE_VAL;
}

} // namespace cvis::rcdtrack

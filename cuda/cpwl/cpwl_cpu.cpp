// CPWL approximation (reference, double precision) and the CPU twins of the GPU evaluators.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "cpwl.hpp"

namespace cvis::cpwl {

namespace {

constexpr double kPi = 3.14159265358979323846;

// 8-point Gauss-Legendre rule on [-1, 1].
constexpr double kGlNodes[8] = {-0.9602898564975363, -0.7966664774136267, -0.5255324099163290,
                                -0.1834346424956498, 0.1834346424956498,  0.5255324099163290,
                                0.7966664774136267,  0.9602898564975363};
constexpr double kGlWeights[8] = {0.1012285362903763, 0.2223810344533745, 0.3137066458778873,
                                  0.3626837833783620, 0.3626837833783620, 0.3137066458778873,
                                  0.2223810344533745, 0.1012285362903763};

// Sub-panels per segment for the quadratures: the integrands are smooth inside a segment, so two
// 8-point panels integrate them to far below the 15% the tests look at.
constexpr int kPanels = 2;

double second_derivative(const Function& fn, double x) {
  if (fn.d2)
    return fn.d2(x);
  const double h = 1e-4 * std::max(1.0, std::fabs(x));
  return (fn.f(x + h) - 2.0 * fn.f(x) + fn.f(x - h)) / (h * h);
}

// Integral of g over [lo, hi] with kPanels Gauss-Legendre panels.
template <typename G> double integrate(double lo, double hi, G&& g) {
  double sum = 0.0;
  const double w = (hi - lo) / kPanels;
  for (int p = 0; p < kPanels; ++p) {
    const double c = lo + (p + 0.5) * w, r = 0.5 * w;
    for (int i = 0; i < 8; ++i)
      sum += kGlWeights[i] * r * g(c + r * kGlNodes[i]);
  }
  return sum;
}

// Integral over [a, b] of a function with possible cusps (|f''|^(2/5) at zeros of f''): many
// panels, so a cusp only spoils one panel.
template <typename G> double integrate_interval(double a, double b, G&& g) {
  const int m = 4096;
  double sum = 0.0;
  for (int i = 0; i < m; ++i)
    sum += integrate(a + (b - a) * i / m, a + (b - a) * (i + 1) / m, g);
  return sum;
}

} // namespace

Function gaussian(double a, double b) {
  return {"gaussian", [](double x) { return std::exp(-0.5 * x * x); },
          [](double x) { return (x * x - 1.0) * std::exp(-0.5 * x * x); }, a, b};
}

Function lorentzian(double a, double b) {
  return {"lorentzian", [](double x) { return 1.0 / (kPi * (1.0 + x * x)); },
          [](double x) {
            const double q = 1.0 + x * x;
            return (6.0 * x * x - 2.0) / (kPi * q * q * q);
          },
          a, b};
}

Function bessel_j0(double a, double b) {
  // J0'' = -J0 + J1(x)/x (Bessel's equation); the limit at 0 is -1/2.
  return {"bessel_j0", [](double x) { return std::cyl_bessel_j(0.0, std::fabs(x)); },
          [](double x) {
            const double ax = std::fabs(x);
            if (ax < 1e-8)
              return -0.5;
            return std::cyl_bessel_j(1.0, ax) / ax - std::cyl_bessel_j(0.0, ax);
          },
          a, b};
}

const char* fit_name(Fit f) {
  return f == Fit::kInterpolant ? "interpolant" : "projection";
}
const char* partition_name(Partition p) {
  return p == Partition::kUniform ? "uniform" : "optimized";
}

double Cpwl::operator()(double x) const {
  if (knots.size() < 2 || x < knots.front() || x > knots.back())
    return 0.0;
  size_t j = static_cast<size_t>(std::upper_bound(knots.begin(), knots.end(), x) - knots.begin());
  j = std::min(std::max<size_t>(j, 1), knots.size() - 1) - 1;
  const double h = knots[j + 1] - knots[j];
  const double t = (x - knots[j]) / h;
  return values[j] * (1.0 - t) + values[j + 1] * t; // Eq. 8
}

std::vector<double> uniform_partition(double a, double b, int n) {
  std::vector<double> k(static_cast<size_t>(n) + 1);
  for (int i = 0; i <= n; ++i)
    k[i] = a + (b - a) * i / n;
  k[n] = b;
  return k;
}

Status optimized_partition(const Function& fn, int n, std::vector<double>* knots) {
  if (n < 1)
    return invalid_argument("optimized_partition: n must be >= 1");
  if (!(fn.a < fn.b))
    return invalid_argument("optimized_partition: need a < b");
  // Eq. 16: local knot density lambda(x) ~ |f''(x)|^(2/5); Eq. 18: its normalised cumulative F,
  // tabulated on a fine grid (trapezoids: the density has cusps where f'' = 0).
  const int m = std::max(20000, 64 * n);
  std::vector<double> cum(static_cast<size_t>(m) + 1, 0.0);
  auto dens = [&](double x) { return std::pow(std::fabs(second_derivative(fn, x)), 0.4); };
  double prev = dens(fn.a);
  for (int i = 1; i <= m; ++i) {
    const double x = fn.a + (fn.b - fn.a) * i / m;
    const double d = dens(x);
    cum[i] = cum[i - 1] + 0.5 * (prev + d) * (fn.b - fn.a) / m;
    prev = d;
  }
  const double total = cum[m];
  if (!(total > 0.0) || !std::isfinite(total)) {
    *knots = uniform_partition(fn.a, fn.b, n);
    return Status::Ok();
  }
  // Eq. 17: x_i = F^-1(i / n), inverting the tabulated F linearly inside a grid cell.
  knots->assign(static_cast<size_t>(n) + 1, 0.0);
  (*knots)[0] = fn.a;
  (*knots)[n] = fn.b;
  int cell = 0;
  for (int i = 1; i < n; ++i) {
    const double target = total * i / n;
    while (cell < m - 1 && cum[cell + 1] < target)
      ++cell;
    const double span = cum[cell + 1] - cum[cell];
    const double t = span > 0.0 ? (target - cum[cell]) / span : 0.0;
    (*knots)[i] = fn.a + (fn.b - fn.a) * (cell + t) / m;
  }
  for (int i = 1; i <= n; ++i) {
    if (!((*knots)[i] > (*knots)[i - 1]))
      return internal_error("optimized partition not increasing");
  }
  return Status::Ok();
}

Status fit(const Function& fn, const std::vector<double>& knots, Fit how, Cpwl* out) {
  const size_t nk = knots.size();
  if (nk < 2)
    return invalid_argument("fit: need at least 2 knots");
  for (size_t i = 1; i < nk; ++i) {
    if (!(knots[i] > knots[i - 1]))
      return invalid_argument("fit: knots must increase");
  }
  out->knots = knots;
  out->values.assign(nk, 0.0);
  if (how == Fit::kInterpolant) { // Eq. 3 with coefficients f(x_i)
    for (size_t i = 0; i < nk; ++i)
      out->values[i] = fn.f(knots[i]);
    return Status::Ok();
  }
  // Eqs. 5-6: G c = b with the tridiagonal Gram matrix of the hat functions,
  // G_ii = (h_{i-1} + h_i)/3, G_{i,i+1} = h_i/6, and b_i = <f, phi_i>.
  std::vector<double> diag(nk, 0.0), off(nk, 0.0), rhs(nk, 0.0);
  for (size_t j = 0; j + 1 < nk; ++j) {
    const double x0 = knots[j], x1 = knots[j + 1], h = x1 - x0;
    diag[j] += h / 3.0;
    diag[j + 1] += h / 3.0;
    off[j] = h / 6.0;
    rhs[j] += integrate(x0, x1, [&](double x) { return fn.f(x) * (x1 - x) / h; });
    rhs[j + 1] += integrate(x0, x1, [&](double x) { return fn.f(x) * (x - x0) / h; });
  }
  // Thomas algorithm (the matrix is strictly diagonally dominant, so no pivoting is needed).
  std::vector<double> c(nk, 0.0), d(nk, 0.0);
  c[0] = off[0] / diag[0];
  d[0] = rhs[0] / diag[0];
  for (size_t i = 1; i < nk; ++i) {
    const double den = diag[i] - off[i - 1] * c[i - 1];
    c[i] = (i + 1 < nk) ? off[i] / den : 0.0;
    d[i] = (rhs[i] - off[i - 1] * d[i - 1]) / den;
  }
  out->values[nk - 1] = d[nk - 1];
  for (size_t i = nk - 1; i-- > 0;)
    out->values[i] = d[i] - c[i] * out->values[i + 1];
  return Status::Ok();
}

Status approximate(const Function& fn, int n, Partition partition, Fit how, Cpwl* out) {
  if (n < 1)
    return invalid_argument("approximate: n must be >= 1");
  std::vector<double> knots;
  if (partition == Partition::kUniform) {
    knots = uniform_partition(fn.a, fn.b, n);
  } else {
    CVIS_RETURN_IF_ERROR(optimized_partition(fn, n, &knots));
  }
  return fit(fn, knots, how, out);
}

double l2_error(const Function& fn, const Cpwl& g) {
  double sum = 0.0;
  for (size_t j = 0; j + 1 < g.knots.size(); ++j) {
    const double x0 = g.knots[j], x1 = g.knots[j + 1], h = x1 - x0;
    const double v0 = g.values[j], v1 = g.values[j + 1];
    sum += integrate(x0, x1, [&](double x) {
      const double e = fn.f(x) - (v0 + (v1 - v0) * (x - x0) / h);
      return e * e;
    });
  }
  return std::sqrt(sum);
}

Estimates estimate_errors(const Function& fn, int n) {
  const double curv = integrate_interval(
      fn.a, fn.b, [&](double x) { return std::pow(std::fabs(second_derivative(fn, x)), 0.4); });
  const double f2 = std::sqrt(integrate_interval(fn.a, fn.b, [&](double x) {
    const double d = second_derivative(fn, x);
    return d * d;
  }));
  const double nn = static_cast<double>(n);
  const double len = fn.b - fn.a;
  Estimates e;
  e.interpolant_optimized = std::pow(curv, 2.5) / (std::sqrt(120.0) * nn * nn);
  e.projection_optimized = e.interpolant_optimized / std::sqrt(6.0);
  e.interpolant_uniform = len * len * f2 / (std::sqrt(120.0) * nn * nn);
  e.projection_uniform = e.interpolant_uniform / std::sqrt(6.0);
  return e;
}

double estimate(const Function& fn, int n, Partition partition, Fit how) {
  const Estimates e = estimate_errors(fn, n);
  if (partition == Partition::kUniform) {
    return how == Fit::kInterpolant ? e.interpolant_uniform : e.projection_uniform;
  }
  return how == Fit::kInterpolant ? e.interpolant_optimized : e.projection_optimized;
}

// ------------------------------------------------------------------------------------------------

namespace {
constexpr const char* kEvaluatorNames[kEvaluatorCount] = {
    "exact",           "fast",      "cpwl-texture", "cpwl-manual", "cpwl-opt-texture",
    "cpwl-opt-manual", "cpwl-slope"};
}

const char* evaluator_name(Evaluator e) {
  const int i = static_cast<int>(e);
  return (i >= 0 && i < kEvaluatorCount) ? kEvaluatorNames[i] : "?";
}

bool parse_evaluator(const std::string& s, Evaluator* out) {
  for (int i = 0; i < kEvaluatorCount; ++i) {
    if (s == kEvaluatorNames[i]) {
      *out = static_cast<Evaluator>(i);
      return true;
    }
  }
  return false;
}

bool evaluator_uses_table(Evaluator e) {
  return e != Evaluator::kExact && e != Evaluator::kFast;
}

Partition evaluator_partition(Evaluator e) {
  return (e == Evaluator::kTextureOptimized || e == Evaluator::kManualOptimized)
             ? Partition::kOptimized
             : Partition::kUniform;
}

int search_size(int n) {
  int p = 16;
  while (p < n)
    p *= 2;
  return p;
}

TableView Table::view() const {
  TableView v;
  v.n = n;
  v.pow2 = pow2;
  v.a = a;
  v.scale = scale;
  v.values = padded.data();
  v.slope = slope.data();
  v.knots = knots.empty() ? nullptr : knots.data();
  v.inv_h = inv_h.empty() ? nullptr : inv_h.data();
  return v;
}

Status make_table(const Cpwl& g, Partition partition, Table* out) {
  const int n = static_cast<int>(g.knots.size()) - 1;
  if (n < kMinSegments || n > kMaxSegments || g.values.size() != g.knots.size()) {
    return invalid_argument("make_table: segments must be in [" + std::to_string(kMinSegments) +
                            ", " + std::to_string(kMaxSegments) + "]");
  }
  for (int i = 1; i <= n; ++i) {
    if (!(g.knots[i] > g.knots[i - 1]))
      return invalid_argument("make_table: knots must increase");
  }
  Table t;
  t.partition = partition;
  t.n = n;
  t.a = static_cast<float>(g.knots.front());
  t.b = static_cast<float>(g.knots.back());
  t.scale = static_cast<float>(n / (g.knots.back() - g.knots.front()));
  t.padded.assign(static_cast<size_t>(n) + 4, 0.0f);
  for (int i = 0; i <= n; ++i)
    t.padded[i + 1] = static_cast<float>(g.values[i]);
  t.slope.assign(2 * (static_cast<size_t>(n) + 3), 0.0f);
  for (int k = 0; k < n + 3; ++k) {
    t.slope[2 * k] = t.padded[k];
    t.slope[2 * k + 1] = t.padded[k + 1] - t.padded[k];
  }
  if (partition == Partition::kOptimized) {
    t.pow2 = search_size(n);
    t.knots.assign(t.pow2, std::numeric_limits<float>::infinity());
    t.inv_h.assign(t.pow2, 0.0f);
    for (int j = 0; j < n; ++j) {
      t.knots[j] = static_cast<float>(g.knots[j]);
      const double hi = static_cast<float>(g.knots[j + 1]);
      t.inv_h[j] = static_cast<float>(1.0 / (hi - static_cast<double>(t.knots[j])));
    }
  }
  *out = std::move(t);
  return Status::Ok();
}

float evaluate_twin(Evaluator e, const TableView& t, float x, TexRounding r) {
  if (evaluator_partition(e) == Partition::kOptimized && (!t.knots || !t.inv_h)) {
    return std::numeric_limits<float>::quiet_NaN(); // uniform table given to an optimized path
  }
  switch (e) {
  case Evaluator::kExact:
    return std::exp(gaussian_exponent(x));
  case Evaluator::kFast:
    // __expf(a) is ex2.approx(a * log2(e)); exp2f stands in for the SFU's ex2 (~2 ulp apart).
    return std::exp2(mul_rn(gaussian_exponent(x), 1.44269504088896341f));
  case Evaluator::kTextureUniform:
    return lookup_texture_emulated(t.values, t.n, uniform_index(t.a, t.scale, x), r);
  case Evaluator::kManualUniform:
    return lookup_manual(t.values, t.n, uniform_index(t.a, t.scale, x));
  case Evaluator::kSlopeUniform:
    return lookup_slope(t.slope, t.n, uniform_index(t.a, t.scale, x));
  case Evaluator::kTextureOptimized:
    return lookup_texture_emulated(t.values, t.n, optimized_index_rt(t.knots, t.inv_h, t.pow2, x),
                                   r);
  case Evaluator::kManualOptimized:
    return lookup_manual(t.values, t.n, optimized_index_rt(t.knots, t.inv_h, t.pow2, x));
  }
  return 0.0f;
}

} // namespace cvis::cpwl

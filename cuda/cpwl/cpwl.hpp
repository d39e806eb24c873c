// CPWL: continuous piecewise-linear approximation of smooth functions, after
//   D. Berjón, G. Gallego, C. Cuevas, F. Morán, N. García, "Optimal Piecewise Linear Function
//   Approximation for GPU-based Applications", IEEE Trans. Cybernetics 46(11), 2016.
//
// What it offers (see README.md for the equation -> function table):
// - the linear interpolant and the L2 orthogonal projection of f on a partition of [a, b] (Sect.
// II),
//   on a uniform partition or on the paper's near-optimal one (knot density ~ |f''|^(2/5),
//   Eqs. 16-18);
// - the paper's asymptotic error estimates (Eqs. 19, 23, 24) and measured L2 errors;
// - float tables and evaluators (Sect. V): each GPU evaluator has a CPU twin in this library that
//   computes the same bits (manual interpolation) or emulates the hardware (texture filtering with
//   its 8-bit weights), so GPU results can be checked exactly or within a stated bound.
//
// Everything here is host code in double precision except the float evaluators. The GPU entry
// points at the end need a CUDA build and a device (kNoDevice otherwise).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "cpwl_eval.hpp"

namespace cvis::cpwl {

using RealFn = std::function<double(double)>;

// A function to approximate on [a, b]. `d2` is f''; when empty, a central difference is used.
struct Function {
  std::string name;
  RealFn f;
  RealFn d2;
  double a = 0.0, b = 1.0;
};

// The paper's test functions (Sect. VI) on the intervals used by our tests and benchmarks (the
// extracted paper text lost the interval bounds; README.md says how these were chosen).
Function gaussian(double a = 0.0, double b = 4.0);    // exp(-x^2/2)   (the BGS kernel profile)
Function lorentzian(double a = -5.0, double b = 5.0); // 1/(pi (1+x^2)), standard Cauchy
Function bessel_j0(double a = 0.0, double b = 20.0);  // J0(x)

enum class Fit : int { kInterpolant = 0, kProjection = 1 };
enum class Partition : int { kUniform = 0, kOptimized = 1 };
const char* fit_name(Fit f);             // "interpolant", "projection"
const char* partition_name(Partition p); // "uniform", "optimized"

// A CPWL function: nodal values at increasing knots (same length >= 2).
struct Cpwl {
  std::vector<double> knots;
  std::vector<double> values;
  // The CPWL value at x; 0 outside [knots.front(), knots.back()].
  double operator()(double x) const;
};

// n >= 1 segments of equal length.
std::vector<double> uniform_partition(double a, double b, int n);

// The near-optimal partition (Eqs. 16-18): knot density proportional to |f''|^(2/5), knots where
// the normalised cumulative density F crosses i/n. Falls back to uniform where f'' vanishes on the
// whole interval. Errors: kInvalidArgument (n < 1, a >= b).
Status optimized_partition(const Function& fn, int n, std::vector<double>* knots);

// The linear interpolant (Sect. II-B1) or the orthogonal projection (Sect. II-B2: Gram system
// solved with the Thomas algorithm) of fn on `knots`.
Status fit(const Function& fn, const std::vector<double>& knots, Fit how, Cpwl* out);

// Shorthand: partition + fit with n segments.
Status approximate(const Function& fn, int n, Partition partition, Fit how, Cpwl* out);

// ||f - g||_L2 on [a, b] (Gauss-Legendre quadrature on every segment).
double l2_error(const Function& fn, const Cpwl& g);

// The paper's asymptotic L2 error estimates for n segments.
struct Estimates {
  double interpolant_optimized; // Eq. 19: (1/sqrt(120)) n^-2 (int |f''|^(2/5))^(5/2)
  double projection_optimized;  // Eq. 23: Eq. 19 / sqrt(6)
  double interpolant_uniform;   // Eq. 24: (1/sqrt(120)) ((b-a)/n)^2 ||f''||_L2
  double projection_uniform;    // Eq. 24 / sqrt(6) (Eq. 14 summed over the uniform partition)
};
Estimates estimate_errors(const Function& fn, int n);
double estimate(const Function& fn, int n, Partition partition, Fit how);

// ------------------------------------------------------------------------------------------------
// Evaluators (Sect. V, Table I).

enum class Evaluator : int {
  kExact = 0,            // expf(-x^2/2) (Gaussian only)
  kFast = 1,             // __expf(-x^2/2), the SFU (Gaussian only)
  kTextureUniform = 2,   // uniform partition, texture linear filtering
  kManualUniform = 3,    // uniform partition, manual lerp, table in shared memory
  kTextureOptimized = 4, // optimized partition: unrolled binary search + texture filtering
  kManualOptimized = 5,  // optimized partition: unrolled binary search + manual lerp
  kSlopeUniform = 6,     // uniform partition, {value, slope} pairs in shared memory (one load)
};
inline constexpr int kEvaluatorCount = 7;
const char* evaluator_name(Evaluator e); // "exact", "fast", "cpwl-texture", ...
bool parse_evaluator(const std::string& s, Evaluator* out);
bool evaluator_uses_table(Evaluator e);
Partition evaluator_partition(Evaluator e); // kUniform for the non-table ones

// Limits of the GPU paths (shared-memory tables, compile-time search sizes).
inline constexpr int kMinSegments = 2;
inline constexpr int kMaxSegments = 1024;

// A float table of a CPWL function for the evaluators (host arrays in the TableView layout).
struct Table {
  Partition partition = Partition::kUniform;
  int n = 0;
  float a = 0.f, b = 0.f, scale = 0.f;
  std::vector<float> padded; // n + 4
  std::vector<float> slope;  // 2 (n + 3)
  std::vector<float> knots;  // pow2 (optimized only)
  std::vector<float> inv_h;  // pow2 (optimized only)
  int pow2 = 0;
  TableView view() const; // host view (pointers into this object)
};

// Power of two used by the optimized search for n segments (>= 16: the GPU instantiates 16..1024).
int search_size(int n);

// Float table of `g`, which must be a CPWL on `partition` (uniform: equally spaced knots).
// Errors: kInvalidArgument (n outside [kMinSegments, kMaxSegments], knots not increasing).
Status make_table(const Cpwl& g, Partition partition, Table* out);

// The CPU twin of evaluator `e` (same bits as the GPU for kManual*/kSlope*; texture emulated with
// rounding rule `r`; kExact/kFast through the host's expf/exp2f).
float evaluate_twin(Evaluator e, const TableView& t, float x,
                    TexRounding r = TexRounding::kNearest);

// ------------------------------------------------------------------------------------------------
// GPU (CUDA builds with a device; kNoDevice otherwise). Device = the current CUDA device.

// Evaluates x[0..count-1] with evaluator `e` on the GPU into out[] (host arrays).
Status evaluate_gpu(Evaluator e, const Table& table, const float* x, int count, float* out);

} // namespace cvis::cpwl

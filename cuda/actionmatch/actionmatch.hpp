// Activity recognition by exact hypergraph matching with dynamic programming on GPUs (the matching
// paper; README.md): the matcher.
//
// A model is a chain of space-time interest points, one per model frame (the most salient one),
// each linked by a hyperedge to its two predecessors; a scene (block) is any set of interest points
// of a block of frames. Matching assigns every model node i a scene node z_i or the dummy (outlier)
// and minimises the energy of eq. (1)/(9):
//
//   E(z) = sum_i lambda1 U(z_i) + sum_{i>=3} lambda2 D(z_i, z_{i-1}, z_{i-2})
//   U    = W_d for the dummy, else ||f_i - f'_{z_i}|| (eq. 2)
//   D    = Dt + lambda3 Dg (eq. 3), Dt = Delta(i,i-1) + Delta(i-1,i-2) (eq. 4, 5),
//          Dg = || (a(i,j,k) - a'(z_i,z_j,z_k), a(j,i,k) - a'(z_j,z_i,z_k)) || (eq. 6)
//
// exactly, by the dynamic programme of eq. (10)-(13) over the pruned trellis (causality, temporal
// closeness T: eq. 7, 8, 14). README.md maps every equation to its function and states where the
// paper is ambiguous and what was chosen. The energy is evaluated in a stated exact scheme: every
// term is computed in IEEE double with the same operations on CPU and GPU and rounded to a 64-bit
// fixed-point integer (units of 2^-20, kEnergyScale); sums are integer, hence exact and independent
// of the order of summation. Both backends return the same optimum: the same energy and, among
// several optimal assignments, the lexicographically smallest (z_1, z_2, ..., z_M), with the dummy
// ordered after every scene node.
//
// Backends: the CPU reference (actionmatch_cpu.cpp) and, in CUDA builds, the CUDA backend (all
// models and scene blocks of one call in two launches). This header includes no CUDA header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/image.hpp"
#include "common/status.hpp"

namespace cvis::actionmatch {

// HoG (72) + HoF (90) values of the paper's descriptors (Laptev's STIP code: 3x3x2 cells, 4
// gradient and 5 flow orientation bins). Any dimension in 1..kMaxDim is accepted.
inline constexpr int kPaperDescriptorDim = 162;
// Limits (validated; they keep every fixed-point sum inside int64, README.md, "Exactness").
inline constexpr int kMaxDim = 4096;
inline constexpr int kMinModelNodes = 3; // one hyperedge at least
inline constexpr int kMaxModelNodes = 1024;
inline constexpr int kMaxSceneNodes = 32767;  // argmin tables hold 16-bit node indices
inline constexpr int kMaxFrame = 1 << 30;     // |frame| <= kMaxFrame
inline constexpr int kMaxFrameSpan = 1 << 20; // last frame - first frame of a graph
inline constexpr double kMaxCoordinate = 1e6; // |x|, |y|
inline constexpr double kMaxDescriptorValue = 1e4;

// The assignment value of a model node matched to no scene node (the dummy of eq. 2).
inline constexpr int32_t kDummy = -1;

// Fixed-point scale of the energy: one unit is 2^-20.
inline constexpr double kEnergyScale = 1048576.0;

// The causality constraint (Sect. 2.1): how the scene frames of consecutive matched nodes may
// relate. The paper states it as eq. (7), whose "<=" on both sides read literally makes the order
// strict, and implements it as eq. (14) and the minnode loop bound of Sect. 3.4, which allow two
// consecutive model nodes in one scene frame (even on one scene node). README.md discusses it.
enum class Causality : int {
  kNone = 0,          // no order constraint (only the closeness T)
  kNonDecreasing = 1, // eq. (14): t'(z_{i-1}) <= t'(z_i) (the paper's algorithm; default)
  kIncreasing = 2,    // eq. (7) strictly: t'(z_{i-1}) < t'(z_i)
};
const char* causality_name(Causality c); // "none", "non-decreasing", "increasing"
bool parse_causality(const std::string& s, Causality* out); // inverse

// Energy and pruning parameters. Defaults are the paper's (Sect. 4: lambda1 0.6, lambda2 0.2,
// lambda3 5, T 10) where it gives one; README.md says why the others are what they are.
struct Params {
  double lambda1 = 0.6; // weight of the appearance term U (eq. 1); 0..100
  double lambda2 = 0.2; // weight of the distortion term D (eq. 1); 0..100
  double lambda3 = 5.0; // weight of the angle term Dg inside D (eq. 3); 0..1000
  int T = 10;           // temporal closeness (eq. 8, 14): the scene frames of the nodes of a
                        // hyperedge span fewer than T frames; 0 = no limit (T = infinity)
  Causality causality = Causality::kNonDecreasing; // eq. 7 / 14
  bool dummies = true;                             // allow the dummy assignment (eq. 2)
  double dummy_cost = 1.0; // W_d (eq. 2), in units of descriptor distance; 0..1e6. The paper gives
                           // no value (README.md).
};

// Errors: kInvalidArgument naming the bad field.
Status validate(const Params& p);

// A set of space-time interest points. Node n has a frame number, an image position (pixels) and
// a descriptor of `dim` floats (desc[n * dim .. n * dim + dim - 1]).
struct Graph {
  int dim = kPaperDescriptorDim;
  std::vector<int32_t> frame;
  std::vector<float> x, y;
  std::vector<float> desc;

  int size() const { return static_cast<int>(frame.size()); }
  // Appends a node; `d` points at `dim` values.
  void add(int32_t f, float px, float py, const float* d);
  const float* descriptor(int n) const { return desc.data() + static_cast<size_t>(n) * dim; }
};

// A model graph with its class label (e.g. "walking") and a free description of where it came from
// (e.g. "person01_walking_d1 frames 12-41"; may be empty).
struct Model {
  std::string label;
  std::string source;
  Graph graph;
};

// Model graphs: kMinModelNodes..kMaxModelNodes nodes, frames strictly increasing (one node per
// model frame, eq. 9), label 1..255 bytes and source 0..1023 bytes without control characters.
// Scene graphs: 0..kMaxSceneNodes nodes, frames non-decreasing (nodes sorted by frame; several per
// frame allowed, Fig. 6). Both: dim in 1..kMaxDim, arrays of matching sizes, finite positions and
// descriptors within the limits above, frame span <= kMaxFrameSpan.
// Errors: kInvalidArgument naming the node and field ("model 'walk': node 4: frame 12 not after
// frame 12 of node 3").
Status validate_model(const Model& m);
Status validate_scene(const Graph& scene);

// The result of matching one model against one scene block.
struct MatchResult {
  bool feasible = false;    // false: no assignment satisfies the constraints (possible only
                            // without dummies); the fields below are then 0 / empty
  int64_t energy_q = 0;     // E(z) of the optimum, fixed point (units 1/kEnergyScale)
  int64_t appearance_q = 0; // its part sum_i lambda1 U(z_i)
  int64_t distortion_q = 0; // its part sum_i lambda2 D(...); energy_q = appearance_q + distortion_q
  int dummies = 0;          // model nodes assigned the dummy
  std::vector<int32_t> assignment; // per model node: scene node index, or kDummy

  double energy() const { return energy_q / kEnergyScale; }
  double appearance() const { return appearance_q / kEnergyScale; }
  double distortion() const { return distortion_q / kEnergyScale; }
  bool operator==(const MatchResult& o) const;
  bool operator!=(const MatchResult& o) const { return !(*this == o); }
};

// What a nearest-prototype classifier compares (Sect. 4): the full energy of the optimum, or only
// its appearance part (the paper's best results), both from the same optimal assignment.
enum class Distance : int { kEnergy = 0, kAppearance = 1 };
const char* distance_name(Distance d);                    // "energy", "appearance"
bool parse_distance(const std::string& s, Distance* out); // inverse
// +infinity for an infeasible result.
double distance(const MatchResult& r, Distance d);

// Work counts of a match() call (pairs, cells and evaluations the same for both backends).
struct MatchStats {
  int64_t pairs = 0;           // (scene block, model) pairs
  int64_t cells = 0;           // trellis cells alpha_i(z_{i-1}, z_{i-2}) computed (after pruning)
  int64_t evaluations = 0;     // candidate values z_i examined in the minimisations of eq. (10)
  int32_t blocks_per_pair = 0; // CUDA: thread blocks (one cluster) per pair in the last launch
  int32_t folded = 0;          // CUDA: 1 when the last launch ran the folded trellis (README.md)
};

// The energy of one given assignment (kDummy for the dummy), by the definitions (no trellis):
// whether it satisfies every constraint and, when it does, its exact fixed-point energy and parts
// (the fields of MatchResult) and the same energy in plain double arithmetic with std::atan2 and
// without rounding of the terms (the paper's energy, for tolerance checks). Errors: bad inputs,
// assignment of the wrong length or with indices out of range.
struct Evaluation {
  bool feasible = false;
  MatchResult fixed;        // feasible, energy_q, appearance_q, distortion_q, dummies, assignment
  double energy_double = 0; // sum in double of the unrounded terms
};
Status evaluate(const Model& m, const Graph& scene, const Params& p,
                const std::vector<int32_t>& assignment, Evaluation* out);

// Matches scene blocks against every model of a dictionary. One thread at a time per instance;
// the CUDA backend works in the CUDA context current on the calling thread.
class Matcher {
public:
  virtual ~Matcher() = default;
  virtual Backend backend() const = 0;

  // Validates and keeps the parameters and models (the CUDA backend uploads the models here, once).
  // May be called again to replace them. Errors: kInvalidArgument, kCudaError / kOutOfMemory.
  virtual Status configure(const Params& params, const std::vector<Model>& models) = 0;

  // Matches `count` scene blocks (host graphs of the models' dimension) against every configured
  // model: (*results)[block * models + model]. Everything is finished and on the host when it
  // returns; the CUDA backend works on `stream` (ignored by the CPU backend). `stats` may be null.
  // Errors: kInvalidArgument (bad scene, dimension mismatch, no models configured, a trellis over
  // the size limit of README.md), kCudaError / kOutOfMemory.
  virtual Status match(const Graph* scenes, int count, std::vector<MatchResult>* results,
                       MatchStats* stats, StreamHandle stream) = 0;

  // Forgets the models and frees scratch memory (device memory in the CUDA context current now).
  virtual void reset() = 0;
};

// Resource limits of the CUDA backend (the CPU backend ignores them). The defaults are what the
// library is measured with (README.md, "Benchmark"); tests and benchmarks set smaller values to
// reach the other launch shapes. Neither changes any result.
struct CudaOptions {
  // Most thread blocks (a thread-block cluster, sm_90 and later) that share one (block, model)
  // pair's trellis rows, 1..kMaxBlocksPerPair. The backend takes fewer where a row fits one block
  // or the device launches no clusters. compute-sanitizer's racecheck needs a small value: its
  // cost grows with the blocks of a cluster.
  int max_blocks_per_pair = 8;
  // Entries (16 bytes each) of the scene-angle tables of one match() call, at most; a call that
  // needs more computes the angles from the ray directions per candidate instead (slower, the
  // same results). 0 always takes that path.
  int64_t max_angle_entries = int64_t{1} << 26;
};
inline constexpr int kMaxBlocksPerPair = 8;
// Errors: kInvalidArgument naming the field.
Status validate(const CudaOptions& o);

// `backend` must be kCpu or kCuda (resolve kAuto with cvis::resolve_backend first). `cpu_threads`:
// threads of the CPU backend (0 = all cores); `cuda`: the CUDA backend's limits (validated).
// Returns nullptr and sets *status (kNoDevice) when the CUDA backend is not in this build,
// kInvalidArgument for bad options.
std::unique_ptr<Matcher> make_matcher(Backend backend, Status* status, int cpu_threads = 0,
                                      const CudaOptions& cuda = CudaOptions());

} // namespace cvis::actionmatch

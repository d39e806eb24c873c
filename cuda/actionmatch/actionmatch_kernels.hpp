// Kernels of the CUDA backend (actionmatch_kernels.cu) and their launchers; only
// actionmatch_cuda.cpp includes this header. Everything a launch needs is in one Problem: the
// models (uploaded by configure), the concatenated scene blocks of a match() call with their
// layouts (actionmatch_layout.hpp, indices local to each block), and the (block, model) pairs.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "common/hd.hpp"
#include "common/status.hpp"

namespace cvis::actionmatch::kernels {

// Hyperedge (r, r-1, r-2) of a model, stored at its last node r (r >= 2).
struct ModelRow {
  double mid = 0, last = 0; // model angles of eq. 6
  int32_t gap1 = 0, gap2 = 0;
};

// The scene angles of eq. 6 of one triple (a, b, c) of scene nodes: at b (from its ray to a to its
// ray to c) and at a (from its ray to b to its ray to c), as terms::angle_at gives them.
struct alignas(16) SceneAngles {
  double mid, last;
};

// What a trellis lane group needs of its cell in every row, made once per call by the prologue
// (row-independent), stored in the work order (SceneLayout::cell_order): the cell, its state
// (b, c) and candidate interval [first, end) (16 bits each: S <= 32767), and the cell's offset in
// the block's angle table. One 16-byte load per row instead of a chain of five dependent ones
// (order, cell_b, seg_end, frames, minnode) in the candidate loop's set-up.
struct alignas(16) CellPlan {
  uint32_t cell;  // the cell | its gap code << kPlanCellBits (plan_cell, plan_gap)
  uint32_t bc;    // b | c << 16
  uint32_t range; // first | end << 16
  int32_t tri;    // SceneLayout::tri_off of the cell
};
// A row has fewer than 2^kPlanCellBits cells (detail::kMaxRowCells). The gap code of a cell of three
// scene nodes is t(b) - t(c) when 0 <= t(b) - t(c) < kNoGapCode, else (other cells too)
// kNoGapCode: the folded trellis's frame-gap bounds (README.md, "Tenth round") take it instead of
// two frame loads per cell and row.
inline constexpr int kPlanCellBits = 26;
inline constexpr int kNoGapCode = 63;
CVIS_HD int plan_cell(const CellPlan& pl) {
  return static_cast<int>(pl.cell & ((1u << kPlanCellBits) - 1));
}
CVIS_HD int plan_gap(const CellPlan& pl) {
  return static_cast<int>(pl.cell >> kPlanCellBits);
}

struct BlockInfo {
  int32_t S = 0, node0 = 0;       // nodes; first node in the concatenated node arrays
  int32_t frame0 = 0, frames = 0; // frame range
  int32_t minnode0 = 0;           // its minnode table: minnode[minnode0 .. + frames]
  int32_t seg0 = 0, segments = 0; // its segment tables: seg_*[seg0 .. + segments - 1]
  int32_t cells = 0, cell0 = 0;   // cells of a row; cell_b, cell_order[cell0 .. + cells - 1]
  int32_t slot0 = 0;              // its first unary column (S + 1 columns: nodes, dummy)
  int64_t dir0 = 0;               // its direction table: dir[dir0 ..]
  int64_t tri0 = 0;               // its angle table: tri[tri0 .. + triples) (when used)
};

struct PairInfo {
  int32_t model = 0, block = 0;
  int32_t assign0 = 0, pad = 0; // assignment[assign0 .. + M - 1]
  int64_t unary0 = 0;           // unary[unary0 ..]: M rows of S + 1 values
  int64_t beta0 = 0;            // beta[beta0 ..]: M - 2 rows of `cells` values
  int64_t alpha0 = 0;           // alpha[alpha0 ..]: 2 rows of `cells` (global-memory mode)
};

struct PairResult {
  int64_t energy, appearance, distortion;
  int32_t dummies, feasible;
};

struct Problem {
  // Parameters.
  double lambda1 = 0, lambda2 = 0, lambda3 = 0;
  int64_t dummy_q = 0;
  int32_t T = 0, causality = 0, dummies = 0, dim = 0;
  // Models: node0[m] .. node0[m + 1] - 1 are model m's nodes.
  int32_t nmodels = 0, model_nodes = 0;
  const int32_t* model_node0 = nullptr; // nmodels + 1
  const int32_t* node_model = nullptr;  // per model node
  const ModelRow* rows = nullptr;       // per model node
  const float* model_desc = nullptr;    // per model node, dim values (Graph's floats)
  // Scene blocks (node indices in the tables below are local to the block).
  int32_t nblocks = 0, scene_nodes = 0, slots = 0;
  const BlockInfo* blocks = nullptr;
  const int32_t* frame = nullptr; // per scene node
  const float* x = nullptr;
  const float* y = nullptr;
  const float* scene_desc = nullptr;   // per scene node, dim values
  const int32_t* node_block = nullptr; // per scene node
  const int32_t* slot_block = nullptr; // per unary column
  const int32_t* minnode = nullptr;
  // Per segment b (SceneLayout's seg_off, seg_clo, seg_cnt folded): the cell of (b, c) is
  // seg_base[b] + c for a scene node c, seg_end[b] for the dummy; cells of b from seg_end[b] on
  // have c = dummy. Local cell indices.
  const int32_t* seg_base = nullptr;
  const int32_t* seg_end = nullptr;
  const uint16_t* cell_b = nullptr;    // per cell
  const int32_t* cell_order = nullptr; // per cell: the trellis's work order (SceneLayout)
  const int32_t* win_lo = nullptr;     // per scene node: first node of its direction window
  const int32_t* win_cnt = nullptr;
  const int32_t* dir_rel = nullptr; // per scene node: its directions at dir[block dir0 + dir_rel]
  double* dir = nullptr;
  int64_t total_dirs = 0; // size of dir
  // The angle table of every block (SceneLayout::tri_off), made by the prologue, when use_tri.
  int32_t use_tri = 0, total_cells = 0;
  CellPlan* plan = nullptr; // per cell of every block, in each block's work order (prologue)
  const int32_t* tri_off = nullptr; // per cell
  SceneAngles* tri = nullptr;
  int64_t total_tri = 0;
  // Pairs (block-major: pair = block * nmodels + model) and outputs.
  int32_t npairs = 0;
  const PairInfo* pairs = nullptr;
  int64_t* unary = nullptr;
  uint16_t* beta = nullptr;
  int64_t* alpha = nullptr; // global-memory alpha rows (when not in shared memory)
  PairResult* results = nullptr;
  int32_t* assignment = nullptr;
  // Trellis launch: what lives in shared memory, and the largest sizes over the launch's pairs.
  int32_t shared_tables = 0, shared_alpha = 0, shared_tri = 0, shared_dir = 0, shared_unary = 0,
          shared_beta = 0, shared_plan = 0;
  int32_t cluster = 1; // blocks per pair (a thread-block cluster when > 1; trellis_cluster())
  int32_t max_segments = 0, max_nodes = 0, max_cells = 0;
  int64_t max_dirs = 0, max_unary = 0, max_tri = 0;
  int64_t max_beta = 0; // the largest (M - 2) x cells of a pair
  // (Last, so that the older instantiations see the fields above at their old offsets.) The
  // folded trellis (README.md, "Seventh round"; trellis_kernel<true, true, true>, only when
  // everything is in shared memory with the angle table): the alpha rows hold alpha_r(b, c) +
  // lambda1 U_{r-1}(b), so that a candidate's lower bound is one load, and row r + 1 records per
  // b the smallest value of its states (a, b), a real, so that row r settles a cell whose
  // candidates cannot beat the dummy without its candidate loop. The same results.
  int32_t fold = 0;
  // The per-b minima are 32-bit keys v >> q_shift (the host: M x dummy_q >> q_shift < 2^31).
  int32_t q_shift = 0;
  // The folded trellis's solo instantiation (README.md, "Tenth round"): set by solo_trellis().
  int32_t solo = 0;
};

// Threads of a trellis block (power of two; at least kMaxModelNodes, the backtracking keeps the
// assignment in the reduction scratch).
inline constexpr int kTrellisThreads = 1024;

// Byte offsets of the trellis kernel's dynamic shared memory: the reduction scratch (always),
// then, when chosen, the scene tables (int32), the block's angle table (16-byte aligned), its ray
// directions, the pair's unary table, the two alpha rows, the pair's argmin tables (uint16) and the
// block's cell plans (16-byte aligned), and for the folded trellis its three rows of per-b minima.
// Used by the host to size the launch and by the kernel.
struct SharedLayout {
  size_t tables = 0, tri = 0, dir = 0, unary = 0, alpha = 0, beta = 0, plan = 0, q = 0, bytes = 0;
};
// Bytes of the trellis's reduction scratch (an int64 value and an int32 key per thread), the
// start of its shared memory; it also holds the model's hyperedge rows while they fit
// (rows_fit_scratch).
CVIS_HD size_t reduction_scratch_bytes(int threads) {
  return static_cast<size_t>(threads) * (8 + 4);
}
CVIS_HD bool rows_fit_scratch(int model_nodes, int threads) {
  return static_cast<size_t>(model_nodes) * sizeof(ModelRow) <= reduction_scratch_bytes(threads);
}
// Entries of one of the folded trellis's three per-b minimum rows: b = 0 .. S of the plain minima,
// then b = 0 .. S of the minima with the next row's frame-gap term (README.md, "Tenth round").
CVIS_HD int64_t fold_q_entries(const Problem& p) {
  return 2 * (static_cast<int64_t>(p.max_nodes) + 1);
}
CVIS_HD SharedLayout shared_layout(const Problem& p, int threads) {
  SharedLayout l;
  size_t at = reduction_scratch_bytes(threads);
  l.tables = at;
  if (p.shared_tables)
    at += 4 * (2 * static_cast<size_t>(p.max_segments) + 3 * static_cast<size_t>(p.max_nodes));
  at = (at + 15) / 16 * 16;
  l.tri = at;
  if (p.shared_tri)
    at += sizeof(SceneAngles) * static_cast<size_t>(p.max_tri);
  l.dir = at;
  if (p.shared_dir)
    at += 8 * static_cast<size_t>(p.max_dirs);
  l.unary = at;
  if (p.shared_unary)
    at += 8 * static_cast<size_t>(p.max_unary);
  l.alpha = at;
  if (p.shared_alpha)
    at += 16 * static_cast<size_t>(p.max_cells);
  l.beta = at;
  if (p.shared_beta)
    at += 2 * static_cast<size_t>(p.max_beta);
  at = (at + 15) / 16 * 16;
  l.plan = at;
  if (p.shared_plan)
    at += sizeof(CellPlan) * static_cast<size_t>(p.max_cells);
  l.q = at;
  if (p.fold)
    at += 3 * 4 * static_cast<size_t>(fold_q_entries(p));
  l.bytes = at;
  return l;
}

// Whether everything the trellis rows read per candidate is in shared memory (the scene tables, the
// alpha rows, the angle table (or the ray directions without it), the unary table, the cell plans):
// the trellis then runs an instantiation whose candidate loop reads shared memory only.
CVIS_HD bool trellis_all_shared(const Problem& p) {
  return p.shared_tables && p.shared_alpha && p.shared_unary && p.shared_plan &&
         (p.use_tri ? p.shared_tri : p.shared_dir);
}

// Whether a launch of p may run the folded trellis (p.fold): the angle table and the shared-memory
// instantiation (trellis_all_shared()).
CVIS_HD bool trellis_can_fold(const Problem& p) {
  return p.use_tri && trellis_all_shared(p);
}

// Whether a folded launch of p may run the solo instantiation: one block per pair (cluster 1), the
// argmin tables in shared memory, the per-b minima on (dummies), and models of at most
// `max_model_nodes` nodes whose rows fit the reduction scratch.
CVIS_HD bool solo_trellis(const Problem& p, int max_model_nodes) {
  return p.fold && p.cluster == 1 && p.shared_beta && p.dummies &&
         rows_fit_scratch(max_model_nodes, kTrellisThreads);
}

// Raises the trellis kernel's dynamic shared memory limit to `bytes` (cudaFuncSetAttribute).
Status allow_trellis_shared(size_t bytes);

// Blocks per pair for a trellis launch of `pairs` pairs whose largest row has `max_cells` cells:
// 1 when a row fits one round of one block (max_cells <= kTrellisThreads: every cell has a lane
// of its own, the cluster would only add its per-row barrier and remote stores); otherwise the
// largest power of two <= max_blocks (CudaOptions::max_blocks_per_pair) with K pairs <= the SM
// count, when the device launches clusters, the kernel was compiled for compute_90 or later and
// one such cluster fits; else 1.
int trellis_cluster(int pairs, size_t shared_bytes, int max_cells, int max_blocks);

// One launch before the trellis: the ray directions of every scene node's window (the host's
// detail::scene_directions; one thread per ray), the angle table of every block (when use_tri;
// 8 threads per cell), the cell plans (one thread per cell) and lambda1 U of every (model node,
// scene node or dummy) of every pair (Sect. 3.3; descriptor tiles staged in shared memory, each
// value summed in index order as terms::unary_q does).
Status launch_prologue(const Problem& p, cudaStream_t stream);
// One block (or cluster of p.cluster blocks) per pair: every trellis row (eq. 11, 10) with
// block-wide barriers between rows, the final minimisation (eq. 13), the backtracking (eq. 12) and
// the energy parts.
Status launch_trellis(const Problem& p, size_t shared_bytes, cudaStream_t stream);

} // namespace cvis::actionmatch::kernels

// The CUDA backend's device data and kernel launchers (internal: only actionmatch_cuda.cpp and
// the kernels include this header). A match() call hands the kernels two things:
//   MatchTables  - device data: the models (uploaded by configure), the scene blocks of the call
//                  with their trellis layouts (actionmatch_layout.hpp, node indices local to each
//                  block), the (block, model) pairs, what the prologue derives from them, and the
//                  outputs;
//   TrellisPlan  - the launch shape the host chose for them: what the trellis stages in shared
//                  memory, which kernel variant runs, how many blocks share a pair.
// Launches: launch_prologue (ray directions, angle tables, cell work list, unary terms) then
// launch_trellis (every trellis row of every pair, eq. 13, the backtracking, the energy parts).
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

// What a lane group needs of its cell in every row, made once per call by the prologue (it does
// not depend on the row), stored in the work order (SceneLayout::cell_order), so that a row's
// set-up of a cell is one 16-byte load: the cell with its frame-gap code, its state (b, c), its
// candidate interval [first, end) (16 bits each: S <= 32767) and the offset of its angles.
struct alignas(16) CellWork {
  uint32_t cell_gap; // the cell | its gap code << kWorkCellBits (work_cell, work_gap)
  uint32_t bc;       // b | c << 16
  uint32_t range;    // first | end << 16
  int32_t angles;    // SceneLayout::tri_off of the cell
};
// A row has fewer than 2^kWorkCellBits cells (detail::kMaxRowCells). The gap code of a cell of
// three scene nodes is t(b) - t(c) when 0 <= t(b) - t(c) < kNoGapCode, else (other cells too)
// kNoGapCode: the folded trellis's frame-gap settle test takes it instead of two frame loads per
// cell and row.
inline constexpr int kWorkCellBits = 26;
inline constexpr int kNoGapCode = 63;
CVIS_HD int work_cell(const CellWork& w) {
  return static_cast<int>(w.cell_gap & ((1u << kWorkCellBits) - 1));
}
CVIS_HD int work_gap(const CellWork& w) {
  return static_cast<int>(w.cell_gap >> kWorkCellBits);
}

// Where one scene block's pieces start in the call's concatenated tables.
struct SceneBlock {
  int32_t nodes = 0, node0 = 0;   // S (also the dummy's code); first node in the node tables
  int32_t frame0 = 0, frames = 0; // frame range
  int32_t minnode0 = 0;           // its minnode table: minnode[minnode0 .. + frames]
  int32_t seg0 = 0, segments = 0; // its segment tables: seg_*[seg0 .. + segments - 1]
  int32_t cells = 0, cell0 = 0;   // cells of a row; cell_b, cell_order, work[cell0 .. + cells - 1]
  int32_t slot0 = 0;              // its first unary column (S + 1 columns: nodes, dummy)
  int64_t dir0 = 0;               // its ray directions: dirs[dir0 ..]
  int64_t angle0 = 0;             // its angle table: angles[angle0 .. next block's angle0)
};

// One (scene block, model) pair and its slices of the per-pair tables.
struct PairInfo {
  int32_t model = 0, block = 0;
  int32_t assign0 = 0, pad = 0; // assignment[assign0 .. + M - 1]
  int64_t unary0 = 0;           // unary[unary0 ..]: M rows of S + 1 values
  int64_t argmin0 = 0;          // argmin[argmin0 ..]: M - 2 rows of `cells` values
  int64_t alpha0 = 0;           // alpha[alpha0 ..]: 2 rows of `cells` (when not staged)
};

struct PairResult {
  int64_t energy, appearance, distortion;
  int32_t dummies, feasible;
};

// The energy's parameters (Params) as the kernels use them.
struct EnergyTerms {
  double lambda1 = 0, lambda2 = 0, lambda3 = 0;
  int64_t dummy_q = 0; // lambda1 W_d in fixed point
  int32_t T = 0, causality = 0, dummies = 0, dim = 0;
};

// The models: node0[m] .. node0[m + 1] - 1 are model m's nodes.
struct ModelTables {
  int32_t count = 0, nodes = 0;
  const int32_t* node0 = nullptr;      // count + 1
  const int32_t* node_model = nullptr; // per model node
  const ModelRow* rows = nullptr;      // per model node
  const float* desc = nullptr;         // per model node, dim values (Graph's floats)
};

// The scene blocks of one call (node, segment and cell indices local to each block).
struct SceneTables {
  int32_t blocks_count = 0, nodes = 0, slots = 0, cells = 0; // over all blocks
  const SceneBlock* blocks = nullptr;
  const int32_t* frame = nullptr; // per node
  const float* x = nullptr;
  const float* y = nullptr;
  const float* desc = nullptr;         // per node, dim values
  const int32_t* node_block = nullptr; // per node
  const int32_t* slot_block = nullptr; // per unary column
  const int32_t* minnode = nullptr;
  // Per segment b (SceneLayout's seg_off, seg_clo, seg_cnt folded): the cell of (b, c) is
  // seg_base[b] + c for a scene node c, seg_end[b] for the dummy; the cells of b from seg_end[b]
  // on have c = dummy.
  const int32_t* seg_base = nullptr;
  const int32_t* seg_end = nullptr;
  const uint16_t* cell_b = nullptr;    // per cell
  const int32_t* cell_order = nullptr; // per cell: the trellis's work order (SceneLayout)
  const int32_t* angle_off = nullptr;  // per cell: SceneLayout::tri_off
  const int32_t* win_lo = nullptr;     // per node: first node of its direction window
  const int32_t* win_cnt = nullptr;
  const int32_t* dir_rel = nullptr; // per node: its directions at dirs[block dir0 + dir_rel]
};

// What the prologue makes for the trellis.
struct DerivedTables {
  double* dirs = nullptr; // ray directions of every node's window
  int64_t dir_count = 0;
  SceneAngles* angles = nullptr; // the angle tables; null: the trellis uses the ray directions
  int64_t angle_count = 0;
  CellWork* work = nullptr; // per cell of every block, in each block's work order
  int64_t* unary = nullptr; // per pair: lambda1 U of every (model node, scene node or dummy)
};

// The pairs (block-major: pair = block * models + model) and the outputs.
struct PairTables {
  int32_t count = 0;
  const PairInfo* pairs = nullptr;
  uint16_t* argmin = nullptr; // the argmin tables of eq. 12 (when not staged)
  int64_t* alpha = nullptr;   // two trellis rows per pair (when not staged)
  PairResult* results = nullptr;
  int32_t* assignment = nullptr;
};

struct MatchTables {
  EnergyTerms energy;
  ModelTables models;
  SceneTables scenes;
  DerivedTables derived;
  PairTables pairs;
};

// Byte offsets of the trellis kernel's dynamic shared memory: the reduction scratch (always),
// then, when staged, the scene tables (int32), the block's angle table (16-byte aligned), its ray
// directions, the pair's unary table, the two alpha rows, the pair's argmin tables (uint16), the
// block's cell work list (16-byte aligned), and for the folded trellis its three rows of per-b
// minima.
struct SharedLayout {
  size_t tables = 0, angles = 0, dirs = 0, unary = 0, alpha = 0, argmin = 0, work = 0, minima = 0,
         bytes = 0;
};

// Threads of a trellis block (power of two; at least kMaxModelNodes, the backtracking keeps the
// assignment in the reduction scratch).
inline constexpr int kTrellisThreads = 1024;

// The host's choices for one trellis launch.
struct TrellisPlan {
  // Staged in shared memory (the host fills it in this order, each while it fits): the scene
  // tables, the alpha rows, the angle table, the ray directions, the unary table, the argmin
  // tables, the cell work list.
  int32_t stage_tables = 0, stage_alpha = 0, stage_angles = 0, stage_dirs = 0, stage_unary = 0,
          stage_argmin = 0, stage_work = 0;
  // The folded trellis (README.md, "Folded trellis and settle tests"): everything a row reads per
  // candidate is in shared memory with the angle table; the alpha rows hold alpha_r(b, c) + lambda1
  // U_{r-1}(b), and with dummies row r + 1 keeps per b the smallest value of its states (a, b) with
  // a real, so that row r settles the cells whose real candidates cannot beat the dummy.
  int32_t folded = 0;
  // The folded trellis's per-b minima are 32-bit keys v >> key_shift (M x dummy_q >> key_shift
  // below 2^31).
  int32_t key_shift = 0;
  // The solo variant of the folded trellis (solo_trellis()).
  int32_t solo = 0;
  int32_t blocks_per_pair = 1; // a thread-block cluster when > 1 (trellis_cluster())
  // The largest sizes over the launch's pairs (the staged tables are sized by them).
  int32_t max_segments = 0, max_nodes = 0, max_cells = 0;
  int64_t max_dirs = 0, max_unary = 0, max_angles = 0;
  int64_t max_argmin = 0; // the largest (M - 2) x cells of a pair
  SharedLayout smem;      // shared_layout() of the fields above
};

// Bytes of the trellis's reduction scratch (an int64 value and an int32 key per thread), the
// start of its shared memory; it also holds the model's hyperedge rows while they fit
// (rows_fit_scratch).
CVIS_HD size_t reduction_scratch_bytes() {
  return static_cast<size_t>(kTrellisThreads) * (8 + 4);
}
CVIS_HD bool rows_fit_scratch(int model_nodes) {
  return static_cast<size_t>(model_nodes) * sizeof(ModelRow) <= reduction_scratch_bytes();
}
// Entries of one of the folded trellis's three per-b minimum rows: b = 0 .. S of the plain minima,
// then b = 0 .. S of the minima with the next row's frame-gap term.
CVIS_HD int64_t minima_entries(const TrellisPlan& p) {
  return 2 * (static_cast<int64_t>(p.max_nodes) + 1);
}
CVIS_HD SharedLayout shared_layout(const TrellisPlan& p) {
  SharedLayout l;
  size_t at = reduction_scratch_bytes();
  l.tables = at;
  if (p.stage_tables)
    at += 4 * (2 * static_cast<size_t>(p.max_segments) + 3 * static_cast<size_t>(p.max_nodes));
  at = (at + 15) / 16 * 16;
  l.angles = at;
  if (p.stage_angles)
    at += sizeof(SceneAngles) * static_cast<size_t>(p.max_angles);
  l.dirs = at;
  if (p.stage_dirs)
    at += 8 * static_cast<size_t>(p.max_dirs);
  l.unary = at;
  if (p.stage_unary)
    at += 8 * static_cast<size_t>(p.max_unary);
  l.alpha = at;
  if (p.stage_alpha)
    at += 16 * static_cast<size_t>(p.max_cells);
  l.argmin = at;
  if (p.stage_argmin)
    at += 2 * static_cast<size_t>(p.max_argmin);
  at = (at + 15) / 16 * 16;
  l.work = at;
  if (p.stage_work)
    at += sizeof(CellWork) * static_cast<size_t>(p.max_cells);
  l.minima = at;
  if (p.folded)
    at += 3 * 4 * static_cast<size_t>(minima_entries(p));
  l.bytes = at;
  return l;
}

// Whether everything the trellis rows read per candidate is staged (the scene tables, the alpha
// rows, the angle table (or the ray directions without it), the unary table, the work list).
CVIS_HD bool stages_all(const TrellisPlan& p, bool angle_table) {
  return p.stage_tables && p.stage_alpha && p.stage_unary && p.stage_work &&
         (angle_table ? p.stage_angles : p.stage_dirs);
}

// Whether a launch may run the folded trellis: with the angle table, everything staged.
CVIS_HD bool can_fold(const TrellisPlan& p, bool angle_table) {
  return angle_table && stages_all(p, true);
}

// Whether a folded launch runs the solo variant: one block per pair, the argmin tables staged,
// dummies (the per-b minima), and models of at most `max_model_nodes` nodes whose rows fit the
// reduction scratch. Everything it tests is then known at compile time.
CVIS_HD bool solo_trellis(const TrellisPlan& p, bool dummies, int max_model_nodes) {
  return p.folded && p.blocks_per_pair == 1 && p.stage_argmin && dummies &&
         rows_fit_scratch(max_model_nodes);
}

// Raises the trellis kernel's dynamic shared memory limit to `bytes` (cudaFuncSetAttribute).
Status allow_trellis_shared(size_t bytes);

// Blocks per pair for a trellis launch of `pairs` pairs whose largest row has `max_cells` cells:
// 1 when a row fits one round of one block (max_cells <= kTrellisThreads: every cell has a lane
// of its own, a cluster would only add its per-row barrier and remote stores); otherwise the
// largest power of two <= max_blocks (CudaOptions::max_blocks_per_pair) with K pairs <= the SM
// count, when the device launches clusters, the kernel was compiled for compute_90 or later and
// one such cluster fits; else 1.
int trellis_cluster(int pairs, size_t shared_bytes, int max_cells, int max_blocks);

// One launch before the trellis: the ray directions of every scene node's window (the host's
// detail::scene_directions; one thread per ray), the angle table of every block (when
// t.derived.angles is set; 8 threads per cell), the cell work list (one thread per cell) and
// lambda1 U of every (model node, scene node or dummy) of every pair (Sect. 3.3; descriptor tiles
// staged in shared memory, each value summed in index order as terms::unary_q does).
Status launch_prologue(const MatchTables& t, cudaStream_t stream);
// One block (or cluster of plan.blocks_per_pair blocks) per pair: every trellis row (eq. 11, 10)
// with barriers between rows, the final minimisation (eq. 13), the backtracking (eq. 12) and the
// energy parts.
Status launch_trellis(const MatchTables& t, const TrellisPlan& plan, cudaStream_t stream);

} // namespace cvis::actionmatch::kernels

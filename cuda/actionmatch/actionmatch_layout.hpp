// Host-side precomputation shared by both backends (internal header): the model rows (frame gaps
// and angles of every hyperedge) and the layout of a scene block's pruned trellis (the minnode
// table of Sect. 3.4, the states (z_{i-1}, z_{i-2}) that survive pruning, the windows of the ray
// direction table).
//
// Trellis layout. A row alpha_i holds one cell per allowed state (b, c) = (z_{i-1}, z_{i-2}), where
// b and c are scene nodes 0..S-1 or the dummy, coded S. The cells are grouped by b: segment b
// starts at seg_off[b] and holds the c of the node range [seg_clo[b], seg_clo[b] + seg_cnt[b]) in
// order, then (with dummies) c = dummy. Segment S (b = dummy, only with dummies) holds c = 0..S-1,
// dummy. So the cell of (b, c) is seg_off[b] + (c == S ? seg_cnt[b] : c - seg_clo[b]).
#pragma once

#include <cstdint>
#include <vector>

#include "actionmatch.hpp"

namespace cvis::actionmatch::detail {

// Per model: node r >= 2 is the last node of hyperedge (r, r-1, r-2).
struct ModelRows {
  int nodes = 0;
  std::vector<int32_t> gap1, gap2; // t(r) - t(r-1), t(r-1) - t(r-2) (0 for r < 2)
  std::vector<double> mid, last;   // model angles of eq. 6 (0 for r < 2)
};
ModelRows model_rows(const Graph& g);

struct SceneLayout {
  int S = 0;
  int frame0 = 0, frames = 0;   // frame range of the nodes (frames = 0 when S = 0)
  std::vector<int32_t> minnode; // frames + 1 entries (terms::nodes_of_frames)
  int segments = 0;             // S + 1 with dummies, else S
  std::vector<int32_t> seg_off, seg_clo, seg_cnt; // `segments` entries
  int32_t cells = 0;                              // cells of one trellis row
  std::vector<uint16_t> cell_b;                   // per cell: its b
  // Ray directions: node x keeps the directions from itself to the nodes [win_lo[x], win_lo[x] +
  // win_cnt[x]) (those within T - 1 frames, all without a limit) at dir_off[x]...
  std::vector<int32_t> win_lo, win_cnt;
  std::vector<int64_t> dir_off; // S + 1 entries (dir_off[S] = table size)
  int64_t evaluations = 0;      // candidates examined per trellis row (all cells)
  // The CUDA trellis's order of work (README.md, "Work order and lane groups"): every cell once, the cells with
  // three scene nodes (the distortion term) first, each group by decreasing number of real
  // candidates (ties: increasing cell), the state (dummy, dummy) last. Row-independent.
  std::vector<int32_t> cell_order;
  // The CUDA trellis's table of scene angles: cell (b, c) with three scene nodes keeps the two
  // angles of eq. 6 of each real candidate a, at tri_off[cell] + (a - first candidate); other cells
  // 0. triples = the table's entries (row-independent), -1 when over INT32_MAX (no table then).
  std::vector<int32_t> tri_off;
  int64_t triples = 0;

  int cell(int b, int c) const { return seg_off[b] + (c == S ? seg_cnt[b] : c - seg_clo[b]); }
};

// Errors: kInvalidArgument when one row would exceed kMaxRowCells cells (a larger T or block than
// the library is sized for; README.md).
inline constexpr int64_t kMaxRowCells = int64_t{1} << 26;
Status scene_layout(const Graph& scene, const Params& p, SceneLayout* out);

// The range of real candidates z_i of cell (b, c) (a node interval [*first, *end)).
void candidates(const SceneLayout& L, const int32_t* frame, const Params& p, int b, int c,
                int* first, int* end);

// The direction table of a scene (host version of the CUDA backend's kernel).
void scene_directions(const Graph& scene, const SceneLayout& L, std::vector<double>* dir);

} // namespace cvis::actionmatch::detail

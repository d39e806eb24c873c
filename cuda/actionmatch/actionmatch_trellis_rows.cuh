// The trellis kernel's phases before the last row (actionmatch_trellis.cu): staging a pair's
// tables, mapping lanes to cells, the folded trellis's first row and per-b minima, and one row of
// eq. (10)/(11) with its candidate loops, settle test and stores. README.md ("CUDA design")
// explains the lane groups, the work order, the folded rows and the settle tests.
#pragma once

#include <cstdint>

#include "actionmatch_kernels.hpp"
#include "actionmatch_terms.hpp"
#include "actionmatch_trellis_device.cuh"

namespace cvis::actionmatch::kernels {

// One scene block's tables as the rows read them (staged in shared memory or global).
struct BlockView {
  const int32_t* seg_base;
  const int32_t* seg_end;
  const int32_t* frame;
  const int32_t* win_lo;
  const int32_t* dir_rel;
  const double* dirs;
  int dummy; // S: the dummy's code (and the block's node count)

  __device__ int cell(int b, int c) const { return c == dummy ? seg_end[b] : seg_base[b] + c; }
  // Directions from node x, indexed by the target node.
  __device__ const double* rays(int x) const { return dirs + dir_rel[x] - win_lo[x]; }
};

// lambda2 D(a, b, c) for three scene nodes at model row `row`, from the ray directions
// (ray(b -> c) and the rays from b given).
__device__ __forceinline__ int64_t distortion(const ModelRow& row, const BlockView& t, int a, int b,
                                              int c, int fb, int fc, double b_to_c,
                                              const double* from_b, double lambda2,
                                              double lambda3) {
  const double* from_a = t.rays(a);
  const int fa = t.frame[a];
  const double smid = terms::angle_at(from_b[a], b_to_c);
  const double slast = terms::angle_at(from_a[b], from_a[c]);
  return terms::distortion_q(row.gap1, row.gap2, row.mid, row.last, fa - fb, fb - fc, smid, slast,
                             lambda2, lambda3);
}

// The frame-gap term lambda2 |model_gap - (t(b) - t(c))| of a cell with gap code `code`
// (CellWork), or 0 without a known gap: either way a lower bound of that part of a distortion
// term (terms::gap_q).
__device__ __forceinline__ int64_t gap_term(double lambda2, int model_gap, int code) {
  return code < kNoGapCode ? terms::gap_q(lambda2, model_gap - code) : 0;
}

// What one pair's rows read: the plan's staged copies in shared memory, the rest in global memory.
struct PairView {
  int dummy, cells, model_nodes; // S (the dummy's code), cells of a row, M
  BlockView block;
  const SceneAngles* angles; // the block's angle table (kAngles)
  const int64_t* unary;      // U: M rows of S + 1 values
  int64_t* alpha;            // two alpha rows of `cells` values
  const CellWork* work;      // the block's cells in work order
  const uint16_t* cell_b;
  const ModelRow* rows;        // the model's hyperedge rows (global)
  const ModelRow* rows_staged; // ... in the reduction scratch, when rows_in_scratch
  bool rows_in_scratch;
  uint16_t* argmin_staged; // the argmin tables in shared memory (argmin_in_shared) ...
  uint16_t* argmin_global; // ... or in global memory
  bool argmin_in_shared, alpha_staged;

  // The loaded value selected, not the pointer, so that the shared load stays a shared one.
  __device__ ModelRow row(int r) const { return rows_in_scratch ? rows_staged[r] : rows[r]; }
};

// Stages what the plan chose into shared memory (`smem`, laid out as plan.smem) and returns the
// pair's view. In the folded variants everything a row reads per candidate is staged, known at
// compile time, so that their loads are shared-memory ones with 32-bit addresses. Everything up
// to wait_for_prologue() reads the uploaded input only, so it overlaps the prologue's tail.
template <bool kAngles, bool kFolded, bool kSolo>
__device__ __forceinline__ PairView stage_pair(const MatchTables& t, const TrellisPlan& plan,
                                               const PairInfo& pi, uint8_t* smem) {
  const int nt = blockDim.x; // kTrellisThreads (trellis_kernel says why it is read)
  const int tid = threadIdx.x;
  const SceneTables& sc = t.scenes;
  const SceneBlock B = sc.blocks[pi.block];
  const SharedLayout& sl = plan.smem;
  PairView v;
  v.dummy = B.nodes;
  v.cells = B.cells;
  const int g0 = t.models.node0[pi.model];
  v.model_nodes = t.models.node0[pi.model + 1] - g0;
  BlockView& b = v.block;
  b.dummy = B.nodes;
  b.seg_base = sc.seg_base + B.seg0;
  b.seg_end = sc.seg_end + B.seg0;
  b.frame = sc.frame + B.node0;
  b.win_lo = sc.win_lo + B.node0;
  b.dir_rel = sc.dir_rel + B.node0;
  b.dirs = t.derived.dirs + B.dir0;
  v.unary = t.derived.unary + pi.unary0;
  if (kFolded || plan.stage_tables) {
    int32_t* sb = reinterpret_cast<int32_t*>(smem + sl.tables);
    int32_t* se = sb + plan.max_segments;
    int32_t* fr = se + plan.max_segments;
    int32_t* wl = fr + plan.max_nodes;
    int32_t* dr = wl + plan.max_nodes;
    for (int i = tid; i < B.segments; i += nt) {
      sb[i] = b.seg_base[i];
      se[i] = b.seg_end[i];
    }
    for (int i = tid; i < B.nodes; i += nt) {
      fr[i] = b.frame[i];
      wl[i] = b.win_lo[i];
      dr[i] = b.dir_rel[i];
    }
    b.seg_base = sb;
    b.seg_end = se;
    b.frame = fr;
    b.win_lo = wl;
    b.dir_rel = dr;
  }
  wait_for_prologue();
  const SceneAngles* angles = kAngles ? t.derived.angles + B.angle0 : nullptr;
  if (kAngles && (kFolded || plan.stage_angles)) {
    // The block's table ends where the next block's starts (or at the end of all).
    const int64_t end =
        pi.block + 1 < sc.blocks_count ? sc.blocks[pi.block + 1].angle0 : t.derived.angle_count;
    SceneAngles* d = reinterpret_cast<SceneAngles*>(smem + sl.angles);
    stage(d, angles, end - B.angle0, tid, nt);
    angles = d;
  }
  v.angles = angles;
  if (plan.stage_dirs) {
    const int64_t end =
        pi.block + 1 < sc.blocks_count ? sc.blocks[pi.block + 1].dir0 : t.derived.dir_count;
    double* d = reinterpret_cast<double*>(smem + sl.dirs);
    stage(d, b.dirs, end - B.dir0, tid, nt);
    b.dirs = d;
  }
  if (kFolded || plan.stage_unary) {
    int64_t* u = reinterpret_cast<int64_t*>(smem + sl.unary);
    stage(u, v.unary, static_cast<int64_t>(v.model_nodes) * (B.nodes + 1), tid, nt);
    v.unary = u;
  }
  v.alpha_staged = kFolded || plan.stage_alpha != 0;
  v.alpha =
      v.alpha_staged ? reinterpret_cast<int64_t*>(smem + sl.alpha) : t.pairs.alpha + pi.alpha0;
  v.cell_b = sc.cell_b + B.cell0;
  const CellWork* work = t.derived.work + B.cell0;
  if (kFolded || plan.stage_work) {
    CellWork* d = reinterpret_cast<CellWork*>(smem + sl.work);
    stage(d, work, B.cells, tid, nt);
    work = d;
  }
  v.work = work;
  // The model's hyperedge rows, read at the top of every row: in the reduction scratch (free
  // until the final minimisation, which comes after the last row barrier) when they fit, so
  // that a row does not start with an L2 round trip.
  v.rows = t.models.rows + g0;
  ModelRow* staged_rows = reinterpret_cast<ModelRow*>(smem);
  v.rows_staged = staged_rows;
  v.rows_in_scratch = kSolo || rows_fit_scratch(v.model_nodes);
  if (v.rows_in_scratch)
    for (int i = tid; i < v.model_nodes; i += nt)
      staged_rows[i] = v.rows[i];
  // The argmin tables in shared memory (when they fit) keep the backtracking's chain of M - 2
  // dependent reads on the SM instead of going to L2.
  v.argmin_in_shared = kSolo || plan.stage_argmin != 0;
  v.argmin_staged = reinterpret_cast<uint16_t*>(smem + sl.argmin);
  v.argmin_global = t.pairs.argmin + pi.argmin0;
  return v;
}

// Which cell a thread works on in a round, and with which lanes (README.md, "Work order and lane
// groups"). The cells of a row are taken in the work order by `groups` groups of G lanes, G the
// largest power of two <= 32 with G cells <= the pair's threads, so that a row shorter than the
// threads still uses them all. When a row fits one round, the threads left over give the first X
// cells of the work order (the geometry cells with the most candidates, which make a row's longest
// warp) 2G lanes instead of G; X is a multiple of 16 / G, so that every warp holds groups of one
// width (the shuffle reduction is warp-wide), and the last warp stays free for the state (dummy,
// dummy).
struct LaneMap {
  int groups;      // lane groups of a round
  int group;       // this thread's group index in a round
  int group_lanes; // the lanes of its group (G or 2G)
  int lane;        // its lane in the group
};

__device__ __forceinline__ LaneMap map_lanes(int cells, int pair_threads, int thread) {
  int G = 1;
  while (G < 32 && 2 * G * static_cast<int64_t>(cells) <= pair_threads)
    G *= 2;
  LaneMap m;
  m.groups = pair_threads / G;
  int wide_cells = 0;
  if (cells <= m.groups && G < 32 && pair_threads - 32 > G * cells) {
    wide_cells = (pair_threads - 32 - G * cells) / G; // < cells, since 2 G cells > pair_threads
    wide_cells -= wide_cells % (16 / G);
  }
  const bool wide = thread < 2 * G * wide_cells;
  m.group_lanes = wide ? 2 * G : G;
  m.group = wide ? thread / m.group_lanes : wide_cells + (thread - 2 * G * wide_cells) / G;
  m.lane = (wide ? thread : thread - 2 * G * wide_cells) & (m.group_lanes - 1);
  return m;
}

// The folded trellis's per-b minima: three rows in shared memory, each `size` entries, the plain
// minima at [0, half) and those with the next row's frame-gap term at [half, size). They rotate
// (read: row r + 1's, written: row r's, reset: the one row r - 1 writes), as offsets rather than
// (r + k) % 3 per row.
struct Minima {
  uint32_t* base;
  int size, half, shift;
  int next, cur, old; // offsets of the three rows
};

// Row M of the folded trellis before the first row: alpha'_M(a, b) = U_{M-1}(a) (alpha_M = 0)
// and, with the settle test, its per-b minima (a lower bound of every real candidate's total in
// row M - 1's cells (b, c): q[b] without a frame-gap term, q[half + b] with row M - 1's gap1
// term); by every block into its own copy, the other two minimum rows reset. The row barrier that
// follows orders them before any other block's stores.
__device__ __forceinline__ void folded_first_row(const PairView& v, const Minima& q, double lambda2,
                                                 bool settle) {
  const int nt = blockDim.x; // kTrellisThreads (trellis_kernel says why it is read)
  const int tid = threadIdx.x, dummy = v.dummy, C = v.cells, M = v.model_nodes;
  for (int i = tid; i < 3 * q.size; i += nt)
    q.base[i] = 0xFFFFFFFFu;
  __syncthreads();
  int64_t* row_m = v.alpha + (M & 1) * static_cast<int64_t>(C);
  const int64_t* u_last = v.unary + static_cast<int64_t>(M - 1) * (dummy + 1);
  uint32_t* q_m = q.base + (M % 3) * q.size;
  const int gap1_m = v.row(M - 1).gap1;
  for (int i = tid; i < C; i += nt) {
    const CellWork w = v.work[i];
    const int x = static_cast<int>(w.bc & 0xFFFFu), y = static_cast<int>(w.bc >> 16);
    const int64_t val = u_last[x];
    row_m[work_cell(w)] = val;
    if (settle && x < dummy) {
      min_all(q_m, y, minimum_key(val, q.shift), 1);
      if (y < dummy)
        min_all(q_m + q.half, y, minimum_key(val + gap_term(lambda2, gap1_m, work_gap(w)), q.shift),
                1);
    }
  }
}

// What a row r's cells read and write.
struct RowView {
  int r;
  ModelRow edge;             // hyperedge (r, r-1, r-2)
  const int64_t* unary;      // U_r
  const int64_t* unary_prev; // U_{r-1} (folded: added at the stores)
  const int64_t* next;       // row r + 1
  int64_t* cur;              // row r
  bool has_next;             // false for the last model node (alpha_{M+1} = 0)
  uint16_t* argmin_staged;   // beta_r
  uint16_t* argmin_global;
  const uint32_t* minima_next; // folded: row r + 1's per-b minima (read)
  uint32_t* minima_cur;        // ... and row r's (written by the stores)
};

// The folded settle test of cell (b, c), whose dummy candidate totals `dummy_total`: every real
// candidate a totals at least q_next[b] << shift (its state (a, b) of row r + 1, D >= 0), and a
// cell of three scene nodes at least (q_next[half + b] << shift) + lambda2 |gap2_r - (t(b) - t(c))|
// - 1 (the two frame-gap terms rounded separately lose less than one grid step together). When
// that exceeds the dummy's total, the dummy wins: the cell needs no candidate loop. (A bound above
// dummy_total is below 2^63 - 1 = terms::kInf, and the unsigned sums do not wrap.)
__device__ __forceinline__ bool settles(const RowView& row, const Minima& q, int b, int c,
                                        int dummy, int gap_code, int64_t dummy_total,
                                        double lambda2) {
  if (b < dummy && c < dummy)
    return (static_cast<uint64_t>(row.minima_next[q.half + b]) << q.shift) +
               static_cast<uint64_t>(gap_term(lambda2, row.edge.gap2, gap_code)) >
           static_cast<uint64_t>(dummy_total) + 1;
  return (static_cast<uint64_t>(row.minima_next[b]) << q.shift) >
         static_cast<uint64_t>(dummy_total);
}

// A cell with a dummy member in the solo variant: no distortion term, so a candidate's total is
// the one load alpha'_{r+1}(a, b), and the candidate bound (which only skips D) has nothing to
// skip: the loads and the first minimum, without the bound and distortion tests. (These cells
// kept the other warps waiting at the row barrier when a block shows an action: their per-b
// test compares one minimum over all states (a, b).)
__device__ __forceinline__ void scan_dummy_member_cell(const int64_t* next, const int32_t* next_of,
                                                       int next_add, int first, int end, int lanes,
                                                       int lane, int64_t* best, int32_t* arg) {
  int a = first + lane;
  for (; a + lanes < end; a += 2 * lanes) {
    const int64_t v0 = next[next_of[a] + next_add], v1 = next[next_of[a + lanes] + next_add];
    if (v0 < *best) {
      *best = v0;
      *arg = a;
    }
    if (v1 < *best) {
      *best = v1;
      *arg = a + lanes;
    }
  }
  if (a < end) {
    const int64_t v = next[next_of[a] + next_add];
    if (v < *best) {
      *best = v;
      *arg = a;
    }
  }
}

// The candidates of cell (b, c) taken by this lane (first + lane, + lanes, ...), into the lane's
// first minimum (*best, *arg), the dummy (key S, above every node's) last by lane 0.
// The candidate bound: a candidate a totals lb + D with lb = U(a) + alpha_{r+1}(a, b) (folded:
// lb = alpha'_{r+1}(a, b)) and D >= 0 (lambda2, lambda3 >= 0). If lb > the dummy's total, the
// dummy beats a; if lb >= *best, this lane's earlier candidate (a smaller key) does. Either way a
// is not the group's minimum, and dropping a candidate that is not the minimum leaves the minimum,
// value and key, unchanged. Only D is skipped (U and alpha_{r+1} make lb), and only where no lane
// of the warp needs it (one branch per iteration for both candidates, which stay two independent
// chains). lb of an infeasible a is terms::kInf: never taken.
template <bool kAngles, bool kFolded, bool kSolo>
__device__ __forceinline__ void
scan_candidates(const PairView& v, const RowView& row, const CellWork& w, int b, int c,
                int64_t folded_dummy, bool dummies, const EnergyTerms& e, int lanes, int lane,
                int64_t* best, int32_t* arg) {
  const BlockView& t = v.block;
  const int S = v.dummy;
  const int fb = b < S ? t.frame[b] : 0, fc = c < S ? t.frame[c] : 0;
  const int first = static_cast<int>(w.range & 0xFFFFu), end = static_cast<int>(w.range >> 16);
  const bool geometry = b < S && c < S;
  const double* from_b = !kAngles && geometry ? t.rays(b) : nullptr;
  const double b_to_c = !kAngles && geometry ? from_b[c] : 0.0;
  // This cell's angles, indexed by the candidate.
  const SceneAngles* ang = kAngles && geometry ? v.angles + w.angles - first : nullptr;
  // The cell (a, b) of row r + 1 is next_of[a] + next_add (BlockView::cell with b fixed).
  const int32_t* next_of = b < S ? t.seg_base : t.seg_end;
  const int next_add = b < S ? b : 0;
  const ModelRow& edge = row.edge;
  const auto dist = [&](int a) -> int64_t {
    if (kAngles)
      return terms::distortion_q(edge.gap1, edge.gap2, edge.mid, edge.last, t.frame[a] - fb,
                                 fb - fc, ang[a].mid, ang[a].last, e.lambda2, e.lambda3);
    return distortion(edge, t, a, b, c, fb, fc, b_to_c, from_b, e.lambda2, e.lambda3);
  };
  // The dummy's total U(dummy) + alpha_{r+1}(dummy, b) (terms::kInf when infeasible or without
  // dummies), read by every lane first: it bounds the candidates below.
  int64_t dval = folded_dummy;
  if (!kFolded && dummies) {
    const int64_t nx = row.has_next ? row.next[t.cell(S, b)] : 0;
    if (nx != terms::kInf)
      dval = row.unary[S] + nx;
  }
  // (Folded, alpha'_{r+1}(a, b) is lb itself, terms::kInf included.)
  const auto lower = [&](int64_t nx, int64_t u) -> int64_t {
    return kFolded ? nx : nx == terms::kInf ? terms::kInf : u + nx;
  };
  const auto need = [&](int64_t lb) -> bool {
    if (kSolo) // (*best <= terms::kInf, so lb < *best also excludes lb = terms::kInf)
      return lb < *best && lb <= dval;
    return lb != terms::kInf && lb < *best && lb <= dval;
  };
  int a = first + lane;
  if (kSolo && !geometry) {
    scan_dummy_member_cell(row.next, next_of, next_add, first, end, lanes, lane, best, arg);
    a = end;
  }
  // Two candidates per iteration, their alpha_{r+1} and U loads issued first, compared in
  // increasing order so that the lane keeps its first minimum.
  for (; a + lanes < end; a += 2 * lanes) {
    const int a1 = a + lanes;
    int64_t nx0 = 0, nx1 = 0;
    if (row.has_next) {
      nx0 = row.next[next_of[a] + next_add];
      nx1 = row.next[next_of[a1] + next_add];
    }
    const int64_t lb0 = lower(nx0, kFolded ? 0 : row.unary[a]);
    const int64_t lb1 = lower(nx1, kFolded ? 0 : row.unary[a1]);
    const bool n0 = need(lb0), n1 = need(lb1);
    int64_t d0 = 0, d1 = 0;
    if (geometry && (n0 || n1)) {
      d0 = dist(a);
      d1 = dist(a1);
    }
    if (n0 && lb0 + d0 < *best) {
      *best = lb0 + d0;
      *arg = a;
    }
    if (n1 && lb1 + d1 < *best) {
      *best = lb1 + d1;
      *arg = a1;
    }
  }
  if (a < end) {
    const int64_t nx = row.has_next ? row.next[next_of[a] + next_add] : 0;
    const int64_t lb = lower(nx, kFolded ? 0 : row.unary[a]);
    if (need(lb)) {
      const int64_t val = lb + (geometry ? dist(a) : 0);
      if (val < *best) {
        *best = val;
        *arg = a;
      }
    }
  }
  if (lane == 0 && dval < *best) {
    *best = dval;
    *arg = S;
  }
}

// Stores a computed cell (lane 0 of its group): alpha_r (folded: + lambda1 U_{r-1}(b), into the
// copy of every block of a cluster), with the settle test row r's per-c minima over its states
// (b, c) with b real (read by row r - 1's cells whose first member is c), and beta_r (0 for an
// infeasible cell, as the CPU's one-lane loop).
template <bool kFolded>
__device__ __forceinline__ void store_cell(const PairView& v, const RowView& row, const Minima& q,
                                           const CellWork& w, int b, int c, int64_t best,
                                           int32_t arg, int blocks, bool settle, double lambda2) {
  const int cell = work_cell(w);
  if (kFolded) {
    const int64_t val = best == terms::kInf ? terms::kInf : best + row.unary_prev[b];
    store_alpha_folded(row.cur, cell, val, blocks);
    if (settle && b < v.dummy && row.r > 2) {
      min_all(row.minima_cur, c, minimum_key(val, q.shift), blocks);
      if (c < v.dummy && val != terms::kInf) { // (row r - 1's gap1)
        const int g1 = v.row(row.r - 1).gap1;
        min_all(row.minima_cur + q.half, c,
                minimum_key(val + gap_term(lambda2, g1, work_gap(w)), q.shift), blocks);
      }
    }
  } else {
    store_alpha(row.cur, cell, best, blocks, v.alpha_staged);
  }
  store_argmin(row.argmin_staged, row.argmin_global, cell,
               static_cast<uint16_t>(best == terms::kInf ? 0 : arg), blocks, v.argmin_in_shared);
}

// The state (dummy, dummy): every scene node and the dummy are candidates, D = 0; one warp
// (`first_thread` .. + 31 of the pair's threads) reduces them without a block barrier.
template <bool kFolded>
__device__ __forceinline__ void dummy_dummy_state(const PairView& v, const RowView& row, int thread,
                                                  int first_thread, int blocks) {
  const int S = v.dummy;
  int64_t best = terms::kInf;
  int32_t arg = S;
  for (int a = thread - first_thread; a <= S; a += 32) {
    const int64_t nx = row.has_next ? row.next[v.block.cell(a, S)] : 0;
    if (nx == terms::kInf)
      continue;
    const int64_t val = kFolded ? nx : row.unary[a] + nx;
    if (val < best) { // a increases within a lane: the first minimum is kept
      best = val;
      arg = a;
    }
  }
  warp_argmin(&best, &arg);
  if (thread == first_thread) {
    const int C = v.cells;
    if (kFolded)
      store_alpha_folded(row.cur, C - 1, best != terms::kInf ? best + row.unary_prev[S] : best,
                         blocks);
    else
      store_alpha(row.cur, C - 1, best, blocks, v.alpha_staged);
    store_argmin(row.argmin_staged, row.argmin_global, C - 1, static_cast<uint16_t>(arg), blocks,
                 v.argmin_in_shared);
  }
}

// Row r (eq. 11 for r = M - 1, eq. 10 below): every cell's minimum over its candidates, in rounds
// of lanes.groups cells of the work order (forwards in even rounds, backwards in odd ones, so that
// the warps' totals stay balanced), then the state (dummy, dummy) by one warp.
template <bool kAngles, bool kFolded, bool kSolo>
__device__ __forceinline__ void trellis_row(const PairView& v, const RowView& row, const Minima& q,
                                            const LaneMap& lanes, const EnergyTerms& e,
                                            bool dummies, bool settle, int blocks, int thread,
                                            int dummy_warp) {
  const int S = v.dummy, C = v.cells;
  for (int base = 0, k_round = 0; base < C; base += lanes.groups, ++k_round) {
    // Every lane of a warp runs every round (the group reduction below is warp-synchronous).
    const int i = base + ((k_round & 1) ? lanes.groups - 1 - lanes.group : lanes.group);
    CellWork w;
    if (i < C) {
      w = v.work[i];
    } else {
      w.cell_gap = static_cast<uint32_t>(kNoGapCode) << kWorkCellBits;
      w.bc = static_cast<uint32_t>(S) | static_cast<uint32_t>(S) << 16;
      w.range = 0;
      w.angles = 0;
    }
    const int b = static_cast<int>(w.bc & 0xFFFFu), c = static_cast<int>(w.bc >> 16);
    // The state (dummy, dummy) is left to one warp below.
    const bool active = i < C && !(b == S && c == S);
    int64_t best = terms::kInf;
    int32_t arg = INT32_MAX;
    // Folded: the dummy's total alpha'_{r+1}(dummy, b) first, then the settle test.
    int64_t folded_dummy = terms::kInf;
    if (kFolded && active && dummies)
      folded_dummy = row.next[v.block.cell(S, b)];
    const bool settled = kFolded && settle && active &&
                         settles(row, q, b, c, S, work_gap(w), folded_dummy, e.lambda2);
    if (settled && lanes.lane == 0) {
      best = folded_dummy;
      arg = S;
    }
    if (active && !settled)
      scan_candidates<kAngles, kFolded, kSolo>(v, row, w, b, c, folded_dummy, dummies, e,
                                               lanes.group_lanes, lanes.lane, &best, &arg);
    // The group's minimum of (value, candidate): the first minimum over all its candidates
    // (folded: not needed when every lane of the warp is settled or idle, lane 0 of a group
    // holding its cell's result then; the vote is warp-uniform, as the shuffles need).
    if (lanes.group_lanes > 1 && (!kFolded || !__all_sync(0xFFFFFFFFu, settled || !active)))
      group_argmin(&best, &arg, lanes.group_lanes);
    if (active && lanes.lane == 0)
      store_cell<kFolded>(v, row, q, w, b, c, best, arg, blocks, settle, e.lambda2);
  }
  if (dummies && thread >= dummy_warp && thread < dummy_warp + 32)
    dummy_dummy_state<kFolded>(v, row, thread, dummy_warp, blocks);
}

} // namespace cvis::actionmatch::kernels

// Model rows and scene trellis layouts (actionmatch_layout.hpp).
#include "actionmatch_layout.hpp"

#include <algorithm>
#include <string>

#include "actionmatch_terms.hpp"

namespace cvis::actionmatch::detail {

ModelRows model_rows(const Graph& g) {
  ModelRows m;
  const int M = g.size();
  m.nodes = M;
  m.gap1.assign(M, 0);
  m.gap2.assign(M, 0);
  m.mid.assign(M, 0.0);
  m.last.assign(M, 0.0);
  for (int r = 2; r < M; ++r) {
    m.gap1[r] = g.frame[r] - g.frame[r - 1];
    m.gap2[r] = g.frame[r - 1] - g.frame[r - 2];
    // a(i, j, k) at j = r - 1 and a(j, i, k) at i = r (eq. 6), i = r, j = r - 1, k = r - 2.
    const double j_to_i = terms::ray(g.x[r - 1], g.y[r - 1], g.x[r], g.y[r]);
    const double j_to_k = terms::ray(g.x[r - 1], g.y[r - 1], g.x[r - 2], g.y[r - 2]);
    const double i_to_j = terms::ray(g.x[r], g.y[r], g.x[r - 1], g.y[r - 1]);
    const double i_to_k = terms::ray(g.x[r], g.y[r], g.x[r - 2], g.y[r - 2]);
    m.mid[r] = terms::angle_at(j_to_i, j_to_k);
    m.last[r] = terms::angle_at(i_to_j, i_to_k);
  }
  return m;
}

namespace {

// What the per-cell pass of scene_layout reads besides the layout; hi_c and end_c: scratch of S
// entries each.
struct CellPass {
  const int32_t* frame;
  int T, frame0, frames, S, extra;
  const int32_t* minnode;
  int32_t *hi_c, *end_c;
};

// The per-cell pass of scene_layout (about 800 cells for a 60-node block, most of a small call's
// host work): every cell's b, candidate count, angle-table offset and work-order key. Plain
// pointers and locals, so that the compiler need not reload the layout's fields after each store
// (int32_t stores may alias them), and kCausality a constant so that the candidate rule
// (candidate_frames, as candidates() applies it) folds per segment.
template <int kCausality>
void cell_pass(const CellPass& q, SceneLayout& L, int32_t* key, int64_t* evals_out,
               int64_t* triples_out) {
  const int32_t* fr = q.frame;
  const int32_t* mn = q.minnode;
  const int S = q.S, T = q.T, extra = q.extra, frame0 = q.frame0, frames = q.frames;
  const int last = frame0 + frames - 1;
  uint16_t* cell_b = L.cell_b.data();
  int32_t* tri_off = L.tri_off.data();
  // With causality and a closeness limit (the defaults), the candidates of a cell of two real
  // nodes are the frames fb + step .. fc + T - 1 (candidate_frames): the node range's end depends
  // on c alone and its start on b alone, so each is looked up once per node instead of per cell,
  // and nodes_of_frames's conditions for an empty range are checked per cell as it checks them.
  const bool split = kCausality != 0 && T > 0;
  if (split) {
    for (int c = 0; c < S; ++c) {
      const int hi = fr[c] + (T - 1);
      q.hi_c[c] = hi;
      q.end_c[c] = hi >= last ? S : hi >= frame0 ? mn[hi + 1 - frame0] : 0; // unused below frame0
    }
  }
  int64_t evals = 0, triples = 0;
  for (int b = 0, B = L.segments; b < B; ++b) {
    const bool b_real = b < S;
    const int fb = b_real ? fr[b] : 0;
    const int off = L.seg_off[b], clo = L.seg_clo[b], cnt = L.seg_cnt[b];
    if (b_real && split) {
      // Geometry cells: (b, c) both real.
      const int lo = fb + (kCausality == 2 ? 1 : 0);
      const bool lo_ok = frames > 0 && lo <= last;
      const int first = lo_ok && lo > frame0 ? mn[lo - frame0] : 0;
      if (lo_ok && triples + static_cast<int64_t>(cnt) * S <= INT32_MAX) {
        // The usual case: no table offset of this segment can pass INT32_MAX (a cell has at most
        // S candidates), so the running sums are 32-bit and unchecked.
        int32_t t = static_cast<int32_t>(triples), e = 0;
        for (int k = 0; k < cnt; ++k) {
          const int cell = off + k, c = clo + k, hi = q.hi_c[c];
          const int cand = lo <= hi && hi >= frame0 ? q.end_c[c] - first : 0;
          cell_b[cell] = static_cast<uint16_t>(b);
          tri_off[cell] = t;
          t += cand;
          e += cand;
          key[cell] = S - cand;
        }
        triples = t;
        evals += e + static_cast<int64_t>(cnt) * extra;
      } else {
        for (int k = 0; k < cnt; ++k) {
          const int cell = off + k, c = clo + k, hi = q.hi_c[c];
          const int cand = lo_ok && lo <= hi && hi >= frame0 ? q.end_c[c] - first : 0;
          cell_b[cell] = static_cast<uint16_t>(b);
          evals += cand + extra;
          tri_off[cell] = static_cast<int32_t>(triples <= INT32_MAX ? triples : 0);
          triples += cand;
          key[cell] = S - cand;
        }
      }
    } else {
      for (int k = 0; k < cnt; ++k) { // c real: a geometry cell when b is real too
        const int cell = off + k;
        int lo, hi, first, end;
        terms::candidate_frames(b_real, fb, true, fr[clo + k], T, kCausality, &lo, &hi);
        terms::nodes_of_frames(lo, hi, mn, frame0, frames, S, &first, &end);
        const int cand = end - first;
        cell_b[cell] = static_cast<uint16_t>(b);
        evals += cand + extra;
        if (b_real) {
          tri_off[cell] = static_cast<int32_t>(triples <= INT32_MAX ? triples : 0);
          triples += cand;
          key[cell] = S - cand;
        } else {
          tri_off[cell] = 0;
          key[cell] = 2 * S + 1 - cand;
        }
      }
    }
    if (extra) { // c = dummy
      const int cell = off + cnt;
      int lo, hi, first, end;
      terms::candidate_frames(b_real, fb, false, 0, T, kCausality, &lo, &hi);
      terms::nodes_of_frames(lo, hi, mn, frame0, frames, S, &first, &end);
      const int cand = end - first;
      cell_b[cell] = static_cast<uint16_t>(b);
      evals += cand + extra;
      tri_off[cell] = 0;
      key[cell] = b_real ? 2 * S + 1 - cand : 2 * S + 2;
    }
  }
  *evals_out = evals;
  *triples_out = triples;
}

// cell_order: the cells stably sorted by key (0 .. keys - 1), a counting sort. The cells are
// taken as two halves, each with its own counters, interleaved: the counter of a key is a chain of
// dependent loads and stores through memory, and consecutive cells often share a key, so two
// independent chains run about twice as fast as one. The first half's cells of a key go before
// the second half's: the same stable order. counts: 2 x keys entries of scratch.
void order_cells(const int32_t* key, int cells, int keys, int32_t* counts, int32_t* order) {
  int32_t* c0 = counts;
  int32_t* c1 = counts + keys;
  std::fill(counts, counts + 2 * static_cast<size_t>(keys), 0);
  const int h = cells / 2;
  for (int i = 0; i < h; ++i) {
    ++c0[key[i]];
    ++c1[key[h + i]];
  }
  if (cells % 2)
    ++c1[key[cells - 1]];
  for (int k = 0, run = 0; k < keys; ++k) {
    const int32_t n0 = c0[k], n1 = c1[k];
    c0[k] = run;
    c1[k] = run + n0;
    run += n0 + n1;
  }
  for (int i = 0; i < h; ++i) {
    order[c0[key[i]]++] = i;
    order[c1[key[h + i]]++] = h + i;
  }
  if (cells % 2)
    order[c1[key[cells - 1]]++] = cells - 1;
}

} // namespace

Status scene_layout(const Graph& scene, const Params& p, SceneLayout* out) {
  // Built in place: a caller that passes the previous call's layout (the backends, once per scene
  // block and match() call) keeps its vectors' capacity, so a call of the same size allocates
  // nothing here (a dozen allocations and frees per block before, a few microseconds of a 60-node
  // block's call). Every field is rewritten below.
  SceneLayout& L = *out;
  const int S = scene.size();
  L.S = S;
  L.frame0 = S > 0 ? scene.frame[0] : 0;
  L.frames = S > 0 ? scene.frame[S - 1] - scene.frame[0] + 1 : 0;
  // minnode (Sect. 3.4), extended to frames without nodes: the first node at or after frame f.
  L.minnode.assign(static_cast<size_t>(L.frames) + 1, S);
  for (int n = S - 1; n >= 0; --n)
    L.minnode[scene.frame[n] - L.frame0] = n;
  for (int f = L.frames - 1; f >= 0; --f) {
    if (L.minnode[f] > L.minnode[f + 1])
      L.minnode[f] = L.minnode[f + 1];
  }
  const int32_t* mn = L.minnode.data();

  // States (b, c) allowed by the pruning (Sect. 3.2).
  L.segments = p.dummies ? S + 1 : S;
  L.seg_off.resize(L.segments);
  L.seg_clo.resize(L.segments);
  L.seg_cnt.resize(L.segments);
  const int extra = p.dummies ? 1 : 0;
  int64_t cells = 0;
  for (int b = 0; b < L.segments; ++b) {
    int first = 0, end = S;
    if (b < S) {
      int lo, hi;
      terms::state_frames(scene.frame[b], p.T, static_cast<int>(p.causality), &lo, &hi);
      terms::nodes_of_frames(lo, hi, mn, L.frame0, L.frames, S, &first, &end);
    }
    L.seg_off[b] = static_cast<int32_t>(cells);
    L.seg_clo[b] = first;
    L.seg_cnt[b] = end - first;
    cells += end - first + extra;
    if (cells > kMaxRowCells) {
      return invalid_argument("trellis row of more than " + std::to_string(kMaxRowCells) +
                              " cells (scene of " + std::to_string(S) + " nodes, T " +
                              std::to_string(p.T) + "): use a smaller T or scene block");
    }
  }
  L.cells = static_cast<int32_t>(cells);
  L.cell_b.resize(L.cells);
  L.tri_off.resize(L.cells);
  // Work order by counting sort: key 0..S for geometry cells (S - candidates), S+1..2S+1 for the
  // others, 2S+2 for (dummy, dummy).
  thread_local std::vector<int32_t> key, scratch;
  key.resize(L.cells);
  const int keys = 2 * S + 3;
  scratch.resize(std::max(2 * static_cast<size_t>(keys), 2 * static_cast<size_t>(S)));
  // The per-cell pass, with the causality rule a constant of the instantiation (the same
  // candidate ranges as candidates(), which the compiler can then simplify per segment).
  CellPass cp{scene.frame.data(), p.T, L.frame0, L.frames, S, extra, mn, scratch.data(),
              scratch.data() + S};
  int64_t evals = 0, triples = 0;
  // (Other values are refused by validate(); candidate_frames would treat them as 1.)
  if (p.causality == Causality::kNone)
    cell_pass<0>(cp, L, key.data(), &evals, &triples);
  else if (p.causality == Causality::kIncreasing)
    cell_pass<2>(cp, L, key.data(), &evals, &triples);
  else
    cell_pass<1>(cp, L, key.data(), &evals, &triples);
  L.evaluations = evals;
  L.triples = triples <= INT32_MAX ? triples : -1;
  L.cell_order.resize(L.cells);
  order_cells(key.data(), L.cells, keys, scratch.data(), L.cell_order.data());

  // Direction windows: every pair of scene nodes inside one hyperedge is within T - 1 frames.
  L.win_lo.resize(S);
  L.win_cnt.resize(S);
  L.dir_off.resize(static_cast<size_t>(S) + 1);
  int64_t dirs = 0;
  for (int x = 0; x < S; ++x) {
    int first = 0, end = S;
    if (p.T > 0) {
      terms::nodes_of_frames(scene.frame[x] - (p.T - 1), scene.frame[x] + (p.T - 1), mn, L.frame0,
                             L.frames, S, &first, &end);
    }
    L.win_lo[x] = first;
    L.win_cnt[x] = end - first;
    L.dir_off[x] = dirs;
    dirs += end - first;
  }
  L.dir_off[S] = dirs;
  return Status::Ok();
}

void candidates(const SceneLayout& L, const int32_t* frame, const Params& p, int b, int c,
                int* first, int* end) {
  const int S = L.S;
  int lo, hi;
  terms::candidate_frames(b < S, b < S ? frame[b] : 0, c < S, c < S ? frame[c] : 0, p.T,
                          static_cast<int>(p.causality), &lo, &hi);
  terms::nodes_of_frames(lo, hi, L.minnode.data(), L.frame0, L.frames, S, first, end);
}

void scene_directions(const Graph& scene, const SceneLayout& L, std::vector<double>* dir) {
  dir->resize(static_cast<size_t>(L.dir_off[L.S]));
  for (int x = 0; x < L.S; ++x) {
    for (int k = 0; k < L.win_cnt[x]; ++k) {
      const int y = L.win_lo[x] + k;
      (*dir)[L.dir_off[x] + k] = terms::ray(scene.x[x], scene.y[x], scene.x[y], scene.y[y]);
    }
  }
}

} // namespace cvis::actionmatch::detail

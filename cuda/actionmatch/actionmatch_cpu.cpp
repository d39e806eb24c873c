// The CPU reference: the dynamic programme of eq. (10)-(13) over the pruned trellis, one (scene
// block, model) pair at a time, pairs spread over threads. Clear loops in the paper's order; the
// CUDA backend computes the same cells with the same terms (actionmatch_terms.hpp).
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "actionmatch_internal.hpp"
#include "actionmatch_terms.hpp"

namespace cvis::actionmatch::detail {

namespace {

using terms::kInf;

// One (scene, model) pair.
class PairSolver {
public:
  PairSolver(const Prepared& P, int model, const Graph& scene, const SceneLayout& L,
             const std::vector<double>& dir)
      : p_(P.params), g_(P.models[model].graph), rows_(P.rows[model]), scene_(scene), L_(L),
        dir_(dir), M_(g_.size()), S_(scene.size()) {}

  Status solve(MatchResult* out) {
    unary_table();
    // Eq. (11) for the last model node, then eq. (10) down to node 3 (r = 2, 0-based), keeping the
    // arguments of the minima (beta) for the backtracking of eq. (12).
    const int C = L_.cells;
    std::vector<int64_t> next(C, 0), cur(C);
    beta_.assign(static_cast<size_t>(M_ - 2) * C, 0);
    for (int r = M_ - 1; r >= 2; --r) {
      row(r, r == M_ - 1 ? nullptr : next.data(), cur.data(),
          beta_.data() + static_cast<size_t>(r - 2) * C);
      next.swap(cur);
    }
    // Eq. (13): the best (z_1, z_2), lexicographically first among equal energies.
    int64_t best = kInf;
    int bz1 = -1, bz2 = -1;
    for (int cell = 0; cell < C; ++cell) {
      if (next[cell] == kInf)
        continue;
      const int b = L_.cell_b[cell], c = c_of(cell);
      const int64_t v = u(0, c) + u(1, b) + next[cell];
      if (v < best || (v == best && (c < bz1 || (c == bz1 && b < bz2)))) {
        best = v;
        bz1 = c;
        bz2 = b;
      }
    }
    *out = MatchResult();
    if (best == kInf)
      return Status::Ok();
    std::vector<int> z(M_);
    z[0] = bz1;
    z[1] = bz2;
    for (int r = 2; r < M_; ++r) {
      z[r] = beta_[static_cast<size_t>(r - 2) * C + L_.cell(z[r - 1], z[r - 2])]; // eq. (12)
    }
    out->feasible = true;
    out->assignment.resize(M_);
    for (int r = 0; r < M_; ++r) {
      out->appearance_q += u(r, z[r]);
      if (r >= 2)
        out->distortion_q += d(r, z[r], z[r - 1], z[r - 2]);
      out->assignment[r] = z[r] == S_ ? kDummy : z[r];
      out->dummies += z[r] == S_;
    }
    out->energy_q = out->appearance_q + out->distortion_q;
    if (out->energy_q != best)
      return internal_error("actionmatch cpu: backtracked energy differs");
    return Status::Ok();
  }

private:
  // Sect. 3.3: lambda1 U for every (model node, scene node), the dummy in column S.
  void unary_table() {
    u_.resize(static_cast<size_t>(M_) * (S_ + 1));
    for (int r = 0; r < M_; ++r) {
      for (int a = 0; a < S_; ++a) {
        u_[static_cast<size_t>(r) * (S_ + 1) + a] =
            terms::unary_q(g_.descriptor(r), scene_.descriptor(a), g_.dim, p_.lambda1);
      }
      u_[static_cast<size_t>(r) * (S_ + 1) + S_] = terms::dummy_q(p_.lambda1, p_.dummy_cost);
    }
  }
  int64_t u(int r, int a) const { return u_[static_cast<size_t>(r) * (S_ + 1) + a]; }

  int c_of(int cell) const {
    const int b = L_.cell_b[cell], k = cell - L_.seg_off[b];
    return k < L_.seg_cnt[b] ? L_.seg_clo[b] + k : S_;
  }
  double ray(int from, int to) const { return dir_[L_.dir_off[from] + (to - L_.win_lo[from])]; }

  // lambda2 D(z_r = a, z_{r-1} = b, z_{r-2} = c); 0 when one of them is the dummy.
  int64_t d(int r, int a, int b, int c) const {
    if (a == S_ || b == S_ || c == S_)
      return 0;
    const double smid = terms::angle_at(ray(b, a), ray(b, c));
    const double slast = terms::angle_at(ray(a, b), ray(a, c));
    return terms::distortion_q(rows_.gap1[r], rows_.gap2[r], rows_.mid[r], rows_.last[r],
                               scene_.frame[a] - scene_.frame[b], scene_.frame[b] - scene_.frame[c],
                               smid, slast, p_.lambda2, p_.lambda3);
  }

  // alpha_r(b, c) = min over z_r of [U(z_r) + D(z_r, b, c) + alpha_{r+1}(z_r, b)] for every cell;
  // next == nullptr: alpha_{r+1} = 0 (eq. 11). Candidates in increasing order, the dummy last; the
  // first minimum is kept.
  void row(int r, const int64_t* next, int64_t* cur, uint16_t* beta) const {
    for (int cell = 0; cell < L_.cells; ++cell) {
      const int b = L_.cell_b[cell], c = c_of(cell);
      int first, end;
      candidates(L_, scene_.frame.data(), p_, b, c, &first, &end); // Sect. 3.2, 3.4
      int64_t best = kInf;
      int arg = 0;
      for (int a = first; a < end; ++a) {
        const int64_t nx = next ? next[L_.cell(a, b)] : 0;
        if (nx == kInf)
          continue;
        const int64_t v = u(r, a) + d(r, a, b, c) + nx;
        if (v < best) {
          best = v;
          arg = a;
        }
      }
      if (p_.dummies) {
        const int64_t nx = next ? next[L_.cell(S_, b)] : 0;
        if (nx != kInf) {
          const int64_t v = u(r, S_) + nx;
          if (v < best) {
            best = v;
            arg = S_;
          }
        }
      }
      cur[cell] = best;
      beta[cell] = static_cast<uint16_t>(arg);
    }
  }

  const Params& p_;
  const Graph& g_;
  const ModelRows& rows_;
  const Graph& scene_;
  const SceneLayout& L_;
  const std::vector<double>& dir_;
  const int M_, S_;
  std::vector<int64_t> u_;
  std::vector<uint16_t> beta_;
};

class CpuMatcher final : public Matcher {
public:
  explicit CpuMatcher(int threads) : threads_(threads) {}
  Backend backend() const override { return Backend::kCpu; }

  Status configure(const Params& params, const std::vector<Model>& models) override {
    return prepare(params, models, &P_);
  }

  Status match(const Graph* scenes, int count, std::vector<MatchResult>* results, MatchStats* stats,
               StreamHandle) override {
    std::vector<SceneLayout> layouts;
    CVIS_RETURN_IF_ERROR(prepare_scenes(P_, scenes, count, &layouts, stats));
    std::vector<std::vector<double>> dirs(count);
    for (int s = 0; s < count; ++s)
      scene_directions(scenes[s], layouts[s], &dirs[s]);
    const int nm = static_cast<int>(P_.models.size());
    const int pairs = count * nm;
    results->assign(pairs, MatchResult());
    std::vector<Status> status(pairs);
    std::atomic<int> next{0};
    auto work = [&] {
      for (int k; (k = next.fetch_add(1)) < pairs;) {
        const int s = k / nm, m = k % nm;
        PairSolver solver(P_, m, scenes[s], layouts[s], dirs[s]);
        status[k] = solver.solve(&(*results)[k]);
      }
    };
    int nt = threads_ > 0 ? threads_ : static_cast<int>(std::thread::hardware_concurrency());
    nt = std::max(1, std::min(nt, pairs));
    std::vector<std::thread> pool;
    for (int t = 1; t < nt; ++t)
      pool.emplace_back(work);
    work();
    for (std::thread& t : pool)
      t.join();
    for (const Status& st : status)
      CVIS_RETURN_IF_ERROR(st);
    return Status::Ok();
  }

  void reset() override { P_ = Prepared(); }

private:
  int threads_;
  Prepared P_;
};

} // namespace

std::unique_ptr<Matcher> make_cpu_matcher(int threads) {
  return std::make_unique<CpuMatcher>(threads);
}

} // namespace cvis::actionmatch::detail

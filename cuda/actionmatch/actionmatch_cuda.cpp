// The CUDA backend: models uploaded once by configure(); per match() call the scene blocks and
// their layouts go up in one copy, two launches (the prologue: ray directions, angle tables, cell
// work lists and unary terms; the trellis of every pair, which writes the results into pinned
// host memory), then the stream is synchronised.
// Device and pinned buffers only grow, and the host's scratch vectors are members, so that a call
// of the size of the previous one allocates nothing but its results.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "actionmatch_internal.hpp"
#include "actionmatch_kernels.hpp"
#include "actionmatch_profile.hpp"
#include "actionmatch_terms.hpp"
#include "common/cuda/device_buffer.hpp"

namespace cvis::actionmatch::detail {

// A cell's work entry keeps the cell below its gap code (kernels::CellWork).
static_assert(kMaxRowCells <= (int64_t{1} << kernels::kWorkCellBits),
              "a row's cells must fit below the work entry's gap code");

namespace {

// Host arrays packed into one pinned staging buffer and copied up in one call: begin() an array
// (16-byte aligned), add() its pieces (e.g. one per scene block), then fill() copies every piece
// in order.
class Packer {
public:
  void clear() {
    sources_.clear();
    size_ = 0;
  }
  size_t begin() {
    size_ = (size_ + 15) / 16 * 16;
    return size_;
  }
  template <typename T> void add(const T* data, size_t n) {
    sources_.push_back({data, n * sizeof(T), size_});
    size_ += n * sizeof(T);
  }
  template <typename T> size_t array(const std::vector<T>& v) {
    const size_t off = begin();
    add(v.data(), v.size());
    return off;
  }
  size_t size() const { return size_; }
  void fill(uint8_t* dst) const {
    for (const Source& s : sources_) {
      if (s.bytes)
        std::memcpy(dst + s.offset, s.data, s.bytes);
    }
  }

private:
  struct Source {
    const void* data;
    size_t bytes, offset;
  };
  std::vector<Source> sources_;
  size_t size_ = 0;
};

thread_local CudaMatchProfile* g_profile = nullptr;

using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

template <typename T> const T* at(const uint8_t* base, size_t off) {
  return reinterpret_cast<const T*>(base + off);
}

// Sums over the blocks and pairs of one call, from which the plan is chosen and the buffers sized.
struct CallSizes {
  int32_t nodes = 0, minnodes = 0, segments = 0, cells = 0, slots = 0;
  int64_t dirs = 0, angles = 0; // entries of the direction and angle tables
  bool angle_table = true;      // every block's angle table is within the layout's limit
  int max_segments = 1, max_nodes = 1, max_cells = 1;
  int64_t max_dirs = 1, max_angles = 1;
  int64_t unary = 0, argmin = 0, alpha = 0, max_argmin = 0, assign = 0;
};

class CudaMatcher final : public Matcher {
public:
  explicit CudaMatcher(const CudaOptions& options) : options_(options) {}
  Backend backend() const override { return Backend::kCuda; }

  Status configure(const Params& params, const std::vector<Model>& models) override {
    Prepared P;
    CVIS_RETURN_IF_ERROR(prepare(params, models, &P));
    std::vector<int32_t> node0{0}, node_model;
    std::vector<kernels::ModelRow> rows;
    std::vector<float> desc;
    for (size_t m = 0; m < P.models.size(); ++m) {
      const Graph& g = P.models[m].graph;
      const ModelRows& mr = P.rows[m];
      for (int r = 0; r < g.size(); ++r) {
        node_model.push_back(static_cast<int32_t>(m));
        rows.push_back({mr.mid[r], mr.last[r], mr.gap1[r], mr.gap2[r]});
      }
      desc.insert(desc.end(), g.desc.begin(), g.desc.end());
      node0.push_back(node0.back() + g.size());
    }
    Packer pk;
    const size_t o_node0 = pk.array(node0), o_nm = pk.array(node_model), o_rows = pk.array(rows),
                 o_desc = pk.array(desc);
    std::vector<uint8_t> bytes(pk.size());
    pk.fill(bytes.data());
    CVIS_RETURN_IF_ERROR(models_.reserve(bytes.size()));
    CVIS_CUDA_CHECK(cudaMemcpy(models_.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
    // A pageable copy may return before its DMA ends, and match() reads the models on the caller's
    // stream, which need not wait for the legacy default stream.
    CVIS_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    kernels::MatchTables& k = base_;
    k = kernels::MatchTables();
    kernels::EnergyTerms& e = k.energy;
    e.lambda1 = params.lambda1;
    e.lambda2 = params.lambda2;
    e.lambda3 = params.lambda3;
    e.dummy_q = terms::dummy_q(params.lambda1, params.dummy_cost);
    e.T = params.T;
    e.causality = static_cast<int32_t>(params.causality);
    e.dummies = params.dummies;
    e.dim = P.dim;
    kernels::ModelTables& mt = k.models;
    mt.count = static_cast<int32_t>(P.models.size());
    mt.nodes = node0.back();
    const uint8_t* base = models_.get();
    mt.node0 = at<int32_t>(base, o_node0);
    mt.node_model = at<int32_t>(base, o_nm);
    mt.rows = at<kernels::ModelRow>(base, o_rows);
    mt.desc = at<float>(base, o_desc);
    int dev = 0;
    CVIS_CUDA_CHECK(cudaGetDevice(&dev));
    CVIS_CUDA_CHECK(
        cudaDeviceGetAttribute(&shared_limit_, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    max_model_nodes_ = 0;
    model_nodes_.clear();
    for (const Model& m : P.models) {
      max_model_nodes_ = std::max(max_model_nodes_, m.graph.size());
      model_nodes_.push_back(m.graph.size());
    }
    P_ = std::move(P);
    return Status::Ok();
  }

  Status match(const Graph* scenes, int count, std::vector<MatchResult>* results, MatchStats* stats,
               StreamHandle stream) override {
    CudaMatchProfile* const prof = g_profile;
    const Clock::time_point t0 = Clock::now();
    CVIS_RETURN_IF_ERROR(prepare_scenes(P_, scenes, count, &layouts_, stats));
    const int nm = static_cast<int>(P_.models.size());
    results->resize(static_cast<size_t>(count) * nm);
    if (count == 0)
      return Status::Ok();
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    const Clock::time_point t1 = Clock::now();

    CallSizes sz;
    index_blocks(count, &sz);
    index_pairs(count, &sz);
    if (sz.assign > INT32_MAX) {
      return invalid_argument("too many (block, model) pairs in one call: split the blocks");
    }
    // The angle table replaces per-candidate work of every row; beyond the options' limit (scenes
    // without a closeness limit T, say) the trellis reads the ray directions instead.
    const bool angle_table = sz.angle_table && sz.angles <= options_.max_angle_entries;
    kernels::TrellisPlan plan = choose_plan(sz, angle_table);
    if (plan.smem.bytes > smem_allowed_) {
      CVIS_RETURN_IF_ERROR(kernels::allow_trellis_shared(plan.smem.bytes));
      smem_allowed_ = plan.smem.bytes;
    }
    kernels::MatchTables k = base_;
    size_t up = 0, down = 0;
    CVIS_RETURN_IF_ERROR(pack(scenes, count, sz, angle_table, plan, &k, &up, &down));
    plan.blocks_per_pair = kernels::trellis_cluster(k.pairs.count, plan.smem.bytes, sz.max_cells,
                                                    options_.max_blocks_per_pair);
    plan.solo = kernels::solo_trellis(plan, k.energy.dummies != 0, max_model_nodes_) ? 1 : 0;
    if (stats) {
      stats->blocks_per_pair = plan.blocks_per_pair;
      stats->folded = plan.folded;
    }
    const Clock::time_point t2 = Clock::now();

    if (prof)
      CVIS_RETURN_IF_ERROR(record(0, st));
    CVIS_CUDA_CHECK(cudaMemcpyAsync(input_.get(), staging_.get(), up, cudaMemcpyHostToDevice, st));
    if (prof)
      CVIS_RETURN_IF_ERROR(record(1, st));
    CVIS_RETURN_IF_ERROR(kernels::launch_prologue(k, st));
    if (prof)
      CVIS_RETURN_IF_ERROR(record(2, st));
    CVIS_RETURN_IF_ERROR(kernels::launch_trellis(k, plan, st));
    if (prof)
      CVIS_RETURN_IF_ERROR(record(3, st));
    // The trellis writes the results into h_out_ (no download): the profile's download interval
    // is the (empty) stretch between the trellis and the end.
    if (prof)
      CVIS_RETURN_IF_ERROR(record(4, st));
    const Clock::time_point t3 = Clock::now();
    CVIS_CUDA_CHECK(cudaStreamSynchronize(st));
    const Clock::time_point t4 = Clock::now();

    CVIS_RETURN_IF_ERROR(unpack(results));
    if (prof) {
      const Clock::time_point t5 = Clock::now();
      CudaMatchProfile& pr = *prof;
      pr = CudaMatchProfile();
      pr.prepare_ms = ms_between(t0, t1);
      pr.pack_ms = ms_between(t1, t2);
      pr.enqueue_ms = ms_between(t2, t3);
      pr.wait_ms = ms_between(t3, t4);
      pr.unpack_ms = ms_between(t4, t5);
      float* dst[] = {&pr.upload_ms, &pr.prologue_ms, &pr.trellis_ms, &pr.download_ms};
      for (int i = 0; i < 4; ++i)
        CVIS_CUDA_CHECK(cudaEventElapsedTime(dst[i], events_[i], events_[i + 1]));
      pr.launches = 2;
      pr.upload_kb = up / 1024.0;
      pr.download_kb = down / 1024.0;
    }
    return Status::Ok();
  }

  ~CudaMatcher() override { destroy_events(); }

  void reset() override {
    P_ = Prepared();
    model_nodes_.clear();
    base_ = kernels::MatchTables();
    models_.release();
    input_.release();
    work_.release();
    staging_.release();
    dirs_.release();
    angles_.release();
    unary_.release();
    argmin_.release();
    alpha_.release();
    h_out_.release();
    destroy_events();
  }

private:
  // The blocks' entries and the tables made on the host (the rest is packed from the graphs and
  // layouts in place). The per-node and per-segment tables are sized first and written through
  // pointers (no push_back's capacity check per entry, no reload of the vectors' ends after each
  // store).
  void index_blocks(int count, CallSizes* sz) {
    blocks_.resize(count);
    size_t all_nodes = 0, all_segments = 0;
    for (int s = 0; s < count; ++s) {
      all_nodes += static_cast<size_t>(layouts_[s].S);
      all_segments += static_cast<size_t>(layouts_[s].segments);
    }
    node_block_.resize(all_nodes);
    slot_block_.resize(all_nodes + static_cast<size_t>(count));
    dir_rel_.resize(all_nodes);
    seg_base_.resize(all_segments);
    seg_end_.resize(all_segments);
    int32_t* const node_block = node_block_.data();
    int32_t* const slot_block = slot_block_.data();
    int32_t* const dir_rel = dir_rel_.data();
    int32_t* const seg_base = seg_base_.data();
    int32_t* const seg_end = seg_end_.data();
    CallSizes& z = *sz;
    for (int s = 0; s < count; ++s) {
      const SceneLayout& L = layouts_[s];
      kernels::SceneBlock& B = blocks_[s];
      B.nodes = L.S;
      B.node0 = z.nodes;
      B.frame0 = L.frame0;
      B.frames = L.frames;
      B.minnode0 = z.minnodes;
      B.seg0 = z.segments;
      B.segments = L.segments;
      B.cells = L.cells;
      B.cell0 = z.cells;
      B.slot0 = z.slots;
      B.dir0 = z.dirs;
      B.angle0 = z.angles;
      z.angle_table = z.angle_table && L.triples >= 0;
      z.angles += std::max<int64_t>(L.triples, 0);
      z.max_angles = std::max(z.max_angles, L.triples);
      std::fill(node_block + z.nodes, node_block + z.nodes + L.S, s);
      std::fill(slot_block + z.slots, slot_block + z.slots + L.S + 1, s);
      for (int x = 0; x < L.S; ++x)
        dir_rel[z.nodes + x] = static_cast<int32_t>(L.dir_off[x]);
      for (int b = 0; b < L.segments; ++b) {
        seg_base[z.segments + b] = L.seg_off[b] - L.seg_clo[b];
        seg_end[z.segments + b] = L.seg_off[b] + L.seg_cnt[b];
      }
      z.nodes += L.S;
      z.minnodes += static_cast<int32_t>(L.minnode.size());
      z.segments += L.segments;
      z.cells += L.cells;
      z.slots += L.S + 1;
      z.dirs += L.dir_off[L.S];
      z.max_dirs = std::max(z.max_dirs, L.dir_off[L.S]);
      z.max_segments = std::max(z.max_segments, L.segments);
      z.max_nodes = std::max(z.max_nodes, L.S);
      z.max_cells = std::max(z.max_cells, L.cells);
    }
  }

  // The pairs, block-major, and the sizes of their per-pair tables.
  void index_pairs(int count, CallSizes* sz) {
    const int nm = static_cast<int>(model_nodes_.size());
    pairs_.resize(static_cast<size_t>(count) * nm);
    CallSizes& z = *sz;
    for (int s = 0; s < count; ++s) {
      for (int m = 0; m < nm; ++m) {
        kernels::PairInfo& pi = pairs_[static_cast<size_t>(s) * nm + m];
        const int M = model_nodes_[m];
        pi.model = m;
        pi.block = s;
        pi.assign0 = static_cast<int32_t>(std::min<int64_t>(z.assign, INT32_MAX));
        pi.unary0 = z.unary;
        pi.argmin0 = z.argmin;
        pi.alpha0 = z.alpha;
        z.assign += M;
        z.unary += static_cast<int64_t>(M) * (blocks_[s].nodes + 1);
        z.argmin += static_cast<int64_t>(M - 2) * blocks_[s].cells;
        z.max_argmin = std::max(z.max_argmin, static_cast<int64_t>(M - 2) * blocks_[s].cells);
        z.alpha += 2 * static_cast<int64_t>(blocks_[s].cells);
      }
    }
  }

  // What the trellis stages in shared memory: the scene tables, the alpha rows, the block's angle
  // table and ray directions, the pair's unary table and argmin tables, in this order of benefit,
  // each staged when it still fits; the cell work list last (it saves a few dependent loads per
  // cell and row, less than any of the others saves per candidate). Then the folded trellis where
  // it can run and its three rows of per-b minima still fit. (blocks_per_pair and solo follow
  // from the launch's sizes: match().)
  kernels::TrellisPlan choose_plan(const CallSizes& sz, bool angle_table) const {
    kernels::TrellisPlan p;
    p.max_segments = sz.max_segments;
    p.max_nodes = sz.max_nodes;
    p.max_cells = sz.max_cells;
    p.max_dirs = sz.max_dirs;
    p.max_unary = static_cast<int64_t>(max_model_nodes_) * (sz.max_nodes + 1);
    p.max_angles = angle_table ? sz.max_angles : 0;
    p.max_argmin = sz.max_argmin;
    const auto fits = [&] {
      return kernels::shared_layout(p).bytes <= static_cast<size_t>(shared_limit_);
    };
    for (int32_t* flag : {&p.stage_tables, &p.stage_alpha, &p.stage_angles, &p.stage_dirs,
                          &p.stage_unary, &p.stage_argmin, &p.stage_work}) {
      if (flag == &p.stage_angles && !angle_table)
        continue;
      *flag = 1;
      if (!fits())
        *flag = 0;
    }
    if (kernels::can_fold(p, angle_table)) {
      p.folded = 1;
      if (!fits())
        p.folded = 0;
    }
    // The per-b minima's 32-bit keys (v >> key_shift) must resolve values up to the dummy's totals
    // that they are compared with, at most M dummies: the shift that keeps M x dummy_q below 2^31.
    for (uint64_t most = static_cast<uint64_t>(max_model_nodes_) *
                         static_cast<uint64_t>(std::max<int64_t>(base_.energy.dummy_q, 1));
         (most >> p.key_shift) >= (uint64_t{1} << 31);)
      ++p.key_shift;
    p.smem = kernels::shared_layout(p);
    return p;
  }

  // Packs the call's arrays into the pinned staging (one array after the other, each block's
  // piece in turn: the order of SceneBlock), sizes the device buffers and points k's tables at
  // them. *up: bytes to upload; *down: bytes the trellis writes to the host.
  Status pack(const Graph* scenes, int count, const CallSizes& sz, bool angle_table,
              const kernels::TrellisPlan& plan, kernels::MatchTables* k, size_t* up, size_t* down) {
    Packer& pk = packer_;
    pk.clear();
    const size_t o_blocks = pk.array(blocks_);
    const auto per_block = [&](auto piece) {
      const size_t off = pk.begin();
      for (int s = 0; s < count; ++s)
        piece(scenes[s], layouts_[s]);
      return off;
    };
    const size_t o_frame = per_block(
        [&](const Graph& g, const SceneLayout&) { pk.add(g.frame.data(), g.frame.size()); });
    const size_t o_x =
        per_block([&](const Graph& g, const SceneLayout&) { pk.add(g.x.data(), g.x.size()); });
    const size_t o_y =
        per_block([&](const Graph& g, const SceneLayout&) { pk.add(g.y.data(), g.y.size()); });
    const size_t o_desc = per_block([&](const Graph& g, const SceneLayout&) {
      pk.add(g.desc.data(), static_cast<size_t>(g.size()) * g.dim);
    });
    const size_t o_nb = pk.array(node_block_), o_sb = pk.array(slot_block_);
    const size_t o_mn = per_block(
        [&](const Graph&, const SceneLayout& L) { pk.add(L.minnode.data(), L.minnode.size()); });
    const size_t o_sgb = pk.array(seg_base_), o_sge = pk.array(seg_end_);
    const size_t o_cb = per_block(
        [&](const Graph&, const SceneLayout& L) { pk.add(L.cell_b.data(), L.cell_b.size()); });
    const size_t o_co = per_block([&](const Graph&, const SceneLayout& L) {
      pk.add(L.cell_order.data(), L.cell_order.size());
    });
    const size_t o_wl = per_block(
        [&](const Graph&, const SceneLayout& L) { pk.add(L.win_lo.data(), L.win_lo.size()); });
    const size_t o_wc = per_block(
        [&](const Graph&, const SceneLayout& L) { pk.add(L.win_cnt.data(), L.win_cnt.size()); });
    const size_t o_to = per_block(
        [&](const Graph&, const SceneLayout& L) { pk.add(L.tri_off.data(), L.tri_off.size()); });
    const size_t o_dr = pk.array(dir_rel_), o_pairs = pk.array(pairs_);
    *up = pk.size();
    // The previous call's copies are done (it waited for its stream), so the staging is free.
    CVIS_RETURN_IF_ERROR(staging_.reserve(*up));
    CVIS_RETURN_IF_ERROR(input_.reserve(*up));
    pk.fill(staging_.get());
    CVIS_RETURN_IF_ERROR(dirs_.reserve(std::max<int64_t>(sz.dirs, 1)));
    if (angle_table)
      CVIS_RETURN_IF_ERROR(angles_.reserve(std::max<int64_t>(sz.angles, 1)));
    CVIS_RETURN_IF_ERROR(unary_.reserve(sz.unary));
    CVIS_RETURN_IF_ERROR(argmin_.reserve(plan.stage_argmin ? 1 : std::max<int64_t>(sz.argmin, 1)));
    if (!plan.stage_alpha)
      CVIS_RETURN_IF_ERROR(alpha_.reserve(sz.alpha));
    CVIS_RETURN_IF_ERROR(work_.reserve(std::max<int64_t>(sz.cells, 1)));
    // The results are written by the trellis kernel straight into pinned host memory (no copy
    // back: one operation less on the stream, whose fixed cost, several microseconds, is a
    // noticeable part of a small call). cudaMallocHost memory is mapped into the device's address
    // space at the same address on every device with unified addressing (all 64-bit CUDA
    // platforms), and the kernel's writes are visible to the host once the stream is synchronised.
    *down = pairs_.size() * sizeof(kernels::PairResult) + 4 * static_cast<size_t>(sz.assign);
    CVIS_RETURN_IF_ERROR(h_out_.reserve(*down));

    const uint8_t* in = input_.get();
    kernels::SceneTables& sc = k->scenes;
    sc.blocks_count = count;
    sc.nodes = sz.nodes;
    sc.slots = sz.slots;
    sc.cells = sz.cells;
    sc.blocks = at<kernels::SceneBlock>(in, o_blocks);
    sc.frame = at<int32_t>(in, o_frame);
    sc.x = at<float>(in, o_x);
    sc.y = at<float>(in, o_y);
    sc.desc = at<float>(in, o_desc);
    sc.node_block = at<int32_t>(in, o_nb);
    sc.slot_block = at<int32_t>(in, o_sb);
    sc.minnode = at<int32_t>(in, o_mn);
    sc.seg_base = at<int32_t>(in, o_sgb);
    sc.seg_end = at<int32_t>(in, o_sge);
    sc.cell_b = at<uint16_t>(in, o_cb);
    sc.cell_order = at<int32_t>(in, o_co);
    sc.angle_off = at<int32_t>(in, o_to);
    sc.win_lo = at<int32_t>(in, o_wl);
    sc.win_cnt = at<int32_t>(in, o_wc);
    sc.dir_rel = at<int32_t>(in, o_dr);
    kernels::DerivedTables& d = k->derived;
    d.dirs = dirs_.get();
    d.dir_count = sz.dirs;
    d.angles = angle_table ? angles_.get() : nullptr;
    d.angle_count = sz.angles;
    d.work = work_.get();
    d.unary = unary_.get();
    kernels::PairTables& pt = k->pairs;
    pt.count = static_cast<int32_t>(pairs_.size());
    pt.pairs = at<kernels::PairInfo>(in, o_pairs);
    pt.argmin = argmin_.get();
    pt.alpha = plan.stage_alpha ? nullptr : alpha_.get();
    pt.results = reinterpret_cast<kernels::PairResult*>(h_out_.get());
    pt.assignment =
        reinterpret_cast<int32_t*>(h_out_.get() + pairs_.size() * sizeof(kernels::PairResult));
    return Status::Ok();
  }

  // The results the trellis wrote into h_out_.
  Status unpack(std::vector<MatchResult>* results) const {
    const auto* res = reinterpret_cast<const kernels::PairResult*>(h_out_.get());
    const auto* z = reinterpret_cast<const int32_t*>(h_out_.get() +
                                                     pairs_.size() * sizeof(kernels::PairResult));
    for (size_t i = 0; i < pairs_.size(); ++i) {
      MatchResult& r = (*results)[i];
      if (!res[i].feasible) {
        r = MatchResult();
        continue;
      }
      r.feasible = true;
      r.energy_q = res[i].energy;
      r.appearance_q = res[i].appearance;
      r.distortion_q = res[i].distortion;
      r.dummies = res[i].dummies;
      const int M = model_nodes_[pairs_[i].model];
      r.assignment.assign(z + pairs_[i].assign0, z + pairs_[i].assign0 + M);
      if (r.energy_q != r.appearance_q + r.distortion_q) {
        return internal_error("actionmatch cuda: energy parts do not add up");
      }
    }
    return Status::Ok();
  }

  // Profiling events (created on first use) recorded between the steps of a profiled call.
  Status record(int i, cudaStream_t st) {
    if (!events_[0]) {
      for (cudaEvent_t& e : events_)
        CVIS_CUDA_CHECK(cudaEventCreate(&e));
    }
    CVIS_CUDA_CHECK(cudaEventRecord(events_[i], st));
    return Status::Ok();
  }
  void destroy_events() {
    for (cudaEvent_t& e : events_) {
      if (e)
        cudaEventDestroy(e);
      e = nullptr;
    }
  }

  CudaOptions options_;
  Prepared P_;
  kernels::MatchTables base_; // the energy terms and model tables, set by configure()
  int shared_limit_ = 48 * 1024;
  size_t smem_allowed_ = 48 * 1024;
  cuda::DeviceArray<uint8_t> models_, input_;
  cuda::DeviceArray<kernels::CellWork> work_;
  cuda::PinnedArray<uint8_t> staging_, h_out_;
  cuda::DeviceArray<double> dirs_;
  cuda::DeviceArray<int64_t> unary_, alpha_;
  cuda::DeviceArray<uint16_t> argmin_;
  cuda::DeviceArray<kernels::SceneAngles> angles_;
  int max_model_nodes_ = 0;
  std::vector<int> model_nodes_; // per model (read per pair: no walk over the Model objects)
  // Per-call scratch, kept so that its capacity is reused.
  std::vector<SceneLayout> layouts_;
  std::vector<kernels::SceneBlock> blocks_;
  std::vector<kernels::PairInfo> pairs_;
  std::vector<int32_t> node_block_, slot_block_, dir_rel_, seg_base_, seg_end_;
  Packer packer_;
  cudaEvent_t events_[5] = {};
};

} // namespace

void set_cuda_match_profile(CudaMatchProfile* sink) {
  g_profile = sink;
}

std::unique_ptr<Matcher> make_cuda_matcher(const CudaOptions& options) {
  return std::make_unique<CudaMatcher>(options);
}

} // namespace cvis::actionmatch::detail

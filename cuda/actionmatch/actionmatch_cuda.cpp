// The CUDA backend: models uploaded once by configure(); per match() call the scene blocks and
// their layouts go up in one copy, three launches (directions, unary terms, trellis of every pair)
// and one copy of the results come back, then the stream is synchronised.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "actionmatch_internal.hpp"
#include "actionmatch_kernels.hpp"
#include "actionmatch_terms.hpp"
#include "common/cuda/device_buffer.hpp"

namespace cvis::actionmatch::detail {

namespace {

// Host arrays packed (16-byte aligned pieces) into one pinned staging buffer, copied up in one
// call: plan() every array first, then fill() them in the same order.
class Packer {
public:
  template <typename T> size_t plan(const std::vector<T>& v) {
    const size_t off = (size_ + 15) / 16 * 16;
    size_ = off + v.size() * sizeof(T);
    sources_.push_back({v.data(), v.size() * sizeof(T), off});
    return off;
  }
  size_t size() const { return size_; }
  // Copies every planned array into `dst` (size() bytes).
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

template <typename T> const T* at(const uint8_t* base, size_t off) {
  return reinterpret_cast<const T*>(base + off);
}

class CudaMatcher final : public Matcher {
public:
  Backend backend() const override { return Backend::kCuda; }

  Status configure(const Params& params, const std::vector<Model>& models) override {
    Prepared P;
    CVIS_RETURN_IF_ERROR(prepare(params, models, &P));
    std::vector<int32_t> node0{0}, node_model;
    std::vector<kernels::ModelRow> rows;
    std::vector<double> desc;
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
    const size_t o_node0 = pk.plan(node0), o_nm = pk.plan(node_model), o_rows = pk.plan(rows),
                 o_desc = pk.plan(desc);
    std::vector<uint8_t> bytes(pk.size());
    pk.fill(bytes.data());
    CVIS_RETURN_IF_ERROR(models_.reserve(bytes.size()));
    CVIS_CUDA_CHECK(cudaMemcpy(models_.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
    // A pageable copy may return before its DMA ends, and match() reads the models on the caller's
    // stream, which need not wait for the legacy default stream.
    CVIS_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    kernels::Problem& k = base_;
    k = kernels::Problem();
    k.lambda1 = params.lambda1;
    k.lambda2 = params.lambda2;
    k.lambda3 = params.lambda3;
    k.dummy_q = terms::dummy_q(params.lambda1, params.dummy_cost);
    k.T = params.T;
    k.causality = static_cast<int32_t>(params.causality);
    k.dummies = params.dummies;
    k.dim = P.dim;
    k.nmodels = static_cast<int32_t>(P.models.size());
    k.model_nodes = node0.back();
    const uint8_t* base = models_.get();
    k.model_node0 = at<int32_t>(base, o_node0);
    k.node_model = at<int32_t>(base, o_nm);
    k.rows = at<kernels::ModelRow>(base, o_rows);
    k.model_desc = at<double>(base, o_desc);
    int dev = 0;
    CVIS_CUDA_CHECK(cudaGetDevice(&dev));
    CVIS_CUDA_CHECK(
        cudaDeviceGetAttribute(&shared_limit_, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    P_ = std::move(P);
    return Status::Ok();
  }

  Status match(const Graph* scenes, int count, std::vector<MatchResult>* results, MatchStats* stats,
               StreamHandle stream) override {
    std::vector<SceneLayout> layouts;
    CVIS_RETURN_IF_ERROR(prepare_scenes(P_, scenes, count, &layouts, stats));
    const int nm = static_cast<int>(P_.models.size());
    results->assign(static_cast<size_t>(count) * nm, MatchResult());
    if (count == 0)
      return Status::Ok();
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    kernels::Problem k = base_;

    // Concatenated scene arrays and tables.
    std::vector<kernels::BlockInfo> blocks(count);
    std::vector<int32_t> frame, node_block, slot_block, minnode, seg_off, seg_clo, seg_cnt, win_lo,
        win_cnt, dir_rel;
    std::vector<float> xs, ys;
    std::vector<double> desc;
    std::vector<uint16_t> cell_b;
    std::vector<int32_t> cell_order;
    int64_t dirs = 0;
    int max_segments = 1, max_nodes = 1, max_cells = 1, max_model_nodes = 0;
    int64_t max_dirs = 1;
    for (const Model& m : P_.models)
      max_model_nodes = std::max(max_model_nodes, m.graph.size());
    for (int s = 0; s < count; ++s) {
      const Graph& g = scenes[s];
      const SceneLayout& L = layouts[s];
      kernels::BlockInfo& B = blocks[s];
      B.S = L.S;
      B.node0 = static_cast<int32_t>(frame.size());
      B.frame0 = L.frame0;
      B.frames = L.frames;
      B.minnode0 = static_cast<int32_t>(minnode.size());
      B.seg0 = static_cast<int32_t>(seg_off.size());
      B.segments = L.segments;
      B.cells = L.cells;
      B.cell0 = static_cast<int32_t>(cell_b.size());
      B.slot0 = static_cast<int32_t>(slot_block.size());
      B.dir0 = dirs;
      frame.insert(frame.end(), g.frame.begin(), g.frame.end());
      xs.insert(xs.end(), g.x.begin(), g.x.end());
      ys.insert(ys.end(), g.y.begin(), g.y.end());
      desc.insert(desc.end(), g.desc.begin(), g.desc.end());
      node_block.insert(node_block.end(), L.S, s);
      slot_block.insert(slot_block.end(), L.S + 1, s);
      minnode.insert(minnode.end(), L.minnode.begin(), L.minnode.end());
      seg_off.insert(seg_off.end(), L.seg_off.begin(), L.seg_off.end());
      seg_clo.insert(seg_clo.end(), L.seg_clo.begin(), L.seg_clo.end());
      seg_cnt.insert(seg_cnt.end(), L.seg_cnt.begin(), L.seg_cnt.end());
      cell_b.insert(cell_b.end(), L.cell_b.begin(), L.cell_b.end());
      cell_order.insert(cell_order.end(), L.cell_order.begin(), L.cell_order.end());
      win_lo.insert(win_lo.end(), L.win_lo.begin(), L.win_lo.end());
      win_cnt.insert(win_cnt.end(), L.win_cnt.begin(), L.win_cnt.end());
      for (int x = 0; x < L.S; ++x)
        dir_rel.push_back(static_cast<int32_t>(L.dir_off[x]));
      dirs += L.dir_off[L.S];
      max_dirs = std::max(max_dirs, L.dir_off[L.S]);
      max_segments = std::max(max_segments, L.segments);
      max_nodes = std::max(max_nodes, L.S);
      max_cells = std::max(max_cells, L.cells);
    }
    // Pairs, block-major, and the sizes of their scratch.
    std::vector<kernels::PairInfo> pairs(static_cast<size_t>(count) * nm);
    int64_t unary = 0, beta = 0, alpha = 0;
    int64_t assign = 0;
    for (int s = 0; s < count; ++s) {
      for (int m = 0; m < nm; ++m) {
        kernels::PairInfo& pi = pairs[static_cast<size_t>(s) * nm + m];
        const int M = P_.models[m].graph.size();
        pi.model = m;
        pi.block = s;
        pi.assign0 = static_cast<int32_t>(assign);
        pi.unary0 = unary;
        pi.beta0 = beta;
        pi.alpha0 = alpha;
        assign += M;
        unary += static_cast<int64_t>(M) * (blocks[s].S + 1);
        beta += static_cast<int64_t>(M - 2) * blocks[s].cells;
        alpha += 2 * static_cast<int64_t>(blocks[s].cells);
      }
    }

    if (assign > INT32_MAX) {
      return invalid_argument("too many (block, model) pairs in one call: split the blocks");
    }
    // Shared memory: the scene tables, the alpha rows, the block's ray directions and the pair's
    // unary table, in this order of benefit, each staged there when it still fits.
    k.max_segments = max_segments;
    k.max_nodes = max_nodes;
    k.max_cells = max_cells;
    k.max_dirs = max_dirs;
    k.max_unary = static_cast<int64_t>(max_model_nodes) * (max_nodes + 1);
    k.shared_tables = k.shared_alpha = k.shared_dir = k.shared_unary = 0;
    for (int32_t* flag : {&k.shared_tables, &k.shared_alpha, &k.shared_dir, &k.shared_unary}) {
      *flag = 1;
      if (kernels::shared_layout(k, kernels::kTrellisThreads).bytes >
          static_cast<size_t>(shared_limit_))
        *flag = 0;
    }
    const size_t smem = kernels::shared_layout(k, kernels::kTrellisThreads).bytes;
    if (smem > smem_allowed_) {
      CVIS_RETURN_IF_ERROR(kernels::allow_trellis_shared(smem));
      smem_allowed_ = smem;
    }

    Packer pk;
    const size_t o_blocks = pk.plan(blocks), o_frame = pk.plan(frame), o_x = pk.plan(xs),
                 o_y = pk.plan(ys), o_desc = pk.plan(desc), o_nb = pk.plan(node_block),
                 o_sb = pk.plan(slot_block), o_mn = pk.plan(minnode), o_so = pk.plan(seg_off),
                 o_sc = pk.plan(seg_clo), o_sn = pk.plan(seg_cnt), o_cb = pk.plan(cell_b),
                 o_co = pk.plan(cell_order), o_wl = pk.plan(win_lo), o_wc = pk.plan(win_cnt),
                 o_dr = pk.plan(dir_rel), o_pairs = pk.plan(pairs);
    const size_t up = pk.size();
    CVIS_RETURN_IF_ERROR(staging_.reserve(up));
    CVIS_RETURN_IF_ERROR(input_.reserve(up));
    pk.fill(staging_.get());
    CVIS_CUDA_CHECK(cudaMemcpyAsync(input_.get(), staging_.get(), up, cudaMemcpyHostToDevice, st));
    CVIS_RETURN_IF_ERROR(dir_.reserve(std::max<int64_t>(dirs, 1)));
    CVIS_RETURN_IF_ERROR(unary_.reserve(unary));
    CVIS_RETURN_IF_ERROR(beta_.reserve(std::max<int64_t>(beta, 1)));
    if (!k.shared_alpha)
      CVIS_RETURN_IF_ERROR(alpha_.reserve(alpha));
    const size_t down =
        pairs.size() * sizeof(kernels::PairResult) + 4 * static_cast<size_t>(assign);
    CVIS_RETURN_IF_ERROR(out_.reserve(down));
    CVIS_RETURN_IF_ERROR(h_out_.reserve(down));

    const uint8_t* in = input_.get();
    k.nblocks = count;
    k.scene_nodes = static_cast<int32_t>(frame.size());
    k.slots = static_cast<int32_t>(slot_block.size());
    k.blocks = at<kernels::BlockInfo>(in, o_blocks);
    k.frame = at<int32_t>(in, o_frame);
    k.x = at<float>(in, o_x);
    k.y = at<float>(in, o_y);
    k.scene_desc = at<double>(in, o_desc);
    k.node_block = at<int32_t>(in, o_nb);
    k.slot_block = at<int32_t>(in, o_sb);
    k.minnode = at<int32_t>(in, o_mn);
    k.seg_off = at<int32_t>(in, o_so);
    k.seg_clo = at<int32_t>(in, o_sc);
    k.seg_cnt = at<int32_t>(in, o_sn);
    k.cell_b = at<uint16_t>(in, o_cb);
    k.cell_order = at<int32_t>(in, o_co);
    k.win_lo = at<int32_t>(in, o_wl);
    k.win_cnt = at<int32_t>(in, o_wc);
    k.dir_rel = at<int32_t>(in, o_dr);
    k.dir = dir_.get();
    k.npairs = static_cast<int32_t>(pairs.size());
    k.pairs = at<kernels::PairInfo>(in, o_pairs);
    k.unary = unary_.get();
    k.beta = beta_.get();
    k.alpha = k.shared_alpha ? nullptr : alpha_.get();
    k.total_dirs = dirs;
    k.results = reinterpret_cast<kernels::PairResult*>(out_.get());
    k.assignment =
        reinterpret_cast<int32_t*>(out_.get() + pairs.size() * sizeof(kernels::PairResult));

    CVIS_RETURN_IF_ERROR(kernels::launch_directions(k, st));
    CVIS_RETURN_IF_ERROR(kernels::launch_unary(k, st));
    k.cluster = kernels::trellis_cluster(k.npairs, smem);
    if (stats)
      stats->blocks_per_pair = k.cluster;
    CVIS_RETURN_IF_ERROR(kernels::launch_trellis(k, smem, st));
    CVIS_CUDA_CHECK(cudaMemcpyAsync(h_out_.get(), out_.get(), down, cudaMemcpyDeviceToHost, st));
    CVIS_CUDA_CHECK(cudaStreamSynchronize(st));

    const auto* res = reinterpret_cast<const kernels::PairResult*>(h_out_.get());
    const auto* z =
        reinterpret_cast<const int32_t*>(h_out_.get() + pairs.size() * sizeof(kernels::PairResult));
    for (size_t i = 0; i < pairs.size(); ++i) {
      MatchResult& r = (*results)[i];
      if (!res[i].feasible)
        continue;
      r.feasible = true;
      r.energy_q = res[i].energy;
      r.appearance_q = res[i].appearance;
      r.distortion_q = res[i].distortion;
      r.dummies = res[i].dummies;
      const int M = P_.models[pairs[i].model].graph.size();
      r.assignment.assign(z + pairs[i].assign0, z + pairs[i].assign0 + M);
      if (r.energy_q != r.appearance_q + r.distortion_q) {
        return internal_error("actionmatch cuda: energy parts do not add up");
      }
    }
    return Status::Ok();
  }

  void reset() override {
    P_ = Prepared();
    base_ = kernels::Problem();
    models_.release();
    input_.release();
    staging_.release();
    dir_.release();
    unary_.release();
    beta_.release();
    alpha_.release();
    out_.release();
    h_out_.release();
  }

private:
  Prepared P_;
  kernels::Problem base_; // the model part, set by configure()
  int shared_limit_ = 48 * 1024;
  size_t smem_allowed_ = 48 * 1024;
  cuda::DeviceArray<uint8_t> models_, input_, out_;
  cuda::PinnedArray<uint8_t> staging_, h_out_;
  cuda::DeviceArray<double> dir_;
  cuda::DeviceArray<int64_t> unary_, alpha_;
  cuda::DeviceArray<uint16_t> beta_;
};

} // namespace

std::unique_ptr<Matcher> make_cuda_matcher() {
  return std::make_unique<CudaMatcher>();
}

} // namespace cvis::actionmatch::detail

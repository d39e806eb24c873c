// CUDA engine: device memory, the pass description (packed into one pinned buffer, one copy per
// pass), the launch sequence (integrals, search, merge) and the read-back of the winners. Host
// frames are uploaded once per frame (common/cuda/upload.hpp); device frames are read in place.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/cuda/upload.hpp"
#include "rcdtrack_engine.hpp"
#include "rcdtrack_kernels.hpp"

namespace cvis::rcdtrack {

namespace {

using cuda::DeviceArray;
using cuda::PinnedArray;
using kernels::DevGrid;
using kernels::DevGroup;
using kernels::DevHit;
using kernels::DevIntegral;
using kernels::DevResult;

// Packs arrays into one host buffer at 16-byte aligned offsets.
class Packer {
public:
  template <typename T> size_t add(const std::vector<T>& v) {
    const size_t at = (bytes_.size() + 15) / 16 * 16;
    bytes_.resize(at + v.size() * sizeof(T));
    if (!v.empty())
      std::memcpy(bytes_.data() + at, v.data(), v.size() * sizeof(T));
    return at;
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  void clear() { bytes_.clear(); }

private:
  std::vector<uint8_t> bytes_;
};

class CudaEngine final : public Engine {
public:
  Backend backend() const override { return Backend::kCuda; }

  Status configure(const Layout& layout, Distance distance, int width, int height,
                   PixelFormat format) override {
    layout_ = layout;
    distance_ = distance;
    width_ = width;
    height_ = height;
    format_ = format;
    have_frame_ = false;
    return Status::Ok();
  }

  Status set_frame(const ImageView& frame, StreamHandle stream) override {
    CVIS_RETURN_IF_ERROR(validate_view(frame, "frame"));
    if (frame.width != width_ || frame.height != height_ || frame.format != format_)
      return invalid_argument("frame " + std::to_string(frame.width) + "x" +
                              std::to_string(frame.height) + " " + pixel_format_name(frame.format) +
                              " does not match the configured " + std::to_string(width_) + "x" +
                              std::to_string(height_) + " " + pixel_format_name(format_));
    ImageView dev = frame;
    if (frame.space == MemorySpace::kHost)
      CVIS_RETURN_IF_ERROR(uploader_.upload(frame, static_cast<cudaStream_t>(stream), &dev));
    src_ = make_pixel_source(dev);
    have_frame_ = true;
    return Status::Ok();
  }

  Status run(const Pass& pass, std::vector<GroupResult>* out, StreamHandle stream) override;
  Status match_templates(const TemplatePass& pass, std::vector<TemplateHit>* out,
                         StreamHandle stream) override;
  Status read_luma(const std::vector<LumaRegion>& regions, std::vector<uint8_t>* out,
                   StreamHandle stream) override;

private:
  // Copies the packer's bytes to desc_dev_ (through desc_host_) on stream s.
  Status upload_desc(cudaStream_t s);

  // The search kernel's blocks in launch order: (group, chunk of the group's windows) pairs.
  const std::vector<int>& order_blocks(const Pass& pass, const std::vector<DevGroup>& groups,
                                       int n_blocks);
  struct BlockWork {
    int rank, group, chunk;
  };
  std::vector<BlockWork> order_;
  std::vector<int> work_;

  Layout layout_;
  Distance distance_ = Distance::kJbld;
  int width_ = 0, height_ = 0;
  PixelFormat format_ = PixelFormat::kRGBA;
  PixelSource src_{};
  bool have_frame_ = false;
  cuda::HostUploader uploader_;
  Packer packer_;
  PinnedArray<uint8_t> desc_host_;
  DeviceArray<uint8_t> desc_dev_;
  DeviceArray<int64_t> integrals_;
  DeviceArray<DevHit> cand_, below_;
  DeviceArray<int> below_count_;
  DeviceArray<unsigned long long> bounds_;
  DeviceArray<DevResult> results_;
  PinnedArray<DevResult> results_host_;
  PinnedArray<int> counts_host_;
  PinnedArray<DevHit> below_host_;
  DeviceArray<kernels::DevTemplateHit> tmpl_hits_;
  PinnedArray<kernels::DevTemplateHit> tmpl_hits_host_;
  DeviceArray<uint8_t> luma_;
  PinnedArray<uint8_t> luma_host_;
};

const std::vector<int>&
CudaEngine::order_blocks(const Pass& pass, const std::vector<DevGroup>& groups, int n_blocks) {
  // Each group's blocks (chunks of kWindowThreads windows) ranked by how near their middle
  // window's box is to the prior (centre offset in target sizes squared plus ln^2 of the size
  // factor): for a pruning group the likely best windows come first, so that the bound the
  // later blocks test against is tight early. Then the blocks of all groups by rank, so that the
  // first blocks the GPU runs are every group's most promising ones. The order changes which
  // windows are left unfinished, never a result.
  order_.clear();
  order_.reserve(static_cast<size_t>(n_blocks));
  std::vector<std::pair<double, int>> keys;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const DevGroup& d = groups[gi];
    const GroupSpec& g = pass.groups[gi];
    keys.clear();
    for (int b = 0; b < d.blocks; ++b) {
      double key = b;
      if (d.prune) {
        const int64_t mid = std::min<int64_t>(d.windows - 1, int64_t(b) * kernels::kWindowThreads +
                                                                 kernels::kWindowThreads / 2);
        int grid = 0;
        const Box box = window_box(pass, g, mid, &grid);
        const double dx = (box.x + 0.5 * box.w - g.prior.cx) / g.prior.w;
        const double dy = (box.y + 0.5 * box.h - g.prior.cy) / g.prior.h;
        const double lf = pass.grids[grid].ln_factor;
        key = dx * dx + dy * dy + lf * lf;
      }
      keys.emplace_back(key, b);
    }
    std::stable_sort(keys.begin(), keys.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (int r = 0; r < d.blocks; ++r)
      order_.push_back({r, static_cast<int>(gi), keys[static_cast<size_t>(r)].second});
  }
  std::stable_sort(order_.begin(), order_.end(),
                   [](const BlockWork& a, const BlockWork& b) { return a.rank < b.rank; });
  work_.resize(2 * order_.size());
  for (size_t k = 0; k < order_.size(); ++k) {
    work_[2 * k] = order_[k].group;
    work_[2 * k + 1] = order_[k].chunk;
  }
  return work_;
}

Status CudaEngine::run(const Pass& pass, std::vector<GroupResult>* out, StreamHandle stream) {
  if (!have_frame_)
    return internal_error("run before set_frame");
  CVIS_RETURN_IF_ERROR(validate_pass(pass, layout_, width_, height_));
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int P = layout_.planes;

  // Device description of the pass.
  std::vector<DevIntegral> ints(pass.integrals.size());
  int64_t total_elems = 0, total_cols = 0;
  int total_rows = 0;
  for (size_t k = 0; k < pass.integrals.size(); ++k) {
    const IntegralSpec& is = pass.integrals[k];
    DevIntegral& d = ints[k];
    d.x = is.x;
    d.y = is.y;
    d.cols = is.cols;
    d.rows = is.rows;
    d.cell = is.cell;
    d.row_first = total_rows;
    d.col_first = total_cols;
    d.offset = total_elems;
    d.plane_stride = static_cast<int64_t>(is.rows + 1) * (is.cols + 1);
    total_rows += is.rows;
    total_cols += static_cast<int64_t>(P) * (is.cols + 1);
    total_elems += P * d.plane_stride;
  }
  std::vector<DevGrid> grids(pass.grids.size());
  std::vector<DevGroup> groups(pass.groups.size());
  int n_blocks = 0;
  int collecting = 0;
  for (size_t gi = 0; gi < pass.groups.size(); ++gi) {
    const GroupSpec& g = pass.groups[gi];
    DevGroup& d = groups[gi];
    d.integral = g.integral;
    d.model = g.model;
    d.first_grid = g.first_grid;
    d.grid_count = g.grid_count;
    int64_t first = 0;
    for (int k = g.first_grid; k < g.first_grid + g.grid_count; ++k) {
      const GridSpec& gr = pass.grids[k];
      grids[k] = {gr.x0, gr.y0, gr.nx, gr.ny, gr.step, gr.ww, gr.wh, gr.ln_factor, first};
      first += static_cast<int64_t>(gr.nx) * gr.ny;
    }
    d.windows = first;
    d.first_block = n_blocks;
    d.blocks = static_cast<int>((first + kernels::kWindowThreads - 1) / kernels::kWindowThreads);
    n_blocks += d.blocks;
    d.prior = g.prior;
    d.top_k = g.top_k;
    d.threshold = g.threshold;
    d.below_group = g.threshold >= 0.0 ? collecting++ : -1;
    d.below_base = d.below_group >= 0 ? static_cast<int64_t>(d.below_group) * kMaxCandidates : 0;
    // Only the best window is reported: windows that cannot beat it may be left unfinished.
    d.prune = g.top_k == 1 && g.threshold < 0.0 && g.model >= 0 ? 1 : 0;
  }
  const std::vector<int>& block_work = order_blocks(pass, groups, n_blocks);
  packer_.clear();
  const size_t o_int = packer_.add(ints), o_grid = packer_.add(grids),
               o_group = packer_.add(groups);
  const size_t o_model = packer_.add(pass.models), o_block = packer_.add(block_work);
  CVIS_RETURN_IF_ERROR(integrals_.reserve(static_cast<size_t>(std::max<int64_t>(1, total_elems))));
  CVIS_RETURN_IF_ERROR(cand_.reserve(std::max<size_t>(1, n_blocks) * kMaxTopK));
  CVIS_RETURN_IF_ERROR(results_.reserve(std::max<size_t>(1, groups.size())));
  CVIS_RETURN_IF_ERROR(results_host_.reserve(std::max<size_t>(1, groups.size())));
  CVIS_RETURN_IF_ERROR(below_count_.reserve(std::max(1, collecting)));
  CVIS_RETURN_IF_ERROR(counts_host_.reserve(std::max(1, collecting)));
  CVIS_RETURN_IF_ERROR(bounds_.reserve(std::max<size_t>(1, groups.size())));
  CVIS_RETURN_IF_ERROR(
      below_.reserve(std::max(1, collecting) * static_cast<size_t>(kMaxCandidates)));
  CVIS_RETURN_IF_ERROR(upload_desc(s));
  if (collecting)
    CVIS_CUDA_CHECK(cudaMemsetAsync(below_count_.get(), 0, sizeof(int) * collecting, s));
  // No bound yet: all bits set is above the key of every score.
  CVIS_CUDA_CHECK(
      cudaMemsetAsync(bounds_.get(), 0xff, sizeof(unsigned long long) * groups.size(), s));
  const uint8_t* dd = desc_dev_.get();
  const auto* d_int = reinterpret_cast<const DevIntegral*>(dd + o_int);
  const auto* d_grid = reinterpret_cast<const DevGrid*>(dd + o_grid);
  const auto* d_group = reinterpret_cast<const DevGroup*>(dd + o_group);
  const auto* d_model = reinterpret_cast<const ModelData*>(dd + o_model);
  const auto* d_block = reinterpret_cast<const int*>(dd + o_block);

  CVIS_RETURN_IF_ERROR(kernels::launch_integrals(src_, layout_, d_int,
                                                 static_cast<int>(ints.size()), total_rows,
                                                 total_cols, integrals_.get(), s));
  CVIS_RETURN_IF_ERROR(
      kernels::launch_search(layout_, distance_, d_group, static_cast<int>(groups.size()), d_grid,
                             d_int, d_model, d_block, n_blocks, integrals_.get(), cand_.get(),
                             below_.get(), below_count_.get(), bounds_.get(), results_.get(), s));
  CVIS_CUDA_CHECK(cudaMemcpyAsync(results_host_.get(), results_.get(),
                                  sizeof(DevResult) * groups.size(), cudaMemcpyDeviceToHost, s));
  if (collecting)
    CVIS_CUDA_CHECK(cudaMemcpyAsync(counts_host_.get(), below_count_.get(),
                                    sizeof(int) * collecting, cudaMemcpyDeviceToHost, s));
  CVIS_CUDA_CHECK(cudaStreamSynchronize(s));

  // Windows under the thresholds: only as many as were found.
  std::vector<size_t> below_at(collecting);
  size_t below_total = 0;
  for (int k = 0; k < collecting; ++k) {
    below_at[k] = below_total;
    below_total += static_cast<size_t>(std::min(counts_host_.get()[k], kMaxCandidates));
  }
  if (below_total) {
    CVIS_RETURN_IF_ERROR(below_host_.reserve(below_total));
    for (int k = 0; k < collecting; ++k) {
      const size_t n = static_cast<size_t>(std::min(counts_host_.get()[k], kMaxCandidates));
      if (n)
        CVIS_CUDA_CHECK(cudaMemcpyAsync(below_host_.get() + below_at[k],
                                        below_.get() + static_cast<size_t>(k) * kMaxCandidates,
                                        n * sizeof(DevHit), cudaMemcpyDeviceToHost, s));
    }
    CVIS_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  const int n = layout_.n;
  out->assign(groups.size(), GroupResult());
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const GroupSpec& g = pass.groups[gi];
    const DevResult& r = results_host_.get()[gi];
    GroupResult& o = (*out)[gi];
    auto to_hit = [&](const DevHit& d) {
      Hit h;
      h.score = d.score;
      h.distance = d.distance;
      h.index = d.index;
      h.box = window_box(pass, g, d.index, &h.grid);
      return h;
    };
    for (int k = 0; k < g.top_k; ++k)
      if (r.top[k].index >= 0)
        o.top.push_back(to_hit(r.top[k]));
    if (o.top.empty())
      return internal_error("search found no window");
    o.cov.resize(static_cast<size_t>(layout_.parts) * n * n);
    for (int p = 0; p < layout_.parts; ++p)
      std::copy(r.cov[p], r.cov[p] + n * n, o.cov.begin() + static_cast<size_t>(p) * n * n);
    o.sums.assign(r.sums, r.sums + P + 1);
    const int bg = groups[gi].below_group;
    if (bg >= 0) {
      const int found = counts_host_.get()[bg];
      o.overflow = found > kMaxCandidates;
      const size_t kept = static_cast<size_t>(std::min(found, kMaxCandidates));
      for (size_t k = 0; k < kept; ++k)
        o.below.push_back(to_hit(below_host_.get()[below_at[bg] + k]));
      std::sort(o.below.begin(), o.below.end(), [](const Hit& a, const Hit& b) {
        return hit_before(a.score, a.index, b.score, b.index);
      });
    }
  }
  return Status::Ok();
}

Status CudaEngine::upload_desc(cudaStream_t s) {
  const std::vector<uint8_t>& bytes = packer_.bytes();
  CVIS_RETURN_IF_ERROR(desc_host_.reserve(bytes.size()));
  CVIS_RETURN_IF_ERROR(desc_dev_.reserve(bytes.size()));
  std::memcpy(desc_host_.get(), bytes.data(), bytes.size());
  CVIS_CUDA_CHECK(
      cudaMemcpyAsync(desc_dev_.get(), desc_host_.get(), bytes.size(), cudaMemcpyHostToDevice, s));
  return Status::Ok();
}

Status CudaEngine::match_templates(const TemplatePass& pass, std::vector<TemplateHit>* out,
                                   StreamHandle stream) {
  if (!have_frame_)
    return internal_error("match_templates before set_frame");
  CVIS_RETURN_IF_ERROR(validate_templates(pass, width_, height_));
  out->assign(pass.jobs.size(), TemplateHit());
  if (pass.jobs.empty())
    return Status::Ok();
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  int shared = 0;
  for (const TemplateJob& j : pass.jobs)
    shared = std::max(shared, (j.nx - 1 + j.tw) * (j.ny - 1 + j.th) + j.tw * j.th);
  packer_.clear();
  const size_t o_jobs = packer_.add(pass.jobs), o_samples = packer_.add(pass.samples);
  CVIS_RETURN_IF_ERROR(upload_desc(s));
  CVIS_RETURN_IF_ERROR(tmpl_hits_.reserve(pass.jobs.size()));
  CVIS_RETURN_IF_ERROR(tmpl_hits_host_.reserve(pass.jobs.size()));
  const uint8_t* dd = desc_dev_.get();
  CVIS_RETURN_IF_ERROR(kernels::launch_templates(
      src_, reinterpret_cast<const TemplateJob*>(dd + o_jobs), static_cast<int>(pass.jobs.size()),
      dd + o_samples, shared, tmpl_hits_.get(), s));
  CVIS_CUDA_CHECK(cudaMemcpyAsync(tmpl_hits_host_.get(), tmpl_hits_.get(),
                                  sizeof(kernels::DevTemplateHit) * pass.jobs.size(),
                                  cudaMemcpyDeviceToHost, s));
  CVIS_CUDA_CHECK(cudaStreamSynchronize(s));
  for (size_t k = 0; k < pass.jobs.size(); ++k) {
    (*out)[k].score = tmpl_hits_host_.get()[k].score;
    (*out)[k].index = static_cast<int>(tmpl_hits_host_.get()[k].index);
  }
  return Status::Ok();
}

Status CudaEngine::read_luma(const std::vector<LumaRegion>& regions, std::vector<uint8_t>* out,
                             StreamHandle stream) {
  if (!have_frame_)
    return internal_error("read_luma before set_frame");
  CVIS_RETURN_IF_ERROR(validate_regions(regions, width_, height_));
  out->clear();
  if (regions.empty())
    return Status::Ok();
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  std::vector<int64_t> first(regions.size());
  int64_t total = 0;
  for (size_t k = 0; k < regions.size(); ++k) {
    first[k] = total;
    total += static_cast<int64_t>(regions[k].cols) * regions[k].rows;
  }
  packer_.clear();
  const size_t o_reg = packer_.add(regions), o_first = packer_.add(first);
  CVIS_RETURN_IF_ERROR(upload_desc(s));
  CVIS_RETURN_IF_ERROR(luma_.reserve(static_cast<size_t>(total)));
  CVIS_RETURN_IF_ERROR(luma_host_.reserve(static_cast<size_t>(total)));
  const uint8_t* dd = desc_dev_.get();
  CVIS_RETURN_IF_ERROR(kernels::launch_luma(src_, reinterpret_cast<const LumaRegion*>(dd + o_reg),
                                            reinterpret_cast<const int64_t*>(dd + o_first),
                                            static_cast<int>(regions.size()), luma_.get(), s));
  CVIS_CUDA_CHECK(cudaMemcpyAsync(luma_host_.get(), luma_.get(), static_cast<size_t>(total),
                                  cudaMemcpyDeviceToHost, s));
  CVIS_CUDA_CHECK(cudaStreamSynchronize(s));
  out->assign(luma_host_.get(), luma_host_.get() + total);
  return Status::Ok();
}

} // namespace

std::unique_ptr<Engine> make_cuda_engine() {
  return std::make_unique<CudaEngine>();
}

} // namespace cvis::rcdtrack

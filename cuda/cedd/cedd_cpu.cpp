// CPU reference: CEDD exactly as LIRE's CEDD class computes it (shared notes cedd.md, cited as §).
//
// Work is split into per-block results (parallel over block rows and images, each block written to
// its own slot) and a sequential accumulation in LIRE's order per descriptor, so the output does
// not depend on the number of threads. No CUDA headers here: this file builds without a CUDA
// toolkit.
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "cedd/cedd.hpp"
#include "cedd/cedd_core.hpp"
#include "cedd/cedd_internal.hpp"
#include "common/color.hpp"

namespace cvis::cedd {
namespace detail {

void block_stats_row(const core::Job& job, int by, core::BlockStats* out) {
  const int half_x = job.sx / 2, half_y = job.sy / 2;
  const uint32_t pixels = static_cast<uint32_t>(job.sx) * static_cast<uint32_t>(job.sy);
  for (int bx = 0; bx < job.nx; ++bx) {
    // §4 step 1: quadrant luma sums in double, the block visited row by row, left to right, so that
    // each quadrant's pixels are added in raster order. §5: integer colour sums.
    double sum[4] = {0.0, 0.0, 0.0, 0.0};
    uint32_t sr = 0, sg = 0, sb = 0;
    for (int dy = 0; dy < job.sy; ++dy) {
      const int y = job.y0 + by * job.sy + dy;
      const int row_q = dy < half_y ? 0 : 2;
      for (int dx = 0; dx < job.sx; ++dx) {
        const Rgb8 p = fetch_rgb(job.src, job.x0 + bx * job.sx + dx, y);
        const int q = row_q + (dx < half_x ? 0 : 1);
        sum[q] = add_rn(sum[q], core::luma(p.r, p.g, p.b)); // §3
        sr += p.r;
        sg += p.g;
        sb += p.b;
      }
    }
    core::BlockStats& st = out[bx];
    for (int q = 0; q < 4; ++q)
      st.a[q] = static_cast<uint16_t>(core::quadrant_value(sum[q], job.c));
    // §5: truncating integer division (not rounded).
    st.r = static_cast<uint8_t>(sr / pixels);
    st.g = static_cast<uint8_t>(sg / pixels);
    st.b = static_cast<uint8_t>(sb / pixels);
    st.pad = 0;
  }
}

namespace {

// Per-block output of stages §4-§8 of all jobs of one call.
struct BlockOut {
  double f24[core::kColours];
  uint8_t classes;
};

// §9 and §10 for one descriptor: blocks in raster order, classes ascending, colours ascending; then
// the total in bin order, one division per bin and the quantiser.
void finish_descriptor(const BlockOut* blocks, int count, Result* out) {
  double hist[core::kBins] = {};
  for (int b = 0; b < count; ++b) {
    for (int c = 0; c < core::kClasses; ++c) {
      if ((blocks[b].classes & (1u << c)) == 0)
        continue;
      for (int j = 0; j < core::kColours; ++j) {
        const double v = blocks[b].f24[j];
        if (v > 0.0)
          hist[core::kColours * c + j] = add_rn(hist[core::kColours * c + j], v);
      }
    }
  }
  double total = 0.0;
  for (int i = 0; i < core::kBins; ++i)
    total = add_rn(total, hist[i]);
  for (int i = 0; i < core::kBins; ++i) {
    out->normalized[i] = core::normalize(hist[i], total);
    out->levels[i] =
        static_cast<uint8_t>(core::quantize(out->normalized[i], core::quant_table_of_bin(i)));
  }
}

class CpuExtractor final : public Extractor {
public:
  CpuExtractor() { pool_.resize(params_.cpu_threads); }

  Backend backend() const override { return Backend::kCpu; }

  Status configure(const Params& params) override {
    CVIS_RETURN_IF_ERROR(validate_params(params));
    params_ = params;
    pool_.resize(params_.cpu_threads);
    return Status::Ok();
  }

  Status describe(const ImageView& image, const Region* regions, int n, Result* out,
                  StreamHandle) override {
    CVIS_RETURN_IF_ERROR(make_region_jobs(image, regions, n, out, &jobs_));
    if (image.space != MemorySpace::kHost) {
      return unsupported_format("cedd: the CPU backend needs a host (system-memory) image");
    }
    run(out);
    return Status::Ok();
  }

  Status describe_batch(const ImageView* images, int n, Result* out, StreamHandle) override {
    CVIS_RETURN_IF_ERROR(make_batch_jobs(images, n, out, &jobs_));
    for (int i = 0; i < n; ++i) {
      if (images[i].space != MemorySpace::kHost) {
        return unsupported_format("cedd: image " + std::to_string(i) +
                                  ": the CPU backend needs host (system-memory) images");
      }
    }
    run(out);
    return Status::Ok();
  }

private:
  void run(Result* out) {
    const int total = total_blocks(jobs_);
    stats_.resize(static_cast<size_t>(total));
    blocks_.resize(static_cast<size_t>(total));
    rows_.clear();
    for (int j = 0; j < static_cast<int>(jobs_.size()); ++j) {
      for (int by = 0; by < jobs_[j].ny; ++by)
        rows_.emplace_back(j, by);
    }
    // Stages §3-§8, one block row per task.
    pool_.run(static_cast<int>(rows_.size()), [this](int i) {
      const core::Job& job = jobs_[rows_[i].first];
      const int first = job.block_offset + rows_[i].second * job.nx;
      block_stats_row(job, rows_[i].second, &stats_[first]);
      for (int b = first; b < first + job.nx; ++b) {
        blocks_[b].classes =
            static_cast<uint8_t>(core::block_features(stats_[b], blocks_[b].f24, nullptr));
      }
    });
    // §9-§10, one descriptor per task, each in LIRE's order.
    pool_.run(static_cast<int>(jobs_.size()), [this, out](int j) {
      finish_descriptor(blocks_.data() + jobs_[j].block_offset, jobs_[j].nx * jobs_[j].ny, &out[j]);
    });
  }

  Params params_;
  WorkerPool pool_;
  std::vector<core::Job> jobs_;
  std::vector<std::pair<int, int>> rows_; // (job, block row)
  std::vector<core::BlockStats> stats_;
  std::vector<BlockOut> blocks_;
};

} // namespace

std::unique_ptr<Extractor> make_cpu_extractor() {
  return std::make_unique<CpuExtractor>();
}

} // namespace detail

Status describe_blocks_cpu(const ImageView& image, std::vector<BlockDebug>* blocks) {
  if (blocks == nullptr)
    return invalid_argument("cedd: blocks is null");
  blocks->clear();
  Result unused;
  std::vector<core::Job> jobs;
  CVIS_RETURN_IF_ERROR(detail::make_region_jobs(image, nullptr, 1, &unused, &jobs));
  if (image.space != MemorySpace::kHost) {
    return unsupported_format("cedd: describe_blocks_cpu needs a host (system-memory) image");
  }
  const core::Job& job = jobs[0];
  std::vector<core::BlockStats> row(static_cast<size_t>(job.nx));
  for (int by = 0; by < job.ny; ++by) {
    detail::block_stats_row(job, by, row.data());
    for (int bx = 0; bx < job.nx; ++bx) {
      const core::BlockStats& st = row[bx];
      double f24[core::kColours];
      core::BlockTrace trace;
      BlockDebug d;
      d.classes = static_cast<uint8_t>(core::block_features(st, f24, &trace));
      d.x0 = bx * job.sx;
      d.y0 = by * job.sy;
      for (int q = 0; q < 4; ++q)
        d.area[q] = st.a[q];
      d.max_mask = trace.max_mask;
      d.mean_r = st.r;
      d.mean_g = st.g;
      d.mean_b = st.b;
      d.h = trace.hsv.h;
      d.s = trace.hsv.s;
      d.v = trace.hsv.v;
      for (int i = 0; i < 10; ++i)
        d.fuzzy10[i] = trace.f10[i];
      blocks->push_back(d);
    }
  }
  return Status::Ok();
}

} // namespace cvis::cedd

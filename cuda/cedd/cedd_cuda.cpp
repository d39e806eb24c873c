// CUDA backend: device memory, uploads, the launch sequence and the hybrid CPU/GPU pipeline.
//
// GPU-only (paper Sect. 4): block_stats -> block_features -> histogram over a job table that holds
// every region (describe) or image (describe_batch) of the call, so small inputs share launches.
// Hybrid (paper Sect. 5): the CPU worker threads compute the block statistics (the paper's split
// point: per-sub-block averages) into pinned memory, the GPU runs the rest; over the frames of a
// describe_batch() call the CPU works on frame i + 1 while frame i is copied and processed.
//
// Every allocation is grow-only (device memory in order on the caller's stream) and reused; all
// work is on the caller's stream, which is synchronised before returning; results come back through
// pinned memory.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cedd/cedd.hpp"
#include "cedd/cedd_internal.hpp"
#include "cedd/cedd_kernels.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/cuda/upload.hpp"

namespace cvis::cedd::detail {
namespace {

// Host images of one describe_batch() call are uploaded this many at a time (one HostUploader each,
// so the copy of one overlaps the staging of the next); the next group reuses the uploaders after
// the previous group's block_stats launch, in stream order.
constexpr int kUploadSlots = 4;

class CudaExtractor final : public Extractor {
public:
  Backend backend() const override { return Backend::kCuda; }

  Status configure(const Params& params) override {
    CVIS_RETURN_IF_ERROR(validate_params(params));
    params_ = params;
    if (params_.mode == Mode::kHybrid)
      pool_.resize(params_.cpu_threads);
    return Status::Ok();
  }

  Status describe(const ImageView& image, const Region* regions, int n, Result* out,
                  StreamHandle stream) override {
    CVIS_RETURN_IF_ERROR(make_region_jobs(image, regions, n, out, &jobs_));
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    Status st = params_.mode == Mode::kHybrid ? describe_hybrid(image, s) : describe_gpu(image, s);
    return finish(std::move(st), out, s);
  }

  Status describe_batch(const ImageView* images, int n, Result* out, StreamHandle stream) override {
    CVIS_RETURN_IF_ERROR(make_batch_jobs(images, n, out, &jobs_));
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    Status st = params_.mode == Mode::kHybrid ? batch_hybrid(images, s) : batch_gpu(images, s);
    return finish(std::move(st), out, s);
  }

private:
  int njobs() const { return static_cast<int>(jobs_.size()); }

  // Per-call buffers for the current jobs_ (and tiles_ when `tiles`), grown in order on `s`.
  Status reserve(bool tiles, cudaStream_t s) {
    const size_t nj = jobs_.size();
    const size_t nb = static_cast<size_t>(total_blocks(jobs_));
    CVIS_RETURN_IF_ERROR(h_jobs_.reserve(2 * nj)); // table + patched entries (batch_gpu)
    CVIS_RETURN_IF_ERROR(d_jobs_.reserve(nj, s));
    CVIS_RETURN_IF_ERROR(d_stats_.reserve(std::max<size_t>(nb, 1), s));
    CVIS_RETURN_IF_ERROR(d_f24_.reserve(std::max<size_t>(nb, 1) * core::kColours, s));
    CVIS_RETURN_IF_ERROR(d_classes_.reserve(std::max<size_t>(nb, 1), s));
    CVIS_RETURN_IF_ERROR(d_norm_.reserve(nj * core::kBins, s));
    CVIS_RETURN_IF_ERROR(d_levels_.reserve(nj * core::kBins, s));
    CVIS_RETURN_IF_ERROR(h_norm_.reserve(nj * core::kBins));
    CVIS_RETURN_IF_ERROR(h_levels_.reserve(nj * core::kBins));
    if (tiles && !tiles_.empty()) {
      CVIS_RETURN_IF_ERROR(h_tiles_.reserve(tiles_.size()));
      CVIS_RETURN_IF_ERROR(d_tiles_.reserve(tiles_.size(), s));
    }
    return Status::Ok();
  }

  Status copy_jobs(cudaStream_t s) {
    std::copy(jobs_.begin(), jobs_.end(), h_jobs_.get());
    CVIS_CUDA_CHECK(cudaMemcpyAsync(d_jobs_.get(), h_jobs_.get(), jobs_.size() * sizeof(core::Job),
                                    cudaMemcpyHostToDevice, s));
    return Status::Ok();
  }

  Status copy_tiles(cudaStream_t s) {
    if (tiles_.empty())
      return Status::Ok();
    std::copy(tiles_.begin(), tiles_.end(), h_tiles_.get());
    CVIS_CUDA_CHECK(cudaMemcpyAsync(d_tiles_.get(), h_tiles_.get(),
                                    tiles_.size() * sizeof(kernels::Tile), cudaMemcpyHostToDevice,
                                    s));
    return Status::Ok();
  }

  // Stages §4-§10 of blocks [block_begin, +block_count) and jobs [job_begin, +job_count).
  Status launch_rest(int block_begin, int block_count, int job_begin, int job_count,
                     cudaStream_t s) {
    const int ld = total_blocks(jobs_);
    CVIS_RETURN_IF_ERROR(kernels::launch_block_features(d_stats_.get(), block_begin, block_count,
                                                        ld, d_f24_.get(), d_classes_.get(), s));
    return kernels::launch_histogram(d_jobs_.get(), job_begin, job_count, ld, d_f24_.get(),
                                     d_classes_.get(), d_norm_.get(), d_levels_.get(), s);
  }

  // ---- GPU-only
  // ----------------------------------------------------------------------------------

  Status describe_gpu(const ImageView& image, cudaStream_t s) {
    ImageView dev = image;
    if (image.space == MemorySpace::kHost) {
      CVIS_RETURN_IF_ERROR(uploaders_[0].upload(image, s, &dev));
    }
    const PixelSource src = make_pixel_source(dev);
    tiles_.clear();
    for (int j = 0; j < njobs(); ++j) {
      jobs_[j].src = src;
      kernels::append_tiles(jobs_[j], j, &tiles_);
    }
    CVIS_RETURN_IF_ERROR(reserve(true, s));
    CVIS_RETURN_IF_ERROR(copy_jobs(s));
    CVIS_RETURN_IF_ERROR(copy_tiles(s));
    CVIS_RETURN_IF_ERROR(kernels::launch_block_stats(
        d_jobs_.get(), d_tiles_.get(), 0, static_cast<int>(tiles_.size()), d_stats_.get(), s));
    return launch_rest(0, total_blocks(jobs_), 0, njobs(), s);
  }

  Status batch_gpu(const ImageView* images, cudaStream_t s) {
    // Tiles of device images first (one launch), then those of host images in upload groups.
    tiles_.clear();
    host_jobs_.clear();
    for (int j = 0; j < njobs(); ++j) {
      if (images[j].space == MemorySpace::kDevice) {
        kernels::append_tiles(jobs_[j], j, &tiles_);
      } else {
        host_jobs_.push_back(j);
      }
    }
    const int device_tiles = static_cast<int>(tiles_.size());
    host_tile_begin_.assign(1, device_tiles);
    for (int j : host_jobs_) {
      kernels::append_tiles(jobs_[j], j, &tiles_);
      host_tile_begin_.push_back(static_cast<int>(tiles_.size()));
    }
    CVIS_RETURN_IF_ERROR(reserve(true, s));
    CVIS_RETURN_IF_ERROR(copy_jobs(s));
    CVIS_RETURN_IF_ERROR(copy_tiles(s));
    CVIS_RETURN_IF_ERROR(kernels::launch_block_stats(d_jobs_.get(), d_tiles_.get(), 0, device_tiles,
                                                     d_stats_.get(), s));
    const int nh = static_cast<int>(host_jobs_.size());
    core::Job* patched = h_jobs_.get() + jobs_.size();
    for (int g0 = 0; g0 < nh; g0 += kUploadSlots) {
      const int g1 = std::min(nh, g0 + kUploadSlots);
      for (int h = g0; h < g1; ++h) {
        const int j = host_jobs_[h];
        ImageView dev;
        CVIS_RETURN_IF_ERROR(uploaders_[h - g0].upload(images[j], s, &dev));
        patched[j] = jobs_[j];
        patched[j].src = make_pixel_source(dev);
        CVIS_CUDA_CHECK(cudaMemcpyAsync(d_jobs_.get() + j, patched + j, sizeof(core::Job),
                                        cudaMemcpyHostToDevice, s));
      }
      CVIS_RETURN_IF_ERROR(kernels::launch_block_stats(
          d_jobs_.get(), d_tiles_.get(), host_tile_begin_[g0],
          host_tile_begin_[g1] - host_tile_begin_[g0], d_stats_.get(), s));
    }
    return launch_rest(0, total_blocks(jobs_), 0, njobs(), s);
  }

  // ---- hybrid
  // ------------------------------------------------------------------------------------

  // A host view of `image`: itself, or (device images) a copy in pinned memory. The copy is waited
  // for, which also waits for the stream's earlier work: device inputs do not overlap in hybrid
  // mode.
  Status host_view(const ImageView& image, cudaStream_t s, ImageView* out) {
    if (image.space == MemorySpace::kHost) {
      *out = image;
      return Status::Ok();
    }
    const int np = plane_count(image.format);
    size_t total = 0, offset[3] = {0, 0, 0};
    for (int p = 0; p < np; ++p) {
      offset[p] = total;
      total += plane_row_bytes(image.format, p, image.width) *
               static_cast<size_t>(plane_rows(image.format, p, image.height));
    }
    CVIS_RETURN_IF_ERROR(download_.reserve(total));
    *out = image;
    out->space = MemorySpace::kHost;
    for (int p = 0; p < np; ++p) {
      const size_t row = plane_row_bytes(image.format, p, image.width);
      uint8_t* dst = download_.get() + offset[p];
      CVIS_CUDA_CHECK(
          cudaMemcpy2DAsync(dst, row, image.data[p], image.pitch[p], row,
                            static_cast<size_t>(plane_rows(image.format, p, image.height)),
                            cudaMemcpyDeviceToHost, s));
      out->data[p] = dst;
      out->pitch[p] = row;
    }
    CVIS_RETURN_IF_ERROR(stream_synchronize(s));
    return Status::Ok();
  }

  // CPU stage: block statistics of job `j` (host pixels) into dst[0 .. nx * ny - 1].
  void cpu_stats(const core::Job& job, core::BlockStats* dst) {
    pool_.run(job.ny, [&job, dst](int by) { block_stats_row(job, by, dst + by * job.nx); });
  }

  Status describe_hybrid(const ImageView& image, cudaStream_t s) {
    ImageView host;
    CVIS_RETURN_IF_ERROR(host_view(image, s, &host));
    const PixelSource src = make_pixel_source(host);
    for (core::Job& j : jobs_)
      j.src = src;
    const int total = total_blocks(jobs_);
    CVIS_RETURN_IF_ERROR(reserve(false, s));
    CVIS_RETURN_IF_ERROR(slots_[0].reserve(std::max(total, 1)));
    CVIS_RETURN_IF_ERROR(copy_jobs(s));
    rows_.clear();
    for (int j = 0; j < njobs(); ++j) {
      for (int by = 0; by < jobs_[j].ny; ++by)
        rows_.emplace_back(j, by);
    }
    core::BlockStats* h = slots_[0].get();
    pool_.run(static_cast<int>(rows_.size()), [this, h](int i) {
      const core::Job& job = jobs_[rows_[i].first];
      const int first = job.block_offset + rows_[i].second * job.nx;
      block_stats_row(job, rows_[i].second, h + first);
    });
    if (total > 0) {
      CVIS_CUDA_CHECK(cudaMemcpyAsync(d_stats_.get(), h, static_cast<size_t>(total) * sizeof(*h),
                                      cudaMemcpyHostToDevice, s));
    }
    return launch_rest(0, total, 0, njobs(), s);
  }

  Status batch_hybrid(const ImageView* images, cudaStream_t s) {
    int most = 1;
    for (const core::Job& j : jobs_)
      most = std::max(most, j.nx * j.ny);
    CVIS_RETURN_IF_ERROR(reserve(false, s));
    for (int k = 0; k < 2; ++k) {
      CVIS_RETURN_IF_ERROR(slots_[k].reserve(static_cast<size_t>(most)));
      CVIS_RETURN_IF_ERROR(copied_[k].create());
    }
    CVIS_RETURN_IF_ERROR(copy_jobs(s)); // the histogram reads only the block grid and offsets
    bool pending[2] = {false, false};
    for (int i = 0; i < njobs(); ++i) {
      const int k = i & 1;
      if (pending[k]) {
        // The copy of frame i - 2 out of this slot must be done before the CPU overwrites it.
        CVIS_RETURN_IF_ERROR(::cvis::cuda::event_wait(copied_[k].get()));
        pending[k] = false;
      }
      ImageView host;
      CVIS_RETURN_IF_ERROR(host_view(images[i], s, &host));
      core::Job job = jobs_[i];
      job.src = make_pixel_source(host);
      const int nb = job.nx * job.ny;
      if (nb > 0) {
        cpu_stats(job, slots_[k].get());
        CVIS_CUDA_CHECK(cudaMemcpyAsync(d_stats_.get() + job.block_offset, slots_[k].get(),
                                        static_cast<size_t>(nb) * sizeof(core::BlockStats),
                                        cudaMemcpyHostToDevice, s));
        CVIS_CUDA_CHECK(cudaEventRecord(copied_[k].get(), s));
        pending[k] = true;
      }
      // Enqueued now, so the GPU works on frame i while the CPU sums frame i + 1.
      CVIS_RETURN_IF_ERROR(launch_rest(job.block_offset, nb, i, 1, s));
    }
    return Status::Ok();
  }

  // ---- results
  // -----------------------------------------------------------------------------------

  Status finish(Status st, Result* out, cudaStream_t s) {
    if (st.ok())
      st = copy_results(out, s);
    if (!st.ok()) {
      // Leave nothing in flight that still reads or writes this extractor's buffers.
      cudaStreamSynchronize(s);
      cudaGetLastError();
    }
    return st;
  }

  Status copy_results(Result* out, cudaStream_t s) {
    const size_t n = jobs_.size() * core::kBins;
    CVIS_CUDA_CHECK(cudaMemcpyAsync(h_norm_.get(), d_norm_.get(), n * sizeof(double),
                                    cudaMemcpyDeviceToHost, s));
    CVIS_CUDA_CHECK(
        cudaMemcpyAsync(h_levels_.get(), d_levels_.get(), n, cudaMemcpyDeviceToHost, s));
    CVIS_RETURN_IF_ERROR(stream_synchronize(s));
    for (size_t k = 0; k < jobs_.size(); ++k) {
      std::memcpy(out[k].normalized.data(), h_norm_.get() + k * core::kBins,
                  core::kBins * sizeof(double));
      std::memcpy(out[k].levels.data(), h_levels_.get() + k * core::kBins, core::kBins);
    }
    return Status::Ok();
  }

  Params params_;
  WorkerPool pool_; // hybrid mode only
  std::vector<core::Job> jobs_;
  std::vector<kernels::Tile> tiles_;
  std::vector<int> host_jobs_, host_tile_begin_;
  std::vector<std::pair<int, int>> rows_;

  std::array<cuda::HostUploader, kUploadSlots> uploaders_;
  cuda::PinnedArray<core::Job> h_jobs_;
  cuda::DeviceArray<core::Job> d_jobs_;
  cuda::PinnedArray<kernels::Tile> h_tiles_;
  cuda::DeviceArray<kernels::Tile> d_tiles_;
  cuda::DeviceArray<core::BlockStats> d_stats_;
  cuda::DeviceArray<double> d_f24_;
  cuda::DeviceArray<uint8_t> d_classes_;
  cuda::DeviceArray<double> d_norm_;
  cuda::DeviceArray<uint8_t> d_levels_;
  cuda::PinnedArray<double> h_norm_;
  cuda::PinnedArray<uint8_t> h_levels_;
  // Hybrid: CPU block statistics (two slots: the CPU fills one while the other is copied) and the
  // pinned copy of a device input.
  cuda::PinnedArray<core::BlockStats> slots_[2];
  cuda::Event copied_[2];
  cuda::PinnedArray<uint8_t> download_;
};

} // namespace

std::unique_ptr<Extractor> make_cuda_extractor() {
  return std::make_unique<CudaExtractor>();
}

} // namespace cvis::cedd::detail

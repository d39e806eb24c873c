// Host-side pieces shared by the CPU reference and the CUDA backend: job building and validation,
// the CPU block statistics (also the CPU stage of the hybrid mode) and a small worker pool.
// Internal header: no CUDA, no GLib.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "cedd/cedd.hpp"
#include "cedd/cedd_core.hpp"

namespace cvis::cedd::detail {

// Largest accepted image side. Keeps every per-block integer sum inside 32 bits (a block has at
// most 1638 x 1638 pixels) and one staged block row inside the CUDA kernel's shared memory.
inline constexpr int kMaxSide = 32768;

// The job for the rectangle (x0, y0, w, h) of `image`, its first block at index `block_offset`.
core::Job make_job(const ImageView& image, int x0, int y0, int w, int h, int block_offset);

// Validates describe()'s arguments and builds one job per region (or one for the whole image).
Status make_region_jobs(const ImageView& image, const Region* regions, int n, const Result* out,
                        std::vector<core::Job>* jobs);
// Validates describe_batch()'s arguments and builds one job per image.
Status make_batch_jobs(const ImageView* images, int n, const Result* out,
                       std::vector<core::Job>* jobs);

// Number of blocks of all jobs (the block_offset the next job would get).
int total_blocks(const std::vector<core::Job>& jobs);

// Params check shared by both backends.
Status validate_params(const Params& p);

// CPU stage 1 (§3-§5) for block row `by` of `job`: quadrant values and mean colour of its nx blocks
// into out[0..nx-1]. The job's pixels must be host memory.
void block_stats_row(const core::Job& job, int by, core::BlockStats* out);

// Runs fn(i) for i in [0, count) on a fixed set of threads (the caller is one of them) and returns
// when all are done. Which thread runs which index is unspecified, so fn must write disjoint
// outputs. Not reentrant: one run() at a time.
class WorkerPool {
public:
  WorkerPool() = default;
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Total threads including the caller; 0 = std::thread::hardware_concurrency().
  void resize(int threads);
  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  void run(int count, const std::function<void(int)>& fn);

private:
  void stop_workers();
  void worker_loop(uint64_t seen);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_cv_, done_cv_;
  const std::function<void(int)>* fn_ = nullptr;
  int count_ = 0;
  std::atomic<int> next_{0};
  int busy_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

std::unique_ptr<Extractor> make_cpu_extractor();
#if defined(CVIS_HAVE_CUDA)
std::unique_ptr<Extractor> make_cuda_extractor();
#endif

} // namespace cvis::cedd::detail

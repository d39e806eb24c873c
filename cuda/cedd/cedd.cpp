// Backend-independent glue: block layout (§2), argument validation, job tables, the factory and the
// worker pool used by the CPU reference and the hybrid mode.
#include <algorithm>
#include <cstdint>
#include <string>

#include "cedd/cedd.hpp"
#include "cedd/cedd_internal.hpp"

namespace cvis::cedd {

BlockLayout block_layout(int width, int height) {
  BlockLayout l;
  if (width < 2 || height < 2)
    return l; // no blocks: the descriptor is 144 zeros
  const int m = std::min(width, height);
  if (m < 40) {
    l.sx = l.sy = 2;
    l.nx = width / 2;
    l.ny = height / 2;
    return l;
  }
  const int grid = m >= 80 ? 40 : 20;
  l.nx = l.ny = grid;
  // The grid is chosen so that width / grid >= 2; an odd block side loses one pixel.
  l.sx = width / grid;
  l.sy = height / grid;
  if (l.sx % 2 != 0)
    l.sx -= 1;
  if (l.sy % 2 != 0)
    l.sy -= 1;
  return l;
}

std::unique_ptr<Extractor> make_extractor(Backend backend, Status* status) {
  auto set = [status](Status s) {
    if (status != nullptr)
      *status = std::move(s);
  };
  switch (backend) {
  case Backend::kCpu:
    set(Status::Ok());
    return detail::make_cpu_extractor();
  case Backend::kCuda:
#if defined(CVIS_HAVE_CUDA)
    if (cuda_device_count() <= 0) {
      set(Status(StatusCode::kNoDevice,
                 "cedd: no usable CUDA device: " + cuda_device_description(0)));
      return nullptr;
    }
    set(Status::Ok());
    return detail::make_cuda_extractor();
#else
    set(Status(StatusCode::kNoDevice, "cedd: this build has no CUDA backend"));
    return nullptr;
#endif
  case Backend::kAuto:
    break;
  }
  set(invalid_argument("cedd: make_extractor needs kCpu or kCuda (resolve kAuto first)"));
  return nullptr;
}

namespace detail {

core::Job make_job(const ImageView& image, int x0, int y0, int w, int h, int block_offset) {
  core::Job j{};
  j.src = make_pixel_source(image);
  j.x0 = x0;
  j.y0 = y0;
  j.width = w;
  j.height = h;
  const BlockLayout l = block_layout(w, h);
  j.nx = l.nx;
  j.ny = l.ny;
  j.sx = l.sx;
  j.sy = l.sy;
  j.c = l.nx > 0 ? core::quadrant_factor(l.sx, l.sy) : 0.0;
  j.block_offset = block_offset;
  return j;
}

namespace {

// Keeps 24 * blocks of one call inside int range with a wide margin.
constexpr int64_t kMaxBlocksPerCall = int64_t{1} << 26;

Status check_image(const ImageView& v, const std::string& what) {
  CVIS_RETURN_IF_ERROR(validate_view(v, what.c_str()));
  if (v.width > kMaxSide || v.height > kMaxSide) {
    return invalid_argument(what + ": size " + std::to_string(v.width) + "x" +
                            std::to_string(v.height) + " exceeds the limit of " +
                            std::to_string(kMaxSide) + " pixels per side");
  }
  return Status::Ok();
}

Status add_job(const ImageView& image, int x, int y, int w, int h, int64_t* next_block,
               std::vector<core::Job>* jobs) {
  const core::Job j = make_job(image, x, y, w, h, static_cast<int>(*next_block));
  *next_block += static_cast<int64_t>(j.nx) * j.ny;
  if (*next_block > kMaxBlocksPerCall) {
    return invalid_argument("cedd: too many blocks in one call (more than " +
                            std::to_string(kMaxBlocksPerCall) + "); split the call");
  }
  jobs->push_back(j);
  return Status::Ok();
}

} // namespace

Status make_region_jobs(const ImageView& image, const Region* regions, int n, const Result* out,
                        std::vector<core::Job>* jobs) {
  jobs->clear();
  if (out == nullptr)
    return invalid_argument("cedd: out is null");
  if (n < 1)
    return invalid_argument("cedd: n = " + std::to_string(n) + ", must be >= 1");
  if (regions == nullptr && n != 1) {
    return invalid_argument("cedd: regions is null (whole image) but n = " + std::to_string(n) +
                            " (must be 1)");
  }
  CVIS_RETURN_IF_ERROR(check_image(image, "cedd: image"));
  int64_t next = 0;
  if (regions == nullptr)
    return add_job(image, 0, 0, image.width, image.height, &next, jobs);
  for (int i = 0; i < n; ++i) {
    const Region& r = regions[i];
    // Written so that no sum can overflow.
    if (r.x < 0 || r.y < 0 || r.w < 1 || r.h < 1 || r.x > image.width - r.w ||
        r.y > image.height - r.h) {
      jobs->clear();
      return invalid_argument("cedd: region " + std::to_string(i) + " (" + std::to_string(r.x) +
                              "," + std::to_string(r.y) + " " + std::to_string(r.w) + "x" +
                              std::to_string(r.h) + ") is empty or not inside the " +
                              std::to_string(image.width) + "x" + std::to_string(image.height) +
                              " image");
    }
    CVIS_RETURN_IF_ERROR(add_job(image, r.x, r.y, r.w, r.h, &next, jobs));
  }
  return Status::Ok();
}

Status make_batch_jobs(const ImageView* images, int n, const Result* out,
                       std::vector<core::Job>* jobs) {
  jobs->clear();
  if (out == nullptr)
    return invalid_argument("cedd: out is null");
  if (images == nullptr)
    return invalid_argument("cedd: images is null");
  if (n < 1)
    return invalid_argument("cedd: n = " + std::to_string(n) + ", must be >= 1");
  int64_t next = 0;
  for (int i = 0; i < n; ++i) {
    CVIS_RETURN_IF_ERROR(check_image(images[i], "cedd: image " + std::to_string(i)));
    CVIS_RETURN_IF_ERROR(add_job(images[i], 0, 0, images[i].width, images[i].height, &next, jobs));
  }
  return Status::Ok();
}

int total_blocks(const std::vector<core::Job>& jobs) {
  if (jobs.empty())
    return 0;
  const core::Job& last = jobs.back();
  return last.block_offset + last.nx * last.ny;
}

Status validate_params(const Params& p) {
  if (p.mode != Mode::kGpuOnly && p.mode != Mode::kHybrid) {
    return invalid_argument("cedd: unknown mode " + std::to_string(static_cast<int>(p.mode)));
  }
  if (p.cpu_threads < 0 || p.cpu_threads > 1024) {
    return invalid_argument("cedd: cpu_threads = " + std::to_string(p.cpu_threads) +
                            ", must be 0 (all cores) .. 1024");
  }
  return Status::Ok();
}

// ---- WorkerPool
// ------------------------------------------------------------------------------------

WorkerPool::~WorkerPool() {
  stop_workers();
}

void WorkerPool::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (std::thread& t : workers_)
    t.join();
  workers_.clear();
  stop_ = false;
}

void WorkerPool::resize(int threads) {
  if (threads <= 0)
    threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (threads == this->threads())
    return;
  stop_workers();
  // A worker starts from the current generation, so it never runs a finished one.
  for (int i = 1; i < threads; ++i) {
    workers_.emplace_back([this, g = generation_] { worker_loop(g); });
  }
}

void WorkerPool::run(int count, const std::function<void(int)>& fn) {
  if (count <= 0)
    return;
  if (workers_.empty() || count == 1) {
    for (int i = 0; i < count; ++i)
      fn(i);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = &fn;
    count_ = count;
    next_.store(0);
    busy_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  start_cv_.notify_all();
  for (int i; (i = next_.fetch_add(1)) < count;)
    fn(i);
  std::unique_lock<std::mutex> lock(mutex_);
  // Every worker takes part in every generation, so none can still hold fn_ after this.
  done_cv_.wait(lock, [this] { return busy_ == 0; });
  fn_ = nullptr;
}

void WorkerPool::worker_loop(uint64_t seen) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_)
      return;
    seen = generation_;
    const std::function<void(int)>* fn = fn_;
    const int count = count_;
    lock.unlock();
    for (int i; (i = next_.fetch_add(1)) < count;)
      (*fn)(i);
    lock.lock();
    if (--busy_ == 0)
      done_cv_.notify_one();
  }
}

} // namespace detail
} // namespace cvis::cedd

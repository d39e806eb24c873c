// The device half of backend.hpp, and check.hpp, for builds with the CUDA toolkit.
#include <cuda_runtime_api.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "../backend.hpp"
#include "check.hpp"
#include "device_buffer.hpp"
#include "preload.hpp"

namespace cvis {

bool cuda_compiled() { return true; }

int cuda_device_count() {
  int n = 0;
  // Any error (no driver, insufficient driver, no device, ...) means "no GPU".
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return 0;
  }
  return n;
}

std::string cuda_device_description(int id) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device (") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e) + ")";
  }
  if (id < 0 || id >= n) {
    return "device " + std::to_string(id) + " does not exist (" + std::to_string(n) + " present)";
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, id) != cudaSuccess) return "device " + std::to_string(id);
  return std::string(p.name) + ", sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.multiProcessorCount) + " SMs";
}

Status select_cuda_device(int id) {
  if (cuda_device_count() <= 0) {
    return Status(StatusCode::kNoDevice, cuda_device_description(0));
  }
  CVIS_CUDA_CHECK(cudaSetDevice(id < 0 ? 0 : id));
  return Status::Ok();
}

namespace {
// Polls `ev` for up to poll_us (yielding), then sleeps on it.
Status poll_then_sleep(cudaEvent_t ev, int poll_us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(poll_us);
  do {
    const cudaError_t q = cudaEventQuery(ev);
    if (q == cudaSuccess)
      return Status::Ok();
    if (q != cudaErrorNotReady)
      return cuda::make_error(q, "cudaEventQuery", __FILE__, __LINE__);
    std::this_thread::yield();
  } while (std::chrono::steady_clock::now() < until);
  CVIS_CUDA_CHECK(cudaEventSynchronize(ev));
  return Status::Ok();
}
}  // namespace

namespace cuda {
Status event_wait(cudaEvent_t ev) {
  const WaitOptions w = wait_options();
  if (w.policy == WaitPolicy::kHybrid)
    return poll_then_sleep(ev, w.poll_us);
  CVIS_CUDA_CHECK(cudaEventSynchronize(ev));
  return Status::Ok();
}
} // namespace cuda

namespace {
// Each stream made by stream_create: its blocking-sync event (waits without spinning) and its
// recent-wait figure (recent_wait_us; -1: none yet).
struct StreamWait {
  cudaEvent_t event = nullptr;
  int64_t last_us = -1;
};
std::mutex g_events_lock;
std::unordered_map<cudaStream_t, StreamWait>& stream_events() {
  static auto* m = new std::unordered_map<cudaStream_t, StreamWait>();
  return *m;
}
}  // namespace

Status stream_create(StreamHandle* out) {
  cuda::preload_kernels();  // before any launch in this context: see preload.hpp
  cudaStream_t s = nullptr;
  CVIS_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t ev = nullptr;
  const cudaError_t e =
      cudaEventCreateWithFlags(&ev, cudaEventDisableTiming | cudaEventBlockingSync);
  if (e != cudaSuccess) {
    cudaStreamDestroy(s);
    return cuda::make_error(e, "cudaEventCreateWithFlags(blocking sync)", __FILE__, __LINE__);
  }
  {
    std::lock_guard<std::mutex> lk(g_events_lock);
    stream_events()[s] = StreamWait{ev, -1};
  }
  *out = s;
  return Status::Ok();
}

void stream_destroy(StreamHandle handle) {
  if (!handle) return;
  cudaStream_t s = static_cast<cudaStream_t>(handle);
  cudaEvent_t ev = nullptr;
  {
    std::lock_guard<std::mutex> lk(g_events_lock);
    auto it = stream_events().find(s);
    if (it != stream_events().end()) {
      ev = it->second.event;
      stream_events().erase(it);
    }
  }
  cudaStreamDestroy(s);
  if (ev) cudaEventDestroy(ev);
}

Status stream_synchronize(StreamHandle handle) {
  cudaStream_t s = static_cast<cudaStream_t>(handle);
  const WaitOptions w = wait_options();
  StreamWait sw;
  if (w.policy != WaitPolicy::kSpin && s) {
    std::lock_guard<std::mutex> lk(g_events_lock);
    auto it = stream_events().find(s);
    if (it != stream_events().end()) sw = it->second;
  }
  if (!sw.event) {
    CVIS_CUDA_CHECK(cudaStreamSynchronize(s));
    return Status::Ok();
  }
  // Two threads waiting on one stream may record the event in turn: each waits at least for the
  // work queued before its own record.
  CVIS_CUDA_CHECK(cudaEventRecord(sw.event, s));
  if (w.policy != WaitPolicy::kHybrid)
    return cuda::event_wait(sw.event);
  const auto t0 = std::chrono::steady_clock::now();
  CVIS_RETURN_IF_ERROR(poll_then_sleep(sw.event, hybrid_poll_us(w, sw.last_us)));
  const int64_t waited = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::steady_clock::now() - t0).count();
  std::lock_guard<std::mutex> lk(g_events_lock);
  auto it = stream_events().find(s);
  if (it != stream_events().end()) it->second.last_us = recent_wait_us(it->second.last_us, waited);
  return Status::Ok();
}

struct StreamProfiler::Impl {
  static constexpr int kPairs = 16;
  cudaEvent_t start[kPairs] = {}, stop[kPairs] = {};
  int head = 0, size = 0;  // ring of outstanding pairs: [head, head + size)
  bool open = false;       // begin() without end() yet
};

StreamProfiler::StreamProfiler() = default;
StreamProfiler::~StreamProfiler() { release(); }

void StreamProfiler::release() {
  if (!impl_) return;
  for (int i = 0; i < Impl::kPairs; ++i) {
    if (impl_->start[i]) cudaEventDestroy(impl_->start[i]);
    if (impl_->stop[i]) cudaEventDestroy(impl_->stop[i]);
  }
  delete impl_;
  impl_ = nullptr;
}

Status StreamProfiler::begin(StreamHandle s) {
  if (!impl_) {
    impl_ = new Impl();
    for (int i = 0; i < Impl::kPairs; ++i) {
      CVIS_CUDA_CHECK(cudaEventCreate(&impl_->start[i]));
      CVIS_CUDA_CHECK(cudaEventCreate(&impl_->stop[i]));
    }
  }
  Impl& p = *impl_;
  // Add the completed pairs; wait for the oldest when the ring is full.
  while (p.size > 0) {
    const int k = p.head;
    const cudaError_t q = p.size == Impl::kPairs ? cudaEventSynchronize(p.stop[k])
                                                  : cudaEventQuery(p.stop[k]);
    if (q == cudaErrorNotReady) break;
    if (q != cudaSuccess) return cuda::make_error(q, "StreamProfiler event", __FILE__, __LINE__);
    float ms = 0.0f;
    CVIS_CUDA_CHECK(cudaEventElapsedTime(&ms, p.start[k], p.stop[k]));
    total_ms_ += ms;
    ++count_;
    p.head = (p.head + 1) % Impl::kPairs;
    --p.size;
  }
  const int k = (p.head + p.size) % Impl::kPairs;
  CVIS_CUDA_CHECK(cudaEventRecord(p.start[k], static_cast<cudaStream_t>(s)));
  p.open = true;
  return Status::Ok();
}

Status StreamProfiler::end(StreamHandle s) {
  if (!impl_ || !impl_->open) return Status::Ok();
  Impl& p = *impl_;
  const int k = (p.head + p.size) % Impl::kPairs;
  CVIS_CUDA_CHECK(cudaEventRecord(p.stop[k], static_cast<cudaStream_t>(s)));
  ++p.size;
  p.open = false;
  return Status::Ok();
}

Status StreamProfiler::flush() {
  if (!impl_) return Status::Ok();
  Impl& p = *impl_;
  while (p.size > 0) {
    const int k = p.head;
    CVIS_CUDA_CHECK(cudaEventSynchronize(p.stop[k]));
    float ms = 0.0f;
    CVIS_CUDA_CHECK(cudaEventElapsedTime(&ms, p.start[k], p.stop[k]));
    total_ms_ += ms;
    ++count_;
    p.head = (p.head + 1) % Impl::kPairs;
    --p.size;
  }
  return Status::Ok();
}

namespace cuda {

Status make_error(cudaError_t err, const char* call, const char* file, int line) {
  const char* base = file;
  for (const char* p = file; *p; ++p) {
    if (*p == '/') base = p + 1;
  }
  std::string msg = std::string(call) + " failed: " + cudaGetErrorName(err) + " (" +
                    cudaGetErrorString(err) + ") at " + base + ":" + std::to_string(line);
  return Status(err == cudaErrorMemoryAllocation ? StatusCode::kOutOfMemory : StatusCode::kCudaError,
                std::move(msg));
}

Status check_launch(cudaStream_t stream, const char* kernel, const char* file, int line) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return make_error(e, kernel, file, line);
  if (cuda_debug_sync()) {
    e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return make_error(e, kernel, file, line);
  }
  return Status::Ok();
}

}  // namespace cuda
}  // namespace cvis

#include "backend.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

namespace cvis {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::kAuto: return "auto";
    case Backend::kCpu: return "cpu";
    case Backend::kCuda: return "cuda";
  }
  return "unknown";
}

bool parse_backend(const std::string& s, Backend* out) {
  for (Backend b : {Backend::kAuto, Backend::kCpu, Backend::kCuda}) {
    if (s == backend_name(b)) {
      *out = b;
      return true;
    }
  }
  return false;
}

Status resolve_backend(Backend requested, Backend* resolved) {
  switch (requested) {
    case Backend::kCpu:
      *resolved = Backend::kCpu;
      return Status::Ok();
    case Backend::kAuto:
      *resolved = cuda_device_count() > 0 ? Backend::kCuda : Backend::kCpu;
      return Status::Ok();
    case Backend::kCuda:
      if (!cuda_compiled()) {
        return Status(StatusCode::kNoDevice,
                      "backend=cuda requested but this build has no CUDA support (built without nvcc)");
      }
      if (cuda_device_count() <= 0) {
        return Status(StatusCode::kNoDevice, "backend=cuda requested but no usable CUDA device: " +
                                                 cuda_device_description(0));
      }
      *resolved = Backend::kCuda;
      return Status::Ok();
  }
  return invalid_argument("unknown backend");
}

bool cuda_debug_sync() {
#ifdef CVIS_CUDA_DEBUG_SYNC_DEFAULT
  static const bool on = true;
#else
  static const bool on = [] {
    const char* e = std::getenv("CVIS_CUDA_DEBUG_SYNC");
    return e != nullptr && std::strcmp(e, "0") != 0 && e[0] != '\0';
  }();
#endif
  return on;
}

namespace {
std::atomic<int> g_wait_policy{static_cast<int>(WaitPolicy::kHybrid)};
std::atomic<int> g_wait_poll_us{WaitOptions{}.poll_us};
std::atomic<int> g_wait_poll_max_us{WaitOptions{}.poll_max_us};
}  // namespace

Status set_wait_options(const WaitOptions& o) {
  if (o.poll_us < 0) return invalid_argument("wait options: poll_us must be >= 0");
  if (o.poll_max_us < 0) return invalid_argument("wait options: poll_max_us must be >= 0");
  switch (o.policy) {
    case WaitPolicy::kBlock:
    case WaitPolicy::kSpin:
    case WaitPolicy::kHybrid:
      break;
    default:
      return invalid_argument("wait options: unknown policy");
  }
  g_wait_policy.store(static_cast<int>(o.policy), std::memory_order_relaxed);
  g_wait_poll_us.store(o.poll_us, std::memory_order_relaxed);
  g_wait_poll_max_us.store(o.poll_max_us, std::memory_order_relaxed);
  return Status::Ok();
}

WaitOptions wait_options() {
  WaitOptions o;
  o.policy = static_cast<WaitPolicy>(g_wait_policy.load(std::memory_order_relaxed));
  o.poll_us = g_wait_poll_us.load(std::memory_order_relaxed);
  o.poll_max_us = g_wait_poll_max_us.load(std::memory_order_relaxed);
  return o;
}

int hybrid_poll_us(const WaitOptions& w, int64_t recent_us) {
  if (recent_us < 0 || recent_us > w.poll_max_us) return w.poll_us;
  const int64_t want = recent_us + recent_us / 4 + 50;
  return static_cast<int>(std::max<int64_t>(w.poll_us, std::min<int64_t>(want, w.poll_max_us)));
}

int64_t recent_wait_us(int64_t before_us, int64_t waited_us) {
  return std::max<int64_t>(waited_us, before_us - (before_us + 7) / 8);
}

}  // namespace cvis

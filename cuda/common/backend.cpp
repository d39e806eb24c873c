#include "backend.hpp"

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

}  // namespace cvis

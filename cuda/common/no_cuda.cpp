// The device half of backend.hpp for builds without a CUDA toolkit: there is never a device.
#include "backend.hpp"

namespace cvis {

bool cuda_compiled() { return false; }
int cuda_device_count() { return 0; }
std::string cuda_device_description(int) { return "this build has no CUDA support"; }

Status select_cuda_device(int) {
  return Status(StatusCode::kNoDevice, "this build has no CUDA support");
}

Status stream_create(StreamHandle* out) {
  *out = nullptr;
  return Status(StatusCode::kNoDevice, "this build has no CUDA support");
}
void stream_destroy(StreamHandle) {}
Status stream_synchronize(StreamHandle) { return Status::Ok(); }

struct StreamProfiler::Impl {};
StreamProfiler::StreamProfiler() = default;
StreamProfiler::~StreamProfiler() = default;
Status StreamProfiler::begin(StreamHandle) { return Status::Ok(); }
Status StreamProfiler::end(StreamHandle) { return Status::Ok(); }
Status StreamProfiler::flush() { return Status::Ok(); }
void StreamProfiler::release() {}

}  // namespace cvis

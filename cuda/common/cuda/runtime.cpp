// The device half of backend.hpp, and check.hpp, for builds with the CUDA toolkit.
#include <cuda_runtime_api.h>

#include <string>

#include "../backend.hpp"
#include "check.hpp"

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

Status stream_create(StreamHandle* out) {
  cudaStream_t s = nullptr;
  CVIS_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  *out = s;
  return Status::Ok();
}

void stream_destroy(StreamHandle s) {
  if (s) cudaStreamDestroy(static_cast<cudaStream_t>(s));
}

Status stream_synchronize(StreamHandle s) {
  CVIS_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(s)));
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

// Stream-ordered device allocation behind DeviceArray / PitchedBuffer (device_buffer.hpp).
#include "device_buffer.hpp"

#include <atomic>

namespace cvis::cuda {

namespace {

// Per device: memory pools usable (cudaMallocAsync)? 0 not asked yet, 1 no, 2 yes.
constexpr int kMaxDevices = 64;
std::atomic<int> pools_supported[kMaxDevices];

int current_device() {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices)
    return -1;
  return dev;
}

bool pools_usable(int dev) {
  if (dev < 0)
    return false;
  int known = pools_supported[dev].load();
  if (known == 0) {
    int v = 0;
    known = cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, dev) == cudaSuccess && v
                ? 2
                : 1;
    pools_supported[dev].store(known);
  }
  return known == 2;
}

} // namespace

Status allocate_device(void** p, size_t bytes, cudaStream_t stream, bool* async) {
  *p = nullptr;
  *async = false;
  const int dev = stream ? current_device() : -1;
  if (stream && pools_usable(dev)) {
    const cudaError_t e = cudaMallocAsync(p, bytes, stream);
    if (e == cudaSuccess) {
      *async = true;
      return Status::Ok();
    }
    if (e != cudaErrorNotSupported)
      return make_error(e, "cudaMallocAsync(p, bytes, stream)", __FILE__, __LINE__);
    cudaGetLastError();
    pools_supported[dev].store(1);
  }
  // Usable on every stream at once: no ordering needed for the allocation itself.
  CVIS_CUDA_CHECK(cudaMalloc(p, bytes));
  return Status::Ok();
}

void free_device(void* p, bool async, cudaStream_t stream) {
  if (!p)
    return;
  if (stream && async) {
    if (cudaFreeAsync(p, stream) == cudaSuccess)
      return;
    cudaGetLastError();
  }
  // Work already enqueued on `stream` may still read it; cudaFree alone would free it under that
  // work on drivers that do not synchronise the device in cudaFree.
  if (stream)
    cudaStreamSynchronize(stream);
  cudaFree(p);
}

} // namespace cvis::cuda

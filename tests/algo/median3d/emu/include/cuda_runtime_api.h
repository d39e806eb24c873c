// A fake CUDA runtime for the median3d CPU emulation (see ../README.md): device memory is host
// memory, every call completes at once, streams and events are tokens. Fresh allocations are
// filled with 0xCD so that code relying on zeroed device memory fails here as it would on a GPU.
// Only what cuda/common and cuda/median3d use is declared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
};
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};
enum cudaDeviceAttr { cudaDevAttrMemoryClockRate = 36, cudaDevAttrGlobalMemoryBusWidth = 37 };
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
constexpr unsigned cudaStreamNonBlocking = 1;
constexpr unsigned cudaEventDefault = 0;
constexpr unsigned cudaEventDisableTiming = 2;

struct cudaDeviceProp {
  char name[256];
  int major, minor, multiProcessorCount, memoryBusWidth;
};

namespace emu {
inline cudaError_t last_error = cudaSuccess;
inline void* alloc(size_t n) {
  void* p = std::aligned_alloc(256, (n + 255) / 256 * 256 + 256);
  if (p) std::memset(p, 0xCD, n);
  return p;
}
}  // namespace emu

inline cudaError_t cudaGetLastError() {
  const cudaError_t e = emu::last_error;
  emu::last_error = cudaSuccess;
  return e;
}
inline const char* cudaGetErrorName(cudaError_t e) {
  return e == cudaSuccess ? "cudaSuccess" : "cudaErrorEmulated";
}
inline const char* cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : "emulated error";
}
inline cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) {
  std::memset(p, 0, sizeof *p);
  std::strcpy(p->name, "CPU emulation");
  p->major = 9;
  p->multiProcessorCount = 1;
  p->memoryBusWidth = 64;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int) {
  *v = a == cudaDevAttrMemoryClockRate ? 1000000 : 64;
  return cudaSuccess;
}
inline cudaError_t cudaMalloc(void** p, size_t n) {
  *p = emu::alloc(n);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaMallocHost(void** p, size_t n) { return cudaMalloc(p, n); }
inline cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t w, size_t h) {
  *pitch = (w + 511) / 512 * 512;  // drivers pad rows to 512 bytes (never assume it)
  return cudaMalloc(p, *pitch * h);
}
inline cudaError_t cudaFree(void* p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void* p) { return cudaFree(p); }
inline cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind) {
  std::memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind k,
                                   cudaStream_t = nullptr) {
  return cudaMemcpy(d, s, n, k);
}
inline cudaError_t cudaMemcpy2D(void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h,
                                cudaMemcpyKind) {
  if (w > dp || w > sp) return cudaErrorInvalidValue;
  for (size_t r = 0; r < h; ++r) {
    std::memcpy(static_cast<char*>(d) + r * dp, static_cast<const char*>(s) + r * sp, w);
  }
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2DAsync(void* d, size_t dp, const void* s, size_t sp, size_t w,
                                     size_t h, cudaMemcpyKind k, cudaStream_t = nullptr) {
  return cudaMemcpy2D(d, dp, s, sp, w, h, k);
}
inline cudaError_t cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t = nullptr) {
  std::memset(p, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void* p, int v, size_t n) {
  std::memset(p, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) {
  *s = reinterpret_cast<cudaStream_t>(new char);
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  delete reinterpret_cast<char*>(s);
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) {
  *e = reinterpret_cast<cudaEvent_t>(new char);
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete reinterpret_cast<char*>(e);
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = nullptr) { return cudaSuccess; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }

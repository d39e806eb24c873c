// The CPU emulation's fake CUDA runtime (tests/emu/README.md): the runtime API this project uses,
// on host memory, with the ordering rules of real streams.
//
// - Streams are queues. Work enqueued on a stream runs only when something waits for it: a
//   stream, event or device synchronisation, a cudaStreamWaitEvent chain, a synchronous API call on
//   the legacy default stream, cudaFree / cudaFreeHost / cudaFreeArray (which synchronise the
//   device), or the copy semantics below. Non-blocking streams never wait for the legacy stream,
//   so work that reads what the legacy stream has not yet written sees stale bytes, as on a GPU.
//   EMU_SYNC=1 runs every operation at once instead (the older, forgiving behaviour).
// - Copies follow the documented host synchronisation: from pageable memory to the device the
//   source is taken at the call (the legacy-stream copy may still be "in flight" afterwards), to
//   pageable memory the call returns when the copy is done; pinned memory is read and written when
//   the copy runs, so a host that reads a pinned result without waiting reads stale bytes.
// - Device memory is poisoned: fresh allocations hold a per-address pattern. A copy out of device
//   memory (to the host or within the device) that reads 4-byte words still holding their pattern
//   is reported like compute-sanitizer's initcheck (site, bytes, allocation), and the program then
//   exits with status 3 (EMU_INITCHECK=0: off). Kernels' own loads are not tracked.
// - Copies and memsets are checked against the allocations they touch (out of bounds, wrong kind).
// - cudaMallocAsync / cudaFreeAsync are stream-ordered (the free happens when the stream reaches
//   it), events mark positions in their stream, cudaStreamWaitEvent orders two streams.
// Only what the project uses is declared; a missing function is a compile error, not a silent stub.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

// ---- types ---------------------------------------------------------------------------------

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorNotSupported = 801,
};
typedef cudaError_t cudaError;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMaxTexture1DWidth = 21,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrTexturePitchAlignment = 88,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrMemoryPoolsSupported = 115,
  cudaDevAttrClusterLaunch = 120,
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
enum cudaChannelFormatKind {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
};
enum cudaResourceType { cudaResourceTypeArray = 0, cudaResourceTypeLinear = 2 };
enum cudaTextureAddressMode {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3,
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };

typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef struct cudaArray* cudaArray_t;
typedef const struct cudaArray* cudaArray_const_t;
typedef unsigned long long cudaTextureObject_t;
typedef void (*cudaHostFn_t)(void*);

#define cudaStreamLegacy (reinterpret_cast<cudaStream_t>(0x1))
#define cudaStreamPerThread (reinterpret_cast<cudaStream_t>(0x2))
constexpr unsigned cudaStreamDefault = 0;
constexpr unsigned cudaStreamNonBlocking = 1;
constexpr unsigned cudaEventDefault = 0;
constexpr unsigned cudaEventBlockingSync = 1;
constexpr unsigned cudaEventDisableTiming = 2;
constexpr unsigned cudaHostAllocDefault = 0;

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct uint2 {
  unsigned x, y;
};
struct uint4 {
  unsigned x, y, z, w;
};
struct int2 {
  int x, y;
};
struct int4 {
  int x, y, z, w;
};
struct float2 {
  float x, y;
};
struct float4 {
  float x, y, z, w;
};
struct double2 {
  double x, y;
};
inline float2 make_float2(float x, float y) {
  return float2{x, y};
}
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) {
  return uint4{x, y, z, w};
}

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerBlockOptin, sharedMemPerMultiprocessor;
  int regsPerBlock, warpSize, maxThreadsPerBlock, maxThreadsPerMultiProcessor;
  int major, minor, multiProcessorCount, memoryBusWidth, l2CacheSize, maxTexture1D;
};
struct cudaChannelFormatDesc {
  int x, y, z, w;
  cudaChannelFormatKind f;
};
struct cudaResourceDesc {
  cudaResourceType resType;
  union {
    struct {
      cudaArray_t array;
    } array;
    struct {
      void* devPtr;
      cudaChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
  } res;
};
struct cudaTextureDesc {
  cudaTextureAddressMode addressMode[3];
  cudaTextureFilterMode filterMode;
  cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned maxAnisotropy;
};
struct cudaResourceViewDesc;

// ---- the emulator's state ---------------------------------------------------------------------

namespace emu {

// What the device reports (an H100's limits where a limit is checked).
inline constexpr size_t kSharedDefault = 48 * 1024, kSharedOptin = 232448;
inline constexpr size_t kMaxArray1D = 131072;

struct Op {
  uint64_t order; // global enqueue order (legacy-stream rules)
  std::function<void()> run;
};

struct Stream {
  std::deque<Op> queue;
  uint64_t enqueued = 0, completed = 0;
  bool legacy = false, nonblocking = false, destroyed = false;
};

struct Event {
  Stream* stream = nullptr; // null: never recorded
  uint64_t position = 0;    // complete when stream->completed >= position
  bool timing = true;
};

enum class Kind { kDevice, kPinned };
struct Allocation {
  size_t size;
  Kind kind;
  bool async; // cudaMallocAsync
};

struct Site {
  const char* file;
  int line;
};

struct InitError {
  uint64_t copies = 0, bytes = 0;
};

struct Texture {
  const struct ::cudaArray* array;
  cudaTextureDesc desc;
};

struct State {
  State();
  std::recursive_mutex mu;
  Stream legacy;
  std::vector<std::unique_ptr<Stream>> streams; // never freed: queued waits may name them
  std::vector<std::unique_ptr<Event>> events;
  uint64_t order = 0;
  bool eager = false, initcheck = true, verbose = false;
  std::map<uintptr_t, Allocation> allocs;
  std::map<const void*, int> func_smem; // cudaFuncAttributeMaxDynamicSharedMemorySize
  cudaError_t last_error = cudaSuccess;
  std::map<std::string, InitError> init_errors;
  uint64_t init_error_total = 0, launches = 0, ops = 0;
};
State& state();

inline std::unique_lock<std::recursive_mutex> lock() {
  return std::unique_lock<std::recursive_mutex>(state().mu);
}

inline std::string where(Site s) {
  const char* base = s.file;
  for (const char* p = s.file; *p; ++p) {
    if (*p == '/')
      base = p + 1;
  }
  return std::string(base) + ":" + std::to_string(s.line);
}

// A failing call also sets the thread's last error, as the runtime does (the next
// cudaGetLastError, e.g. a launch check, reports it unless something cleared it).
inline cudaError_t fail(cudaError_t e, Site s, const std::string& msg) {
  std::fprintf(stderr, "emu: %s: %s\n", where(s).c_str(), msg.c_str());
  state().last_error = e;
  return e;
}

// ---- streams

inline Stream* stream_of(cudaStream_t s) {
  if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread)
    return &state().legacy;
  return reinterpret_cast<Stream*>(s);
}

void run_one(Stream& s);

inline void run_until(Stream& s, uint64_t position) {
  while (s.completed < position)
    run_one(s);
}
inline void drain(Stream& s) {
  run_until(s, s.enqueued);
}

// The legacy stream waits for earlier work of blocking streams and they for its earlier work.
inline void run_predecessors(const Stream& s, uint64_t order) {
  State& st = state();
  auto before = [order](Stream& o) {
    while (!o.queue.empty() && o.queue.front().order < order)
      run_one(o);
  };
  if (s.legacy) {
    for (auto& o : st.streams) {
      if (!o->nonblocking && !o->destroyed)
        before(*o);
    }
  } else if (!s.nonblocking) {
    before(st.legacy);
  }
}

inline void run_one(Stream& s) {
  Op op = std::move(s.queue.front());
  s.queue.pop_front();
  run_predecessors(s, op.order);
  op.run();
  ++s.completed;
}

inline void drain_all() {
  State& st = state();
  bool any = true;
  while (any) {
    any = false;
    if (!st.legacy.queue.empty()) {
      drain(st.legacy);
      any = true;
    }
    for (auto& o : st.streams) {
      if (!o->queue.empty()) {
        drain(*o);
        any = true;
      }
    }
  }
}

// Enqueues `fn` on `s` (or runs it at once with EMU_SYNC=1); returns its position.
inline uint64_t enqueue(Stream& s, std::function<void()> fn) {
  State& st = state();
  s.queue.push_back(Op{++st.order, std::move(fn)});
  ++st.ops;
  const uint64_t pos = ++s.enqueued;
  if (st.eager)
    drain(s);
  return pos;
}

// ---- memory

inline uint32_t poison_word(uintptr_t a) {
  uint64_t z = a + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  // Every byte in 0x40..0x7F: never 0 or 255 (masks), unlikely for real data four bytes at a time.
  return (static_cast<uint32_t>(z) & 0x3F3F3F3Fu) | 0x40404040u;
}

inline void poison(void* p, size_t n) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  for (size_t i = 0; i + 4 <= n; i += 4) {
    const uint32_t w = poison_word(a + i);
    std::memcpy(static_cast<char*>(p) + i, &w, 4);
  }
}

// The allocation holding [p, p + n), or null.
inline const std::pair<const uintptr_t, Allocation>* find(const void* p, size_t n = 1) {
  State& st = state();
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  auto it = st.allocs.upper_bound(a);
  if (it == st.allocs.begin())
    return nullptr;
  --it;
  if (a < it->first || a + n > it->first + it->second.size)
    return nullptr;
  return &*it;
}
inline bool is_device(const void* p) {
  auto* a = find(p);
  return a && a->second.kind == Kind::kDevice;
}
inline bool is_pinned(const void* p) {
  auto* a = find(p);
  return a && a->second.kind == Kind::kPinned;
}

inline void* allocate(size_t n, Kind kind, bool async) {
  const size_t rounded = (std::max<size_t>(n, 1) + 255) / 256 * 256;
  void* p = std::aligned_alloc(256, rounded);
  if (!p)
    return nullptr;
  poison(p, rounded);
  state().allocs[reinterpret_cast<uintptr_t>(p)] = Allocation{n, kind, async};
  return p;
}

inline cudaError_t release(void* p, Kind kind, Site s) {
  if (!p)
    return cudaSuccess;
  State& st = state();
  auto it = st.allocs.find(reinterpret_cast<uintptr_t>(p));
  if (it == st.allocs.end() || it->second.kind != kind)
    return fail(cudaErrorInvalidValue, s,
                "free of a pointer that is not the start of a live allocation");
  st.allocs.erase(it);
  std::free(p);
  return cudaSuccess;
}

// initcheck: counts words of [p, p + n) in device memory that still hold their poison.
inline void check_initialised(const void* p, size_t n, Site s, const char* what) {
  State& st = state();
  if (!st.initcheck)
    return;
  const auto* a = find(p, n);
  if (!a || a->second.kind != Kind::kDevice)
    return;
  const uintptr_t start = reinterpret_cast<uintptr_t>(p);
  uint64_t bad = 0;
  for (uintptr_t w = (start + 3) & ~uintptr_t(3); w + 4 <= start + n; w += 4) {
    uint32_t v;
    std::memcpy(&v, reinterpret_cast<const void*>(w), 4);
    bad += (v == poison_word(w)) ? 4 : 0;
  }
  if (!bad)
    return;
  const std::string key = std::string(what) + " at " + where(s);
  InitError& e = st.init_errors[key];
  if (e.copies == 0) {
    std::fprintf(stderr,
                 "emu initcheck: %s reads %llu never-written bytes (offset %zu, %zu bytes, of a "
                 "%zu-byte device allocation)\n",
                 key.c_str(), static_cast<unsigned long long>(bad),
                 static_cast<size_t>(start - a->first), n, a->second.size);
  }
  ++e.copies;
  e.bytes += bad;
  ++st.init_error_total;
}

// Checks one side of a copy or memset: device sides must lie in a device allocation, host sides
// must not be device memory.
inline cudaError_t check_side(const void* p, size_t pitch, size_t width, size_t rows, bool device,
                              Site s, const char* what) {
  if (rows == 0 || width == 0)
    return cudaSuccess;
  const size_t extent = pitch * (rows - 1) + width;
  if (device) {
    if (!find(p, extent) || !is_device(p)) {
      return fail(cudaErrorInvalidValue, s,
                  std::string(what) + ": [" + std::to_string(extent) +
                      " bytes] is not inside one device allocation");
    }
  } else if (is_device(p)) {
    return fail(cudaErrorInvalidMemcpyDirection, s,
                std::string(what) + ": a device pointer given as host memory");
  }
  return cudaSuccess;
}

inline void note(cudaError_t e) {
  if (e != cudaSuccess)
    state().last_error = e;
}

// 2-D copy with the CUDA host-synchronisation rules (see the top of this file).
inline cudaError_t copy2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                          size_t height, cudaMemcpyKind kind, cudaStream_t stream, bool async,
                          Site s, const char* what) {
  auto guard = lock();
  if (width > dpitch || width > spitch)
    return fail(cudaErrorInvalidValue, s, std::string(what) + ": width larger than a pitch");
  if (kind == cudaMemcpyDefault) {
    kind = static_cast<cudaMemcpyKind>((is_device(src) ? 2 : 0) | (is_device(dst) ? 1 : 0));
    if (kind == 0)
      kind = cudaMemcpyHostToHost;
    else if (kind == 3)
      kind = cudaMemcpyDeviceToDevice;
    else
      kind = kind == 1 ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  }
  const bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  const bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  cudaError_t e = check_side(src, spitch, width, height, src_dev, s, what);
  if (e == cudaSuccess)
    e = check_side(dst, dpitch, width, height, dst_dev, s, what);
  if (e != cudaSuccess)
    return e;
  if (width == 0 || height == 0)
    return cudaSuccess;
  Stream& q = async ? *stream_of(stream) : state().legacy;
  auto rows = [=](const void* from, size_t from_pitch) {
    for (size_t r = 0; r < height; ++r) {
      const char* f = static_cast<const char*>(from) + r * from_pitch;
      if (src_dev)
        check_initialised(f, width, s, what);
      std::memcpy(static_cast<char*>(dst) + r * dpitch, f, width);
    }
  };
  const bool pageable_src = !src_dev && !is_pinned(src);
  const bool pageable_dst = !dst_dev && !is_pinned(dst);
  if (kind == cudaMemcpyHostToHost) {
    drain(q);
    rows(src, spitch);
    return cudaSuccess;
  }
  if (pageable_src) {
    // The source is staged at the call; the copy into device memory may land later.
    if (async)
      drain(q);
    auto staged = std::make_shared<std::vector<char>>(width * height);
    for (size_t r = 0; r < height; ++r)
      std::memcpy(staged->data() + r * width, static_cast<const char*>(src) + r * spitch, width);
    enqueue(q, [=] {
      for (size_t r = 0; r < height; ++r)
        std::memcpy(static_cast<char*>(dst) + r * dpitch, staged->data() + r * width, width);
    });
    return cudaSuccess;
  }
  const uint64_t pos = enqueue(q, [=] { rows(src, spitch); });
  // Synchronous copies to the host, and copies into pageable memory, return when done; a
  // synchronous copy from pinned memory too.
  if ((!async && (!dst_dev || !src_dev)) || (async && pageable_dst))
    run_until(q, pos);
  return cudaSuccess;
}

inline cudaError_t fill2d(void* p, size_t pitch, int value, size_t width, size_t height,
                          cudaStream_t stream, bool async, Site s) {
  auto guard = lock();
  const bool dev = is_device(p);
  if (!dev && !is_pinned(p))
    return fail(cudaErrorInvalidValue, s, "memset of memory that is neither device nor pinned");
  if (dev) {
    cudaError_t e = check_side(p, pitch, width, height, true, s, "cudaMemset");
    if (e != cudaSuccess)
      return e;
  }
  Stream& q = async ? *stream_of(stream) : state().legacy;
  enqueue(q, [=] {
    for (size_t r = 0; r < height; ++r)
      std::memset(static_cast<char*>(p) + r * pitch, value, width);
  });
  return cudaSuccess;
}

} // namespace emu

struct cudaArray {
  cudaChannelFormatDesc desc;
  size_t width, height, elem;
  std::vector<unsigned char> data;
};

// ---- errors and devices -------------------------------------------------------------------------

inline cudaError_t cudaGetLastError() {
  auto g = emu::lock();
  const cudaError_t e = emu::state().last_error;
  emu::state().last_error = cudaSuccess;
  return e;
}
inline cudaError_t cudaPeekAtLastError() {
  return emu::state().last_error;
}
inline const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
  case cudaSuccess:
    return "cudaSuccess";
  case cudaErrorInvalidValue:
    return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation:
    return "cudaErrorMemoryAllocation";
  case cudaErrorInitializationError:
    return "cudaErrorInitializationError";
  case cudaErrorInvalidConfiguration:
    return "cudaErrorInvalidConfiguration";
  case cudaErrorInvalidDevicePointer:
    return "cudaErrorInvalidDevicePointer";
  case cudaErrorInvalidMemcpyDirection:
    return "cudaErrorInvalidMemcpyDirection";
  case cudaErrorInvalidResourceHandle:
    return "cudaErrorInvalidResourceHandle";
  case cudaErrorNotReady:
    return "cudaErrorNotReady";
  case cudaErrorIllegalAddress:
    return "cudaErrorIllegalAddress";
  case cudaErrorNotSupported:
    return "cudaErrorNotSupported";
  }
  return "cudaErrorUnknown";
}
inline const char* cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : "emulated error";
}
inline cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int d) {
  return d == 0 ? cudaSuccess : cudaErrorInvalidValue;
}
inline cudaError_t cudaGetDevice(int* d) {
  *d = 0;
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) {
  std::memset(p, 0, sizeof *p);
  std::strcpy(p->name, "CPU emulation");
  p->totalGlobalMem = size_t(16) << 30;
  p->sharedMemPerBlock = emu::kSharedDefault;
  p->sharedMemPerBlockOptin = emu::kSharedOptin;
  p->sharedMemPerMultiprocessor = 233472;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsPerMultiProcessor = 2048;
  p->major = 9;
  p->multiProcessorCount = 1;
  p->memoryBusWidth = 64;
  p->l2CacheSize = 1 << 20;
  p->maxTexture1D = static_cast<int>(emu::kMaxArray1D);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int) {
  switch (a) {
  case cudaDevAttrMaxThreadsPerBlock:
    *v = 1024;
    break;
  case cudaDevAttrClockRate:
    *v = 1000000;
    break;
  case cudaDevAttrTextureAlignment:
    *v = 512;
    break;
  case cudaDevAttrMultiProcessorCount:
    *v = 1;
    break;
  case cudaDevAttrMaxTexture1DWidth:
    *v = static_cast<int>(emu::kMaxArray1D);
    break;
  case cudaDevAttrMemoryClockRate:
    *v = 1000000;
    break;
  case cudaDevAttrGlobalMemoryBusWidth:
    *v = 64;
    break;
  case cudaDevAttrL2CacheSize:
    *v = 1 << 20;
    break;
  case cudaDevAttrMaxThreadsPerMultiProcessor:
    *v = 2048;
    break;
  case cudaDevAttrTexturePitchAlignment:
    *v = 32;
    break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin:
    *v = static_cast<int>(emu::kSharedOptin);
    break;
  case cudaDevAttrMemoryPoolsSupported:
    *v = 1;
    break;
  case cudaDevAttrComputeCapabilityMajor:
    *v = 9; // as cudaGetDeviceProperties
    break;
  case cudaDevAttrClusterLaunch:
    *v = 0; // no thread-block clusters in the emulation
    break;
  default:
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() {
  auto g = emu::lock();
  emu::drain_all();
  return cudaSuccess;
}
template <typename T>
inline cudaError_t cudaFuncSetAttribute(T* entry, cudaFuncAttribute attr, int value) {
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize || value < 0 ||
      static_cast<size_t>(value) > emu::kSharedOptin)
    return cudaErrorInvalidValue;
  auto g = emu::lock();
  emu::state().func_smem[reinterpret_cast<const void*>(entry)] = value;
  return cudaSuccess;
}
template <typename T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, T*, int block,
                                                                 size_t smem) {
  if (block <= 0)
    return cudaErrorInvalidValue;
  int by_threads = 2048 / block;
  int by_smem = smem ? static_cast<int>(233472 / smem) : by_threads;
  *n = std::max(0, std::min(std::min(by_threads, by_smem), 32));
  return cudaSuccess;
}

// ---- memory -----------------------------------------------------------------------------------

inline cudaError_t cudaMalloc(void** p, size_t n, const char* file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
  (void)file, (void)line;
  auto g = emu::lock();
  *p = emu::allocate(n, emu::Kind::kDevice, false);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <typename T> inline cudaError_t cudaMalloc(T** p, size_t n) {
  return cudaMalloc(reinterpret_cast<void**>(p), n);
}
inline cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t w, size_t h) {
  *pitch = (std::max<size_t>(w, 1) + 511) / 512 * 512; // drivers pad rows (never assume how much)
  return cudaMalloc(p, *pitch * h);
}
inline cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t) {
  auto g = emu::lock();
  *p = emu::allocate(n, emu::Kind::kDevice, true);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <typename T> inline cudaError_t cudaMallocAsync(T** p, size_t n, cudaStream_t s) {
  return cudaMallocAsync(reinterpret_cast<void**>(p), n, s);
}
inline cudaError_t cudaFree(void* p, const char* file = __builtin_FILE(),
                            int line = __builtin_LINE()) {
  auto g = emu::lock();
  emu::drain_all(); // cudaFree synchronises the device
  return emu::release(p, emu::Kind::kDevice, emu::Site{file, line});
}
inline cudaError_t cudaFreeAsync(void* p, cudaStream_t s, const char* file = __builtin_FILE(),
                                 int line = __builtin_LINE()) {
  auto g = emu::lock();
  if (p && !emu::is_device(p))
    return emu::fail(cudaErrorInvalidValue, emu::Site{file, line},
                     "cudaFreeAsync of a non-device pointer");
  emu::enqueue(*emu::stream_of(s), [=] {
    (void)emu::release(p, emu::Kind::kDevice, emu::Site{file, line});
  });
  return cudaSuccess;
}
inline cudaError_t cudaMallocHost(void** p, size_t n) {
  auto g = emu::lock();
  *p = emu::allocate(n, emu::Kind::kPinned, false);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <typename T> inline cudaError_t cudaMallocHost(T** p, size_t n) {
  return cudaMallocHost(reinterpret_cast<void**>(p), n);
}
inline cudaError_t cudaHostAlloc(void** p, size_t n, unsigned) {
  return cudaMallocHost(p, n);
}
inline cudaError_t cudaFreeHost(void* p, const char* file = __builtin_FILE(),
                                int line = __builtin_LINE()) {
  auto g = emu::lock();
  emu::drain_all();
  return emu::release(p, emu::Kind::kPinned, emu::Site{file, line});
}
inline cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  *free_bytes = size_t(8) << 30;
  *total = size_t(16) << 30;
  return cudaSuccess;
}

inline cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind k,
                              const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return emu::copy2d(d, n, s, n, n, 1, k, nullptr, false, emu::Site{file, line}, "cudaMemcpy");
}
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind k,
                                   cudaStream_t st = nullptr, const char* file = __builtin_FILE(),
                                   int line = __builtin_LINE()) {
  return emu::copy2d(d, n, s, n, n, 1, k, st, true, emu::Site{file, line}, "cudaMemcpyAsync");
}
inline cudaError_t cudaMemcpy2D(void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h,
                                cudaMemcpyKind k, const char* file = __builtin_FILE(),
                                int line = __builtin_LINE()) {
  return emu::copy2d(d, dp, s, sp, w, h, k, nullptr, false, emu::Site{file, line}, "cudaMemcpy2D");
}
inline cudaError_t cudaMemcpy2DAsync(void* d, size_t dp, const void* s, size_t sp, size_t w,
                                     size_t h, cudaMemcpyKind k, cudaStream_t st = nullptr,
                                     const char* file = __builtin_FILE(),
                                     int line = __builtin_LINE()) {
  return emu::copy2d(d, dp, s, sp, w, h, k, st, true, emu::Site{file, line}, "cudaMemcpy2DAsync");
}
inline cudaError_t cudaMemset(void* p, int v, size_t n, const char* file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
  return emu::fill2d(p, n, v, n, 1, nullptr, false, emu::Site{file, line});
}
inline cudaError_t cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t s = nullptr,
                                   const char* file = __builtin_FILE(),
                                   int line = __builtin_LINE()) {
  return emu::fill2d(p, n, v, n, 1, s, true, emu::Site{file, line});
}
inline cudaError_t cudaMemset2D(void* p, size_t pitch, int v, size_t w, size_t h,
                                const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return emu::fill2d(p, pitch, v, w, h, nullptr, false, emu::Site{file, line});
}
inline cudaError_t cudaMemset2DAsync(void* p, size_t pitch, int v, size_t w, size_t h,
                                     cudaStream_t s = nullptr, const char* file = __builtin_FILE(),
                                     int line = __builtin_LINE()) {
  return emu::fill2d(p, pitch, v, w, h, s, true, emu::Site{file, line});
}

// ---- arrays and textures ----------------------------------------------------------------------

inline cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}
inline cudaError_t cudaMallocArray(cudaArray_t* a, const cudaChannelFormatDesc* d, size_t w,
                                   size_t h = 0, unsigned = 0) {
  if (w == 0 || w > emu::kMaxArray1D || h > 65536) {
    emu::state().last_error = cudaErrorInvalidValue;
    return cudaErrorInvalidValue;
  }
  auto* arr = new cudaArray;
  arr->desc = *d;
  arr->width = w;
  arr->height = h;
  arr->elem = static_cast<size_t>(d->x + d->y + d->z + d->w) / 8;
  arr->data.assign(arr->elem * w * std::max<size_t>(h, 1), 0xA5);
  *a = arr;
  return cudaSuccess;
}
inline cudaError_t cudaFreeArray(cudaArray_t a) {
  auto g = emu::lock();
  emu::drain_all();
  delete a;
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t a, size_t wo, size_t ho, const void* s,
                                            size_t sp, size_t w, size_t h, cudaMemcpyKind k,
                                            cudaStream_t st = nullptr,
                                            const char* file = __builtin_FILE(),
                                            int line = __builtin_LINE()) {
  auto g = emu::lock();
  const size_t row = a->elem * a->width;
  if (wo + w > row || ho + h > std::max<size_t>(a->height, 1) || w > sp)
    return cudaErrorInvalidValue;
  // The array's bytes as a pitched destination: reuse the copy rules with a host-side target.
  // A pageable source is staged now; a pinned or device one is read when the copy runs.
  unsigned char* dst = a->data.data() + ho * row + wo;
  const bool from_device = k == cudaMemcpyDeviceToDevice || emu::is_device(s);
  const bool pageable = !from_device && !emu::is_pinned(s);
  emu::Stream& q = *emu::stream_of(st);
  std::shared_ptr<std::vector<char>> staged;
  if (pageable) {
    emu::drain(q);
    staged = std::make_shared<std::vector<char>>(w * h);
    for (size_t r = 0; r < h; ++r)
      std::memcpy(staged->data() + r * w, static_cast<const char*>(s) + r * sp, w);
  }
  const emu::Site site{file, line};
  emu::enqueue(q, [=] {
    for (size_t r = 0; r < h; ++r) {
      const char* from = staged ? staged->data() + r * w : static_cast<const char*>(s) + r * sp;
      if (from_device)
        emu::check_initialised(from, w, site, "cudaMemcpy2DToArray");
      std::memcpy(dst + r * row, from, w);
    }
  });
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2DToArray(cudaArray_t a, size_t wo, size_t ho, const void* s,
                                       size_t sp, size_t w, size_t h, cudaMemcpyKind k,
                                       const char* file = __builtin_FILE(),
                                       int line = __builtin_LINE()) {
  return cudaMemcpy2DToArrayAsync(a, wo, ho, s, sp, w, h, k, nullptr, file, line);
}
inline cudaError_t cudaCreateTextureObject(cudaTextureObject_t* t, const cudaResourceDesc* r,
                                           const cudaTextureDesc* d, const cudaResourceViewDesc*) {
  if (r->resType != cudaResourceTypeArray || !r->res.array.array)
    return cudaErrorNotSupported;
  *t = reinterpret_cast<cudaTextureObject_t>(new emu::Texture{r->res.array.array, *d});
  return cudaSuccess;
}
inline cudaError_t cudaDestroyTextureObject(cudaTextureObject_t t) {
  delete reinterpret_cast<emu::Texture*>(t);
  return cudaSuccess;
}

// ---- streams and events -----------------------------------------------------------------------

inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags) {
  auto g = emu::lock();
  auto st = std::make_unique<emu::Stream>();
  st->nonblocking = (flags & cudaStreamNonBlocking) != 0;
  *s = reinterpret_cast<cudaStream_t>(st.get());
  emu::state().streams.push_back(std::move(st));
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreate(cudaStream_t* s) {
  return cudaStreamCreateWithFlags(s, cudaStreamDefault);
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  auto g = emu::lock();
  emu::Stream* st = emu::stream_of(s);
  if (st->legacy || st->destroyed)
    return cudaErrorInvalidResourceHandle;
  emu::drain(*st); // queued work completes after a destroy too
  st->destroyed = true;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  auto g = emu::lock();
  emu::Stream* st = emu::stream_of(s);
  if (st->destroyed)
    return cudaErrorInvalidResourceHandle;
  emu::drain(*st);
  return cudaSuccess;
}
inline cudaError_t cudaStreamQuery(cudaStream_t s) {
  return cudaStreamSynchronize(s);
}
inline cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void* data) {
  auto g = emu::lock();
  emu::enqueue(*emu::stream_of(s), [=] { fn(data); });
  return cudaSuccess;
}
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags) {
  auto g = emu::lock();
  auto ev = std::make_unique<emu::Event>();
  ev->timing = (flags & cudaEventDisableTiming) == 0;
  *e = reinterpret_cast<cudaEvent_t>(ev.get());
  emu::state().events.push_back(std::move(ev));
  return cudaSuccess;
}
inline cudaError_t cudaEventCreate(cudaEvent_t* e) {
  return cudaEventCreateWithFlags(e, 0);
}
inline cudaError_t cudaEventDestroy(cudaEvent_t) {
  return cudaSuccess;
} // kept: waits may name it
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = nullptr) {
  auto g = emu::lock();
  auto* ev = reinterpret_cast<emu::Event*>(e);
  ev->stream = emu::stream_of(s);
  ev->position = ev->stream->enqueued;
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  auto g = emu::lock();
  auto* ev = reinterpret_cast<emu::Event*>(e);
  if (ev->stream)
    emu::run_until(*ev->stream, ev->position);
  return cudaSuccess;
}
inline cudaError_t cudaEventQuery(cudaEvent_t e) {
  return cudaEventSynchronize(e);
}
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  auto* ea = reinterpret_cast<emu::Event*>(a);
  auto* eb = reinterpret_cast<emu::Event*>(b);
  if (!ea->stream || !eb->stream || !ea->timing || !eb->timing)
    return cudaErrorInvalidResourceHandle;
  if (ea->stream->completed < ea->position || eb->stream->completed < eb->position)
    return cudaErrorNotReady;
  *ms = 1.0f; // emulation: timings mean nothing
  return cudaSuccess;
}
inline cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned = 0) {
  auto g = emu::lock();
  auto* ev = reinterpret_cast<emu::Event*>(e);
  if (!ev->stream)
    return cudaSuccess; // never recorded: nothing to wait for
  emu::Stream* other = ev->stream;
  const uint64_t pos = ev->position;
  emu::enqueue(*emu::stream_of(s), [=] { emu::run_until(*other, pos); });
  return cudaSuccess;
}

// ---- the state's one definition and the exit report -------------------------------------------

namespace emu {
inline void report_at_exit() {
  State& st = state();
  std::size_t pending = st.legacy.queue.size();
  for (auto& s : st.streams)
    pending += s->queue.size();
  if (pending) {
    std::fprintf(stderr, "emu: %zu queued operations never ran (nothing waited for them)\n",
                 pending);
  }
  std::fprintf(stderr, "emu: %llu operations, %llu kernel launches\n",
               static_cast<unsigned long long>(st.ops),
               static_cast<unsigned long long>(st.launches));
  if (st.init_error_total) {
    std::fprintf(stderr, "emu initcheck: %llu copies read never-written device memory:\n",
                 static_cast<unsigned long long>(st.init_error_total));
    for (const auto& [k, e] : st.init_errors) {
      std::fprintf(stderr, "  %s: %llu copies, %llu bytes\n", k.c_str(),
                   static_cast<unsigned long long>(e.copies),
                   static_cast<unsigned long long>(e.bytes));
    }
    std::fflush(stderr);
    std::fflush(stdout);
    std::_Exit(3);
  }
}
inline State::State() {
  legacy.legacy = true;
  const char* s = std::getenv("EMU_SYNC");
  eager = s && *s && *s != '0';
  const char* i = std::getenv("EMU_INITCHECK");
  initcheck = !(i && *i == '0');
}
inline State& state() {
  static State s;
  // Registered once the state is complete, so the report runs before the state's destructor.
  static const bool reported = (std::atexit(report_at_exit), true);
  (void)reported;
  return s;
}
} // namespace emu

// RAII owners of device, pitched and pinned memory, streams and events.
//
// Each object frees its memory in the CUDA context that is current when it is destroyed, so destroy
// it with the same context current as when it was allocated (GStreamer elements: context pushed).
// All are move-only. `reserve` reuses the existing allocation when it is large enough, so per-frame
// calls do not allocate.
//
// Growth is stream-ordered: reserve(n, stream) frees the old allocation when `stream` reaches that
// point (work already enqueued on it may still use it) and the new one is usable by work enqueued
// on `stream` from then on (cudaMallocAsync / cudaFreeAsync where the device has memory pools,
// else a synchronisation of `stream` around cudaFree / cudaMalloc). With stream = nullptr the new
// allocation is usable on every stream at once and the old one is freed with cudaFree, which
// waits for the device: for configuration calls that have no stream. release() and the destructors
// free at once: no queued work may still use the memory then.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "../backend.hpp"
#include "check.hpp"

namespace cvis::cuda {

// One device allocation of `bytes` ordered on `stream` (see above); *async tells how it was made,
// for free_device().
Status allocate_device(void** p, size_t bytes, cudaStream_t stream, bool* async);
// Frees an allocate_device() allocation: ordered on `stream` (nullptr: at once, cudaFree).
void free_device(void* p, bool async, cudaStream_t stream);

template <typename T> class DeviceArray {
public:
  DeviceArray() = default;
  ~DeviceArray() { release(); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)), async_(o.async_) {}
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      n_ = std::exchange(o.n_, 0);
      async_ = o.async_;
    }
    return *this;
  }

  // Ensures room for `n` elements (contents are not preserved when it grows), ordered on `stream`.
  Status reserve(size_t n, cudaStream_t stream = nullptr) {
    if (n <= n_)
      return Status::Ok();
    void* p = nullptr;
    bool async = false;
    CVIS_RETURN_IF_ERROR(allocate_device(&p, n * sizeof(T), stream, &async));
    if (ptr_)
      free_device(ptr_, async_, stream);
    ptr_ = static_cast<T*>(p);
    n_ = n;
    async_ = async;
    return Status::Ok();
  }
  // Frees the memory when `stream` gets there (nullptr: at once).
  void release(cudaStream_t stream = nullptr) {
    if (ptr_)
      free_device(ptr_, async_, stream);
    ptr_ = nullptr;
    n_ = 0;
  }
  T* get() const { return ptr_; }
  size_t capacity() const { return n_; }

private:
  T* ptr_ = nullptr;
  size_t n_ = 0;
  bool async_ = false;
};

// Pinned host memory. Growth frees the old block at once: the caller must know that no copy uses
// it any more (an event, or a synchronised stream).
template <typename T> class PinnedArray {
public:
  PinnedArray() = default;
  ~PinnedArray() { release(); }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  PinnedArray(PinnedArray&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}

  Status reserve(size_t n) {
    if (n <= n_)
      return Status::Ok();
    release();
    void* p = nullptr;
    CVIS_CUDA_CHECK(cudaMallocHost(&p, n * sizeof(T)));
    ptr_ = static_cast<T*>(p);
    n_ = n;
    return Status::Ok();
  }
  void release() {
    if (ptr_)
      cudaFreeHost(ptr_);
    ptr_ = nullptr;
    n_ = 0;
  }
  T* get() const { return ptr_; }
  size_t capacity() const { return n_; }

private:
  T* ptr_ = nullptr;
  size_t n_ = 0;
};

// A 2-D pitched device allocation: rows start kPitchAlign-byte aligned (as cudaMallocPitch pads
// them on current GPUs; the pitch is whatever pitch() says).
class PitchedBuffer {
public:
  static constexpr size_t kPitchAlign = 512;
  PitchedBuffer() = default;
  ~PitchedBuffer() { release(); }
  PitchedBuffer(const PitchedBuffer&) = delete;
  PitchedBuffer& operator=(const PitchedBuffer&) = delete;

  // Ensures at least `rows` rows of `row_bytes` bytes each, ordered on `stream` (see the top).
  Status reserve(size_t row_bytes, size_t rows, cudaStream_t stream = nullptr) {
    if (row_bytes <= row_bytes_ && rows <= rows_)
      return Status::Ok();
    const size_t pitch = (row_bytes + kPitchAlign - 1) / kPitchAlign * kPitchAlign;
    CVIS_RETURN_IF_ERROR(bytes_.reserve(pitch * rows, stream));
    pitch_ = pitch;
    row_bytes_ = row_bytes;
    rows_ = rows;
    return Status::Ok();
  }
  void release(cudaStream_t stream = nullptr) {
    bytes_.release(stream);
    pitch_ = row_bytes_ = rows_ = 0;
  }
  uint8_t* get() const { return bytes_.get(); }
  size_t pitch() const { return pitch_; }

private:
  DeviceArray<uint8_t> bytes_;
  size_t pitch_ = 0, row_bytes_ = 0, rows_ = 0;
};

// Waits for `ev` the way wait_options() says (hybrid: a short poll, then a sleep); returns the
// error of the work it waited for.
Status event_wait(cudaEvent_t ev);

class Event {
public:
  Event() = default;
  ~Event() {
    if (ev_)
      cudaEventDestroy(ev_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Timing events measure; sync-only events (timing = false) are cheaper, and a host waiting on
  // one (event_wait) sleeps instead of spinning (cudaEventBlockingSync) unless the wait policy is
  // WaitPolicy::kSpin.
  Status create(bool timing = false) {
    if (ev_)
      return Status::Ok();
    unsigned flags = cudaEventDefault;
    if (!timing) {
      flags = cudaEventDisableTiming;
      if (wait_options().policy != WaitPolicy::kSpin)
        flags |= cudaEventBlockingSync;
    }
    CVIS_CUDA_CHECK(cudaEventCreateWithFlags(&ev_, flags));
    return Status::Ok();
  }
  cudaEvent_t get() const { return ev_; }

private:
  cudaEvent_t ev_ = nullptr;
};

} // namespace cvis::cuda

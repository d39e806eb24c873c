// RAII owners of device, pitched and pinned memory, streams and events.
//
// Each object frees its memory in the CUDA context that is current when it is destroyed, so destroy
// it with the same context current as when it was allocated (GStreamer elements: context pushed).
// All are move-only. `reserve`/`allocate` reuse the existing allocation when it is large enough, so
// per-frame calls do not allocate.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "../backend.hpp"
#include "check.hpp"

namespace cvis::cuda {

template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  ~DeviceArray() { release(); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }

  // Ensures room for `n` elements (contents are not preserved when it grows).
  Status reserve(size_t n) {
    if (n <= n_) return Status::Ok();
    release();
    void* p = nullptr;
    CVIS_CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
    ptr_ = static_cast<T*>(p);
    n_ = n;
    return Status::Ok();
  }
  void release() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    n_ = 0;
  }
  T* get() const { return ptr_; }
  size_t capacity() const { return n_; }

 private:
  T* ptr_ = nullptr;
  size_t n_ = 0;
};

template <typename T>
class PinnedArray {
 public:
  PinnedArray() = default;
  ~PinnedArray() { release(); }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  PinnedArray(PinnedArray&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}

  Status reserve(size_t n) {
    if (n <= n_) return Status::Ok();
    release();
    void* p = nullptr;
    CVIS_CUDA_CHECK(cudaMallocHost(&p, n * sizeof(T)));
    ptr_ = static_cast<T*>(p);
    n_ = n;
    return Status::Ok();
  }
  void release() {
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    n_ = 0;
  }
  T* get() const { return ptr_; }
  size_t capacity() const { return n_; }

 private:
  T* ptr_ = nullptr;
  size_t n_ = 0;
};

// A 2-D pitched device allocation (cudaMallocPitch).
class PitchedBuffer {
 public:
  PitchedBuffer() = default;
  ~PitchedBuffer() { release(); }
  PitchedBuffer(const PitchedBuffer&) = delete;
  PitchedBuffer& operator=(const PitchedBuffer&) = delete;

  // Ensures at least `rows` rows of `row_bytes` bytes each.
  Status reserve(size_t row_bytes, size_t rows) {
    if (row_bytes <= row_bytes_ && rows <= rows_) return Status::Ok();
    release();
    void* p = nullptr;
    size_t pitch = 0;
    CVIS_CUDA_CHECK(cudaMallocPitch(&p, &pitch, row_bytes, rows));
    ptr_ = static_cast<uint8_t*>(p);
    pitch_ = pitch;
    row_bytes_ = row_bytes;
    rows_ = rows;
    return Status::Ok();
  }
  void release() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    pitch_ = row_bytes_ = rows_ = 0;
  }
  uint8_t* get() const { return ptr_; }
  size_t pitch() const { return pitch_; }

 private:
  uint8_t* ptr_ = nullptr;
  size_t pitch_ = 0, row_bytes_ = 0, rows_ = 0;
};

class Event {
 public:
  Event() = default;
  ~Event() {
    if (ev_) cudaEventDestroy(ev_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Timing events measure; sync-only events (timing = false) are cheaper, and a host waiting on
  // one sleeps instead of spinning (cudaEventBlockingSync) unless CVIS_CUDA_SYNC=spin.
  Status create(bool timing = false) {
    if (ev_) return Status::Ok();
    unsigned flags = cudaEventDefault;
    if (!timing) {
      flags = cudaEventDisableTiming;
      if (cuda_sync_mode() == SyncMode::kBlock) flags |= cudaEventBlockingSync;
    }
    CVIS_CUDA_CHECK(cudaEventCreateWithFlags(&ev_, flags));
    return Status::Ok();
  }
  cudaEvent_t get() const { return ev_; }

 private:
  cudaEvent_t ev_ = nullptr;
};

}  // namespace cvis::cuda

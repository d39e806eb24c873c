// Backend choice and GPU detection, usable from any program (no CUDA types here).
#pragma once

#include <cstdint>
#include <string>

#include "image.hpp"
#include "status.hpp"

namespace cvis {

enum class Backend : int { kAuto = 0, kCpu = 1, kCuda = 2 };

const char* backend_name(Backend b);                   // "auto", "cpu", "cuda"
bool parse_backend(const std::string& s, Backend* out);  // inverse of backend_name

// True when this build contains the CUDA backends (Meson option `cuda` found nvcc).
bool cuda_compiled();

// Number of usable CUDA devices. 0 when the build has no CUDA, there is no driver, the driver is too
// old ("insufficient driver" is what a GPU-less machine answers) or any other error.
int cuda_device_count();

// Short description of device `id` ("NVIDIA H100 80GB HBM3, sm_90"), or the reason there is none.
std::string cuda_device_description(int id);

// kAuto -> kCuda when a device is usable, else kCpu. kCuda without a device -> kNoDevice error.
Status resolve_backend(Backend requested, Backend* resolved);

// For standalone programs only (benchmarks, tools): make device `id` current in this thread. Never
// call it inside a GStreamer element: there the CUDA context comes from the pipeline.
Status select_cuda_device(int id);

// Debug switch: when set (environment CVIS_CUDA_DEBUG_SYNC=1, or the Meson option cuda-debug-sync),
// every launch is followed by a stream synchronisation and an error check, so a failing kernel is
// reported at its own launch.
bool cuda_debug_sync();

// How the host waits for the GPU (stream_synchronize, cuda::event_wait):
// kHybrid (the default) polls the event for `poll_us` microseconds and then sleeps on it: a single
// stream keeps the latency of a busy wait (a sleeping thread is woken tens of microseconds after
// the GPU is done), while many streams do not keep a core each spinning. stream_synchronize on a
// stream made by stream_create polls longer when that stream's recent waits were short: a quarter
// more than them (plus 50 us), up to `poll_max_us`, so a stream whose frames take under a
// millisecond does not pay the wake-up each frame (a 1080p cudabgsub frame waits about 0.5 ms).
// kBlock sleeps at once on an event created with cudaEventBlockingSync; kSpin is
// cudaStreamSynchronize, which under GStreamer's CUDA context (default scheduling flags)
// busy-waits for the whole wait (with more streams than cores, some starve: docs/benchmarks.md).
enum class WaitPolicy : int { kBlock = 0, kSpin = 1, kHybrid = 2 };
struct WaitOptions {
  WaitPolicy policy = WaitPolicy::kHybrid;
  int poll_us = 300;      // kHybrid only: how long it polls before it sleeps, >= 0
  int poll_max_us = 1000; // kHybrid only: the longest poll after a short wait, >= 0 (0: poll_us)
};
// Process-wide. Set it before the first stream or event is created (a sync-only event takes its
// blocking flag from the policy when it is created). kInvalidArgument for a negative poll_us or an
// unknown policy (the options in force stay). The GStreamer elements use the defaults.
Status set_wait_options(const WaitOptions& options);
WaitOptions wait_options();

// The hybrid wait's poll, in microseconds, for a stream whose recent waits took `recent_us` (-1:
// none yet): a quarter more than recent_us plus 50 us, within [poll_us, poll_max_us], when
// recent_us is at most poll_max_us; poll_us otherwise.
int hybrid_poll_us(const WaitOptions& w, int64_t recent_us);
// A stream's recent-wait figure after a wait of `waited_us`: that wait, or an eighth less than the
// figure before (`before_us`, -1: none) when that is longer. A second sync that finds the work done
// (the elements' base class syncs again after the library did) must not make the next frame's
// wait look short.
int64_t recent_wait_us(int64_t before_us, int64_t waited_us);

// Streams behind the opaque handle; each call works in the CUDA context current on the thread.
// A non-blocking stream. The first one of a CUDA context also loads every kernel of the library
// into that context (cuda/common/cuda/preload.hpp: lazy loading mid-stream can stall).
Status stream_create(StreamHandle* out);
void stream_destroy(StreamHandle s);
// Waits until the work queued on `s` is done (wait_options() says how). Streams made by
// stream_create wait on their own blocking event; others fall back to cudaStreamSynchronize.
Status stream_synchronize(StreamHandle s);

// GPU time of the work queued between begin() and end() on a stream, summed over calls (for
// profiling; CUDA events). Results are collected without waiting when the events have completed,
// else at the latest when 16 pairs are outstanding, and by flush(). Use it in the CUDA context of
// the stream; release() (or the destructor) in the same context.
class StreamProfiler {
 public:
  StreamProfiler();
  ~StreamProfiler();
  StreamProfiler(const StreamProfiler&) = delete;
  StreamProfiler& operator=(const StreamProfiler&) = delete;
  Status begin(StreamHandle s);
  Status end(StreamHandle s);
  Status flush();  // waits for the outstanding pairs and adds them
  void release();
  double total_ms() const { return total_ms_; }
  uint64_t count() const { return count_; }

 private:
  struct Impl;
  Impl* impl_ = nullptr;
  double total_ms_ = 0.0;
  uint64_t count_ = 0;
};

}  // namespace cvis

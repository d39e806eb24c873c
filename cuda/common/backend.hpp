// Backend choice and GPU detection, usable from any program (no CUDA types here).
#pragma once

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

// Streams behind the opaque handle; each call works in the CUDA context current on the thread.
Status stream_create(StreamHandle* out);  // non-blocking stream
void stream_destroy(StreamHandle s);
Status stream_synchronize(StreamHandle s);

}  // namespace cvis

// Loading every kernel of the library into a context before frames flow.
//
// With lazy loading (the default since CUDA 12.2) a kernel is loaded at its first launch, and
// that load may need the whole context to be idle. When other threads keep the context busy (many
// pipelines sharing one GstCudaContext), a kernel launched for the first time in the middle of a
// stream can wait inside cuLaunchKernel for as long as the others keep launching: bench_streams saw
// a pipeline stop for good at the motion model's first shot change (launch_motion_restart) with 89
// others running. So each translation unit with kernels names one of them with
// CVIS_PRELOAD_MODULE, and stream_create (cvis/backend.hpp), which every CUDA path calls before
// launching anything, loads every function of those modules into the current context once.
#pragma once

namespace cvis::cuda {

// Registers the module (translation unit) of `kernel` at static initialisation.
struct ModuleAnchor {
  explicit ModuleAnchor(const void* kernel);
};

// Loads every function of every registered module into the current context, once per context
// (later calls in that context return at once). Best effort: with a driver older than CUDA 12.4
// (no cuModuleEnumerateFunctions / cuFuncLoad) only the named kernels are loaded.
void preload_kernels();

// For tests: functions of the registered modules in the current context, and how many of them are
// loaded. False when the driver cannot tell (older than CUDA 12.4) or there is no context.
bool kernel_load_state(int* loaded, int* total);

} // namespace cvis::cuda

// In a .cu file, at namespace scope after the kernel's definition, once per file (variadic: a
// template's arguments may hold commas).
#define CVIS_PRELOAD_MODULE(...)                                                                   \
  static const ::cvis::cuda::ModuleAnchor cvis_preload_anchor_ {                                   \
    reinterpret_cast<const void*>(&__VA_ARGS__)                                                    \
  }

// Loading every kernel of the library into a context (preload.hpp says why). The driver calls are
// reached through the runtime's driver entry points: the plugin links only the static runtime.
#include "preload.hpp"

#include <cstdint>
#include <mutex>
#include <set>
#include <vector>

#include <cuda_runtime_api.h>
#if !CVIS_EMU
#include <cuda.h>
#endif

namespace cvis::cuda {
namespace {

std::vector<const void*>& anchors() {
  static auto* v = new std::vector<const void*>();
  return *v;
}

#if !CVIS_EMU
// A driver function by name, or null when this driver lacks it (introduced in `version`).
void* driver_entry(const char* name, int version) {
  void* p = nullptr;
  bool found = true;
#if CUDART_VERSION >= 12050
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &p, version, cudaEnableDefault, &q);
  found = q == cudaDriverEntryPointSuccess;
#elif CUDART_VERSION >= 12000
  (void)version;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t e = cudaGetDriverEntryPoint(name, &p, cudaEnableDefault, &q);
  found = q == cudaDriverEntryPointSuccess;
#else
  (void)version;
  const cudaError_t e = cudaGetDriverEntryPoint(name, &p, cudaEnableDefault);
#endif
  if (e != cudaSuccess || !found) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}

struct Driver {
  CUresult (*ctx_get_current)(CUcontext*) = nullptr;
  CUresult (*ctx_get_id)(CUcontext, unsigned long long*) = nullptr;
  CUresult (*func_get_module)(CUmodule*, CUfunction) = nullptr;
  CUresult (*module_function_count)(unsigned*, CUmodule) = nullptr;
  CUresult (*module_enumerate)(CUfunction*, unsigned, CUmodule) = nullptr;
  CUresult (*func_load)(CUfunction) = nullptr;
  CUresult (*func_is_loaded)(int*, CUfunction) = nullptr; // CUfunctionLoadingState is an int enum
};

const Driver& driver() {
  static const Driver d = [] {
    Driver r;
    r.ctx_get_current =
        reinterpret_cast<decltype(r.ctx_get_current)>(driver_entry("cuCtxGetCurrent", 4000));
    r.ctx_get_id = reinterpret_cast<decltype(r.ctx_get_id)>(driver_entry("cuCtxGetId", 12000));
    r.func_get_module =
        reinterpret_cast<decltype(r.func_get_module)>(driver_entry("cuFuncGetModule", 11000));
    r.module_function_count = reinterpret_cast<decltype(r.module_function_count)>(
        driver_entry("cuModuleGetFunctionCount", 12040));
    r.module_enumerate = reinterpret_cast<decltype(r.module_enumerate)>(
        driver_entry("cuModuleEnumerateFunctions", 12040));
    r.func_load = reinterpret_cast<decltype(r.func_load)>(driver_entry("cuFuncLoad", 12040));
    r.func_is_loaded =
        reinterpret_cast<decltype(r.func_is_loaded)>(driver_entry("cuFuncIsLoaded", 12040));
    return r;
  }();
  return d;
}

// Every function of every registered module (the anchors themselves get loaded on the way).
bool module_functions(std::vector<CUfunction>* out) {
  const Driver& d = driver();
  if (!d.func_get_module || !d.module_function_count || !d.module_enumerate)
    return false;
  for (const void* k : anchors()) {
    cudaFunction_t f = nullptr;
    if (cudaGetFuncBySymbol(&f, k) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    CUmodule mod = nullptr;
    unsigned n = 0;
    if (d.func_get_module(&mod, reinterpret_cast<CUfunction>(f)) != CUDA_SUCCESS ||
        d.module_function_count(&n, mod) != CUDA_SUCCESS || n == 0)
      continue;
    std::vector<CUfunction> fs(n);
    if (d.module_enumerate(fs.data(), n, mod) == CUDA_SUCCESS)
      out->insert(out->end(), fs.begin(), fs.end());
  }
  return true;
}
#endif

} // namespace

ModuleAnchor::ModuleAnchor(const void* kernel) {
  anchors().push_back(kernel);
}

void preload_kernels() {
#if !CVIS_EMU
  const Driver& d = driver();
  CUcontext ctx = nullptr;
  if (!d.ctx_get_current || d.ctx_get_current(&ctx) != CUDA_SUCCESS || !ctx)
    return;
  // Contexts by their driver id: a context created after another was destroyed can have the
  // same address, and must be loaded again.
  unsigned long long id = 0;
  if (!d.ctx_get_id || d.ctx_get_id(ctx, &id) != CUDA_SUCCESS)
    id = reinterpret_cast<uintptr_t>(ctx);
  static std::mutex lock;
  static auto* done = new std::set<unsigned long long>();
  std::lock_guard<std::mutex> lk(lock);
  if (!done->insert(id).second)
    return;
  std::vector<CUfunction> fs;
  if (d.func_load && module_functions(&fs)) {
    for (CUfunction f : fs)
      d.func_load(f);
    return;
  }
  cudaFuncAttributes attr{}; // older drivers: at least the named kernels
  for (const void* k : anchors())
    if (cudaFuncGetAttributes(&attr, k) != cudaSuccess)
      cudaGetLastError();
#endif
}

bool kernel_load_state(int* loaded, int* total) {
  *loaded = *total = 0;
#if !CVIS_EMU
  const Driver& d = driver();
  CUcontext ctx = nullptr;
  std::vector<CUfunction> fs;
  if (!d.func_is_loaded || !d.ctx_get_current || d.ctx_get_current(&ctx) != CUDA_SUCCESS || !ctx ||
      !module_functions(&fs))
    return false;
  for (CUfunction f : fs) {
    int state = 0;
    if (d.func_is_loaded(&state, f) != CUDA_SUCCESS)
      return false;
    *loaded += state == 1; // CU_FUNCTION_LOADING_STATE_LOADED (CUDA 12.4 headers)
    ++*total;
  }
  return true;
#else
  return false;
#endif
}

} // namespace cvis::cuda

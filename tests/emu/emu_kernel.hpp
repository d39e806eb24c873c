// The CPU emulation's kernel language (tests/emu/README.md). emu.py force-includes this header into
// a copy of every .cu file whose `k<<<grid, block, smem, stream>>>(args)` launches it has rewritten
// to `emu::launch(name, file, line, grid, block, smem, stream, k, args)`.
//
// A launch is a stream operation (cuda_runtime_api.h): it runs when its stream is waited for.
// Then every CUDA thread of a block is a fiber (ucontext) on the calling thread; blocks run one
// after another, so `__shared__` arrays can be function statics. A fiber runs until it reaches a
// barrier (__syncthreads*, or the warp barrier of the warp intrinsics); barriers release when every
// live thread of the block (warp) waits on them, and the threads' intervals between barriers run
// in alternating order, so a read of another thread's write without a barrier between them sees
// stale data in one of the two orders. A state where nothing can run is reported as a deadlock
// (divergent __syncthreads). Launches with a bad configuration fail as on a device (block > 1024
// threads, grid y/z > 65535, dynamic shared memory beyond 48 KiB without the function attribute
// or beyond the opt-in limit).
#pragma once

#include <ucontext.h>
#include <xmmintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <type_traits>
#include <vector>

#include "cuda_runtime_api.h"

namespace emu {

enum Wait { kRun = 0, kBlock = 1, kWarp = 2, kDone = 3 };
struct Fiber {
  ucontext_t ctx;
  std::vector<char> stack;
  Wait wait = kDone;
};
inline std::vector<Fiber> fibers;
inline ucontext_t sched;
inline unsigned cur_fiber = 0, nthreads = 0;
inline std::function<void()> body;
inline std::vector<uint64_t> lane_vals;  // warp exchanges and block reductions
inline std::vector<uint8_t> dyn;         // dynamic shared memory
inline dim3 threadIdx_, blockIdx_, blockDim_, gridDim_;

inline void entry() {
  body();
  fibers[cur_fiber].wait = kDone;  // uc_link returns to the scheduler
}

inline void set_thread(unsigned t) {
  cur_fiber = t;
  threadIdx_ =
      dim3(t % blockDim_.x, (t / blockDim_.x) % blockDim_.y, t / (blockDim_.x * blockDim_.y));
}

inline void barrier(Wait kind) {
  fibers[cur_fiber].wait = kind;
  swapcontext(&fibers[cur_fiber].ctx, &sched);
}

// Runs one block to completion.
inline void run_block() {
  for (unsigned t = 0; t < nthreads; ++t) {
    Fiber& f = fibers[t];
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = f.stack.data();
    f.ctx.uc_stack.ss_size = f.stack.size();
    f.ctx.uc_link = &sched;
    makecontext(&f.ctx, entry, 0);
    f.wait = kRun;
  }
  bool reverse = false;
  for (;;) {
    reverse = !reverse;
    for (unsigned i = 0; i < nthreads; ++i) {
      const unsigned t = reverse ? nthreads - 1 - i : i;
      if (fibers[t].wait != kRun)
        continue;
      set_thread(t);
      swapcontext(&sched, &fibers[t].ctx);
    }
    // Everyone is at a barrier or done: release what is complete.
    bool live = false, block_all = true;
    for (unsigned t = 0; t < nthreads; ++t) {
      if (fibers[t].wait != kDone)
        live = true;
      if (fibers[t].wait != kDone && fibers[t].wait != kBlock)
        block_all = false;
    }
    if (!live)
      return;
    if (block_all) {
      for (unsigned t = 0; t < nthreads; ++t) {
        if (fibers[t].wait == kBlock)
          fibers[t].wait = kRun;
      }
      continue;
    }
    bool released = false;
    for (unsigned w = 0; w * 32 < nthreads; ++w) {
      bool all = true, any = false;
      for (unsigned t = w * 32; t < std::min(nthreads, w * 32 + 32); ++t) {
        all = all && (fibers[t].wait == kWarp || fibers[t].wait == kDone);
        any = any || fibers[t].wait == kWarp;
      }
      if (all && any) {
        for (unsigned t = w * 32; t < std::min(nthreads, w * 32 + 32); ++t) {
          if (fibers[t].wait == kWarp)
            fibers[t].wait = kRun;
        }
        released = true;
      }
    }
    if (!released) {
      std::fprintf(stderr, "emu: deadlock in block %u,%u,%u (divergent barrier)\n", blockIdx_.x,
                   blockIdx_.y, blockIdx_.z);
      std::abort();
    }
  }
}

inline void run_grid(dim3 grid, dim3 block, size_t smem, std::function<void()> kernel_body,
                     bool ftz) {
  const unsigned n = block.x * block.y * block.z;
  if (fibers.size() < n) {
    fibers.resize(n);
    for (Fiber& f : fibers) {
      if (f.stack.empty())
        f.stack.resize(256 * 1024);
    }
  }
  nthreads = n;
  blockDim_ = block;
  gridDim_ = grid;
  lane_vals.assign(((n + 31) / 32) * 32, 0);
  dyn.assign(smem, 0xEE);  // dynamic shared memory starts as garbage
  body = std::move(kernel_body);
  const unsigned csr = _mm_getcsr();
  if (ftz)
    _mm_setcsr(csr | 0x8040);  // FTZ | DAZ: kernels built with -ftz=true
  for (unsigned bz = 0; bz < grid.z; ++bz) {
    for (unsigned by = 0; by < grid.y; ++by) {
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        blockIdx_ = dim3(bx, by, bz);
        dyn.assign(smem, 0xEE);
        run_block();
      }
    }
  }
  _mm_setcsr(csr);
  body = nullptr;
}

#if defined(EMU_FTZ)
inline constexpr bool kFtz = true;
#else
inline constexpr bool kFtz = false;
#endif

template <typename K, typename... A>
void launch(const char* name, const char* file, int line, dim3 grid, dim3 block, size_t smem,
            cudaStream_t stream, K kernel, A... args) {
  auto g = lock();
  State& st = state();
  ++st.launches;
  const unsigned n = block.x * block.y * block.z;
  size_t smem_limit = kSharedDefault;
  auto it = st.func_smem.find(reinterpret_cast<const void*>(kernel));
  if (it != st.func_smem.end())
    smem_limit = std::max<size_t>(smem_limit, static_cast<size_t>(it->second));
  const char* bad = nullptr;
  if (n == 0 || n > 1024 || block.z > 64)
    bad = "block size";
  else if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.y > 65535 || grid.z > 65535)
    bad = "grid size";
  else if (smem > smem_limit)
    bad = "dynamic shared memory beyond the function's limit";
  if (bad) {
    std::fprintf(stderr, "emu: %s:%d: launch of %s fails: %s (grid %u,%u,%u block %u,%u,%u smem %zu)\n",
                 file, line, name, bad, grid.x, grid.y, grid.z, block.x, block.y, block.z, smem);
    st.last_error = smem > smem_limit ? cudaErrorInvalidValue : cudaErrorInvalidConfiguration;
    return;
  }
  enqueue(*stream_of(stream), [=] { run_grid(grid, block, smem, [=] { kernel(args...); }, kFtz); });
}

inline void* dyn_smem() { return dyn.data(); }

// Every thread publishes `v`, waits at `kind`, then reads what `f` makes of the values of its warp
// (kWarp) or block (kBlock).
template <typename F>
inline uint64_t exchange(Wait kind, uint64_t v, F f) {
  const unsigned first = kind == kWarp ? cur_fiber / 32 * 32 : 0;
  const unsigned count = kind == kWarp ? std::min(32u, nthreads - first) : nthreads;
  lane_vals[cur_fiber] = v;
  barrier(kind);
  const uint64_t r = f(&lane_vals[first], count);
  barrier(kind);
  return r;
}

template <typename T>
inline uint64_t bits_of(T v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <typename T>
inline T from_bits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

// One texel fetch with border addressing.
inline float texel(const Texture* t, long i) {
  const cudaArray* a = t->array;
  if (i < 0 || i >= static_cast<long>(a->width))
    return t->desc.borderColor[0];
  float v;
  std::memcpy(&v, a->data.data() + static_cast<size_t>(i) * a->elem, sizeof v);
  return v;
}

}  // namespace emu

#define threadIdx emu::threadIdx_
#define blockIdx emu::blockIdx_
#define blockDim emu::blockDim_
#define gridDim emu::gridDim_
#define warpSize 32
#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline
#define __noinline__
#define __shared__ static
#define __launch_bounds__(...)
#define __syncthreads() emu::barrier(emu::kBlock)
#define __syncwarp(...) emu::barrier(emu::kWarp)
#define __threadfence() ((void)0)
#define __threadfence_block() ((void)0)

inline int __syncthreads_and(int p) {
  return static_cast<int>(emu::exchange(emu::kBlock, p != 0, [](const uint64_t* v, unsigned n) {
    uint64_t r = 1;
    for (unsigned i = 0; i < n; ++i)
      r &= v[i];
    return r;
  }));
}
inline int __syncthreads_or(int p) {
  return static_cast<int>(emu::exchange(emu::kBlock, p != 0, [](const uint64_t* v, unsigned n) {
    uint64_t r = 0;
    for (unsigned i = 0; i < n; ++i)
      r |= v[i];
    return r;
  }));
}
inline int __syncthreads_count(int p) {
  return static_cast<int>(emu::exchange(emu::kBlock, p != 0, [](const uint64_t* v, unsigned n) {
    uint64_t r = 0;
    for (unsigned i = 0; i < n; ++i)
      r += v[i];
    return r;
  }));
}

// ---- warp intrinsics (the mask is taken as "all live lanes")

inline unsigned __ballot_sync(unsigned, int pred) {
  return static_cast<unsigned>(emu::exchange(emu::kWarp, pred ? 1 : 0, [](const uint64_t* v, unsigned n) {
    uint64_t b = 0;
    for (unsigned i = 0; i < n; ++i)
      b |= (v[i] & 1u) << i;
    return b;
  }));
}
inline int __any_sync(unsigned m, int pred) { return __ballot_sync(m, pred) != 0; }
inline int __all_sync(unsigned, int pred) {
  return static_cast<int>(emu::exchange(emu::kWarp, pred ? 1 : 0, [](const uint64_t* v, unsigned n) {
    uint64_t r = 1;
    for (unsigned i = 0; i < n; ++i)
      r &= v[i];
    return r;
  }));
}
template <typename T>
inline T __shfl_sync(unsigned, T v, int src, int width = 32) {
  const unsigned lane = emu::cur_fiber % 32;
  const unsigned from = (lane / width) * width + (static_cast<unsigned>(src) % width);
  return emu::from_bits<T>(emu::exchange(emu::kWarp, emu::bits_of(v),
                                         [from](const uint64_t* a, unsigned) { return a[from]; }));
}
template <typename T>
inline T __shfl_up_sync(unsigned, T v, unsigned d, int width = 32) {
  const unsigned lane = emu::cur_fiber % 32;
  const unsigned from = (lane % width) >= d ? lane - d : lane;
  return emu::from_bits<T>(emu::exchange(emu::kWarp, emu::bits_of(v),
                                         [from](const uint64_t* a, unsigned) { return a[from]; }));
}
template <typename T>
inline T __shfl_down_sync(unsigned, T v, unsigned d, int width = 32) {
  const unsigned lane = emu::cur_fiber % 32;
  const unsigned from = (lane % width) + d < static_cast<unsigned>(width) ? lane + d : lane;
  return emu::from_bits<T>(emu::exchange(emu::kWarp, emu::bits_of(v),
                                         [from](const uint64_t* a, unsigned) { return a[from]; }));
}
template <typename T>
inline T __shfl_xor_sync(unsigned, T v, int m, int width = 32) {
  const unsigned lane = emu::cur_fiber % 32;
  const unsigned from = ((lane ^ m) / width == lane / width) ? lane ^ m : lane;
  return emu::from_bits<T>(emu::exchange(emu::kWarp, emu::bits_of(v),
                                         [from](const uint64_t* a, unsigned) { return a[from]; }));
}
// Lanes whose `v` equals this lane's.
template <typename T>
inline unsigned __match_any_sync(unsigned, T v) {
  const uint64_t mine = emu::bits_of(v);
  return static_cast<unsigned>(emu::exchange(emu::kWarp, mine, [mine](const uint64_t* a, unsigned n) {
    uint64_t b = 0;
    for (unsigned i = 0; i < n; ++i)
      b |= uint64_t(a[i] == mine) << i;
    return b;
  }));
}

// ---- integer and float intrinsics

inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
inline int __ffs(int v) { return __builtin_ffs(v); }
inline int __clz(int v) { return v == 0 ? 32 : __builtin_clz(static_cast<unsigned>(v)); }
inline unsigned __brev(unsigned v) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i)
    r |= ((v >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned __umulhi(unsigned a, unsigned b) {
  return static_cast<unsigned>((static_cast<uint64_t>(a) * b) >> 32);
}
template <typename T>
inline T __ldg(const T* p) {
  return *p;
}
// __expf: the SFU's 2^(x log2 e) (ex2.approx), here exp2f of the same rounded product.
inline float __expf(float x) { return std::exp2(x * 1.44269504088896340736f); }

namespace emu::ptx {
// asm("ex2.approx.ftz.f32 %0, %1;" ...): 2^a (emu.py rewrites the asm statement to a call).
inline float ex2_approx_ftz_f32(float a) { return std::exp2(a); }
}  // namespace emu::ptx

// 1-D texture fetch: linear filtering with the texture unit's 8-bit weight (rounded to nearest),
// or point sampling; unnormalised coordinates, border addressing.
template <typename T>
inline T tex1D(cudaTextureObject_t obj, float x) {
  static_assert(std::is_same_v<T, float>, "emulated textures hold floats");
  const auto* t = reinterpret_cast<const emu::Texture*>(obj);
  if (t->desc.filterMode == cudaFilterModePoint)
    return emu::texel(t, static_cast<long>(std::floor(x)));
  const float xb = x - 0.5f;
  const float fl = std::floor(xb);
  const float w = std::floor((xb - fl) * 256.0f + 0.5f) * (1.0f / 256.0f);
  const long i = static_cast<long>(fl);
  return (1.0f - w) * emu::texel(t, i) + w * emu::texel(t, i + 1);
}

// ---- atomics: blocks and their threads run one at a time, so plain read-modify-writes

template <typename T, typename U>
inline T atomicAdd(T* p, U v) {
  const T old = *p;
  *p = static_cast<T>(old + v);
  return old;
}
template <typename T, typename U>
inline T atomicSub(T* p, U v) {
  const T old = *p;
  *p = static_cast<T>(old - v);
  return old;
}
template <typename T, typename U>
inline T atomicMin(T* p, U v) {
  const T old = *p;
  *p = std::min(old, static_cast<T>(v));
  return old;
}
template <typename T, typename U>
inline T atomicMax(T* p, U v) {
  const T old = *p;
  *p = std::max(old, static_cast<T>(v));
  return old;
}
template <typename T, typename U>
inline T atomicExch(T* p, U v) {
  const T old = *p;
  *p = static_cast<T>(v);
  return old;
}
template <typename T, typename U>
inline T atomicOr(T* p, U v) {
  const T old = *p;
  *p = static_cast<T>(old | v);
  return old;
}
template <typename T, typename U>
inline T atomicAnd(T* p, U v) {
  const T old = *p;
  *p = static_cast<T>(old & v);
  return old;
}
template <typename T, typename U>
inline T atomicCAS(T* p, U cmp, U v) {
  const T old = *p;
  if (old == static_cast<T>(cmp))
    *p = static_cast<T>(v);
  return old;
}

// CUDA's min/max accept mixed arithmetic types.
template <typename A, typename B,
          typename = std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>>>
inline std::common_type_t<A, B> min(A a, B b) {
  return b < a ? b : a;
}
template <typename A, typename B,
          typename = std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>>>
inline std::common_type_t<A, B> max(A a, B b) {
  return a < b ? b : a;
}

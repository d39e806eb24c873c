// CPU emulation of the CUDA kernel language for the median3d kernels (see README.md here). Force-
// included before a copy of each .cu file whose `k<<<g, b, smem, s>>>(args)` launches run.sh has
// rewritten to `emu::launch(g, b, smem, k, args)`. Each CUDA thread of a block is a fiber
// (ucontext) on the calling thread; blocks run one after another, so `__shared__` arrays can be
// function statics. A fiber runs until it reaches a barrier (__syncthreads, or the warp barrier
// that the warp intrinsics use); barriers release when every live thread of the block (warp) waits
// on them, and a state where nothing can run is reported as a deadlock (divergent __syncthreads).
#pragma once

#include <ucontext.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "cuda_runtime_api.h"

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct uint4 {
  unsigned x, y, z, w;
};

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
inline std::vector<uint64_t> warp_vals;
inline std::vector<uint8_t> dyn;
inline int and_acc = 1;
inline dim3 threadIdx_, blockIdx_, blockDim_, gridDim_;
inline long launches = 0;

inline void entry() {
  body();
  fibers[cur_fiber].wait = kDone;  // uc_link returns to the scheduler
}

inline void set_thread(unsigned t) {
  cur_fiber = t;
  threadIdx_ = dim3(t % blockDim_.x, (t / blockDim_.x) % blockDim_.y, t / (blockDim_.x * blockDim_.y));
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
    bool live = false;
    // Alternate the order in which threads run their intervals between barriers, so that a read of
    // another thread's write that lacks a barrier sees stale data in one of the two orders.
    reverse = !reverse;
    for (unsigned i = 0; i < nthreads; ++i) {
      const unsigned t = reverse ? nthreads - 1 - i : i;
      if (fibers[t].wait != kRun) continue;
      set_thread(t);
      swapcontext(&sched, &fibers[t].ctx);
    }
    // Everyone is at a barrier or done: release what is complete.
    bool released = false, block_all = true;
    for (unsigned t = 0; t < nthreads; ++t) {
      if (fibers[t].wait != kDone) live = true;
      if (fibers[t].wait != kDone && fibers[t].wait != kBlock) block_all = false;
    }
    if (!live) return;
    if (block_all) {
      for (unsigned t = 0; t < nthreads; ++t) {
        if (fibers[t].wait == kBlock) fibers[t].wait = kRun;
      }
      continue;
    }
    for (unsigned w = 0; w * 32 < nthreads; ++w) {
      bool all = true, any = false;
      for (unsigned t = w * 32; t < std::min(nthreads, w * 32 + 32); ++t) {
        all = all && (fibers[t].wait == kWarp || fibers[t].wait == kDone);
        any = any || fibers[t].wait == kWarp;
      }
      if (all && any) {
        for (unsigned t = w * 32; t < std::min(nthreads, w * 32 + 32); ++t) {
          if (fibers[t].wait == kWarp) fibers[t].wait = kRun;
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

template <typename K, typename... A>
void launch(dim3 grid, dim3 block, size_t smem, K kernel, A... args) {
  ++launches;
  const unsigned n = block.x * block.y * block.z;
  if (n == 0 || n > 1024 || block.z > 64 || grid.y > 65535 || grid.z > 65535 || smem > 48 * 1024 ||
      grid.x == 0 || grid.y == 0 || grid.z == 0) {
    last_error = cudaErrorInvalidConfiguration;  // what a real launch reports
    return;
  }
  if (fibers.size() < n) {
    fibers.resize(n);
    for (Fiber& f : fibers) f.stack.resize(256 * 1024);
  }
  nthreads = n;
  blockDim_ = block;
  gridDim_ = grid;
  warp_vals.assign(((n + 31) / 32) * 32, 0);
  dyn.assign(smem, 0xEE);  // dynamic shared memory starts as garbage
  body = [=] { kernel(args...); };
  for (unsigned bz = 0; bz < grid.z; ++bz) {
    for (unsigned by = 0; by < grid.y; ++by) {
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        blockIdx_ = dim3(bx, by, bz);
        run_block();
      }
    }
  }
}

inline int syncthreads_and(int p) {
  barrier(kBlock);
  if (cur_fiber == 0) and_acc = 1;
  barrier(kBlock);
  if (!p) and_acc = 0;
  barrier(kBlock);
  return and_acc;
}

// Every lane publishes `v`, then reads what `f` makes of the warp's values.
template <typename F>
inline uint64_t warp_exchange(uint64_t v, F f) {
  const unsigned w = cur_fiber / 32, lane = cur_fiber % 32;
  warp_vals[w * 32 + lane] = v;
  barrier(kWarp);
  const uint64_t r = f(&warp_vals[w * 32]);
  barrier(kWarp);
  return r;
}

}  // namespace emu

#define threadIdx emu::threadIdx_
#define blockIdx emu::blockIdx_
#define blockDim emu::blockDim_
#define gridDim emu::gridDim_
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __syncthreads() emu::barrier(emu::kBlock)
#define __syncthreads_and(p) emu::syncthreads_and(p)
#define __launch_bounds__(...)

inline unsigned __ballot_sync(unsigned, int pred) {
  return static_cast<unsigned>(emu::warp_exchange(pred ? 1 : 0, [](const uint64_t* v) {
    uint64_t b = 0;
    for (int i = 0; i < 32; ++i) b |= (v[i] & 1u) << i;
    return b;
  }));
}
inline int __shfl_sync(unsigned, int v, int src) {
  return static_cast<int>(static_cast<int64_t>(emu::warp_exchange(
      static_cast<uint64_t>(static_cast<int64_t>(v)), [src](const uint64_t* a) { return a[src & 31]; })));
}
// Lanes whose `v` equals this lane's (cuda/ccl).
inline unsigned __match_any_sync(unsigned, int v) {
  return static_cast<unsigned>(emu::warp_exchange(
      static_cast<uint64_t>(static_cast<uint32_t>(v)), [v](const uint64_t* a) {
        uint64_t b = 0;
        for (int i = 0; i < 32; ++i) b |= uint64_t(a[i] == static_cast<uint32_t>(v)) << i;
        return b;
      }));
}
inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __ffs(int v) { return __builtin_ffs(v); }
inline int __clz(int v) { return v == 0 ? 32 : __builtin_clz(static_cast<unsigned>(v)); }
// Atomics: blocks and the threads of a block run one at a time, so plain read-modify-writes.
template <typename T>
inline T atomicAdd(T* p, T v) {
  const T old = *p;
  *p = old + v;
  return old;
}
template <typename T>
inline T atomicMin(T* p, T v) {
  const T old = *p;
  *p = std::min(old, v);
  return old;
}
template <typename T>
inline T atomicMax(T* p, T v) {
  const T old = *p;
  *p = std::max(old, v);
  return old;
}
using std::max;
using std::min;

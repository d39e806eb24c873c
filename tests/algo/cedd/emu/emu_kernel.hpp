// CPU emulation of a CUDA kernel launch (see README.md here): one std::thread per CUDA thread of a
// CTA, a std::barrier for __syncthreads, the CTAs of the grid one after another (a thread runs its
// index in every CTA), so __shared__ arrays can be function statics. Force-included before the
// kernels' source, which run.sh has rewritten from <<<...>>> launch syntax to emu::launch().
#pragma once
#include <algorithm>
#include <barrier>
#include <functional>
#include <thread>
#include <vector>
#include <cstdint>
struct emu_dim3 { unsigned x = 0, y = 0, z = 0; };
namespace emu {
inline thread_local emu_dim3 threadIdx_, blockIdx_, blockDim_;
inline std::barrier<>* bar = nullptr;
inline long launches = 0;
template <typename K, typename... A>
void launch(int grid, int block, K kernel, A... args) {
  ++launches;
  std::barrier<> br(block);
  bar = &br;
  std::vector<std::thread> ts;
  for (int t = 0; t < block; ++t)
    ts.emplace_back([=, &br] {
      threadIdx_.x = t; blockDim_.x = block;
      for (int b = 0; b < grid; ++b) { blockIdx_.x = b; kernel(args...); br.arrive_and_wait(); }
    });
  for (auto& t : ts) t.join();
}
}
#define threadIdx emu::threadIdx_
#define blockIdx emu::blockIdx_
#define blockDim emu::blockDim_
#define __syncthreads() emu::bar->arrive_and_wait()
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(x)
inline uint32_t __umulhi(uint32_t a, uint32_t b) { return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32); }
using std::min;
using std::max;

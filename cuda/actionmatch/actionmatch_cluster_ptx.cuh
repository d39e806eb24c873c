// Distributed shared memory by 32-bit shared::cluster addresses, for the folded trellis
// (actionmatch_trellis.cu; sm_90 cluster code only, included where CVIS_AM_CLUSTER_CODE is
// defined, so the CPU emulation, which has no clusters, never sees the inline PTX).
// cooperative_groups' map_shared_rank gives a generic 64-bit pointer (mapa, then a generic store);
// these use the shared::cluster window directly, so no 64-bit base pointer stays live across the
// trellis's row loop.
#pragma once

#include <cstdint>

namespace cvis::actionmatch::kernels::cluster_ptx {

// The shared::cluster address of `local` (this block's shared memory) in block `rank` of the
// cluster.
__device__ __forceinline__ uint32_t addr(const void* local, int rank) {
  const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(local));
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  return r;
}

__device__ __forceinline__ void store_u64(uint32_t a, int64_t v) {
  asm volatile("st.shared::cluster.u64 [%0], %1;" ::"r"(a), "l"(v) : "memory");
}

__device__ __forceinline__ void min_u32(uint32_t a, uint32_t v) {
  asm volatile("red.shared::cluster.min.u32 [%0], %1;" ::"r"(a), "r"(v) : "memory");
}

} // namespace cvis::actionmatch::kernels::cluster_ptx

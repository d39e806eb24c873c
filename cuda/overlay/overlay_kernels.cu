// CUDA overlay kernels: the mask tint and the tiled primitive pass. The per-pixel rules are the
// CPU reference's (overlay_raster.hpp); only the order of evaluation differs (README.md).
#include "common/cuda/check.hpp"
#include "common/cuda/preload.hpp"
#include "overlay_kernels.hpp"

namespace cvis::overlay::kernels {
namespace {

constexpr int kQuads = kTile / 2;       // quads per tile side: 16 x 16 threads per block
constexpr int kStage = kQuads * kQuads; // primitives staged in shared memory at a time

__global__ void tint_kernel(Target t, const uint8_t* mask, size_t mask_pitch, Tint tint) {
  const int x = 2 * static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = 2 * static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= t.width || y >= t.height)
    return;
  tint_quad(t, mask, mask_pitch, tint, x, y);
}

__global__ void __launch_bounds__(kStage)
    tiles_kernel(Target t, const Prim* prims, const TileRef* tiles, const int32_t* ids) {
  __shared__ Prim staged[kStage];
  const TileRef tile = tiles[blockIdx.x];
  const int tid = threadIdx.y * kQuads + threadIdx.x;
  const int x = tile.tx * kTile + 2 * threadIdx.x, y = tile.ty * kTile + 2 * threadIdx.y;
  QuadColors q = {{0, 0, 0, 0}, 0};
  for (int base = 0; base < tile.count; base += kStage) {
    const int n = min(kStage, tile.count - base);
    __syncthreads(); // the previous chunk is no longer read
    if (tid < n)
      staged[tid] = prims[ids[tile.begin + base + tid]];
    __syncthreads();
    for (int i = 0; i < n; ++i)
      quad_accumulate(staged[i], x, y, t.width, t.height, &q);
  }
  if (x < t.width && y < t.height)
    quad_write(t, x, y, q);
}

CVIS_PRELOAD_MODULE(tint_kernel);

} // namespace

Status launch_tint(const Target& t, const uint8_t* mask, size_t mask_pitch, const Tint& tint,
                   cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((t.width + 2 * block.x - 1) / (2 * block.x),
                  (t.height + 2 * block.y - 1) / (2 * block.y));
  tint_kernel<<<grid, block, 0, stream>>>(t, mask, mask_pitch, tint);
  CVIS_CUDA_CHECK_LAUNCH(stream, "overlay tint_kernel");
  return Status::Ok();
}

Status launch_tiles(const Target& t, const Prim* prims, const TileRef* tiles, int ntiles,
                    const int32_t* ids, cudaStream_t stream) {
  if (ntiles == 0)
    return Status::Ok();
  tiles_kernel<<<ntiles, dim3(kQuads, kQuads), 0, stream>>>(t, prims, tiles, ids);
  CVIS_CUDA_CHECK_LAUNCH(stream, "overlay tiles_kernel");
  return Status::Ok();
}

} // namespace cvis::overlay::kernels

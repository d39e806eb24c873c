// Connected components of a mask (8-connectivity) on the GPU: area and bounding box of
// every component, and the foreground count.
//
// Block union-find, after Playne and Hawick (IEEE TPDS 2018) and Allegretti et al. (IEEE TPDS
// 2020), with row runs from warp ballots as in Hennequin et al. (HA4, 2018):
//  1. ccl_local: each 32x8 tile (one block; a warp is one tile row) labels its own pixels in shared
//     memory: every pixel starts at the first pixel of its run in the tile row (ballot), runs of
//     consecutive rows are united once per adjacent pair (rules below), paths are flattened. Each
//     pixel's global label is its tile root; each tile root also stores the packed area and box of
//     its tile component (tile_stats), and the block adds its foreground count.
//  2. ccl_border: pixels on tile borders unite their tile components with the neighbouring tiles'
//     (global union-find: atomicMin links the larger root under the smaller).
//  3. ccl_resolve: tile roots store their final root (read-only finds); final roots take a record.
//  4. ccl_stats: tile roots add their packed stats to their component's record (atomics per tile
//     component, not per pixel: a frame-sized blob costs ~8,000 atomics, not 10 million).
//  5. ccl_keep: records with area >= min_area are compacted.
// Labels are dense indices y * width + x and every link goes to the smaller index, so a
// component's root is its first pixel in raster order, which is the CPU reference's order.
//
// Runs: with B the foreground bits of a row and A those of the row above, a run R = [rs, re] of B
// and a run T of A are 8-adjacent iff T meets [rs - 1, re + 1]. One union per adjacent pair, made
// by the pixel p of R at column clamp(c, rs, re), c = the first column of T in that window:
//   A(x) and not A(x - 1)              -> unite(p, (x, y - 1))
//   x = rs and A(x - 1)                -> unite(p, (x - 1, y - 1))
//   x = re and not A(x) and A(x + 1)   -> unite(p, (x + 1, y - 1))
#include <climits>

#include "ccl_kernels.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/preload.hpp"
#include "common/cuda/tiles.hpp"
#include "common/mask_area.hpp"

namespace cvis::ccl::kernels {

namespace {

constexpr int kBx = cuda::kTileW, kBy = cuda::kTileH; // the tile: one block, a warp per row
constexpr unsigned kFull = 0xffffffffu;
using cuda::tile_grid;

__device__ __forceinline__ bool is_fg(const DeviceLabels& m, int x, int y) {
  return m.mask[static_cast<size_t>(y) * m.pitch + x] != 0;
}

// Root of i, in shared (tile) or global memory; other threads relink concurrently, hence volatile
// reads. find_global also halves the path (writes a grandparent, always an ancestor), which keeps
// a concurrent find or link correct while merging (a link lost to such a write is redone by its
// unite loop); after merging only read-only finds are used (ccl_resolve).
__device__ __forceinline__ int find_tile(const volatile int* s, int i) {
  int p = s[i];
  while (p != i) {
    i = p;
    p = s[i];
  }
  return i;
}

__device__ __forceinline__ int find_global(volatile int32_t* l, int i) {
  int p = l[i];
  while (p != i) {
    const int gp = l[p];
    if (gp != p)
      l[i] = gp;
    i = p;
    p = gp;
  }
  return i;
}

// Links the trees of a and b, the larger root under the smaller. atomicMin returns the real parent
// when another thread got there first; the loop then continues from it.
template <typename Find> __device__ void unite(int* l, int a, int b, Find find) {
  while (true) {
    a = find(a);
    b = find(b);
    if (a == b)
      return;
    if (a > b) {
      const int t = a;
      a = b;
      b = t;
    }
    const int old = atomicMin(l + b, a);
    if (old == b)
      return;
    b = old;
  }
}

// Packed statistics of a tile component: area (1..256), min and max column in the tile, max row
// in the tile (its min row is its root's row).
__device__ __forceinline__ uint32_t pack_stats(int area, int xmin, int xmax, int ymax) {
  return static_cast<uint32_t>(area) | (xmin << 9) | (xmax << 14) | (ymax << 19);
}

__global__ void __launch_bounds__(kBx* kBy) ccl_local(DeviceLabels m) {
  if (m.gate && *m.gate == 0)
    return;
  __shared__ int lab[kBy * kBx];
  __shared__ unsigned bits[kBy];
  __shared__ int area[kBy * kBx], xmin[kBy * kBx], xmax[kBy * kBx], ymax[kBy * kBx];
  __shared__ unsigned count;
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * kBx + tx;
  const int x = blockIdx.x * kBx + tx, y = blockIdx.y * kBy + ty;
  const bool inside = x < m.width && y < m.height;
  const bool fg = inside && is_fg(m, x, y);
  // An empty tile (most tiles of a motion or foreground mask) has no labels, stats or count: it
  // only clears its stats (ccl_resolve and ccl_stats read them at every pixel) and skips the
  // shared-memory union-find and its barriers.
  if (!__syncthreads_or(fg)) {
    if (inside)
      m.tile_stats[static_cast<size_t>(y) * m.width + x] = 0u;
    return;
  }
  const unsigned row = __ballot_sync(kFull, fg);
  if (tx == 0) {
    bits[ty] = row;
    if (ty == 0)
      count = 0;
  }
  area[t] = 0;
  xmin[t] = kBx - 1;
  xmax[t] = 0;
  ymax[t] = 0;
  if (fg) {
    const unsigned before = ~row & ((1u << tx) - 1u); // background lanes left of this one
    lab[t] = ty * kBx + (before ? 32 - __clz(before) : 0);
  } else {
    lab[t] = -1;
  }
  __syncthreads();
  if (fg && ty > 0) {
    const unsigned up = bits[ty - 1];
    const bool a_c = (up >> tx) & 1u;
    const bool a_l = tx > 0 && ((up >> (tx - 1)) & 1u);
    const bool a_r = tx + 1 < kBx && ((up >> (tx + 1)) & 1u);
    const bool start = tx == 0 || !((row >> (tx - 1)) & 1u);
    const bool end = tx + 1 == kBx || !((row >> (tx + 1)) & 1u);
    auto find = [&](int i) { return find_tile(lab, i); };
    if (a_c && !a_l)
      unite(lab, t, t - kBx, find);
    if (start && a_l)
      unite(lab, t, t - kBx - 1, find);
    if (end && !a_c && a_r)
      unite(lab, t, t - kBx + 1, find);
  }
  __syncthreads();
  const int root = fg ? find_tile(lab, t) : -1;
  // One shared atomic per (warp, component): lanes of this tile row with the same root.
  const unsigned group = __match_any_sync(kFull, root);
  if (fg && tx == __ffs(group) - 1) {
    atomicAdd(&area[root], __popc(group));
    atomicMin(&xmin[root], tx);
    atomicMax(&xmax[root], 31 - __clz(group));
    atomicMax(&ymax[root], ty);
  }
  if (tx == 0 && row)
    atomicAdd(&count, static_cast<unsigned>(__popc(row)));
  __syncthreads();
  if (inside) {
    const size_t i = static_cast<size_t>(y) * m.width + x;
    const int gx = blockIdx.x * kBx, gy = blockIdx.y * kBy;
    if (fg)
      m.labels[i] = (gy + root / kBx) * m.width + gx + root % kBx;
    m.tile_stats[i] = fg && root == t ? pack_stats(area[t], xmin[t], xmax[t], ymax[t]) : 0u;
  }
  if (t == 0 && count)
    atomicAdd(&m.counters->foreground, static_cast<unsigned long long>(count));
}

// Only a tile's border pixels have work here: its top row (kBx) and its left and right columns
// below that row (2 (kBy - 1)), one thread each in a block of kBorderThreads per tile (a block of
// the tile's kBx * kBy threads left ~80% of its lanes idle).
constexpr int kBorderThreads = 64;
static_assert(kBx + 2 * (kBy - 1) <= kBorderThreads, "one thread per border pixel");

__global__ void __launch_bounds__(kBorderThreads) ccl_border(DeviceLabels m) {
  if (m.gate && *m.gate == 0)
    return;
  const int j = threadIdx.x;
  if (j >= kBx + 2 * (kBy - 1))
    return;
  const int tx = j < kBx ? j : (j < kBx + kBy - 1 ? 0 : kBx - 1);
  const int ty = j < kBx ? 0 : (j < kBx + kBy - 1 ? j - kBx + 1 : j - kBx - kBy + 2);
  const int x = blockIdx.x * kBx + tx, y = blockIdx.y * kBy + ty;
  if (x >= m.width || y >= m.height)
    return;
  const bool left = tx == 0 && x > 0, top = ty == 0 && y > 0;
  const bool right = tx == kBx - 1 && x + 1 < m.width;
  if (!(left || top || (right && y > 0)) || !is_fg(m, x, y))
    return;
  const int w = m.width, i = y * w + x;
  auto fg = [&](int xx, int yy) { return is_fg(m, xx, yy); };
  auto find = [&](int j) { return find_global(m.labels, j); };
  if (left && fg(x - 1, y))
    unite(m.labels, i, i - 1, find);
  if (top) { // the row above is another tile row: the run rules with the image's runs
    const bool a_c = fg(x, y - 1), a_l = x > 0 && fg(x - 1, y - 1);
    const bool a_r = x + 1 < w && fg(x + 1, y - 1);
    const bool start = x == 0 || !fg(x - 1, y), end = x + 1 == w || !fg(x + 1, y);
    if (a_c && !a_l)
      unite(m.labels, i, i - w, find);
    if (start && a_l)
      unite(m.labels, i, i - w - 1, find);
    if (end && !a_c && a_r)
      unite(m.labels, i, i - w + 1, find);
  } else if (y > 0) {
    // Diagonals into the left / right tile of this tile row. Already connected when the pixel
    // beside p (linked by the left rule, and in one tile with the diagonal pixel) or the pixel
    // above p (same tile as p; its own left rule or its right neighbour's) is foreground.
    const bool up = fg(x, y - 1);
    if (left && !up && fg(x - 1, y - 1) && !fg(x - 1, y))
      unite(m.labels, i, i - w - 1, find);
    if (right && !up && fg(x + 1, y - 1) && !fg(x + 1, y))
      unite(m.labels, i, i - w + 1, find);
  }
}

__global__ void ccl_resolve(DeviceLabels m) {
  if (m.gate && *m.gate == 0)
    return;
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  const int i = y * m.width + x;
  if (m.tile_stats[i] == 0)
    return; // not a tile root
  // Read-only find: a path-halving write here could land after another tile root stored its final
  // root and put back an older ancestor, which ccl_stats would then take for a root.
  const int r = find_tile(m.labels, i);
  if (r != i) {
    m.labels[i] = r;
    return;
  }
  const int k = atomicAdd(&m.counters->roots, 1);
  if (k >= m.blob_capacity)
    return; // cannot happen: capacity bounds the 8-connected components
  m.slot[i] = k;
  // y0 is the root's row: the root is the component's first pixel in raster order.
  m.components[k] = BlobRecord{i, INT_MAX, y, -1, -1, 0};
}

__global__ void ccl_stats(DeviceLabels m) {
  if (m.gate && *m.gate == 0)
    return;
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  const int i = y * m.width + x;
  const uint32_t s = m.tile_stats[i];
  if (s == 0)
    return;
  const int k = m.slot[m.labels[i]];
  if (k < 0 || k >= m.blob_capacity)
    return;
  const int gx = blockIdx.x * kBx, gy = blockIdx.y * kBy;
  BlobRecord* b = m.components + k;
  atomicAdd(&b->area, static_cast<int>(s & 511u));
  atomicMin(&b->x0, gx + static_cast<int>((s >> 9) & 31u));
  atomicMax(&b->x1, gx + static_cast<int>((s >> 14) & 31u));
  atomicMax(&b->y1, gy + static_cast<int>((s >> 19) & 7u));
}

__global__ void ccl_reset(DeviceLabels m) {
  if (!m.gate || *m.gate != 0)
    *m.counters = CclCounters{};
}

__global__ void ccl_keep(DeviceLabels m, int min_area) {
  if (m.gate && *m.gate == 0)
    return;
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= m.counters->roots || k >= m.blob_capacity)
    return;
  const BlobRecord b = m.components[k];
  if (b.area < min_area)
    return;
  const int j = atomicAdd(&m.counters->kept, 1);
  m.kept[j] = b;
}

// Clears the foreground pixels of components smaller than min_area: a pixel's label is its tile
// root, whose label ccl_resolve made the component's root, whose slot is its record.
__global__ void area_filter_kernel(DeviceLabels m, uint8_t* mask, int min_area) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height || !is_fg(m, x, y))
    return;
  const ComponentAreas a{m.labels, m.slot, m.components, m.width, m.blob_capacity};
  if (in_small_component(a, x, y, min_area))
    mask[static_cast<size_t>(y) * m.pitch + x] = 0;
}

// The record of a foreground pixel of the labelled mask, or -1.
__device__ __forceinline__ int record_of(const DeviceLabels& m, int x, int y) {
  const int k = m.slot[m.labels[m.labels[y * m.width + x]]];
  return k >= 0 && k < m.blob_capacity ? k : -1;
}

// Per record, the component's pixels that `prev` holds and, with `prev2` and light.frame (aware),
// those both hold (overlap + capacity) and the lit ones (overlap + 2 capacity): one atomic per run
// of a warp's lanes (a tile row) in one component, not one per pixel (a frame-wide object would
// put tens of thousands on one address).
__global__ void overlap_kernel(DeviceLabels m, const uint8_t* prev, const uint8_t* prev2,
                               size_t prev_pitch, seg::AddedLight light, bool aware,
                               int32_t* overlap) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x == 0 && y == 0) { // persist_keep_kernel (later in stream order) counts the output anew
    m.counters->foreground = 0;
    m.counters->kept = 0;
  }
  const bool fg = x < m.width && y < m.height && is_fg(m, x, y);
  const size_t at = static_cast<size_t>(y) * prev_pitch + x;
  const bool in1 = fg && prev[at];
  bool in2 = false, lit = false;
  if (aware && fg) {
    in2 = in1 && prev2[at];
    const size_t l = static_cast<size_t>(y) * light.pitch + x;
    lit = seg::lit(light.frame[l], light.background[l], light.levels);
  }
  const int k = (aware ? fg : in1) ? record_of(m, x, y) : -1;
  const unsigned same = __match_any_sync(kFull, k); // every lane: the -1 lanes match each other
  const unsigned b1 = __ballot_sync(kFull, in1), b2 = __ballot_sync(kFull, in2),
                 bl = __ballot_sync(kFull, lit);
  if (k >= 0 && static_cast<int>(threadIdx.x) == __ffs(same) - 1) {
    const int c = m.blob_capacity;
    if (same & b1)
      atomicAdd(overlap + k, __popc(same & b1));
    if (same & b2)
      atomicAdd(overlap + c + k, __popc(same & b2));
    if (same & bl)
      atomicAdd(overlap + 2 * c + k, __popc(same & bl));
  }
}

__device__ __forceinline__ bool keeps(const DeviceLabels& m, const int32_t* overlap, int k,
                                      int area, float persistence, bool aware) {
  const int c = m.blob_capacity;
  return aware ? seg::persistent(overlap[k], overlap[c + k], overlap[2 * c + k], area, persistence)
               : seg::persistent(overlap[k], area, persistence);
}

// Writes out and the mask into the next frame's reference: prev2's buffer with prev2 (which only
// overlap_kernel reads, earlier in stream order; the trimming reads prev around each pixel), prev's
// without. Sets *trimmed when it clears a pixel.
__global__ void persist_kernel(DeviceLabels m, const uint8_t* prev, size_t prev_pitch,
                               seg::AddedLight light, const int32_t* overlap,
                               float persistence, bool aware, uint8_t* out, size_t out_pitch,
                               uint8_t* next, int32_t* trimmed) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  const uint8_t v = m.mask[static_cast<size_t>(y) * m.pitch + x];
  uint8_t o = 0;
  if (v) {
    const int k = record_of(m, x, y);
    o = k >= 0 && keeps(m, overlap, k, m.components[k].area, persistence, aware) ? 255 : 0;
    if (o && aware && light.trim_radius > 0) {
      const size_t l = static_cast<size_t>(y) * light.pitch + x;
      if (seg::lit(light.frame[l], light.background[l], light.levels) &&
          !seg::foreground_near(prev, prev_pitch, m.width, m.height, x, y, light.trim_radius)) {
        o = 0;
        *trimmed = 1;
      }
    }
  }
  out[static_cast<size_t>(y) * out_pitch + x] = o;
  next[static_cast<size_t>(y) * prev_pitch + x] = v;
}

// The output's counters and records without labelling it: it is a union of whole components of
// the labelled mask (no two of them touch), so its components are the persistent records. Those
// the mask's own filter cleared have no pixel left in it, hence overlap 0: never persistent.
__global__ void persist_keep_kernel(DeviceLabels m, const int32_t* overlap, float persistence,
                                    bool aware, int min_area) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long area = 0;
  if (k < m.counters->roots && k < m.blob_capacity) {
    const BlobRecord b = m.components[k];
    if (keeps(m, overlap, k, b.area, persistence, aware)) {
      area = static_cast<unsigned long long>(b.area);
      if (b.area >= min_area)
        m.kept[atomicAdd(&m.counters->kept, 1)] = b;
    }
  }
  for (int d = 16; d > 0; d /= 2)
    area += __shfl_down_sync(kFull, area, d);
  if ((threadIdx.x & 31u) == 0 && area)
    atomicAdd(&m.counters->foreground, area);
}

CVIS_PRELOAD_MODULE(ccl_resolve);

} // namespace

Status launch_area_filter(const DeviceLabels& m, uint8_t* mask, int min_area, cudaStream_t stream) {
  area_filter_kernel<<<tile_grid(m.width, m.height), dim3(kBx, kBy), 0, stream>>>(m, mask,
                                                                                  min_area);
  CVIS_CUDA_CHECK_LAUNCH(stream, "ccl area_filter_kernel");
  return Status::Ok();
}

Status launch_blobs(const DeviceLabels& m, int min_area, cudaStream_t stream) {
  const dim3 grid = tile_grid(m.width, m.height), block(kBx, kBy);
  if (m.gate) {
    ccl_reset<<<1, 1, 0, stream>>>(m);
    CVIS_CUDA_CHECK_LAUNCH(stream, "ccl ccl_reset");
  } else {
    CVIS_CUDA_CHECK(cudaMemsetAsync(m.counters, 0, sizeof(CclCounters), stream));
  }
  ccl_local<<<grid, block, 0, stream>>>(m);
  CVIS_CUDA_CHECK_LAUNCH(stream, "ccl ccl_local");
  ccl_border<<<grid, kBorderThreads, 0, stream>>>(m);
  CVIS_CUDA_CHECK_LAUNCH(stream, "ccl ccl_border");
  ccl_resolve<<<grid, block, 0, stream>>>(m);
  CVIS_CUDA_CHECK_LAUNCH(stream, "ccl ccl_resolve");
  ccl_stats<<<grid, block, 0, stream>>>(m);
  CVIS_CUDA_CHECK_LAUNCH(stream, "ccl ccl_stats");
  ccl_keep<<<cuda::div_up(m.blob_capacity, 256), 256, 0, stream>>>(m, min_area);
  CVIS_CUDA_CHECK_LAUNCH(stream, "ccl ccl_keep");
  return Status::Ok();
}

Status launch_persistence(const DeviceLabels& m, uint8_t* prev, size_t prev_pitch, uint8_t* prev2,
                          const seg::AddedLight& light, int32_t* overlap, float persistence,
                          int min_area, uint8_t* out, size_t out_pitch, cudaStream_t stream) {
  const dim3 grid = tile_grid(m.width, m.height), block(kBx, kBy);
  const bool aware = prev2 && light.frame && light.background;
  CVIS_CUDA_CHECK(cudaMemsetAsync(
      overlap, 0, sizeof(int32_t) * (3 * static_cast<size_t>(m.blob_capacity) + 1), stream));
  overlap_kernel<<<grid, block, 0, stream>>>(m, prev, prev2, prev_pitch, light, aware, overlap);
  CVIS_CUDA_CHECK_LAUNCH(stream, "ccl overlap_kernel");
  persist_kernel<<<grid, block, 0, stream>>>(m, prev, prev_pitch, light, overlap,
                                             persistence, aware, out, out_pitch,
                                             prev2 ? prev2 : prev,
                                             trimmed_flag(overlap, m.blob_capacity));
  CVIS_CUDA_CHECK_LAUNCH(stream, "ccl persist_kernel");
  persist_keep_kernel<<<cuda::div_up(m.blob_capacity, 256), 256, 0, stream>>>(
      m, overlap, persistence, aware, min_area);
  CVIS_CUDA_CHECK_LAUNCH(stream, "ccl persist_keep_kernel");
  return Status::Ok();
}

} // namespace cvis::ccl::kernels

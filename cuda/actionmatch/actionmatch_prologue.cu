// The prologue kernel: what every trellis row of every pair reads and no row changes, made once per
// match() call (ray directions, angle tables, cell work lists, unary terms).
#include <algorithm>

#include "actionmatch_kernels.hpp"
#include "actionmatch_terms.hpp"
#include "actionmatch_trellis_device.cuh"
#include "common/cuda/check.hpp"
#include "common/cuda/preload.hpp"

namespace cvis::actionmatch::kernels {

namespace {

// The prologue's shape: blocks of 32 x 8 threads; the first ceil(scene nodes / 8) blocks take
// 8 scene nodes each (a lane per ray of the node's window), the next (with the angle table) 32
// trellis cells each, then 256 cells each for the work list, the others unary tiles of 32 columns
// x 16 model nodes (kUnaryNodes), the descriptors read kUnaryChunk values at a time.
constexpr int kPrologueX = 32, kPrologueY = 8, kUnaryChunk = 32;

__device__ void directions_block(const MatchTables& t, int dblock) {
  const SceneTables& sc = t.scenes;
  const int x = dblock * kPrologueY + threadIdx.y;
  if (x >= sc.nodes)
    return;
  const SceneBlock B = sc.blocks[sc.node_block[x]];
  double* out = t.derived.dirs + B.dir0 + sc.dir_rel[x];
  const int first = B.node0 + sc.win_lo[x], n = sc.win_cnt[x];
  const float x0 = sc.x[x], y0 = sc.y[x];
  for (int k = threadIdx.x; k < n; k += kPrologueX)
    out[k] = terms::ray(x0, y0, sc.x[first + k], sc.y[first + k]);
}

// The scene block of cell `cell` (an index into the cells of all blocks): the last block with
// cell0 <= cell (blocks without cells share their successor's cell0), by binary search.
__device__ int block_of(const SceneTables& sc, int cell) {
  int lo = 0, hi = sc.blocks_count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (sc.blocks[mid].cell0 <= cell)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// Angle table of 32 cells (8 lanes per cell, a lane per 8th candidate): the angles the trellis
// would compute from the ray directions, by the same terms::ray and terms::angle_at, hence the
// same bits (the rays are recomputed here: the direction table is made by this same launch).
__device__ void angles_block(const MatchTables& t, int ablock) {
  const SceneTables& sc = t.scenes;
  const EnergyTerms& e = t.energy;
  const int tid = threadIdx.y * kPrologueX + threadIdx.x;
  const int cg = ablock * (kPrologueX * kPrologueY / 8) + tid / 8, lane = tid % 8;
  if (cg >= sc.cells)
    return;
  const SceneBlock B = sc.blocks[block_of(sc, cg)];
  const int dummy = B.nodes, cell = cg - B.cell0;
  const int b = sc.cell_b[cg];
  if (b == dummy || cell >= sc.seg_end[B.seg0 + b])
    return; // a dummy member: no distortion term
  const int c = cell - sc.seg_base[B.seg0 + b];
  const int32_t* frame = sc.frame + B.node0;
  int flo, fhi, first, end;
  terms::candidate_frames(true, frame[b], true, frame[c], e.T, e.causality, &flo, &fhi);
  terms::nodes_of_frames(flo, fhi, sc.minnode + B.minnode0, B.frame0, B.frames, dummy, &first,
                         &end);
  const float* x = sc.x + B.node0;
  const float* y = sc.y + B.node0;
  SceneAngles* out = t.derived.angles + B.angle0 + sc.angle_off[cg];
  const double b_to_c = terms::ray(x[b], y[b], x[c], y[c]);
  for (int a = first + lane; a < end; a += 8) {
    SceneAngles v;
    v.mid = terms::angle_at(terms::ray(x[b], y[b], x[a], y[a]), b_to_c);
    v.last =
        terms::angle_at(terms::ray(x[a], y[a], x[b], y[b]), terms::ray(x[a], y[a], x[c], y[c]));
    out[a - first] = v;
  }
}

// The work list of 256 cells (a thread per cell, in each block's work order; CellWork): the
// interval of candidates from the same terms::candidate_frames / nodes_of_frames as the CPU rows.
__device__ void work_block(const MatchTables& t, int wblock) {
  const SceneTables& sc = t.scenes;
  const EnergyTerms& e = t.energy;
  const int gi = wblock * (kPrologueX * kPrologueY) + threadIdx.y * kPrologueX + threadIdx.x;
  if (gi >= sc.cells)
    return;
  const SceneBlock B = sc.blocks[block_of(sc, gi)];
  const int dummy = B.nodes;
  const int cell = sc.cell_order[gi];
  const int b = sc.cell_b[B.cell0 + cell];
  const int c = cell < sc.seg_end[B.seg0 + b] ? cell - sc.seg_base[B.seg0 + b] : dummy;
  const int32_t* frame = sc.frame + B.node0;
  int flo, fhi, first, end;
  terms::candidate_frames(b < dummy, b < dummy ? frame[b] : 0, c < dummy, c < dummy ? frame[c] : 0,
                          e.T, e.causality, &flo, &fhi);
  terms::nodes_of_frames(flo, fhi, sc.minnode + B.minnode0, B.frame0, B.frames, dummy, &first,
                         &end);
  const int gap = b < dummy && c < dummy ? frame[b] - frame[c] : -1;
  const int code = gap >= 0 && gap < kNoGapCode ? gap : kNoGapCode;
  CellWork w;
  w.cell_gap = static_cast<uint32_t>(cell) | static_cast<uint32_t>(code) << kWorkCellBits;
  w.bc = static_cast<uint32_t>(b) | static_cast<uint32_t>(c) << 16;
  w.range = static_cast<uint32_t>(first) | static_cast<uint32_t>(end) << 16;
  w.angles = sc.angle_off[B.cell0 + cell];
  t.derived.work[gi] = w;
}

// Model nodes of a unary tile: two per thread (rows ty and ty + kPrologueY), so that each scene
// value read from shared memory serves two sums and a thread has two independent addition chains.
constexpr int kUnaryNodes = 2 * kPrologueY;

// Tile `tile`: columns (unary slots) [32 tx0, + 32) x model nodes [16 ty0, + 16). Thread (tx, ty)
// sums its two (model node, column) values term by term in index order, reading both descriptors
// from shared memory (the scene's transposed, so that the 32 lanes of a warp read 32 banks, the
// model's broadcast): the same operations as terms::unary_q, hence the same bits. The descriptors
// are staged as doubles (the double of a float is exact, so the terms are unchanged): each value
// is converted once when staged instead of once per product (float -> double conversions run at a
// quarter of the FP64 rate on sm_90). The next chunk's values are loaded into registers while the
// current one is summed, so that the L2 latency of the staging is not paid once per chunk.
__device__ void unary_tile(const MatchTables& t, int tile) {
  __shared__ double sc[kUnaryChunk][kPrologueX + 1];
  __shared__ double md[kUnaryNodes][kUnaryChunk];
  __shared__ int node_of[kPrologueX]; // scene node of each column of the tile, -1: dummy or none
  constexpr int kScenePerThread = kPrologueX / kPrologueY;
  const SceneTables& s = t.scenes;
  const ModelTables& mo = t.models;
  const int dim = t.energy.dim;
  const int tiles_x = (s.slots + kPrologueX - 1) / kPrologueX;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int slot0 = (tile % tiles_x) * kPrologueX, g0 = (tile / tiles_x) * kUnaryNodes;
  const int slot = slot0 + tx;
  int blk = 0, a = 0;
  SceneBlock B;
  if (slot < s.slots) {
    blk = s.slot_block[slot];
    B = s.blocks[blk];
    a = slot - B.slot0;
  }
  if (ty == 0)
    node_of[tx] = slot < s.slots && a < B.nodes ? B.node0 + a : -1;
  __syncthreads(); // node_of written (and the previous tile's reads of sc, md done)
  // This thread's share of a chunk's staging: value tx of the descriptors of columns ty + 8 i and
  // of model nodes g0 + ty + 8 i (0 beyond the descriptor or for the dummy / missing columns).
  float sv[kScenePerThread], mv[2];
  const auto fetch = [&](int k0) {
    const int kn = dim - k0 < kUnaryChunk ? dim - k0 : kUnaryChunk;
#pragma unroll
    for (int i = 0; i < kScenePerThread; ++i) {
      const int n = node_of[ty + kPrologueY * i];
      sv[i] = n >= 0 && tx < kn ? s.desc[static_cast<int64_t>(n) * dim + k0 + tx] : 0.f;
    }
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int g = g0 + ty + kPrologueY * i;
      mv[i] = g < mo.nodes && tx < kn ? mo.desc[static_cast<int64_t>(g) * dim + k0 + tx] : 0.f;
    }
  };
  fetch(0);
  double sum0 = 0.0, sum1 = 0.0;
  for (int k0 = 0; k0 < dim; k0 += kUnaryChunk) {
    const int kn = dim - k0 < kUnaryChunk ? dim - k0 : kUnaryChunk;
    __syncthreads(); // the previous chunk read
#pragma unroll
    for (int i = 0; i < kScenePerThread; ++i)
      sc[tx][ty + kPrologueY * i] = static_cast<double>(sv[i]);
    md[ty][tx] = static_cast<double>(mv[0]);
    md[ty + kPrologueY][tx] = static_cast<double>(mv[1]);
    __syncthreads();
    if (k0 + kUnaryChunk < dim)
      fetch(k0 + kUnaryChunk); // in flight during the sums below
    if (kn == kUnaryChunk) {
#pragma unroll 8
      for (int k = 0; k < kUnaryChunk; ++k) {
        const double v = sc[k][tx];
        sum0 = terms::unary_add(sum0, md[ty][k], v);
        sum1 = terms::unary_add(sum1, md[ty + kPrologueY][k], v);
      }
    } else {
      for (int k = 0; k < kn; ++k) {
        const double v = sc[k][tx];
        sum0 = terms::unary_add(sum0, md[ty][k], v);
        sum1 = terms::unary_add(sum1, md[ty + kPrologueY][k], v);
      }
    }
  }
  if (slot >= s.slots)
    return;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int g = g0 + ty + kPrologueY * i;
    if (g >= mo.nodes)
      continue;
    const int m = mo.node_model[g], r = g - mo.node0[m];
    const PairInfo& pi = t.pairs.pairs[blk * mo.count + m];
    int64_t* out = t.derived.unary + pi.unary0 + static_cast<int64_t>(r) * (B.nodes + 1) + a;
    *out = a == B.nodes ? t.energy.dummy_q
                        : terms::unary_finish(i == 0 ? sum0 : sum1, t.energy.lambda1);
  }
}

// Blocks [0, dir_blocks): directions; [dir_blocks, angle_blocks): angle tables; [angle_blocks,
// work_blocks): cell work lists; the rest stride over the unary tiles (block-uniform, so the
// tiles' barriers are reached by every thread of a block).
__global__ void __launch_bounds__(kPrologueX* kPrologueY)
    prologue_kernel(MatchTables t, int dir_blocks, int angle_blocks, int work_blocks,
                    int unary_tiles) {
  allow_dependent_launch(); // the trellis may launch; it waits for this grid (wait_for_prologue)
  const int bx = blockIdx.x;
  if (bx < dir_blocks) {
    directions_block(t, bx);
    return;
  }
  if (bx < angle_blocks) {
    angles_block(t, bx - dir_blocks);
    return;
  }
  if (bx < work_blocks) {
    work_block(t, bx - angle_blocks);
    return;
  }
  const int stride = gridDim.x - work_blocks;
  for (int tile = bx - work_blocks; tile < unary_tiles; tile += stride)
    unary_tile(t, tile);
}

CVIS_PRELOAD_MODULE(prologue_kernel);

} // namespace

Status launch_prologue(const MatchTables& t, cudaStream_t stream) {
  const SceneTables& sc = t.scenes;
  const int dir_blocks = (sc.nodes + kPrologueY - 1) / kPrologueY;
  const int cells_per_block = kPrologueX * kPrologueY / 8;
  const int angle_blocks =
      dir_blocks + (t.derived.angles ? (sc.cells + cells_per_block - 1) / cells_per_block : 0);
  const int64_t tiles = static_cast<int64_t>((sc.slots + kPrologueX - 1) / kPrologueX) *
                        ((t.models.nodes + kUnaryNodes - 1) / kUnaryNodes);
  if (tiles > INT32_MAX)
    return Status(StatusCode::kInvalidArgument, "actionmatch: too many unary tiles in one call");
  const int work_blocks =
      angle_blocks + (sc.cells + kPrologueX * kPrologueY - 1) / (kPrologueX * kPrologueY);
  const int unary_blocks = static_cast<int>(std::min<int64_t>(tiles, 1 << 20));
  prologue_kernel<<<work_blocks + unary_blocks, dim3(kPrologueX, kPrologueY), 0, stream>>>(
      t, dir_blocks, angle_blocks, work_blocks, static_cast<int>(tiles));
  CVIS_CUDA_CHECK_LAUNCH(stream, "prologue_kernel");
  return Status::Ok();
}

} // namespace cvis::actionmatch::kernels

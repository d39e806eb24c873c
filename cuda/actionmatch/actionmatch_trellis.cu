// The trellis kernel: one block (or a thread-block cluster of several blocks) per (scene block,
// model) pair runs every row of eq. (11), (10) with a barrier between rows, then eq. (13), the
// backtracking of eq. (12) and the energy parts. README.md ("CUDA design") explains the lane
// groups, the work order, the folded rows and the settle tests; the launch and the choice of the
// blocks per pair are at the end.
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

#include "actionmatch.hpp"
#include "actionmatch_kernels.hpp"
#include "actionmatch_terms.hpp"
#include "actionmatch_trellis_device.cuh"
#include "actionmatch_trellis_rows.cuh"
#include "common/cuda/check.hpp"
#include "common/cuda/preload.hpp"

namespace cvis::actionmatch::kernels {

namespace {

using terms::kInf;
static_assert(kTrellisThreads >= kMaxModelNodes, "the backtracking stores z in red_k");

// Eq. (13): the best (z_1, z_2) over the cells of row 2, the smallest (z_1, z_2) among equals;
// eq. (12): the backtracking through the argmin tables; then the energy's two parts along the
// optimum. By the pair's first block, from its own copy of row 2 and the argmin tables.
template <bool kFolded>
__device__ __forceinline__ void finish_pair(const MatchTables& t, const PairInfo& pi,
                                            const PairView& v, int pair, int64_t* red_v,
                                            int32_t* red_k) {
  const int nt = blockDim.x;
  const int tid = threadIdx.x, S = v.dummy, C = v.cells, M = v.model_nodes;
  const BlockView& blk = v.block;
  const int64_t* U = v.unary;
  const int64_t* a2 = v.alpha + (2 & 1) * static_cast<int64_t>(C);
  int64_t best = kInf;
  int32_t key = INT32_MAX;
  for (int cell = tid; cell < C; cell += nt) {
    if (a2[cell] == kInf)
      continue;
    const int b = v.cell_b[cell];
    const int c = cell < blk.seg_end[b] ? cell - blk.seg_base[b] : S;
    // (Folded: a2 holds alpha_2(b, c) + U_1(b).)
    const int64_t val = kFolded ? U[c] + a2[cell] : U[c] + U[(S + 1) + b] + a2[cell];
    const int32_t kk = c * 65536 + b;
    if (val < best || (val == best && kk < key)) {
      best = val;
      key = kk;
    }
  }
  block_argmin(&best, &key, red_v, red_k);
  if (best == kInf) { // the same in every thread
    if (tid == 0)
      t.pairs.results[pair] = PairResult{};
    // The slots are read back with the rest (one copy): written, though nobody reads them.
    for (int r = tid; r < M; r += nt)
      t.pairs.assignment[pi.assign0 + r] = -1;
    return;
  }
  // Backtracking by one thread, into the reduction scratch (free now; M <= kMaxModelNodes =
  // blockDim.x)...
  int32_t* z = red_k;
  if (tid == 0) {
    int zc = key >> 16, zb = key & 0xFFFF;
    z[0] = zc;
    z[1] = zb;
    for (int r = 2; r < M; ++r) {
      const int64_t at = static_cast<int64_t>(r - 2) * C + blk.cell(zb, zc);
      const int za = v.argmin_in_shared ? v.argmin_staged[at] : v.argmin_global[at];
      z[r] = za;
      zc = zb;
      zb = za;
    }
  }
  __syncthreads();
  // ... then the two parts of the energy along the optimum, one warp in parallel.
  if (tid >= 32)
    return;
  const EnergyTerms& e = t.energy;
  int64_t appearance = 0, distortion_sum = 0;
  int64_t dummy_nodes = 0;
  for (int r = tid; r < M; r += 32) {
    const int a = z[r];
    appearance += U[static_cast<int64_t>(r) * (S + 1) + a];
    dummy_nodes += a == S;
    if (r >= 2) {
      const int b = z[r - 1], c = z[r - 2];
      if (a < S && b < S && c < S) {
        const double* from_b = blk.rays(b);
        distortion_sum += distortion(v.rows[r], blk, a, b, c, blk.frame[b], blk.frame[c], from_b[c],
                                     from_b, e.lambda2, e.lambda3);
      }
    }
    t.pairs.assignment[pi.assign0 + r] = a == S ? -1 : a;
  }
  appearance = warp_sum(appearance);
  distortion_sum = warp_sum(distortion_sum);
  dummy_nodes = warp_sum(dummy_nodes);
  if (tid == 0) {
    PairResult res;
    res.energy = best;
    res.appearance = appearance;
    res.distortion = distortion_sum;
    res.dummies = static_cast<int32_t>(dummy_nodes);
    res.feasible = 1;
    t.pairs.results[pair] = res;
  }
}

// kAngles: the distortion terms take the scene angles from the block's angle table (computed once
// per call by the prologue) instead of from three ray directions per candidate; the same bits.
// kFolded (with kAngles; plan.folded): everything a row reads per candidate is staged in shared
// memory, and the alpha rows hold alpha'_r(b, c) = alpha_r(b, c) + lambda1 U_{r-1}(b) (kInf stays
// kInf), with a row M of alpha'_M(a, b) = U_{M-1}(a) before the first, so that a candidate's total
// is alpha'_{r+1}(a, b) + D, the dummy's alpha'_{r+1}(dummy, b), and the final minimisation's
// U_0(c) + alpha'_2(b, c): the same integers summed in another order (int64, exact). With dummies
// the stores keep per-b minima for the settle test (settles()).
// kSolo (with kFolded; plan.solo): one block per pair, the model rows in the reduction scratch,
// the argmin tables staged, dummies, all known at compile time: the same computation without the
// per-row and per-cell tests of the general folded variant.
template <bool kAngles, bool kFolded, bool kSolo>
__global__ void __launch_bounds__(kTrellisThreads)
    trellis_kernel(const MatchTables t, const TrellisPlan plan) {
  static_assert(!kFolded || kAngles, "the folded trellis reads the angle table");
  static_assert(!kSolo || kFolded, "the solo variant is a folded one");
  extern __shared__ int64_t smem[];
  // A pair is one block, or a cluster of `blocks` blocks that share its rows: thread
  // rank * nt + tid of the pair's blocks * nt. The first row barrier
  // also makes sure that every block has started before any writes into another's shared memory.
  const int blocks = kSolo ? 1 : plan.blocks_per_pair, rank = cluster_rank(blocks);
  const int pair = blockIdx.x / blocks;
  const PairInfo pi = t.pairs.pairs[pair];
  uint8_t* base = reinterpret_cast<uint8_t*>(smem);
  int64_t* red_v = smem;
  int32_t* red_k = reinterpret_cast<int32_t*>(red_v + blockDim.x);
  const PairView v = stage_pair<kAngles, kFolded, kSolo>(t, plan, pi, base);
  const int S = v.dummy, C = v.cells, M = v.model_nodes;
  const bool dummies = kSolo || t.energy.dummies != 0;
  // blockDim.x is kTrellisThreads; the kernel reads it rather than the constant, with which ptxas
  // allocates the general folded variant's registers worse (it spills more).
  const int nt = blockDim.x, pair_threads = blocks * nt, thread = rank * nt + threadIdx.x;
  const LaneMap lanes = map_lanes(C, pair_threads, thread);
  const bool settle = kFolded && dummies;
  Minima q;
  q.base = kFolded ? reinterpret_cast<uint32_t*>(base + plan.smem.minima) : nullptr;
  q.size = kFolded ? static_cast<int>(minima_entries(plan)) : 0;
  q.half = q.size / 2;
  q.shift = plan.key_shift;
  if (kFolded)
    folded_first_row(v, q, t.energy.lambda2, settle);
  row_barrier(blocks);

  // The warp of the state (dummy, dummy): the one with the least work in the last round.
  const int dummy_warp = (((C + lanes.groups - 1) / lanes.groups) & 1) ? pair_threads - 32 : 0;
  q.next = (M % 3) * q.size;
  q.cur = ((M - 1) % 3) * q.size;
  q.old = ((M + 1) % 3) * q.size;
  for (int r = M - 1; r >= 2; --r) {
    RowView row;
    row.r = r;
    row.edge = v.row(r);
    row.unary = v.unary + static_cast<int64_t>(r) * (S + 1);
    // A flag rather than a null pointer, so that the pointer stays a shared-memory one.
    row.has_next = kFolded || r != M - 1;
    row.next = v.alpha + ((r + 1) & 1) * static_cast<int64_t>(C);
    row.cur = v.alpha + (r & 1) * static_cast<int64_t>(C);
    row.argmin_staged = v.argmin_staged + static_cast<int64_t>(r - 2) * C;
    row.argmin_global = v.argmin_global + static_cast<int64_t>(r - 2) * C;
    row.unary_prev = kFolded ? v.unary + static_cast<int64_t>(r - 1) * (S + 1) : nullptr;
    row.minima_next = kFolded ? q.base + q.next : nullptr;
    row.minima_cur = kFolded ? q.base + q.cur : nullptr;
    if (settle) { // the row r - 1 writes (row r + 1 read it before the last barrier)
      uint32_t* q_old = q.base + q.old;
      for (int i = threadIdx.x; i <= S; i += nt) {
        q_old[i] = 0xFFFFFFFFu;
        q_old[q.half + i] = 0xFFFFFFFFu;
      }
    }
    const int rotated = q.next;
    q.next = q.cur;
    q.cur = q.old;
    q.old = rotated;
    trellis_row<kAngles, kFolded, kSolo>(v, row, q, lanes, t.energy, dummies, settle, blocks,
                                         thread, dummy_warp);
    row_barrier(blocks);
  }
  // The last remote access was before the barrier: the other blocks of a cluster may leave.
  if (rank != 0)
    return;
  finish_pair<kFolded>(t, pi, v, pair, red_v, red_k);
}

CVIS_PRELOAD_MODULE(trellis_kernel<true, true, true>);

} // namespace

Status allow_trellis_shared(size_t bytes) {
  const int b = static_cast<int>(bytes);
  const auto attr = cudaFuncAttributeMaxDynamicSharedMemorySize;
  CVIS_CUDA_CHECK(cudaFuncSetAttribute(trellis_kernel<true, true, true>, attr, b));
  CVIS_CUDA_CHECK(cudaFuncSetAttribute(trellis_kernel<true, true, false>, attr, b));
  CVIS_CUDA_CHECK(cudaFuncSetAttribute(trellis_kernel<true, false, false>, attr, b));
  CVIS_CUDA_CHECK(cudaFuncSetAttribute(trellis_kernel<false, false, false>, attr, b));
  return Status::Ok();
}

#if defined(CVIS_AM_CLUSTERS)
namespace {

using TrellisKernel = void (*)(const MatchTables, const TrellisPlan);

// The variant a launch runs.
TrellisKernel trellis_for(const MatchTables& t, const TrellisPlan& plan) {
  if (plan.folded && plan.solo)
    return trellis_kernel<true, true, true>;
  if (plan.folded)
    return trellis_kernel<true, true, false>;
  return t.derived.angles ? trellis_kernel<true, false, false>
                          : trellis_kernel<false, false, false>;
}

// The launch configuration of a trellis launch in clusters of `blocks` blocks (cfg keeps a pointer
// to attr; a caller may add attributes after it in an array and raise cfg->numAttrs).
void cluster_config(int blocks, int pairs, size_t shared_bytes, cudaStream_t stream,
                    cudaLaunchConfig_t* cfg, cudaLaunchAttribute* attr) {
  *attr = cudaLaunchAttribute{};
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = blocks;
  attr->val.clusterDim.y = 1;
  attr->val.clusterDim.z = 1;
  *cfg = cudaLaunchConfig_t{};
  cfg->gridDim = dim3(blocks * pairs);
  cfg->blockDim = dim3(kTrellisThreads);
  cfg->dynamicSmemBytes = shared_bytes;
  cfg->stream = stream;
  cfg->attrs = attr;
  cfg->numAttrs = 1;
}

// What trellis_cluster asks the runtime, once per device and per (shared bytes, blocks): the
// queries (the occupancy one in particular) cost more than a small match() call may take.
struct DeviceInfo {
  int sms = 0;       // SMs
  bool sm90 = false; // clusters launch and the kernels carry compute_90 code (PDL too)
};
struct ClusterCache {
  std::mutex mu;
  std::map<int, DeviceInfo> device;
  std::map<std::tuple<int, size_t, int>, bool> fits; // (device, bytes, blocks) -> fits
};
ClusterCache g_cluster_cache;

// g_cluster_cache's entry of the current device (made on first use); nullptr when the device query
// fails. The caller holds the cache's mutex.
const DeviceInfo* device_info(int* dev_out) {
  ClusterCache& cache = g_cluster_cache;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  *dev_out = dev;
  auto d = cache.device.find(dev);
  if (d == cache.device.end()) {
    int clusters = 0, sms = 0;
    cudaFuncAttributes fa{};
    if (cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaFuncGetAttributes(&fa, trellis_kernel<true, false, false>) != cudaSuccess) {
      cudaGetLastError(); // a query failed: no clusters
      clusters = 0;
    }
    // Cluster code (and the PDL calls) exists only in kernels compiled for compute_90 or later
    // (CVIS_AM_CLUSTER_CODE).
    DeviceInfo info;
    info.sm90 = clusters && fa.ptxVersion >= 90;
    info.sms = sms;
    d = cache.device.emplace(dev, info).first;
  }
  return &d->second;
}

// Whether one cluster of `blocks` blocks and `shared_bytes` fits on the device (cached: the
// occupancy query costs more than a small call). The caller holds the cache's mutex.
bool cluster_fits(int dev, size_t shared_bytes, int blocks) {
  ClusterCache& cache = g_cluster_cache;
  const auto key = std::make_tuple(dev, shared_bytes, blocks);
  auto f = cache.fits.find(key);
  if (f == cache.fits.end()) {
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cluster_config(blocks, 1, shared_bytes, nullptr, &cfg, &attr);
    int active = 0;
    const bool ok = cudaOccupancyMaxActiveClusters(&active, trellis_kernel<true, false, false>,
                                                   &cfg) == cudaSuccess &&
                    active > 0;
    if (!ok)
      cudaGetLastError();
    f = cache.fits.emplace(key, ok).first;
  }
  return f->second;
}

// Whether the current device runs the kernels' compute_90 code (clusters, dependent launch).
bool device_sm90() {
  std::lock_guard<std::mutex> lock(g_cluster_cache.mu);
  int dev = 0;
  const DeviceInfo* d = device_info(&dev);
  return d && d->sm90;
}

// The programmatic-dependent-launch attribute (launch_trellis).
cudaLaunchAttribute dependent_launch() {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  return attr;
}

} // namespace
#endif

int trellis_cluster(int pairs, size_t shared_bytes, int max_cells, int max_blocks) {
#if defined(CVIS_AM_CLUSTERS)
  ClusterCache& cache = g_cluster_cache;
  if (pairs <= 0)
    return 1;
  std::lock_guard<std::mutex> lock(cache.mu);
  int dev = 0;
  const DeviceInfo* d = device_info(&dev);
  if (!d || !d->sm90)
    return 1;
  // A row of at most kTrellisThreads cells is one round of one block, every cell with at least
  // one lane; more blocks then only shorten each cell's candidate loop (G lanes instead of 1),
  // and each row pays the cluster barrier and the remote stores of every cell.
  if (max_cells <= kTrellisThreads)
    return 1;
  int blocks = 1;
  while (2 * blocks <= max_blocks && 2 * blocks * pairs <= d->sms)
    blocks *= 2;
  // Fewer when the device cannot hold one cluster of that many such blocks.
  for (; blocks > 1; blocks /= 2)
    if (cluster_fits(dev, shared_bytes, blocks))
      break;
  return blocks;
#else
  (void)pairs;
  (void)shared_bytes;
  (void)max_cells;
  (void)max_blocks;
  return 1;
#endif
}

Status launch_trellis(const MatchTables& t, const TrellisPlan& plan, cudaStream_t stream) {
  const size_t shared_bytes = plan.smem.bytes;
  const int pairs = t.pairs.count;
#if defined(CVIS_AM_CLUSTERS)
  // Programmatic dependent launch (allow_dependent_launch / wait_for_prologue in the kernels):
  // the trellis launches while the prologue ends. A device or driver that refuses the attribute
  // gets the plain launch (and keeps it).
  static std::atomic<bool> pdl{true};
  // One block per pair: the same dependent launch (a launch without the cluster attribute), where
  // the kernels carry the compute_90 code that waits for the prologue (without it the trellis
  // would not wait, so it gets the plain launch).
  if (plan.blocks_per_pair == 1 && pdl.load() && device_sm90()) {
    cudaLaunchAttribute attr = dependent_launch();
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(pairs);
    cfg.blockDim = dim3(kTrellisThreads);
    cfg.dynamicSmemBytes = shared_bytes;
    cfg.stream = stream;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    if (cudaLaunchKernelEx(&cfg, trellis_for(t, plan), t, plan) == cudaSuccess) {
      CVIS_CUDA_CHECK_LAUNCH(stream, "trellis_kernel (dependent launch)");
      return Status::Ok();
    }
    cudaGetLastError(); // refused at the launch: the plain launch below, from now on
    pdl.store(false);
  }
  if (plan.blocks_per_pair > 1) {
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr[2];
    cluster_config(plan.blocks_per_pair, pairs, shared_bytes, stream, &cfg, &attr[0]);
    if (pdl.load()) {
      attr[1] = dependent_launch();
      cfg.numAttrs = 2;
      if (cudaLaunchKernelEx(&cfg, trellis_for(t, plan), t, plan) == cudaSuccess) {
        CVIS_CUDA_CHECK_LAUNCH(stream, "trellis_kernel (clusters, dependent launch)");
        return Status::Ok();
      }
      cudaGetLastError(); // refused at the launch (not a sticky error): without the attribute
      pdl.store(false);
      cfg.numAttrs = 1;
    }
    CVIS_CUDA_CHECK(cudaLaunchKernelEx(&cfg, trellis_for(t, plan), t, plan));
    CVIS_CUDA_CHECK_LAUNCH(stream, "trellis_kernel (clusters)");
    return Status::Ok();
  }
#endif
  // (Each variant named: the CPU emulation rewrites launches of a kernel by its name.)
  if (plan.folded && plan.solo)
    trellis_kernel<true, true, true><<<pairs, kTrellisThreads, shared_bytes, stream>>>(t, plan);
  else if (plan.folded)
    trellis_kernel<true, true, false><<<pairs, kTrellisThreads, shared_bytes, stream>>>(t, plan);
  else if (t.derived.angles)
    trellis_kernel<true, false, false><<<pairs, kTrellisThreads, shared_bytes, stream>>>(t, plan);
  else
    trellis_kernel<false, false, false><<<pairs, kTrellisThreads, shared_bytes, stream>>>(t, plan);
  CVIS_CUDA_CHECK_LAUNCH(stream, "trellis_kernel");
  return Status::Ok();
}

} // namespace cvis::actionmatch::kernels

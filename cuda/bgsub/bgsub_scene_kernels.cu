// Kernels of the scene extensions (bgsub_kernels.hpp): one thread per pixel on 32 x 8 tiles, the
// passes of bgsub_cpu.cpp with the arithmetic of bgsub_scene_math.hpp, so both backends give the
// same bits. Counts are reduced per block before one atomic.
#include "bgsub_kernels.hpp"
#include "bgsub_scene.hpp"
#include "common/cuda/block_median.cuh"
#include "common/cuda/check.hpp"
#include "common/cuda/preload.hpp"
#include "common/cuda/tiles.hpp"

namespace cvis::bgsub::kernels {

namespace {

constexpr int kBx = cuda::kTileW, kBy = cuda::kTileH;
constexpr unsigned kFull = 0xffffffffu;

// Adds the flags of the block (a 32 x 8 tile: warp = tile row) to *total with one atomic: at
// 1080p a per-warp atomic would be 65,000 on one address per counter and frame. Every thread of
// the block must call it (it synchronises the block).
__device__ void count(bool flag, unsigned long long* total) {
  __shared__ unsigned rows[kBy];
  const unsigned b = __ballot_sync(kFull, flag);
  if (threadIdx.x == 0)
    rows[threadIdx.y] = static_cast<unsigned>(__popc(b));
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    unsigned n = 0;
    for (int r = 0; r < kBy; ++r)
      n += rows[r];
    if (n)
      atomicAdd(total, static_cast<unsigned long long>(n));
  }
  __syncthreads(); // rows is reused by the next call
}

__device__ __forceinline__ size_t plane_elems(const DeviceModel& m) {
  return static_cast<size_t>(m.height) * m.stride;
}

__global__ void begin_kernel(DeviceModel m, bool hists) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t == 0) {
    SceneFigures f{};
    f.gains = unit_gains();
    *m.fig = f;
  }
  if (hists && t < 3 * seg::kGainBins)
    m.gain_hist[t] = 0;
}

// Every other row and column, as the CPU's estimate_gains, kVoteRows voter rows per thread into a
// block histogram in shared memory (3 x kGainBins), whose non-zero bins then go to the global one.
// Nearly every vote of a frame falls in a few bins (ratios near the gain): a global histogram took
// tens of thousands of atomics on one address per frame (about 0.1 ms at 1080p on the H200); the
// lanes of a warp voting for the same bin still add their votes with one atomic (__match_any_sync).
constexpr int kVoteRows = 8;

__global__ void __launch_bounds__(kBx* kBy) gain_votes_kernel(DeviceModel m) {
  __shared__ uint32_t hist[3 * seg::kGainBins];
  const int t = threadIdx.y * kBx + threadIdx.x;
  for (int j = t; j < 3 * seg::kGainBins; j += kBx * kBy)
    hist[j] = 0;
  __syncthreads();
  const int x = 2 * (blockIdx.x * kBx + threadIdx.x);
  const unsigned lane = threadIdx.x & 31;
  for (int r = 0; r < kVoteRows; ++r) {
    const int y = 2 * ((blockIdx.y * kVoteRows + r) * kBy + threadIdx.y);
    bool voter = false;
    uint32_t s = 0, f = 0;
    if (x < m.width && y < m.height) {
      const size_t i = static_cast<size_t>(y) * m.stride + x;
      voter = gain_voter(m.mask[i], m.raw[i]);
      if (voter) {
        const int L = m.num_samples;
        s = m.samples[static_cast<size_t>((m.head[i] + L - 1) % L) * plane_elems(m) + i];
        f = m.feat[i];
      }
    }
    for (int c = 0; c < 3; ++c) {
      const int b = channel(s, c);
      const bool votes = voter && b >= seg::kGainMinLevel;
      const int bin = votes ? seg::gain_bin(channel(f, c), b) : -1;
      const unsigned peers = __match_any_sync(kFull, bin);
      if (votes && static_cast<unsigned>(__ffs(peers) - 1) == lane)
        atomicAdd(&hist[c * seg::kGainBins + bin], static_cast<uint32_t>(__popc(peers)));
    }
  }
  __syncthreads();
  for (int j = t; j < 3 * seg::kGainBins; j += kBx * kBy)
    if (hist[j])
      atomicAdd(&m.gain_hist[j], hist[j]);
}

// seg::gain_median() of each channel in parallel (cuda::block_gain_median: one thread per bin).
// The votes of a channel are its histogram's total.
__global__ void __launch_bounds__(seg::kGainBins) gain_solve_kernel(DeviceModel m) {
  __shared__ uint32_t warp_sums[32];
  __shared__ float gain;
  SceneFigures& f = *m.fig;
  for (int c = 0; c < 3; ++c) {
    uint32_t n = 0;
    const float g = cuda::block_gain_median(m.gain_hist[c * seg::kGainBins + threadIdx.x],
                                            warp_sums, &gain, &n);
    if (threadIdx.x == 0) {
      f.votes[c] = n;
      set_gain(g, c, &f.gains);
    }
  }
}

__global__ void compensate_kernel(DeviceModel m, int still_levels) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  bool changed = false;
  if (x < m.width && y < m.height) {
    const size_t i = static_cast<size_t>(y) * m.stride + x;
    const uint32_t c = compensate_feature(m.feat[i], m.fig->gains.inv);
    changed = changed_since(c, m.prev[i], kChangedLevels);
    m.still[i] = still_frames(m.still[i], c, m.prev[i], still_levels);
    m.cur[i] = c;
    m.prev[i] = c;
  }
  count(changed, &m.fig->changed);
}

__global__ void warm_fill_kernel(DeviceModel m, int first, int step) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  const size_t i = static_cast<size_t>(y) * m.stride + x;
  const uint32_t f = m.feat[i];
  for (int k = first; k < m.num_samples; k += step)
    m.samples[static_cast<size_t>(k) * plane_elems(m) + i] = f;
  m.prev[i] = f;
  m.raw[i] = 0;
  m.mask[i] = 0;
  m.mask_prev[i] = 0;
  m.mask_prev2[i] = 0;
  m.still[i] = 0;
}

// Ghost test of one pass against the mask as the pass found it: m.tmp = 0 or 1 + the neighbour.
__global__ void ghost_mark_kernel(DeviceModel m, int levels, int need, int frames) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  const size_t i = static_cast<size_t>(y) * m.stride + x;
  const size_t plane = plane_elems(m);
  auto mask = [&](int xx, int yy) { return m.mask[static_cast<size_t>(yy) * m.stride + xx]; };
  auto smp = [&](int k, int xx, int yy) {
    return m.samples[static_cast<size_t>(k) * plane + static_cast<size_t>(yy) * m.stride + xx];
  };
  auto quiet = [&](int xx, int yy) {
    return m.still[static_cast<size_t>(yy) * m.stride + xx] >= frames;
  };
  auto raw = [&](int xx, int yy) { return m.raw[static_cast<size_t>(yy) * m.stride + xx]; };
  auto cur = [&](int xx, int yy) { return m.cur[static_cast<size_t>(yy) * m.stride + xx]; };
  m.tmp[i] = static_cast<uint8_t>(
      ghost_source(mask, quiet, raw, cur, ghost_candidate(m.raw[i], m.still[i], frames), smp, x, y,
                   m.width, m.height, m.num_samples, levels, need));
}

// The marked pixels take over their neighbour's model (background in the marking's mask, so not
// written here) and leave the mask.
__global__ void ghost_apply_kernel(DeviceModel m) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  const size_t i = static_cast<size_t>(y) * m.stride + x;
  const int src = m.tmp[i];
  if (!src)
    return;
  const size_t j = static_cast<size_t>(y + ghost_dy(src - 1)) * m.stride + x + ghost_dx(src - 1);
  const size_t plane = plane_elems(m);
  for (int k = 0; k < m.num_samples; ++k)
    m.samples[static_cast<size_t>(k) * plane + i] = m.samples[static_cast<size_t>(k) * plane + j];
  m.head[i] = m.head[j];
  m.medians[i] = m.medians[j];
  m.mask[i] = 0;
}

__global__ void counts_kernel(DeviceModel m, bool chroma) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  bool raw = false, shadow = false, fg = false, wide = false;
  if (x < m.width && y < m.height) {
    const size_t i = static_cast<size_t>(y) * m.stride + x;
    raw = raw_counts_foreground(m.raw[i]);
    shadow = m.raw[i] == kRawShadow;
    fg = m.mask[i] != 0;
    wide = wide_bandwidth(m.medians[i]);
    if (fg) {
      // Added light, at the mask's foreground only (the persistence filter reads no other pixel;
      // a newest sample read at every pixel is a scattered read of the sample planes): the frame
      // against the newest sample, before the update.
      const size_t plane = static_cast<size_t>(m.height) * m.stride;
      const int newest = (m.head[i] + m.num_samples - 1) % m.num_samples;
      m.light[i] = brightness(m.cur[i], chroma);
      m.light[plane + i] = brightness(m.samples[static_cast<size_t>(newest) * plane + i], chroma);
    }
  }
  count(raw, &m.fig->raw);
  count(shadow, &m.fig->shadow);
  count(fg, &m.fig->foreground);
  count(wide, &m.fig->wide);
}

CVIS_PRELOAD_MODULE(begin_kernel);

} // namespace

Status launch_scene_begin(const DeviceModel& m, bool illumination, cudaStream_t stream) {
  const int threads = 256, n = illumination ? 3 * seg::kGainBins : 1;
  begin_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(m, illumination);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub begin_kernel");
  return Status::Ok();
}

Status launch_gains(const DeviceModel& m, cudaStream_t stream) {
  const dim3 votes((m.width + 2 * kBx - 1) / (2 * kBx),
                   (m.height + 2 * kBy * kVoteRows - 1) / (2 * kBy * kVoteRows));
  gain_votes_kernel<<<votes, dim3(kBx, kBy), 0, stream>>>(m);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub gain_votes_kernel");
  gain_solve_kernel<<<1, seg::kGainBins, 0, stream>>>(m);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub gain_solve_kernel");
  return Status::Ok();
}

Status launch_compensate(const DeviceModel& m, int still_levels, cudaStream_t stream) {
  compensate_kernel<<<cuda::tile_grid(m.width, m.height), dim3(kBx, kBy), 0, stream>>>(
      m, still_levels);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub compensate_kernel");
  return Status::Ok();
}

Status launch_warm_fill(const DeviceModel& m, int first, int step, cudaStream_t stream) {
  warm_fill_kernel<<<cuda::tile_grid(m.width, m.height), dim3(kBx, kBy), 0, stream>>>(m, first,
                                                                                      step);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub warm_fill_kernel");
  return Status::Ok();
}

Status launch_ghosts(const DeviceModel& m, int passes, int levels, int need, int frames,
                     cudaStream_t stream) {
  const dim3 grid = cuda::tile_grid(m.width, m.height), block(kBx, kBy);
  for (int p = 0; p < passes; ++p) {
    ghost_mark_kernel<<<grid, block, 0, stream>>>(m, levels, need, frames);
    CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub ghost_mark_kernel");
    ghost_apply_kernel<<<grid, block, 0, stream>>>(m);
    CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub ghost_apply_kernel");
  }
  return Status::Ok();
}

Status launch_scene_counts(const DeviceModel& m, bool chromaticity, cudaStream_t stream) {
  counts_kernel<<<cuda::tile_grid(m.width, m.height), dim3(kBx, kBy), 0, stream>>>(m,
                                                                                  chromaticity);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub counts_kernel");
  return Status::Ok();
}

} // namespace cvis::bgsub::kernels

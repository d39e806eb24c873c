// CEDD CUDA kernels. Compiled with --fmad=false, and every double operation that matters is written
// with the _rn intrinsics (cedd_core.hpp), so the device computes the CPU reference's bits.
//
// Three kernels, each over all jobs of a call (README.md, "GPU design"):
//   block_stats:    one CTA per tile (up to 16 blocks of one block row). All threads load pixel
//   rows
//                   coalesced, compute the double luma and stage it in shared memory; then one
//                   thread per half block (left/right) adds its row segments in raster order, so
//                   every quadrant sum is one sequential chain in the reference's order.
//   block_features: one thread per block: masks, classes, HSV, both fuzzy systems.
//   histogram:      one CTA per job, one thread per bin adding the blocks' values in raster order,
//                   blocks staged through shared memory in chunks; then total, division, quantiser.
#include <algorithm>

#include "cedd/cedd_kernels.hpp"
#include "common/color.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/tiles.hpp"
#include "common/cuda/preload.hpp"

namespace cvis::cedd::kernels {
namespace {

constexpr int kStatsThreads = 128;
constexpr int kMaxTileBlocks = 16; // 2 chains per block: at most 32 chain threads (one warp)
constexpr int kStagePixels = 2048; // staged pixels per CTA: 16 KiB of luma + 8 KiB of colour
constexpr int kUnroll = 4;         // pixels loaded per thread before the first is used
constexpr int kFeatureThreads = 128;
constexpr int kHistThreads = 160; // 144 bin chains; all threads load
constexpr int kHistChunk = 128;   // blocks staged per round (power of two)
constexpr int kChunkStride = 25;  // doubles per staged block: odd, so no bank conflicts

static_assert(2 * kMaxTileBlocks <= kStatsThreads, "one chain thread per half block");
static_assert(core::kBins <= kHistThreads, "one thread per bin");

// Division by a runtime divisor d (1 <= d <= 2048) of x < 2048 with a multiply: exact because
// x * d < 2^32 (m = floor(2^32 / d) + 1 overestimates 1/d by less than 1/2^32 per unit of x).
struct FastDiv {
  uint32_t m;
  int d;
  __device__ explicit FastDiv(int divisor)
      : m(divisor > 1 ? static_cast<uint32_t>((1ull << 32) / static_cast<uint32_t>(divisor) + 1)
                      : 0u),
        d(divisor) {}
  __device__ int operator()(int x) const {
    return d == 1 ? x : static_cast<int>(__umulhi(static_cast<uint32_t>(x), m));
  }
};

// The bytes fetch_rgb() reads for pixel (x, y) (through the same readers, common/color.hpp),
// without using them yet (so that several loads of a thread are in flight together): packed
// formats give bytes 0..3 of the pixel (little-endian), YUV gives Y | U << 8 | V << 16.
__device__ __forceinline__ uint32_t load_raw(const PixelSource& s, int x, int y,
                                             bool word_aligned) {
  if (is_yuv_source(s)) {
    const Yuv8 q = fetch_yuv(s, x, y);
    return q.y | (static_cast<uint32_t>(q.u) << 8) | (static_cast<uint32_t>(q.v) << 16);
  }
  const int bpp = s.layout.bytes_per_pixel;
  const uint8_t* p = packed_pixel(s, x, y);
  if (bpp == 4 && word_aligned)
    return *reinterpret_cast<const uint32_t*>(p);
  uint32_t w = p[0];
  if (bpp >= 3)
    w |= (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16);
  if (bpp == 4)
    w |= static_cast<uint32_t>(p[3]) << 24;
  return w;
}

// The RGB value fetch_rgb() returns for the bytes of load_raw() (same integer arithmetic).
__device__ __forceinline__ Rgb8 decode_raw(const PixelSource& s, uint32_t w) {
  if (is_yuv_source(s)) {
    return yuv_pixel_to_rgb(s.yuv, static_cast<int>(w & 255u), static_cast<int>((w >> 8) & 255u),
                            static_cast<int>((w >> 16) & 255u));
  }
  const uint32_t r = (w >> (8 * s.layout.r)) & 255u;
  const uint32_t g = (w >> (8 * s.layout.g)) & 255u;
  const uint32_t b = (w >> (8 * s.layout.b)) & 255u;
  Rgb8 o;
  if (s.layout.a >= 0) {
    const uint32_t a = (w >> (8 * s.layout.a)) & 255u;
    o.r = alpha_over_black(r, a);
    o.g = alpha_over_black(g, a);
    o.b = alpha_over_black(b, a);
  } else {
    o.r = static_cast<uint8_t>(r);
    o.g = static_cast<uint8_t>(g);
    o.b = static_cast<uint8_t>(b);
  }
  return o;
}

__global__ void __launch_bounds__(kStatsThreads)
    block_stats_kernel(const core::Job* __restrict__ jobs, const Tile* __restrict__ tiles,
                       int tile_begin, core::BlockStats* __restrict__ stats) {
  // Stage layout: row r of the stage, half-block segment s (= 2 * block + right), pixel k of the
  // segment at r * row_stride + s * hs + k. hs is odd, so the chain threads (one per segment,
  // reading the same k) hit distinct banks.
  __shared__ double lum[kStagePixels];
  __shared__ uint32_t rgb[kStagePixels];
  __shared__ double qsum[kMaxTileBlocks * 4];
  __shared__ uint32_t csum[2 * kMaxTileBlocks * 3];

  const Tile t = tiles[tile_begin + blockIdx.x];
  const core::Job job = jobs[t.job];
  const int tid = threadIdx.x;
  const int half = job.sx >> 1;
  const int half_y = job.sy >> 1;
  const int hs = half | 1;
  const int nchain = 2 * t.nb;
  const int row_stride = nchain * hs;
  const int cols = t.nb * job.sx;
  const int gx0 = job.x0 + t.bx0 * job.sx;
  const int gy0 = job.y0 + t.by * job.sy;
  const FastDiv div_cols(cols), div_half(half);
  const bool word_aligned =
      ((reinterpret_cast<uintptr_t>(job.src.plane[0]) | job.src.pitch[0]) & 3u) == 0;

  double top = 0.0, bottom = 0.0;
  uint32_t sr = 0, sg = 0, sb = 0;
  for (int r0 = 0; r0 < job.sy; r0 += t.rows) {
    const int rows = min(t.rows, job.sy - r0);
    const int n_px = rows * cols;
    for (int f0 = tid; f0 < n_px; f0 += kStatsThreads * kUnroll) {
      uint32_t raw[kUnroll];
      int dst[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int f = f0 + u * kStatsThreads;
        dst[u] = -1;
        if (f < n_px) {
          const int r = div_cols(f);
          const int x = f - r * cols;
          const int seg = div_half(x);
          raw[u] = load_raw(job.src, gx0 + x, gy0 + r0 + r, word_aligned);
          dst[u] = r * row_stride + seg * hs + (x - seg * half);
        }
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (dst[u] >= 0) {
          const Rgb8 p = decode_raw(job.src, raw[u]);
          lum[dst[u]] = core::luma(p.r, p.g, p.b); // §3
          rgb[dst[u]] =
              p.r | (static_cast<uint32_t>(p.g) << 8) | (static_cast<uint32_t>(p.b) << 16);
        }
      }
    }
    __syncthreads();
    if (tid < nchain) {
      // §4 step 1: this segment's pixels of each staged row, left to right, rows top to bottom.
      for (int r = 0; r < rows; ++r) {
        const double* l = lum + r * row_stride + tid * hs;
        const uint32_t* c = rgb + r * row_stride + tid * hs;
        const bool is_top = r0 + r < half_y;
        double acc = is_top ? top : bottom;
        // Unrolled so that the shared loads run ahead of the dependent additions.
#pragma unroll 4
        for (int k = 0; k < half; ++k) {
          acc = add_rn(acc, l[k]);
          const uint32_t w = c[k];
          sr += w & 255u;
          sg += (w >> 8) & 255u;
          sb += w >> 16;
        }
        if (is_top) {
          top = acc;
        } else {
          bottom = acc;
        }
      }
    }
    __syncthreads();
  }
  if (tid < nchain) {
    const int b = tid >> 1, right = tid & 1;
    qsum[b * 4 + right] = top;        // quadrant 1 (left) or 2 (right)
    qsum[b * 4 + 2 + right] = bottom; // quadrant 3 or 4
    csum[tid * 3 + 0] = sr;
    csum[tid * 3 + 1] = sg;
    csum[tid * 3 + 2] = sb;
  }
  __syncthreads();
  if (tid < t.nb) {
    core::BlockStats st;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      st.a[q] = static_cast<uint16_t>(core::quadrant_value(qsum[tid * 4 + q], job.c)); // §4
    }
    const uint32_t pixels = static_cast<uint32_t>(job.sx) * static_cast<uint32_t>(job.sy);
    const uint32_t* l = csum + (2 * tid) * 3;
    const uint32_t* r = csum + (2 * tid + 1) * 3;
    st.r = static_cast<uint8_t>((l[0] + r[0]) / pixels); // §5: truncating division
    st.g = static_cast<uint8_t>((l[1] + r[1]) / pixels);
    st.b = static_cast<uint8_t>((l[2] + r[2]) / pixels);
    st.pad = 0;
    stats[static_cast<size_t>(job.block_offset) + static_cast<size_t>(t.by) * job.nx + t.bx0 +
          tid] = st;
  }
}

__global__ void __launch_bounds__(kFeatureThreads)
    block_features_kernel(const core::BlockStats* __restrict__ stats, int block_begin, int count,
                          int ld, double* __restrict__ f24, uint8_t* __restrict__ classes) {
  const int i = blockIdx.x * kFeatureThreads + threadIdx.x;
  if (i >= count)
    return;
  const int g = block_begin + i;
  double v[core::kColours];
  const uint32_t cls = core::block_features(stats[g], v, nullptr);
#pragma unroll
  for (int j = 0; j < core::kColours; ++j)
    f24[static_cast<size_t>(j) * ld + g] = v[j];
  classes[g] = static_cast<uint8_t>(cls);
}

__global__ void __launch_bounds__(kHistThreads)
    histogram_kernel(const core::Job* __restrict__ jobs, int job_begin, int ld,
                     const double* __restrict__ f24, const uint8_t* __restrict__ classes,
                     double* __restrict__ norm, uint8_t* __restrict__ levels) {
  __shared__ double sf[kHistChunk * kChunkStride];
  __shared__ uint8_t scls[kHistChunk];
  __shared__ double hist[core::kBins];
  __shared__ double total;

  const int k = job_begin + blockIdx.x;
  const int nblocks = jobs[k].nx * jobs[k].ny;
  const int off = jobs[k].block_offset;
  const int tid = threadIdx.x;
  const int cls = tid / core::kColours;
  const int j = tid - cls * core::kColours;

  // §9: bin 24 * cls + j receives F24[j] of every block of class cls, blocks in raster order.
  // Adding +0.0 for the other blocks leaves the sum's bits unchanged (the sum is never -0.0).
  double acc = 0.0;
  for (int c0 = 0; c0 < nblocks; c0 += kHistChunk) {
    const int cnt = min(kHistChunk, nblocks - c0);
    for (int i = tid; i < kHistChunk * core::kColours; i += kHistThreads) {
      const int jj = i / kHistChunk;
      const int b = i - jj * kHistChunk;
      if (b < cnt)
        sf[b * kChunkStride + jj] = f24[static_cast<size_t>(jj) * ld + off + c0 + b];
    }
    for (int i = tid; i < cnt; i += kHistThreads)
      scls[i] = classes[off + c0 + i];
    __syncthreads();
    if (tid < core::kBins) {
#pragma unroll 8
      for (int b = 0; b < cnt; ++b) {
        const double v = sf[b * kChunkStride + j];
        acc = add_rn(acc, ((scls[b] >> cls) & 1u) ? v : 0.0);
      }
    }
    __syncthreads();
  }
  if (tid < core::kBins)
    hist[tid] = acc;
  __syncthreads();
  if (tid == 0) {
    double s = 0.0;
    for (int i = 0; i < core::kBins; ++i)
      s = add_rn(s, hist[i]); // bin order
    total = s;
  }
  __syncthreads();
  if (tid < core::kBins) {
    const double v = core::normalize(hist[tid], total);
    norm[static_cast<size_t>(k) * core::kBins + tid] = v;
    levels[static_cast<size_t>(k) * core::kBins + tid] =
        static_cast<uint8_t>(core::quantize(v, core::quant_table_of_bin(tid))); // §10
  }
}

CVIS_PRELOAD_MODULE(block_stats_kernel);

} // namespace

void append_tiles(const core::Job& job, int job_index, std::vector<Tile>* tiles) {
  if (job.nx <= 0 || job.ny <= 0)
    return;
  const int hs = (job.sx / 2) | 1;
  // One staged pixel row of one block must fit: sx <= 2047, guaranteed by the side limit (§2 gives
  // sx <= 32768 / 20).
  const int nb_max = std::max(1, std::min(kMaxTileBlocks, kStagePixels / (2 * hs)));
  const int per_row = (job.nx + nb_max - 1) / nb_max;
  const int nb = (job.nx + per_row - 1) / per_row; // balanced tiles
  for (int by = 0; by < job.ny; ++by) {
    for (int bx0 = 0; bx0 < job.nx; bx0 += nb) {
      Tile t;
      t.job = job_index;
      t.by = by;
      t.bx0 = bx0;
      t.nb = std::min(nb, job.nx - bx0);
      t.rows = std::max(1, std::min(job.sy, kStagePixels / (2 * t.nb * hs)));
      tiles->push_back(t);
    }
  }
}

Status launch_block_stats(const core::Job* jobs, const Tile* tiles, int tile_begin, int tile_count,
                          core::BlockStats* stats, cudaStream_t stream) {
  if (tile_count <= 0)
    return Status::Ok();
  block_stats_kernel<<<tile_count, kStatsThreads, 0, stream>>>(jobs, tiles, tile_begin, stats);
  CVIS_CUDA_CHECK_LAUNCH(stream, "cedd block_stats_kernel");
  return Status::Ok();
}

Status launch_block_features(const core::BlockStats* stats, int block_begin, int block_count,
                             int ld, double* f24, uint8_t* classes, cudaStream_t stream) {
  if (block_count <= 0)
    return Status::Ok();
  const int grid = cuda::div_up(block_count, kFeatureThreads);
  block_features_kernel<<<grid, kFeatureThreads, 0, stream>>>(stats, block_begin, block_count, ld,
                                                              f24, classes);
  CVIS_CUDA_CHECK_LAUNCH(stream, "cedd block_features_kernel");
  return Status::Ok();
}

Status launch_histogram(const core::Job* jobs, int job_begin, int job_count, int ld,
                        const double* f24, const uint8_t* classes, double* norm, uint8_t* levels,
                        cudaStream_t stream) {
  if (job_count <= 0)
    return Status::Ok();
  histogram_kernel<<<job_count, kHistThreads, 0, stream>>>(jobs, job_begin, ld, f24, classes, norm,
                                                           levels);
  CVIS_CUDA_CHECK_LAUNCH(stream, "cedd histogram_kernel");
  return Status::Ok();
}

} // namespace cvis::cedd::kernels

// Integral images of all planes in two kernels (the thesis's point: every feature and product
// image of a frame at once, no transposes). The feature images themselves are never stored: the
// row kernel computes luma, features and products of its pixels in shared memory and writes the
// row prefix sums of the cell sums; the column kernel adds the rows up in place, coalesced.
#include "common/cuda/check.hpp"
#include "common/cuda/preload.hpp"
#include "rcdtrack_kernels.hpp"

namespace cvis::rcdtrack::kernels {

namespace {

constexpr int kRowThreads = 256;
constexpr int kMaxCell = 8;

__device__ int find_integral_by_row(const DevIntegral* in, int n, int block) {
  int lo = 0, hi = n - 1; // last integral with row_first <= block
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (in[mid].row_first <= block)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

__device__ int find_integral_by_col(const DevIntegral* in, int n, int64_t t) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (in[mid].col_first <= t)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

__device__ __forceinline__ int64_t shfl_ll(int64_t v, int src) {
  const int lo = __shfl_sync(0xffffffffu, static_cast<int>(static_cast<uint64_t>(v)), src);
  const int hi = __shfl_sync(0xffffffffu, static_cast<int>(static_cast<uint64_t>(v) >> 32), src);
  return static_cast<int64_t>((static_cast<uint64_t>(static_cast<unsigned>(hi)) << 32) |
                              static_cast<unsigned>(lo));
}

// The start of a row of the row pass: the scan carries and the row's zero column of every plane.
__device__ __forceinline__ void row_start(const Layout& L, const DevIntegral& R, int64_t* row,
                                          int64_t* carry) {
  for (int p = threadIdx.x; p < L.planes; p += kRowThreads) {
    carry[p] = 0;
    row[p * R.plane_stride] = 0;
  }
}

// Luma of rows y0-1 .. y0+c and columns px0-1 .. px0+npx, clamped to the frame, into lum with a
// row stride of `stride` shorts.
__device__ __forceinline__ void load_luma(const PixelSource& src, int y0, int px0, int npx, int c,
                                          short* lum, int stride) {
  const int tw = npx + 2, th = c + 2;
  for (int t = threadIdx.x; t < tw * th; t += kRowThreads) {
    const int r = t / tw, q = t - r * tw;
    const int yy = min(max(y0 - 1 + r, 0), src.height - 1);
    const int xx = min(max(px0 - 1 + q, 0), src.width - 1);
    lum[r * stride + q] = static_cast<short>(luma_of(fetch_rgb(src, xx, yy)));
  }
}

// Cell row j of integral R at cells 4 and 8 (integral_rows_wide_kernel's path there): chunks of
// kRowChunk pixel columns along the row; per chunk the luma tile with a one-pixel halo, the
// features of every pixel, the cell sums of every plane (one thread per plane and cell, each
// summing the cell's c^2 products), and a warp scan per plane continuing the running total of the
// previous chunks. Writes entry (j + 1, i + 1) of the row's planes (row prefix sums of the cell
// sums) and the zero column. On the caller's shared arrays (lum: (kMaxCell + 2) x (kRowChunk + 2),
// cs, carry). The cell size is a template argument (4 or 8) so that the c^2 products of a cell
// unroll into vector reads of shared memory without loop counters (the street chain's row pass:
// 87 M warp instructions a frame against 100 M with loops over a run-time size).
template <int C>
__device__ void rows_narrow(const PixelSource& src, const Layout& L, const DevIntegral& R, int j,
                            int64_t* base, short* lum, short (*feat)[kMaxCell][kRowChunk],
                            int64_t (*cs)[kRowChunk], int64_t* carry) {
  constexpr int c = C;
  const int y0 = R.y + j * c;
  const int cells_per_chunk = kRowChunk / c;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int64_t row_stride = R.cols + 1;
  int64_t* row = base + R.offset + (j + 1) * row_stride;

  row_start(L, R, row, carry);
  for (int i0 = 0; i0 < R.cols; i0 += cells_per_chunk) {
    const int ncells = min(cells_per_chunk, R.cols - i0);
    const int px0 = R.x + i0 * c, npx = ncells * c;
    load_luma(src, y0, px0, npx, c, lum, kRowChunk + 2);
    __syncthreads();
    for (int t = tid; t < c * npx; t += kRowThreads) {
      const int r = t / npx, q = t - r * npx;
      int l[9];
      for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx)
          l[dy * 3 + dx] = lum[(r + dy) * (kRowChunk + 2) + q + dx];
      const Rgb8 col = fetch_rgb(src, px0 + q, y0 + r);
      for (int a = 0; a < L.nf; ++a)
        feat[a][r][q] = static_cast<short>(feature_value(L.kind[L.ns + a], l, col));
    }
    __syncthreads();
    for (int t = tid; t < L.planes * ncells; t += kRowThreads) {
      const int p = t / ncells, i = t - p * ncells;
      const PlaneDesc d = L.plane[p];
      const short(*fa)[kRowChunk] = feat[d.kind == kCross ? d.b : d.a];
      const short(*fb)[kRowChunk] = feat[d.b];
      const int q0 = i * c;
      if (d.kind != kCross) {
        // At most 64 values below 2040^2 < 2^22 in magnitude: below 2^28, so int suffices.
        int s32 = 0;
        if (d.kind == kFirst) {
#pragma unroll
          for (int dy = 0; dy < c; ++dy)
#pragma unroll
            for (int dx = 0; dx < c; ++dx)
              s32 += fa[dy][q0 + dx];
        } else {
#pragma unroll
          for (int dy = 0; dy < c; ++dy)
#pragma unroll
            for (int dx = 0; dx < c; ++dx)
              s32 += fa[dy][q0 + dx] * fb[dy][q0 + dx];
        }
        cs[p][i] = s32;
        continue;
      }
      // Coordinate relative to the region times the feature.
      int64_t s = 0;
#pragma unroll
      for (int dy = 0; dy < c; ++dy)
#pragma unroll
        for (int dx = 0; dx < c; ++dx)
          s += static_cast<int64_t>(fa[dy][q0 + dx]) * (d.a == 0 ? (i0 + i) * c + dx : j * c + dy);
      cs[p][i] = s;
    }
    __syncthreads();
    // Row prefix per plane: lane owns cells 2*lane and 2*lane+1 of the chunk.
    for (int p = warp; p < L.planes; p += kRowThreads / 32) {
      const int i = 2 * lane;
      const int64_t v0 = i < ncells ? cs[p][i] : 0, v1 = i + 1 < ncells ? cs[p][i + 1] : 0;
      int64_t x = v0 + v1;
      for (int d = 1; d < 32; d *= 2) {
        const int64_t y = shfl_ll(x, lane >= d ? lane - d : lane);
        if (lane >= d)
          x += y;
      }
      const int64_t before = carry[p] + x - (v0 + v1);
      int64_t* out = row + p * R.plane_stride + i0 + 1;
      if (i < ncells)
        out[i] = before + v0;
      if (i + 1 < ncells)
        out[i + 1] = before + v0 + v1;
      const int64_t total = shfl_ll(x, 31);
      __syncwarp(); // every lane has read carry[p] (racecheck: read/write hazard without it)
      if (lane == 0)
        carry[p] += total;
    }
    __syncthreads();
  }
}

constexpr int kWidePixels = 256; // pixels per chunk of integral_rows_wide_kernel

// P (8 or 4) 16-bit values at p (aligned to 2 P bytes) in one shared-memory load.
template <int P> __device__ __forceinline__ void load_shorts(const short* p, int* out) {
  int w[P / 2];
  if constexpr (P == 8) {
    const int4 v = *reinterpret_cast<const int4*>(p);
    w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
  } else {
    static_assert(P == 4, "8 or 4 values");
    const int2 v = *reinterpret_cast<const int2*>(p);
    w[0] = v.x, w[1] = v.y;
  }
#pragma unroll
  for (int k = 0; k < P / 2; ++k) {
    out[2 * k] = static_cast<short>(w[k] & 0xffff);
    out[2 * k + 1] = w[k] >> 16;
  }
}

// Inclusive warp scan, and the warp's total (lane 31's), of int or int64_t values.
__device__ __forceinline__ int warp_scan(int x, int lane) {
#pragma unroll
  for (int e = 1; e < 32; e *= 2) {
    const int y = __shfl_up_sync(0xffffffffu, x, e);
    if (lane >= e)
      x += y;
  }
  return x;
}
__device__ __forceinline__ int64_t warp_scan(int64_t x, int lane) {
#pragma unroll
  for (int e = 1; e < 32; e *= 2) {
    const int64_t y = shfl_ll(x, lane >= e ? lane - e : lane);
    if (lane >= e)
      x += y;
  }
  return x;
}
__device__ __forceinline__ int warp_last(int x) {
  return __shfl_sync(0xffffffffu, x, 31);
}
__device__ __forceinline__ int64_t warp_last(int64_t x) {
  return shfl_ll(x, 31);
}

// The wide path's per-warp staging of a plane's 256 entries, so that the row is written coalesced
// (lane l's cells are consecutive; stored straight, each warp store touched 32 sectors): one int64
// of padding after every 8 keeps both the lanes' writes and the coalesced reads nearly free of
// bank conflicts.
constexpr int kStageStride = kWidePixels + kWidePixels / 8;
__device__ __forceinline__ int stage_index(int e) {
  return e + (e >> 3);
}

// The wide path's row prefix sums of one chunk (cells i0 .. i0 + ncells - 1 of cell row j), one
// warp per plane. Lane l owns the chunk's cells l K .. l K + K - 1 (K = 8 at cell 1, 2 at cell 2:
// 8 or 4 pixel columns of each of the C rows, one vector load per row and feature). It sums them
// serially, one warp scan of the 32 lane totals gives the cells before its first, and it adds its
// cells again (cheaper in registers than holding K sums) as it writes the running sums to the
// warp's stage, from which the warp writes the row coalesced. A warp scan per 32 cells took more
// instructions (2048x1152 integrals at cell 1: 0.64 ms against 0.60); the entries are the same
// integers. The features are at feat[a][r * kWidePixels + q] (r < C, q < kWidePixels); lanes past
// ncells read what is there and discard it.
template <int C>
__device__ __forceinline__ void scan_wide(const Layout& L, const DevIntegral& R, int j, int i0,
                                          int ncells, const short (*feat)[kMaxCell * kRowChunk],
                                          int64_t* row, int64_t* carry, int64_t* stage_all) {
  constexpr int K = kWidePixels / (C * C) / 32;
  constexpr int P = K * C; // pixel columns per lane: 8 or 4
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int first = lane * K;
  int64_t* stage = stage_all + warp * kStageStride;
  for (int p = warp; p < L.planes; p += kRowThreads / 32) {
    const PlaneDesc d = L.plane[p];
    int fa[C][P], fb[C][P];
#pragma unroll
    for (int dy = 0; dy < C; ++dy) {
      load_shorts<P>(&feat[d.kind == kCross ? d.b : d.a][dy * kWidePixels + first * C], fa[dy]);
      if (d.kind == kSecond)
        load_shorts<P>(&feat[d.b][dy * kWidePixels + first * C], fb[dy]);
    }
    int64_t* out = row + p * R.plane_stride + i0 + 1;
    // T: the lane's sums and the scan. Feature sums and products (below 2040^2 < 2^22 in
    // magnitude) of a chunk's 256 pixels stay below 2^30, so int; the cross planes need 64 bits.
    auto place = [&](auto zero, auto cell) {
      using T = decltype(zero);
      T acc = 0;
#pragma unroll
      for (int m = 0; m < K; ++m)
        acc += first + m < ncells ? cell(m) : T(0);
      const T x = warp_scan(acc, lane);
      int64_t run = carry[p] + static_cast<int64_t>(x - acc);
#pragma unroll
      for (int m = 0; m < K; ++m) {
        if (first + m < ncells) {
          run += cell(m);
          stage[stage_index(first + m)] = run;
        }
      }
      __syncwarp();
#pragma unroll
      for (int m = 0; m < K; ++m) {
        const int e = m * 32 + lane;
        if (e < ncells)
          out[e] = stage[stage_index(e)];
      }
      const T total = warp_last(x);
      __syncwarp(); // every lane has read carry[p] and the stage
      if (lane == 0)
        carry[p] += total;
    };
    if (d.kind == kFirst || d.kind == kSecond) {
      place(0, [&](int m) {
        int s = 0;
#pragma unroll
        for (int dy = 0; dy < C; ++dy)
#pragma unroll
          for (int dx = 0; dx < C; ++dx) {
            const int q = m * C + dx;
            s += d.kind == kFirst ? fa[dy][q] : fa[dy][q] * fb[dy][q];
          }
        return s;
      });
    } else { // coordinate relative to the region times the feature
      place(int64_t(0), [&](int m) {
        int64_t s = 0;
#pragma unroll
        for (int dy = 0; dy < C; ++dy)
#pragma unroll
          for (int dx = 0; dx < C; ++dx)
            s += static_cast<int64_t>(fa[dy][m * C + dx]) *
                 (d.a == 0 ? (i0 + first + m) * C + dx : j * C + dy);
        return s;
      });
    }
  }
}

// The row pass: one block per cell row of one integral. Cells 1 and 2 take wide chunks:
// 256 pixels per chunk (one row of 256 at cell 1, 2 x 128 at cell 2) instead of rows_narrow's 64
// columns, and the cell sums computed inside the scan (scan_wide: each lane its consecutive cells;
// no shared cell-sum array, no barrier between them): at cell 1 a 1920-pixel row is 8 chunks
// instead of 30, two barriers each instead of four, and every thread computes a pixel's features
// instead of one in four. Cells 4 and 8 take rows_narrow (a chunk holds 16 or 8 cells there: lanes
// per plane would idle, while rows_narrow spreads each cell's c^2 products over the block's
// threads). The entries are the same integers (exact sums, any order). rows_narrow at every cell
// size was slower (README.md, "Measured and not kept"). Five blocks an SM (48 registers on sm_90,
// a few spilled), as many as the shared arrays allow; unbounded it took 64 registers (four).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
constexpr int kRowMinBlocks = 4; // 1,024 threads an SM
#else
constexpr int kRowMinBlocks = 5;
#endif
__global__ void __launch_bounds__(kRowThreads, kRowMinBlocks)
    integral_rows_wide_kernel(PixelSource src, Layout L, const DevIntegral* integrals,
                              int n_integrals, int64_t* base) {
  // (1 + 2) x (256 + 2) luma at cell 1 (the narrow path's (8 + 2) x (64 + 2) fits in it); features
  // of 256 pixels, or rows_narrow's 8 x 64 at cells 4 and 8.
  __shared__ short lum[3 * (kWidePixels + 2)];
  __shared__ __align__(16) short feat[kMaxFeatures][kMaxCell * kRowChunk];
  __shared__ int64_t cs[kMaxPlanes][kRowChunk]; // rows_narrow's cell sums; scan_wide's stage
  static_assert(kMaxPlanes * kRowChunk >= (kRowThreads / 32) * kStageStride, "stage");
  __shared__ int64_t carry[kMaxPlanes];
  static_assert(3 * (kWidePixels + 2) >= (kMaxCell + 2) * (kRowChunk + 2), "luma tile");

  const int k = find_integral_by_row(integrals, n_integrals, blockIdx.x);
  const DevIntegral R = integrals[k];
  const int j = blockIdx.x - R.row_first;
  if (R.cell > 2) {
    auto* f = reinterpret_cast<short(*)[kMaxCell][kRowChunk]>(&feat[0][0]);
    if (R.cell == 4)
      rows_narrow<4>(src, L, R, j, base, lum, f, cs, carry);
    else
      rows_narrow<8>(src, L, R, j, base, lum, f, cs, carry);
    return;
  }
  const int c = R.cell;
  const int y0 = R.y + j * c;
  const int cells_per_chunk = kWidePixels / (c * c); // 256 pixel columns at cell 1, 128 at 2
  const int tid = threadIdx.x;
  const int64_t row_stride = R.cols + 1;
  int64_t* row = base + R.offset + (j + 1) * row_stride;

  row_start(L, R, row, carry);
  for (int i0 = 0; i0 < R.cols; i0 += cells_per_chunk) {
    const int ncells = min(cells_per_chunk, R.cols - i0);
    const int px0 = R.x + i0 * c, npx = ncells * c;
    // (The barrier before the next chunk's features is the next chunk's first one: the scan reads
    // only feat.)
    const int tw = npx + 2;
    load_luma(src, y0, px0, npx, c, lum, tw);
    __syncthreads();
    for (int t = tid; t < c * npx; t += kRowThreads) {
      const int r = t / npx, q = t - r * npx;
      int l[9];
      for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx)
          l[dy * 3 + dx] = lum[(r + dy) * tw + q + dx];
      const Rgb8 col = fetch_rgb(src, px0 + q, y0 + r);
      for (int a = 0; a < L.nf; ++a)
        feat[a][r * kWidePixels + q] = static_cast<short>(feature_value(L.kind[L.ns + a], l, col));
    }
    __syncthreads();
    if (c == 1)
      scan_wide<1>(L, R, j, i0, ncells, feat, row, carry, &cs[0][0]);
    else
      scan_wide<2>(L, R, j, i0, ncells, feat, row, carry, &cs[0][0]);
  }
}

// The column sums: per (integral, plane, column) the running sum down the column, in place; row 0
// is zero. A block holds 32 columns (one per lane, coalesced) and kColSegments threads per column,
// each owning a run of rows: the run's total first, then the totals of the runs above it (shared
// memory) as the carry of its running sum. One thread per column ran a serial chain of up to a
// frame's height per column at half a wave (latency-bound); the sums are the same integers.
constexpr int kColSegments = 8;

__global__ void __launch_bounds__(32 * kColSegments)
    integral_cols_kernel(const DevIntegral* integrals, int n_integrals, int64_t total_cols,
                         int64_t* base) {
  __shared__ uint64_t total[kColSegments][32];
  const int64_t t = static_cast<int64_t>(blockIdx.x) * 32 + threadIdx.x;
  const int seg = threadIdx.y;
  int64_t* col = nullptr;
  int64_t stride = 0;
  int r0 = 1, r1 = 1; // rows r0 .. r1 - 1 of this thread (rows 1 .. R.rows hold cell sums)
  if (t < total_cols) {
    const int k = find_integral_by_col(integrals, n_integrals, t);
    const DevIntegral R = integrals[k];
    const int64_t local = t - R.col_first;
    stride = R.cols + 1;
    const int64_t p = local / stride, i = local - p * stride;
    col = base + R.offset + p * R.plane_stride + i;
    const int per = (R.rows + kColSegments - 1) / kColSegments;
    r0 = 1 + seg * per;
    r1 = min(R.rows + 1, r0 + per);
    if (seg == 0)
      col[0] = 0;
  }
  uint64_t acc = 0;
  for (int r = r0; r < r1; ++r)
    acc += static_cast<uint64_t>(col[r * stride]);
  total[seg][threadIdx.x] = acc;
  __syncthreads();
  acc = 0;
  for (int q = 0; q < seg; ++q)
    acc += total[q][threadIdx.x];
  int r = r0;
  for (; r + 3 < r1; r += 4) { // four independent loads in flight
    const uint64_t a = col[r * stride], b = col[(r + 1) * stride];
    const uint64_t c = col[(r + 2) * stride], d = col[(r + 3) * stride];
    acc += a;
    col[r * stride] = static_cast<int64_t>(acc);
    acc += b;
    col[(r + 1) * stride] = static_cast<int64_t>(acc);
    acc += c;
    col[(r + 2) * stride] = static_cast<int64_t>(acc);
    acc += d;
    col[(r + 3) * stride] = static_cast<int64_t>(acc);
  }
  for (; r < r1; ++r) {
    acc += static_cast<uint64_t>(col[r * stride]);
    col[r * stride] = static_cast<int64_t>(acc);
  }
}

CVIS_PRELOAD_MODULE(integral_rows_wide_kernel);

} // namespace

Status launch_integrals(const PixelSource& src, const Layout& layout, const DevIntegral* integrals,
                        int n_integrals, int total_rows, int64_t total_cols, int64_t* base,
                        cudaStream_t stream) {
  if (n_integrals <= 0)
    return Status::Ok();
  integral_rows_wide_kernel<<<total_rows, kRowThreads, 0, stream>>>(src, layout, integrals,
                                                                    n_integrals, base);
  CVIS_CUDA_CHECK_LAUNCH(stream, "integral_rows_wide_kernel");
  const unsigned blocks = static_cast<unsigned>((total_cols + 31) / 32);
  integral_cols_kernel<<<blocks, dim3(32, kColSegments), 0, stream>>>(integrals, n_integrals,
                                                                      total_cols, base);
  CVIS_CUDA_CHECK_LAUNCH(stream, "integral_cols_kernel");
  return Status::Ok();
}

} // namespace cvis::rcdtrack::kernels

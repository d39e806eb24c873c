// Integral images of all planes in two kernels (the thesis's point: every feature and product
// image of a frame at once, no transposes). The feature images themselves are never stored: the
// row kernel computes luma, features and products of its pixels in registers and writes the row
// prefix sums of the cell sums; the column kernel adds the rows up in place, coalesced.
#include "common/cuda/check.hpp"
#include "common/cuda/preload.hpp"
#include "rcdtrack_kernels.hpp"

namespace cvis::rcdtrack::kernels {

namespace {

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

__device__ __forceinline__ int64_t shfl_xor_ll(int64_t v, int mask) {
  return static_cast<int64_t>(__shfl_xor_sync(0xffffffffu, static_cast<long long>(v), mask));
}
__device__ __forceinline__ int64_t shfl_up_ll(int64_t v, int delta) {
  return static_cast<int64_t>(__shfl_up_sync(0xffffffffu, static_cast<long long>(v), delta));
}

// The row pass: one block of kRowWarps warps per cell row of one integral; lane = pixel column.
// A round covers kRowWarps x 32 pixel columns, one 32-column chunk per warp. Per chunk each lane
// walks down the cell's c pixel rows with its 3x3 luma neighbourhood in registers (one pixel fetch
// per pixel: the centre's colour gives its luma; the left and right columns come from the
// neighbour lanes, the chunk's two edge columns from lanes 0 and 31), computes the pixel's
// features and adds every plane value to its own accumulators (registers, indices fixed at compile
// time: NF features, the plane order of make_layout). Then shuffles add the c lanes of each cell
// (xor butterfly: every lane of a cell gets its sum) and scan the cells of the chunk; one barrier
// per round exchanges the warps' chunk totals (the running total of the row before the round and
// of the warps to the left give each warp's offset). Entries are the same integers as the CPU's
// (exact sums, any order).
//
// Before: a block per cell row computed features into shared memory, then one thread per plane
// and cell summed the cell's c^2 products from shared memory (at cells 4 and 8 a serial chain of
// 16 or 64 dependent shared loads on a third to two thirds of the threads, bank conflicts between
// the planes' feature arrays), and one warp per plane scanned with int64 shuffles with most lanes
// idle at large cells; four barriers per 64-column chunk and 38.8 KB of shared memory.
//
// 32-bit accumulators for first and second order planes: a lane adds at most 8 rows and a chunk's
// scan at most 32 x 8 values below 2040^2 < 2^22 in magnitude (< 2^30). Cross planes (coordinate
// x feature, < 2^25 per pixel) use int64. Chunk totals and running totals are int64.
constexpr int kRowWarps = 4;
constexpr int kRowThreads = 32 * kRowWarps;

template <int NF> struct RowPlanes {
  static constexpr int kFirstSecond = NF + NF * (NF + 1) / 2; // planes 0 .. kFirstSecond - 1
  static constexpr int kAll = kFirstSecond + 2 * NF;          // with at most 2 spatial rows
};

// Cells are 1, 2, 4 or 8 pixels (cell_for_step); a round reads the cell's rows and one more above
// and below.
constexpr int kMaxRowCell = 8;
constexpr int kRoundRows = kMaxRowCell + 2;

__device__ __forceinline__ uint32_t pack_rgb(Rgb8 c) {
  return c.r | (static_cast<uint32_t>(c.g) << 8) | (static_cast<uint32_t>(c.b) << 16);
}
__device__ __forceinline__ Rgb8 unpack_rgb(uint32_t v) {
  return Rgb8{static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16)};
}

// A round's pixels, fetched before any is used: rows y0 - 1 .. y0 + c (clamped to the frame) of
// the lane's column x = min(px0 + lane, width - 1), and for lanes 0 and 31 the luma of the chunk's
// edge column beside it. Fetched row by row as the features needed them, a cell of c rows waited
// for c + 2 DRAM round trips one after another; the rows of the widest integrals' cells (a round
// per 128 columns, one block per cell row) made the kernel's critical path.
struct RoundPixels {
  uint32_t centre[kRoundRows];              // pack_rgb
  uint32_t edge[(kRoundRows + 3) / 4] = {}; // luma, four 8-bit values a word; lanes 0 and 31
};
__device__ __forceinline__ void fetch_round(const PixelSource& src, int px0, int y0, int c,
                                            int lane, RoundPixels* rp) {
  const int x = min(px0 + lane, src.width - 1);
  const int ex = lane == 0 ? max(px0 - 1, 0) : min(px0 + 32, src.width - 1);
#pragma unroll
  for (int r = 0; r < kRoundRows; ++r) {
    if (r < c + 2) {
      const int yy = min(max(y0 - 1 + r, 0), src.height - 1);
      rp->centre[r] = pack_rgb(fetch_rgb(src, x, yy));
      if (lane == 0 || lane == 31)
        rp->edge[r / 4] |= static_cast<uint32_t>(luma_of(fetch_rgb(src, ex, yy))) << (8 * (r % 4));
    }
  }
}

// The three luma values (x - 1, x, x + 1, clamped to the frame) of round row r for every lane: the
// others' centres by shuffles, the chunk's edge columns from lanes 0 and 31.
__device__ __forceinline__ void luma_row(const RoundPixels& rp, int r, int lane, int* l) {
  const int c = luma_of(unpack_rgb(rp.centre[r]));
  int left = __shfl_up_sync(0xffffffffu, c, 1), right = __shfl_down_sync(0xffffffffu, c, 1);
  const int e = static_cast<int>((rp.edge[r / 4] >> (8 * (r % 4))) & 0xffu);
  if (lane == 0)
    left = e;
  if (lane == 31)
    right = e;
  l[0] = left;
  l[1] = c;
  l[2] = right;
}

// Five blocks per SM (at most 96 registers) where that costs no spills: the thesis's features
// and their smaller sets; unbounded, the unrolled round took 128 (4 blocks per SM).
template <int NF> inline constexpr int kRowMinBlocks = NF <= 5 ? 5 : 1;

template <int NF, bool SPATIAL>
__global__ void __launch_bounds__(kRowThreads, kRowMinBlocks<NF>)
    integral_rows_kernel(PixelSource src, Layout L, const DevIntegral* integrals, int n_integrals,
                         int64_t* base) {
  using P = RowPlanes<NF>;
  constexpr int kPlanes = SPATIAL ? P::kAll : P::kFirstSecond;
  __shared__ int64_t total[2][kRowWarps][kPlanes]; // chunk totals per round (double-buffered)
  __shared__ int64_t carry[2][kPlanes];            // row total before the round (double-buffered)

  const int k = find_integral_by_row(integrals, n_integrals, blockIdx.x);
  const DevIntegral R = integrals[k];
  const int j = blockIdx.x - R.row_first;
  const int c = R.cell;
  const int y0 = R.y + j * c;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int planes = L.planes; // kFirstSecond + L.ns * NF
  const int64_t row_stride = R.cols + 1;
  int64_t* row = base + R.offset + (j + 1) * row_stride;
  const int width = R.cols * c; // pixel columns; a multiple of c, as is 32: cells never straddle

  for (int p = tid; p < planes; p += kRowThreads) {
    row[p * R.plane_stride] = 0;
    carry[0][p] = 0;
  }
  int b = 0;
  for (int r0 = 0; r0 < width; r0 += kRowThreads, b ^= 1) {
    const int q0 = r0 + 32 * warp; // the warp's first pixel column, relative to R.x
    const bool here = q0 + lane < width;
    int acc[P::kFirstSecond];
    int64_t accx[SPATIAL ? 2 * NF : 1];
#pragma unroll
    for (int p = 0; p < P::kFirstSecond; ++p)
      acc[p] = 0;
#pragma unroll
    for (int p = 0; p < (SPATIAL ? 2 * NF : 1); ++p)
      accx[p] = 0;
    if (q0 < width) { // warp-uniform: every lane shuffles, past the end none
      RoundPixels rp;
      fetch_round(src, R.x + q0, y0, c, lane, &rp);
      int l[9];
      luma_row(rp, 0, lane, l);
      luma_row(rp, 1, lane, l + 3);
      // Unrolled to the largest cell (static register indices into rp), stopped at c.
#pragma unroll
      for (int r = 0; r < kMaxRowCell; ++r) {
        if (r >= c)
          break;
        luma_row(rp, r + 2, lane, l + 6);
        const Rgb8 col = unpack_rgb(rp.centre[r + 1]);
        int f[NF];
#pragma unroll
        for (int a = 0; a < NF; ++a)
          f[a] = feature_value(L.kind[L.ns + a], l, col);
        if (here) {
#pragma unroll
          for (int a = 0; a < NF; ++a)
            acc[a] += f[a];
#pragma unroll
          for (int bb = 0; bb < NF; ++bb)
#pragma unroll
            for (int a = 0; a <= bb; ++a)
              acc[NF + bb * (bb + 1) / 2 + a] += f[a] * f[bb];
          if constexpr (SPATIAL) {
#pragma unroll
            for (int s = 0; s < 2; ++s) {
              if (s < L.ns) {
                const int64_t rel = L.coord[s] == 0 ? q0 + lane : j * c + r;
#pragma unroll
                for (int a = 0; a < NF; ++a)
                  accx[s * NF + a] += rel * f[a];
              }
            }
          }
        }
#pragma unroll
        for (int t = 0; t < 6; ++t)
          l[t] = l[t + 3];
      }
      // Cell sums (every lane of a cell), then the inclusive scan over the chunk's cells (a warp
      // past the row's end in the last round has nothing to add: its totals are 0).
      for (int o = 1; o < c; o *= 2) {
#pragma unroll
        for (int p = 0; p < P::kFirstSecond; ++p)
          acc[p] += __shfl_xor_sync(0xffffffffu, acc[p], o);
        if constexpr (SPATIAL) {
#pragma unroll
          for (int p = 0; p < 2 * NF; ++p)
            accx[p] += shfl_xor_ll(accx[p], o);
        }
      }
      for (int o = c; o < 32; o *= 2) {
#pragma unroll
        for (int p = 0; p < P::kFirstSecond; ++p) {
          const int y = __shfl_up_sync(0xffffffffu, acc[p], o);
          if (lane >= o)
            acc[p] += y;
        }
        if constexpr (SPATIAL) {
#pragma unroll
          for (int p = 0; p < 2 * NF; ++p) {
            const int64_t y = shfl_up_ll(accx[p], o);
            if (lane >= o)
              accx[p] += y;
          }
        }
      }
    }
    if (lane == 31) {
#pragma unroll
      for (int p = 0; p < P::kFirstSecond; ++p)
        total[b][warp][p] = acc[p];
      if constexpr (SPATIAL) {
#pragma unroll
        for (int p = 0; p < 2 * NF; ++p)
          if (P::kFirstSecond + p < planes)
            total[b][warp][P::kFirstSecond + p] = accx[p];
      }
    }
    __syncthreads();
    // The next round's carry (its readers come after the next barrier; this buffer's last
    // readers were before this one).
    for (int p = tid; p < planes; p += kRowThreads) {
      int64_t t = carry[b][p];
      for (int w = 0; w < kRowWarps; ++w)
        t += total[b][w][p];
      carry[b ^ 1][p] = t;
    }
    if (!here || lane % c != 0)
      continue;
    int64_t* out = row + 1 + (q0 + lane) / c;
#pragma unroll
    for (int p = 0; p < kPlanes; ++p) {
      if (SPATIAL && p >= planes)
        break;
      int64_t before = carry[b][p];
      for (int w = 0; w < warp; ++w)
        before += total[b][w][p];
      out[p * R.plane_stride] =
          before + (p < P::kFirstSecond ? acc[p] : accx[SPATIAL ? p - P::kFirstSecond : 0]);
    }
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

CVIS_PRELOAD_MODULE(integral_cols_kernel);

using RowKernel = void (*)(PixelSource, Layout, const DevIntegral*, int, int64_t*);

template <int NF> RowKernel row_kernel(bool spatial) {
  return spatial ? integral_rows_kernel<NF, true> : integral_rows_kernel<NF, false>;
}

// The row kernel for the layout's number of non-spatial features (1..9) and whether it has
// spatial ones; nullptr when it has no non-spatial feature (no planes).
RowKernel row_kernel_for(const Layout& l) {
  const bool s = l.ns > 0;
  switch (l.nf) {
  case 1:
    return row_kernel<1>(s);
  case 2:
    return row_kernel<2>(s);
  case 3:
    return row_kernel<3>(s);
  case 4:
    return row_kernel<4>(s);
  case 5:
    return row_kernel<5>(s);
  case 6:
    return row_kernel<6>(s);
  case 7:
    return row_kernel<7>(s);
  case 8:
    return row_kernel<8>(s);
  case 9:
    return row_kernel<9>(s);
  default:
    return nullptr;
  }
}

} // namespace

Status launch_integrals(const PixelSource& src, const Layout& layout, const DevIntegral* integrals,
                        int n_integrals, int total_rows, int64_t total_cols, int64_t* base,
                        cudaStream_t stream) {
  const RowKernel rows = row_kernel_for(layout);
  if (n_integrals <= 0 || rows == nullptr)
    return Status::Ok();
  rows<<<total_rows, kRowThreads, 0, stream>>>(src, layout, integrals, n_integrals, base);
  CVIS_CUDA_CHECK_LAUNCH(stream, "integral_rows_kernel");
  const unsigned blocks = static_cast<unsigned>((total_cols + 31) / 32);
  integral_cols_kernel<<<blocks, dim3(32, kColSegments), 0, stream>>>(integrals, n_integrals,
                                                                      total_cols, base);
  CVIS_CUDA_CHECK_LAUNCH(stream, "integral_cols_kernel");
  return Status::Ok();
}

} // namespace cvis::rcdtrack::kernels

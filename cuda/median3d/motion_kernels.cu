// Kernels of the motion detector (motion_kernels.hpp): 32 x 8 tiles (one thread per pixel, the
// update one per group of sample_period pixels), the passes of motion_cpu.cpp in its order, several
// fused (README.md, "Motion detector: the CUDA backend"). Counts are reduced per block before one
// global atomic.
#include "common/cuda/block_median.cuh"
#include "common/cuda/check.hpp"
#include "common/cuda/preload.hpp"
#include "common/cuda/tiles.hpp"
#include "common/segmentation.hpp"
#include "motion.hpp"
#include "motion_kernels.hpp"
#include "motion_math.hpp"

namespace cvis::median3d::kernels {

namespace {

using cuda::kTileH;
using cuda::kTileW;
using cuda::tile_block;
using cuda::tile_grid;

constexpr unsigned kFull = 0xffffffffu;
// ---------------------------------------------------------------------------------------------
// Median and deviation of one pixel's samples, four 8-bit samples per 32-bit word (SWAR). The
// rank selection is select_rank() of motion_math.hpp (bit by bit from the top, #(values < c)
// counted per candidate c), with the counting done four bytes per instruction: 8 words hold the
// 31 samples of the default history, so a candidate costs about 5 x 8 integer instructions
// instead of 31 byte loads and compares. The padding bytes (k >= K) are forced to 255, which is
// never below a candidate (c <= 255): they are never counted, as select_rank() over K values.

constexpr uint32_t kHigh = 0x80808080u;

// Bit 7 of every byte: that byte of a is below the same byte of c (unsigned). With t's bit 7 =
// (a & 0x7f) >= (c & 0x7f) (no borrow crosses a byte: each byte of a | H is >= 0x80 > c & 0x7f),
// a < c iff a's top bit is clear and c's set, or they are equal and the low seven bits compare
// below. (Checked exhaustively against byte compares.)
__device__ __forceinline__ uint32_t lt_bytes(uint32_t a, uint32_t c) {
  const uint32_t t = (a | kHigh) - (c & ~kHigh);
  return ((~a & c) | (~(a ^ c) & ~t)) & kHigh;
}

// |a - b| per byte: max - min per byte, which never borrows across bytes.
__device__ __forceinline__ uint32_t absdiff_bytes(uint32_t a, uint32_t b) {
  const uint32_t m = (lt_bytes(a, b) >> 7) * 0xffu;
  return ((a & ~m) | (b & m)) - ((a & m) | (b & ~m));
}

// How many bytes of w are below c (c: one level in every byte, 0..255).
template <int NW> __device__ __forceinline__ int count_below(const uint32_t (&w)[NW], uint32_t c) {
  uint32_t acc = 0; // per byte lane: how many of the words' bytes there are below (<= 16)
#pragma unroll
  for (int j = 0; j < NW; ++j)
    acc += lt_bytes(w[j], c) >> 7;
  return static_cast<int>((acc * 0x01010101u) >> 24); // the four lanes' sum (<= 64)
}

// select_rank() over the bytes of w (the padding already 255), from bit `top` down with the bits
// above it 0: equal to select_rank() when fewer than rank + 1 values are below 2^(top + 1) is
// false, i.e. when #(values < 2^(top + 1)) > rank (every candidate of a higher bit then has more
// than rank values below it and is refused there too).
template <int NW, int kTop = 7>
__device__ __forceinline__ int select_rank_packed(const uint32_t (&w)[NW], int rank) {
  int cur = 0;
#pragma unroll
  for (int bit = kTop; bit >= 0; --bit) {
    const int cand = cur | (1 << bit);
    if (count_below<NW>(w, static_cast<uint32_t>(cand) * 0x01010101u) <= rank)
      cur = cand;
  }
  return cur;
}

__device__ __forceinline__ uint32_t bytes_mask(uint32_t bit7) {
  return (bit7 >> 7) * 0xffu;
}
__device__ __forceinline__ uint32_t min_bytes(uint32_t a, uint32_t b) {
  const uint32_t m = bytes_mask(lt_bytes(a, b));
  return (a & m) | (b & ~m);
}
__device__ __forceinline__ uint32_t max_bytes(uint32_t a, uint32_t b) {
  const uint32_t m = bytes_mask(lt_bytes(a, b));
  return (b & m) | (a & ~m);
}

// select_rank() over the bytes of w (padding 255) with a guess h of the answer: the previous
// median, when one sample of the set has been replaced. With lt = #(values < h) and
// le = #(values <= h): lt <= rank < le -> h; le == rank -> the smallest value above h; lt ==
// rank + 1 -> the largest value below h; otherwise (or h = 255) the bit-by-bit selection. Each
// case is exact for any h; one replaced sample moves lt and le by at most 1, so the previous
// median always lands in the first three (two counting passes, at most one min or max pass,
// instead of eight counting passes).
template <int NW>
__device__ __forceinline__ int select_rank_near(const uint32_t (&w)[NW], int rank, int h) {
  if (h < 255) {
    const uint32_t hb = static_cast<uint32_t>(h) * 0x01010101u;
    const int lt = count_below<NW>(w, hb), le = count_below<NW>(w, hb + 0x01010101u);
    if (lt <= rank && rank < le)
      return h;
    if (le == rank) {
      uint32_t r = 0xffffffffu;
#pragma unroll
      for (int j = 0; j < NW; ++j) // bytes not above h count as 255 (the padding is 255)
        r = min_bytes(r, w[j] | ~bytes_mask(lt_bytes(hb, w[j])));
      r = min_bytes(r, r >> 16);
      return static_cast<int>(min_bytes(r, r >> 8) & 0xffu);
    }
    if (lt == rank + 1) {
      uint32_t r = 0;
#pragma unroll
      for (int j = 0; j < NW; ++j) // bytes not below h count as 0 (the padding, 255, is not)
        r = max_bytes(r, w[j] & bytes_mask(lt_bytes(w[j], hb)));
      r = max_bytes(r, r >> 16);
      return static_cast<int>(max_bytes(r, r >> 8) & 0xffu);
    }
  }
  return select_rank_packed<NW>(w, rank);
}

// Mask of the real samples of word j (bytes 4j .. 4j + 3 below K).
template <int NW> __device__ __forceinline__ void valid_masks(int K, uint32_t (&vm)[NW]) {
#pragma unroll
  for (int j = 0; j < NW; ++j) {
    const int n = K - 4 * j;
    vm[j] = n >= 4 ? 0xffffffffu : (n <= 0 ? 0u : (1u << (8 * n)) - 1u);
  }
}

// select_rank() over the bytes of w (the padding already 255) with a run-time top bit (bits above
// it 0): exact when the answer is below 2^(top + 1), as select_rank_packed's condition.
template <int NW>
__device__ __forceinline__ int select_rank_from(const uint32_t (&w)[NW], int rank, int top) {
  int cur = 0;
  for (int bit = top; bit >= 0; --bit) {
    const int cand = cur | (1 << bit);
    if (count_below<NW>(w, static_cast<uint32_t>(cand) * 0x01010101u) <= rank)
      cur = cand;
  }
  return cur;
}

// median_mad() of motion_math.hpp on the packed samples, then tau_of() of D: the same B and
// threshold. `hint`: a guess of B (the median before one sample was replaced), or -1. D is
// selected only when the threshold depends on it: [low, high) = the deviations strictly between
// the clamps (tau_clamp_range()); D <= low (#(deviations <= low) > rank) gives tau_min, D >= high
// (#(deviations < high) <= rank) gives tau_max, each after one counting pass. A still background
// (D of 0..2 at the defaults) then costs one pass instead of the four to eight of the selection;
// the rest select from the top bit of high - 1 (D < high).
template <int NW>
__device__ __forceinline__ void median_tau_packed(const uint32_t (&w)[NW], int K, int hint,
                                                  const TauRange& tr, int* median, int* tau) {
  uint32_t vm[NW], s[NW];
  valid_masks<NW>(K, vm);
#pragma unroll
  for (int j = 0; j < NW; ++j)
    s[j] = w[j] | ~vm[j];
  const int rank = (K - 1) / 2;
  const int b = hint >= 0 ? select_rank_near<NW>(s, rank, hint) : select_rank_packed<NW>(s, rank);
  const uint32_t bb = static_cast<uint32_t>(b) * 0x01010101u;
#pragma unroll
  for (int j = 0; j < NW; ++j)
    s[j] = absdiff_bytes(w[j], bb) | ~vm[j];
  *median = b;
  if (tr.low >= 255 || count_below<NW>(s, static_cast<uint32_t>(tr.low + 1) * 0x01010101u) > rank) {
    *tau = tr.tau_min;
  } else if (tr.high <= 255 &&
             count_below<NW>(s, static_cast<uint32_t>(tr.high) * 0x01010101u) <= rank) {
    *tau = tr.tau_max;
  } else {
    const int d = select_rank_from<NW>(s, rank, 31 - __clz(tr.high - 1));
    *tau = tau_of(d, tr.factor16, tr.tau_min, tr.tau_max);
  }
}

// The TauRange of channel c (a run-time index into the parameters would copy them to the stack).
__device__ __forceinline__ TauRange tau_range(const MotionConsts& k, int c) {
  return c == 0 ? k.tau_range[0] : k.tau_range[1];
}

// Channel c's samples of pixel (x, y): each row is stored as `group` sub-rows, x mod group, of
// blocks x / group (motion_kernels.hpp), so that the pixels of a row on their turn (one residue of
// x mod P) are contiguous blocks when P == group: a warp's refreshes read and write whole DRAM
// bursts, where blocks P pixels apart fetched P times the bytes they used.
__device__ __forceinline__ uint8_t* samples_of(const MotionState& m, int c, int x, int y) {
  const size_t sub = static_cast<size_t>(y) * m.group + x % m.group;
  return m.samples + c * m.sample_plane + (sub * m.group_w + x / m.group) * m.stride;
}

// The frame's channel values at (x, y) (in_ of the CPU reference: fetch_yuv()), packed v0 | v1 << 8
// | v2 << 16 (0 for channels past nc). Read from the frame by each pass that needs them: NV12 costs
// 1.5 bytes per pixel where a plane of values written by a pass of its own cost 1.5 + 2 nc and nc
// per reader. (Packed, not a small array: a run-time channel index would put it on the stack.)
__device__ __forceinline__ uint32_t frame_values(const MotionState& m, int x, int y) {
  uint8_t v[3] = {0, 0, 0};
  fetch_yuv(m.src, x, y, m.nc == 1, v);
  return static_cast<uint32_t>(v[0]) | (static_cast<uint32_t>(v[1]) << 8) |
         (static_cast<uint32_t>(v[2]) << 16);
}

__device__ __forceinline__ int channel(uint32_t packed, int c) {
  return static_cast<int>((packed >> (8 * c)) & 255u);
}

// The compensated values (cur_ of the CPU reference) of packed frame values: the frame's table
// (compensate() of every level, written by offset_solve_kernel), which replaces three 64-bit
// divisions per pixel.
__device__ __forceinline__ uint32_t compensated(const MotionState& m, uint32_t in) {
  uint32_t r = 0;
#pragma unroll
  for (int c = 0; c < 3; ++c)
    if (c < m.nc)
      r |= static_cast<uint32_t>(__ldg(m.lut + c * 256 + channel(in, c))) << (8 * c);
  return r;
}

template <int NW>
__device__ __forceinline__ void load_samples(const uint8_t* p, uint32_t (&w)[NW]) {
  const uint4* q = reinterpret_cast<const uint4*>(p);
#pragma unroll
  for (int j = 0; j < NW / 4; ++j) {
    const uint4 v = q[j];
    w[4 * j] = v.x;
    w[4 * j + 1] = v.y;
    w[4 * j + 2] = v.z;
    w[4 * j + 3] = v.w;
  }
}

// Median and threshold of channel c of pixel i from its samples `w`.
template <int NW>
__device__ __forceinline__ void store_model(const MotionState& m, const MotionConsts& k, int c,
                                            size_t i, const uint32_t (&w)[NW], int hint = -1) {
  int b, tau;
  median_tau_packed<NW>(w, m.history, hint, tau_range(k, c), &b, &tau);
  m.bg[c * m.px + i] = static_cast<uint8_t>(b);
  m.tau[c * m.px + i] = static_cast<uint8_t>(tau);
}

// Median and threshold of every channel of pixel i from its samples (refresh() of the CPU).
template <int NW>
__device__ void refresh(const MotionState& m, const MotionConsts& k, int x, int y, size_t i) {
  for (int c = 0; c < m.nc; ++c) {
    uint32_t w[NW];
    load_samples<NW>(samples_of(m, c, x, y), w);
    store_model<NW>(m, k, c, i, w);
  }
}

// insert() of the CPU: the current values replace the oldest samples (at head), then refresh.
// The new byte goes into the loaded words in registers (unrolled selects: a run-time index into
// the array would put it in local memory) and into memory as one byte store.
// `cur`: the pixel's compensated values, packed. Every load (head, the previous medians, the
// samples of each channel) comes before the first store: a load may not move past a store that
// could alias it, so storing channel by channel made each channel's loads wait for the previous
// channel's stores (a DRAM round trip per channel). The results wait in registers, packed.
template <int NW>
__device__ void insert(const MotionState& m, const MotionConsts& k, int x, int y, size_t i,
                       uint32_t cur) {
  const int h = m.head[i];
  uint32_t hints = 0; // previous medians, one byte per channel
#pragma unroll
  for (int c = 0; c < 3; ++c)
    if (c < m.nc)
      hints |= static_cast<uint32_t>(m.bg[c * m.px + i]) << (8 * c);
  const int wi = h >> 2, shift = 8 * (h & 3);
  uint8_t* const base = samples_of(m, 0, x, y);
  uint32_t bgs = 0, taus = 0;
  for (int c = 0; c < m.nc; ++c) {
    uint32_t w[NW];
    load_samples<NW>(base + c * m.sample_plane, w);
    const uint32_t v = static_cast<uint32_t>(channel(cur, c));
#pragma unroll
    for (int j = 0; j < NW; ++j)
      if (j == wi)
        w[j] = (w[j] & ~(0xffu << shift)) | (v << shift);
    // The model still holds the median of the samples before this one replaced the oldest.
    int b, tau;
    median_tau_packed<NW>(w, m.history, channel(hints, c), tau_range(k, c), &b, &tau);
    bgs |= static_cast<uint32_t>(b) << (8 * c);
    taus |= static_cast<uint32_t>(tau) << (8 * c);
  }
  for (int c = 0; c < m.nc; ++c) {
    base[c * m.sample_plane + h] = static_cast<uint8_t>(channel(cur, c));
    m.bg[c * m.px + i] = static_cast<uint8_t>(channel(bgs, c));
    m.tau[c * m.px + i] = static_cast<uint8_t>(channel(taus, c));
  }
  m.head[i] = static_cast<uint8_t>(h + 1 == m.history ? 0 : h + 1);
}

// Every sample of pixel i set to its value in channel c of `values` (packed).
__device__ __forceinline__ void set_all_samples(const MotionState& m, uint32_t values, int x,
                                                int y) {
  for (int c = 0; c < m.nc; ++c) {
    const uint32_t v = static_cast<uint32_t>(channel(values, c)) * 0x01010101u;
    uint4* q = reinterpret_cast<uint4*>(samples_of(m, c, x, y));
    for (int j = 0; j < m.stride / 16; ++j)
      q[j] = make_uint4(v, v, v, v);
  }
}

__device__ __forceinline__ PixelModel model_at(const MotionState& m, size_t i, uint32_t scale16) {
  PixelModel p{};
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    if (c >= m.nc)
      break;
    p.b[c] = m.bg[c * m.px + i];
    const int t = m.tau[c * m.px + i];
    p.tau[c] = scale16 == 65536u ? t : scale_tau(t, scale16); // scale_tau(t, 65536) = t
  }
  return p;
}

template <int NW> __global__ void fill_kernel(MotionState m, MotionConsts k, int slot, bool last) {
  const int x = blockIdx.x * kTileW + threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  if (x >= m.w || y >= m.h)
    return;
  const size_t i = static_cast<size_t>(y) * m.w + x;
  const uint32_t in = frame_values(m, x, y);
  for (int c = 0; c < m.nc; ++c)
    samples_of(m, c, x, y)[slot] = static_cast<uint8_t>(channel(in, c));
  if (last) {
    m.head[i] = 0;
    refresh<NW>(m, k, x, y, i);
  }
  m.prev[i] = static_cast<uint8_t>(channel(in, 0));
  m.mask[i] = 0;
}

__global__ void restart_kernel(MotionState m, MotionConsts k) {
  const int x = blockIdx.x * kTileW + threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  if (x >= m.w || y >= m.h)
    return;
  const size_t i = static_cast<size_t>(y) * m.w + x;
  const uint32_t in = frame_values(m, x, y);
  set_all_samples(m, in, x, y); // the padding too: it is never counted
  for (int c = 0; c < m.nc; ++c) {
    m.bg[c * m.px + i] = static_cast<uint8_t>(channel(in, c));
    m.tau[c * m.px + i] = static_cast<uint8_t>(c == 0 ? k.tau_min : k.tau_min_chroma);
  }
  m.head[i] = m.shadow[i] = m.cnt[i] = m.mask[i] = 0;
  m.age[i] = 0;
  m.prev[i] = static_cast<uint8_t>(channel(in, 0));
}

// Gain and chroma-offset votes of the previous frame's background pixels (every other row and
// column), into per-block histograms in shared memory, then added to the global ones (only the
// bins the block used). At 1080p about half a million pixels vote into a few bins near the ratio
// 1 (offset 0): one global atomic per vote queued on those few addresses.
// A block covers kTileW x kVoteRows voting positions (its 256 threads kVoteRows / kTileH each).
constexpr int kVoteRows = 32;

inline dim3 vote_grid_of(int w, int h) {
  return dim3(static_cast<unsigned>(cuda::div_up((w + 1) / 2, kTileW)),
              static_cast<unsigned>(cuda::div_up((h + 1) / 2, kVoteRows)));
}

// The voting positions of this block (every other row and column, kTileW x kVoteRows of them,
// kVoteRows / kTileH per thread): vote(x, y, i) for each, i the pixel index. Shared by the gain
// and offset votes, which walk the same positions.
template <typename Vote>
__device__ __forceinline__ void for_each_voter(const MotionState& m, Vote vote) {
  const int x = 2 * (blockIdx.x * kTileW + threadIdx.x);
  if (x >= m.w)
    return;
  for (int r = threadIdx.y; r < kVoteRows; r += kTileH) {
    const int y = 2 * (blockIdx.y * kVoteRows + r);
    if (y >= m.h)
      return; // the rows only grow
    vote(x, y, static_cast<size_t>(y) * m.w + x);
  }
}

// A block's shared histogram of n bins: cleared, filled by the voters (for_each_voter), then its
// non-zero bins added to the global one. Every thread of the block calls both.
__device__ __forceinline__ void clear_bins(uint32_t* hist, int n) {
  for (int j = threadIdx.y * kTileW + threadIdx.x; j < n; j += kTileW * kTileH)
    hist[j] = 0;
  __syncthreads();
}
__device__ __forceinline__ void flush_bins(const uint32_t* hist, uint32_t* global, int n) {
  __syncthreads();
  for (int j = threadIdx.y * kTileW + threadIdx.x; j < n; j += kTileW * kTileH)
    if (hist[j])
      atomicAdd(&global[j], hist[j]);
}

__global__ void __launch_bounds__(kTileW* kTileH) gain_votes_kernel(MotionState m, MotionConsts k) {
  __shared__ uint32_t hist[seg::kGainBins];
  clear_bins(hist, seg::kGainBins);
  for_each_voter(m, [&](int x, int y, size_t i) {
    if (m.mask[i] || m.shadow[i] || m.bg[i] - k.black < seg::kGainMinLevel)
      return;
    uint8_t luma[3];
    fetch_yuv(m.src, x, y, true, luma); // Y of the colour modes too (fetch_yuv's out[0])
    const int v = luma[0] - k.black;
    atomicAdd(&hist[seg::gain_bin(v < 0 ? 0 : v, m.bg[i] - k.black)], 1u);
  });
  flush_bins(hist, m.gain_hist, seg::kGainBins);
}

__global__ void __launch_bounds__(kTileW* kTileH) offset_votes_kernel(MotionState m) {
  __shared__ uint32_t hist[2 * seg::kOffsetBins];
  clear_bins(hist, 2 * seg::kOffsetBins);
  const uint32_t g16 = m.fig->g16_vote;
  for_each_voter(m, [&](int x, int y, size_t i) {
    if (m.mask[i] || m.shadow[i])
      return;
    const uint32_t in = frame_values(m, x, y);
    for (int c = 1; c < m.nc; ++c) {
      const int vote = chroma_offset_vote(channel(in, c), m.bg[c * m.px + i], g16);
      const int b = (vote < -255 ? -255 : (vote > 254 ? 254 : vote)) + 255;
      atomicAdd(&hist[(c - 1) * seg::kOffsetBins + b], 1u);
    }
  });
  flush_bins(hist, m.off_hist, 2 * seg::kOffsetBins);
}

// seg::gain_median() in parallel (cuda::block_gain_median), one thread per bin.
__global__ void __launch_bounds__(seg::kGainBins)
    gain_solve_kernel(MotionState m, bool illumination) {
  __shared__ uint32_t warp_sums[32];
  __shared__ float gain_shared;
  MotionFigures& f = *m.fig;
  const int k = threadIdx.x;
  // The first pass of a frame to write figures: they start from zero here (the host reads them
  // after the frame; no pass before this one writes them).
  if (k == 0)
    f = MotionFigures{};
  uint32_t n = 0;
  const float gain =
      cuda::block_gain_median(illumination ? m.gain_hist[k] : 0u, warp_sums, &gain_shared, &n);
  if (k == 0) {
    f.gain_votes = n;
    f.gain = gain;
    f.g16_vote = static_cast<uint32_t>(llround(static_cast<double>(gain) * 65536.0));
  }
}

// The chroma offsets (seg::offset_median() in parallel: the first bin whose inclusive prefix
// doubled reaches the vote count), then the applied gain (dead zone) and the threshold scale.
// 512 threads (kOffsetBins + 1).
constexpr int kOffsetThreads = 512;
static_assert(kOffsetThreads >= seg::kOffsetBins, "one thread per offset bin");

__global__ void __launch_bounds__(kOffsetThreads)
    offset_solve_kernel(MotionState m, MotionConsts kc, bool illumination) {
  __shared__ uint32_t warp_sums[32];
  MotionFigures& f = *m.fig;
  const int k = threadIdx.x;
  for (int c = 1; c < m.nc && illumination; ++c) {
    const uint32_t* h = m.off_hist + (c - 1) * seg::kOffsetBins;
    const uint32_t count = k < seg::kOffsetBins ? h[k] : 0u;
    uint32_t n = 0;
    const uint32_t incl = cuda::block_inclusive_scan(count, warp_sums, &n);
    // n: the pixels that voted (each voted once per channel).
    if (c == 1 && k == 0)
      f.offset_votes = n;
    if (n >= seg::kGainMinVotes && k < seg::kOffsetBins && 2 * incl >= n &&
        2 * (incl - count) < n) {
      const int o = k - 255;
      f.offset[c - 1] = (o >= -1 && o <= 1) ? 0 : o;
    }
  }
  if (k == 0) {
    f.g16 = seg::gain_applies(f.gain) ? f.g16_vote : 65536u;
    f.tau_scale16 =
        f.g16 < 65536u ? static_cast<uint32_t>((65536ull * 65536ull + f.g16 / 2) / f.g16) : 65536u;
  }
  __syncthreads();
  // The frame's compensation table (compensated()): every level of every channel.
  const uint32_t g16 = f.g16;
  for (int j = k; j < m.nc * 256; j += kOffsetThreads) {
    const int c = j >> 8, v = j & 255;
    m.lut[j] = static_cast<uint8_t>(c == 0 ? compensate(v, kc.black, 0, g16)
                                           : compensate(v, 128, f.offset[c - 1], g16));
  }
  // The histograms are read (gain_solve_kernel, the scans above: each ends at a barrier): they
  // start the next frame at zero (allocation clears them the first time).
  for (int j = k; j < seg::kGainBins; j += kOffsetThreads)
    m.gain_hist[j] = 0;
  for (int j = k; j < 2 * seg::kOffsetBins; j += kOffsetThreads)
    m.off_hist[j] = 0;
}

// Own test, neighbour test, shadows, the change counts, cnt and the adoption choice, one block per
// 32 x 8 tile. The neighbour test reads the models and own tests of the (2r + 1)^2 neighbours:
// the block first computes them for its tile and an r-pixel halo into shared memory (values,
// medians, thresholds widened by the gain once per pixel and block, not once per neighbour), so
// no own-test plane goes through memory and no separate pass runs.
constexpr int kHaloW = kTileW + 2 * kMaxMotionRadius, kHaloH = kTileH + 2 * kMaxMotionRadius;

// R: the radius as a constant (one instance per radius): the halo's index arithmetic becomes
// multiplications and the neighbour loops unroll. Eight blocks a multiprocessor: with the shift
// test the kernel would otherwise take more than 32 registers and lose occupancy (bench_motion).
template <int R>
__global__ void __launch_bounds__(kTileW* kTileH, 8) test_kernel(MotionState m, MotionConsts k) {
  __shared__ uint32_t s_val[kHaloW * kHaloH]; // v0 | v1 << 8 | v2 << 16
  __shared__ uint32_t s_bg[kHaloW * kHaloH];  // b0 | b1 << 8 | b2 << 16 | own << 24
  __shared__ int s_tau[3][kHaloW * kHaloH];   // thresholds widened by 1/g (may pass 255)
  constexpr int r = R, hw = kTileW + 2 * r, hh = kTileH + 2 * r;
  const int x0 = blockIdx.x * kTileW - r, y0 = blockIdx.y * kTileH - r;
  const uint32_t scale = m.fig->tau_scale16;
  for (int e = threadIdx.y * kTileW + threadIdx.x; e < hw * hh; e += kTileW * kTileH) {
    const int xx = x0 + e % hw, yy = y0 + e / hw;
    uint32_t val = 0, bg = 0;
    if (xx >= 0 && xx < m.w && yy >= 0 && yy < m.h) {
      const size_t q = static_cast<size_t>(yy) * m.w + xx;
      const uint32_t cur = compensated(m, frame_values(m, xx, yy));
      const int v[3] = {channel(cur, 0), channel(cur, 1), channel(cur, 2)};
      const PixelModel pm = model_at(m, q, scale);
      int margin;
      const bool own = matches(v, pm, m.nc, &margin);
      val = static_cast<uint32_t>(v[0]) | (static_cast<uint32_t>(v[1]) << 8) |
            (static_cast<uint32_t>(v[2]) << 16);
      bg = static_cast<uint32_t>(pm.b[0]) | (static_cast<uint32_t>(pm.b[1]) << 8) |
           (static_cast<uint32_t>(pm.b[2]) << 16) | (own ? 1u << 24 : 0u);
#pragma unroll
      for (int c = 0; c < 3; ++c)
        s_tau[c][e] = pm.tau[c];
    }
    s_val[e] = val;
    s_bg[e] = bg; // outside the image: never read (motion_test skips those neighbours)
  }
  __syncthreads();
  const int x = blockIdx.x * kTileW + threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  const bool inside = x < m.w && y < m.h;
  bool raw = false, shadow = false, diff = false, wide = false, shifted = false, changed = false;
  if (inside) {
    const size_t i = static_cast<size_t>(y) * m.w + x;
    auto at = [&](int xx, int yy) { return (yy - y0) * hw + (xx - x0); };
    const uint32_t val = s_val[at(x, y)];
    const int v[3] = {static_cast<int>(val & 255u), static_cast<int>((val >> 8) & 255u),
                      static_cast<int>(val >> 16)};
    auto model = [&](int xx, int yy) {
      const int e = at(xx, yy);
      const uint32_t b = s_bg[e];
      PixelModel pm;
      pm.b[0] = static_cast<int>(b & 255u);
      pm.b[1] = static_cast<int>((b >> 8) & 255u);
      pm.b[2] = static_cast<int>((b >> 16) & 255u);
#pragma unroll
      for (int c = 0; c < 3; ++c)
        pm.tau[c] = s_tau[c][e];
      return pm;
    };
    auto shows_bg = [&](int xx, int yy) { return (s_bg[at(xx, yy)] >> 24) != 0; };
    // Only a pixel that fails its own test needs the neighbour test (every use of t.neighbour
    // below requires !t.own): most pixels pass (the halo pass already knows), and skip the
    // (2r + 1)^2 - 1 neighbour models.
    MotionTest t{true, -1};
    if (!shows_bg(x, y))
      t = motion_test(v, m.nc, x, y, m.w, m.h, r, model, shows_bg);
    raw = !t.own && t.neighbour < 0;
    // The shift test reaches kShiftRadius, which may pass the halo of radius r: those neighbours
    // (few pixels get here) are read and tested from global memory, as the halo pass does.
    auto in_halo = [&](int xx, int yy) {
      return xx >= x0 && xx < x0 + hw && yy >= y0 && yy < y0 + hh;
    };
    auto model_far = [&](int xx, int yy) {
      return in_halo(xx, yy) ? model(xx, yy)
                             : model_at(m, static_cast<size_t>(yy) * m.w + xx, scale);
    };
    auto shows_bg_far = [&](int xx, int yy) {
      if (in_halo(xx, yy))
        return shows_bg(xx, yy);
      const uint32_t cur = compensated(m, frame_values(m, xx, yy));
      const int vq[3] = {channel(cur, 0), channel(cur, 1), channel(cur, 2)};
      int margin;
      return matches(vq, model_far(xx, yy), m.nc, &margin);
    };
    if (raw && k.shift_test && m.nc == 3 &&
        shift_explained(v, model(x, y), m.nc, x, y, m.w, m.h, kShiftRadius, model_far,
                        shows_bg_far)) {
      raw = false;
      shifted = true;
    }
    if (raw && m.nc == 3 && k.shadows) {
      const PixelModel pm = model(x, y);
      if (seg::shadow_yuv(v[0], v[1], v[2], pm.b[0], pm.b[1], pm.b[2], k.black, k.lo16, k.hi16,
                          k.shadow_chroma)) {
        shadow = true;
        raw = false;
      }
    }
    m.raw[i] = raw ? 255 : 0;
    m.shadow[i] = shadow ? 1 : (shifted ? 2 : 0); // shifted: as a shadow, no sample, no vote
    const int prev = m.prev[i];
    const int d = v[0] > prev ? v[0] - prev : prev - v[0];
    const int tau0 = m.tau[i];
    diff = d > tau0;
    changed = d > scale_tau(tau0, scale);
    wide = tau0 > k.wide_tau;
    // prev = this frame's compensated luma (the CPU reference's copy at the end of the frame):
    // only this thread reads prev[i], and only here.
    m.prev[i] = static_cast<uint8_t>(v[0]);
    const int c = (!t.own && t.neighbour >= 0) ? (m.cnt[i] < 255 ? m.cnt[i] + 1 : 255) : 0;
    m.cnt[i] = static_cast<uint8_t>(c);
    bool adopt = k.adopt_frames > 0 && c >= k.adopt_frames;
    if (adopt && k.adopt_tight) { // rare: the neighbour's model is in shared memory
      const int tc = scale_tau(k.tau_min_chroma, scale);
      const int tight[3] = {scale_tau(k.tau_min, scale), tc, tc};
      int qx, qy;
      neighbour_xy(x, y, r, t.neighbour, &qx, &qy);
      adopt = matches_tightly(v, model(qx, qy), m.nc, tight);
    }
    m.adopt[i] = static_cast<int8_t>(adopt ? t.neighbour : -1);
  }
  // Counts per block (one global atomic per figure and block: 8,100 at 1080p, where one per warp
  // made 64,800 on each of three addresses, which the L2 serialises).
  const int n_raw = __syncthreads_count(raw), n_shadow = __syncthreads_count(shadow),
            n_diff = __syncthreads_count(diff), n_wide = __syncthreads_count(wide),
            n_shifted = __syncthreads_count(shifted), n_changed = __syncthreads_count(changed);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    if (n_raw)
      atomicAdd(&m.fig->raw, static_cast<unsigned long long>(n_raw));
    if (n_shadow)
      atomicAdd(&m.fig->shadow, static_cast<unsigned long long>(n_shadow));
    if (n_diff)
      atomicAdd(&m.fig->diff, static_cast<unsigned long long>(n_diff));
    if (n_wide)
      atomicAdd(&m.fig->wide, static_cast<unsigned long long>(n_wide));
    if (n_shifted)
      atomicAdd(&m.fig->shifted, static_cast<unsigned long long>(n_shifted));
    if (n_changed)
      atomicAdd(&m.fig->changed, static_cast<unsigned long long>(n_changed));
  }
}

// Adoption (pixel i at (x, y), its choice `a` = adopt[i]): reads only neighbours that do not adopt
// in this frame (their samples do not change here), so the threads' order does not matter. Returns
// whether it adopted. Everything of q is loaded before the first store: a load may not move past a
// store that could alias it, so copying chunk by chunk waited for one load after another.
template <int NW>
__device__ __forceinline__ bool adopt(const MotionState& m, const MotionConsts& k, int x, int y,
                                      size_t i, int a) {
  if (a < 0)
    return false;
  int qx, qy;
  neighbour_xy(x, y, k.radius, a, &qx, &qy);
  const size_t q = static_cast<size_t>(qy) * m.w + qx;
  if (m.adopt[q] >= 0)
    return false;
  constexpr int kChunks = NW / 4; // 16-byte chunks per channel (m.stride / 16)
  uint4 buf[3][kChunks];
  int bg[3], tau[3];
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    if (c >= m.nc)
      break;
    const uint4* from = reinterpret_cast<const uint4*>(samples_of(m, c, qx, qy));
#pragma unroll
    for (int j = 0; j < kChunks; ++j)
      buf[c][j] = from[j];
    bg[c] = m.bg[c * m.px + q];
    tau[c] = m.tau[c * m.px + q];
  }
  const uint8_t head = m.head[q];
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    if (c >= m.nc)
      break;
    uint4* to = reinterpret_cast<uint4*>(samples_of(m, c, x, y));
#pragma unroll
    for (int j = 0; j < kChunks; ++j)
      to[j] = buf[c][j];
    m.bg[c * m.px + i] = static_cast<uint8_t>(bg[c]);
    m.tau[c * m.px + i] = static_cast<uint8_t>(tau[c]);
  }
  m.head[i] = head;
  m.cnt[i] = 0;
  return true;
}

// The raw mask's 3x3 majority, and the adoption (which the CPU reference runs after the clean-up
// and the area filter; it reads and writes neither mask, and the choices are final after
// test_kernel, so it shares this pass instead of taking a launch of its own). It also writes
// `hold`: the pixel adds no sample this frame whatever its final mask (raw foreground, a neighbour
// match counting, shadow, or adopted: the CPU's !own_bg), so that update_kernel reads one flag
// instead of four planes.
// kMajorityRows rows per thread (a block covers 32 x 8 kMajorityRows pixels): the rows share the
// raw mask's window, and every load of the thread (window, cnt, shadow, adopt of its rows) is
// issued before its first store (one pixel per thread and a store before the next load left one
// DRAM round trip per pixel in flight per thread; the pass was latency-bound).
constexpr int kMajorityRows = 4;

template <int NW>
__global__ void __launch_bounds__(kTileW* kTileH) majority_kernel(MotionState m, MotionConsts k) {
  const int x = blockIdx.x * kTileW + threadIdx.x;
  const int y0 = (blockIdx.y * kTileH + threadIdx.y) * kMajorityRows;
  if (x >= m.w || y0 >= m.h)
    return;
  // The raw window, rows y0 - 1 .. y0 + kMajorityRows and columns x - 1 .. x + 1 clamped to the
  // image as majority3x3() clamps them: bit j of win[r] = raw == 255 at column x - 1 + j.
  const int xl = x > 0 ? x - 1 : 0, xr = x + 1 < m.w ? x + 1 : m.w - 1;
  uint32_t win[kMajorityRows + 2];
  uint32_t holds = 0, choices = 0; // bit r: cnt or shadow set at row r; byte r: its adopt choice
#pragma unroll
  for (int r = 0; r < kMajorityRows + 2; ++r) {
    const int yy = min(max(y0 - 1 + r, 0), m.h - 1);
    const uint8_t* row = m.raw + static_cast<size_t>(yy) * m.w;
    win[r] = static_cast<uint32_t>(row[xl] == 255) | (static_cast<uint32_t>(row[x] == 255) << 1) |
             (static_cast<uint32_t>(row[xr] == 255) << 2);
  }
#pragma unroll
  for (int r = 0; r < kMajorityRows; ++r) {
    const size_t i = static_cast<size_t>(min(y0 + r, m.h - 1)) * m.w + x;
    holds |= static_cast<uint32_t>(m.cnt[i] != 0 || m.shadow[i] != 0) << r;
    choices |= static_cast<uint32_t>(static_cast<uint8_t>(m.adopt[i])) << (8 * r);
  }
#pragma unroll
  for (int r = 0; r < kMajorityRows; ++r) {
    const int y = y0 + r;
    if (y >= m.h)
      break;
    // majority3x3's at(xx, yy) for the clamped neighbours of (x, y): rows y - 1, y, y + 1 of the
    // window are win[r], win[r + 1], win[r + 2] (a clamped row repeats the centre's, as there).
    auto at = [&](int xx, int yy) -> uint8_t {
      const uint32_t bits = yy < y ? win[r] : (yy > y ? win[r + 2] : win[r + 1]);
      const int j = xx < x ? 0 : (xx > x ? 2 : 1);
      return ((bits >> j) & 1u) ? 255 : 0;
    };
    const uint8_t raw = at(x, y);
    holds |= static_cast<uint32_t>(raw != 0) << r;
    m.mask[static_cast<size_t>(y) * m.w + x] =
        k.cleanup ? seg::majority3x3(at, x, y, m.w, m.h) : raw;
  }
  // Adoptions are rare: one copy of their code, not one per unrolled row.
#pragma unroll 1
  for (int r = 0; r < kMajorityRows && y0 + r < m.h; ++r) {
    const int y = y0 + r;
    const size_t i = static_cast<size_t>(y) * m.w + x;
    const bool adopted =
        adopt<NW>(m, k, x, y, i, static_cast<int8_t>(static_cast<uint8_t>(choices >> (8 * r))));
    m.hold[i] = ((holds >> r) & 1u) != 0 || adopted;
  }
}

// Sample updates (blind while refilling, else background pixels at their turn), absorption of
// long-stopped foreground (ages counted only while it is on), the foreground count.
// One block per 32 P x 8 pixels (P = sample_period), one warp per row segment of 32 P pixels.
// Pass 1: lane l takes the segment's pixels l, l + 32, ... (coalesced byte loads: one sector per
// warp and plane), applies the area filter (MaskFinish: the mask is final here) and decides
// whether the pixel adds a sample. It only loads (the flags of its P pixels kept as bits): a load
// may not move past a store that could alias it, and a store in each step made every step wait a
// DRAM round trip for the one before. Pass 2 stores what pass 1 found (the filtered mask, the mask
// output) and runs the rare per-pixel work (blind inserts while refilling, absorption).
// The turns are staggered by (x + 3 y) mod P, so exactly 32 pixels of a segment are on their turn:
// the candidates are compacted into a queue of 32 per warp (ballot), and pass 3 refreshes one per
// lane, every lane of the warp busy with a median (one thread per pixel left 1 lane in P busy; one
// thread per P consecutive pixels made every load touch P sectors per warp for 32 bytes used).
// Pixels on their turn are background (mask 0), absorbed pixels foreground, so no pixel does both;
// blind inserts run in pass 2, before the absorption, as in the CPU reference.
// At most 64 registers for the default history (NW = 8): 4 blocks per SM, as many warps to hide
// the loads' latency (unbounded, the compiler took 72, i.e. 3 blocks).
template <int NW>
__global__ void __launch_bounds__(kTileW* kTileH, NW <= 8 ? 4 : 2)
    update_kernel(MotionState m, MotionConsts k, MaskFinish f) {
  __shared__ uint16_t s_turn[kTileH][kTileW]; // segment offsets of the pixels adding a sample
  const int lane = threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  const int P = k.sample_period, seg = kTileW * P, xs = blockIdx.x * seg;
  int fg_count = 0;
  if (y < m.h) { // the whole warp (one row)
    // sample_phase(x, y, frame, P) for x = xs + off is (phase0 + off) % P == 0 (all non-negative).
    const int phase0 = static_cast<int>((k.frame + xs + 3 * static_cast<long long>(y)) % P);
    const size_t row = static_cast<size_t>(y) * m.w;
    // Bit s of each: step s of this lane (pixel xs + lane + 32 s; P <= 64 steps).
    uint64_t fg_bits = 0, cleared = 0;
    int queued = 0;
#pragma unroll 4
    for (int s = 0; s < P; ++s) { // the same trip count on every lane
      const int off = lane + kTileW * s, x = xs + off;
      bool cand = false;
      if (x < m.w) {
        const size_t i = row + x;
        bool fg = m.mask[i] != 0;
        const bool hold = m.hold[i] != 0;
        if (fg && f.filter && ccl::in_small_component(f.areas, x, y, f.min_area)) {
          fg = false;
          cleared |= 1ull << s;
        }
        fg_bits |= static_cast<uint64_t>(fg) << s;
        cand = !k.blind && !fg && !hold && (phase0 + off) % P == 0;
      }
      const unsigned b = __ballot_sync(kFull, cand);
      if (cand)
        s_turn[threadIdx.y][queued + __popc(b & ((1u << lane) - 1u))] = static_cast<uint16_t>(off);
      queued += __popc(b);
    }
    fg_count = __popcll(fg_bits);
    const bool per_pixel = f.out || cleared || k.blind || k.absorb_frames > 0;
    for (int s = 0; per_pixel && s < P; ++s) {
      const int x = xs + lane + kTileW * s;
      if (x >= m.w)
        break;
      const size_t i = row + x;
      const bool fg = (fg_bits >> s) & 1u;
      if ((cleared >> s) & 1u)
        m.mask[i] = 0;
      if (f.out)
        f.out[static_cast<size_t>(y) * f.out_pitch + x] = fg ? 255 : 0; // masks are 0 or 255
      if (k.blind)
        insert<NW>(m, k, x, y, i, compensated(m, frame_values(m, x, y)));
      if (k.absorb_frames > 0) {
        const int before = m.age[i];
        const int age = fg ? (before < 65535 ? before + 1 : 65535) : 0;
        m.age[i] = static_cast<uint16_t>(age);
        if (age >= k.absorb_frames) {
          set_all_samples(m, compensated(m, frame_values(m, x, y)), x, y);
          refresh<NW>(m, k, x, y, i);
          m.age[i] = 0;
        }
      }
    }
    __syncwarp();
    if (lane < queued) {
      const int x = xs + s_turn[threadIdx.y][lane];
      insert<NW>(m, k, x, y, row + x, compensated(m, frame_values(m, x, y)));
    }
  }
  // Foreground count: per warp, per block (shared), then one global atomic per block.
  __shared__ unsigned block_fg;
  if (threadIdx.x == 0 && threadIdx.y == 0)
    block_fg = 0;
  for (int off = 16; off > 0; off >>= 1)
    fg_count += __shfl_xor_sync(kFull, fg_count, off);
  __syncthreads();
  if ((threadIdx.x & 31) == 0 && fg_count)
    atomicAdd(&block_fg, static_cast<unsigned>(fg_count));
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && block_fg)
    atomicAdd(&m.fig->foreground, static_cast<unsigned long long>(block_fg));
}

__global__ void output_kernel(MotionState m, MotionConsts k, uint8_t* mask, size_t mask_pitch,
                              bool has_bg, PixelDest bg, bool raw) {
  const int x = blockIdx.x * kTileW + threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  if (x >= m.w || y >= m.h)
    return;
  const size_t i = static_cast<size_t>(y) * m.w + x;
  if (mask)
    mask[static_cast<size_t>(y) * mask_pitch + x] = m.mask[i];
  if (!has_bg)
    return;
  uint8_t v[3] = {0, 128, 128};
  // live_background: a background pixel of this frame shows the background itself (CPU reference:
  // write_outputs).
  const bool live = !raw && k.live_background && !m.mask[i] && !m.raw[i] && !m.shadow[i];
  if (raw || live) {
    uint8_t luma[3];
    fetch_yuv(m.src, x, y, true, luma);
    v[0] = raw ? luma[0]
               : static_cast<uint8_t>(live_background_value(
                     luma[0], uncompensate(m.bg[i], k.black, m.fig->g16), k.tau_min));
  } else {
    v[0] = static_cast<uint8_t>(uncompensate(m.bg[i], k.black, m.fig->g16));
  }
  store_background(bg, x, y, true, v);
}

CVIS_PRELOAD_MODULE(restart_kernel);

} // namespace

#define CVIS_MOTION_LAUNCH(kernel, grid, ...)                                                      \
  do {                                                                                             \
    kernel<<<grid, tile_block(), 0, s>>>(__VA_ARGS__);                                             \
    CVIS_CUDA_CHECK_LAUNCH(s, "motion " #kernel);                                                  \
  } while (0)

// The kernels that compute medians, instantiated per padded history (words of 4 samples).
#define CVIS_MOTION_LAUNCH_NW(kernel, grid, ...)                                                   \
  do {                                                                                             \
    switch (m.stride / 4) {                                                                        \
    case 4:                                                                                        \
      CVIS_MOTION_LAUNCH(kernel<4>, grid, __VA_ARGS__);                                            \
      break;                                                                                       \
    case 8:                                                                                        \
      CVIS_MOTION_LAUNCH(kernel<8>, grid, __VA_ARGS__);                                            \
      break;                                                                                       \
    case 12:                                                                                       \
      CVIS_MOTION_LAUNCH(kernel<12>, grid, __VA_ARGS__);                                           \
      break;                                                                                       \
    case 16:                                                                                       \
      CVIS_MOTION_LAUNCH(kernel<16>, grid, __VA_ARGS__);                                           \
      break;                                                                                       \
    default:                                                                                       \
      return internal_error("motion: bad sample stride");                                          \
    }                                                                                              \
  } while (0)

Status launch_motion_fill(const MotionState& m, const MotionConsts& k, int slot, bool last,
                          cudaStream_t s) {
  CVIS_MOTION_LAUNCH_NW(fill_kernel, tile_grid(m.w, m.h), m, k, slot, last);
  return Status::Ok();
}

Status launch_motion_restart(const MotionState& m, const MotionConsts& k, cudaStream_t s) {
  CVIS_MOTION_LAUNCH(restart_kernel, tile_grid(m.w, m.h), m, k);
  return Status::Ok();
}

Status launch_motion_gain(const MotionState& m, const MotionConsts& k, bool illumination,
                          cudaStream_t s) {
  const dim3 votes = vote_grid_of(m.w, m.h);
  if (illumination)
    CVIS_MOTION_LAUNCH(gain_votes_kernel, votes, m, k);
  gain_solve_kernel<<<1, seg::kGainBins, 0, s>>>(m, illumination);
  CVIS_CUDA_CHECK_LAUNCH(s, "motion gain_solve_kernel");
  if (illumination && m.nc == 3)
    CVIS_MOTION_LAUNCH(offset_votes_kernel, votes, m);
  offset_solve_kernel<<<1, kOffsetThreads, 0, s>>>(m, k, illumination);
  CVIS_CUDA_CHECK_LAUNCH(s, "motion offset_solve_kernel");
  return Status::Ok();
}

Status launch_motion_classify(const MotionState& m, const MotionConsts& k, cudaStream_t s) {
  const dim3 grid = tile_grid(m.w, m.h);
  switch (k.radius) {
  case 0:
    CVIS_MOTION_LAUNCH(test_kernel<0>, grid, m, k);
    break;
  case 1:
    CVIS_MOTION_LAUNCH(test_kernel<1>, grid, m, k);
    break;
  case 2:
    CVIS_MOTION_LAUNCH(test_kernel<2>, grid, m, k);
    break;
  default:
    return internal_error("motion: bad radius");
  }
  CVIS_MOTION_LAUNCH_NW(majority_kernel, tile_grid(m.w, m.h, 1, kTileW, kTileH * kMajorityRows), m,
                        k);
  return Status::Ok();
}

Status launch_motion_update(const MotionState& m, const MotionConsts& k, const MaskFinish& f,
                            cudaStream_t s) {
  const dim3 grid(static_cast<unsigned>(cuda::div_up(m.w, kTileW * k.sample_period)),
                  static_cast<unsigned>(cuda::div_up(m.h, kTileH)));
  CVIS_MOTION_LAUNCH_NW(update_kernel, grid, m, k, f);
  return Status::Ok();
}

Status launch_motion_output(const MotionState& m, const MotionConsts& k, uint8_t* mask,
                            size_t mask_pitch, bool has_background, const PixelDest& bg, bool raw,
                            cudaStream_t s) {
  if (!mask && !has_background)
    return Status::Ok(); // nothing to write (the update pass wrote the mask output)
  CVIS_MOTION_LAUNCH(output_kernel, tile_grid(m.w, m.h), m, k, mask, mask_pitch, has_background, bg,
                     raw);
  return Status::Ok();
}

} // namespace cvis::median3d::kernels

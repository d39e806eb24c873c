// Kernels of the motion detector (motion_kernels.hpp): one thread per pixel on 32 x 8 tiles, the
// passes of motion_cpu.cpp in its order. Counts are reduced per warp (ballot) before one atomic.
#include "common/cuda/check.hpp"
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
// Gains within this of 1 are not applied (motion_cpu.cpp: kGainDeadZone).
constexpr float kGainDeadZone = 1.0f / 64.0f;

__device__ __forceinline__ void count(bool flag, unsigned long long* total) {
  const unsigned b = __ballot_sync(kFull, flag);
  if ((threadIdx.x & 31) == 0 && b)
    atomicAdd(total, static_cast<unsigned long long>(__popc(b)));
}

// Median and threshold of every channel of pixel i from its samples (refresh() of the CPU). The
// samples are read once into a thread-local copy: the 16 rank passes then stay in L1.
__device__ void refresh(const MotionState& m, const MotionConsts& k, size_t i) {
  const size_t K = static_cast<size_t>(m.history);
  uint8_t v[kMaxHistory];
  for (int c = 0; c < m.nc; ++c) {
    const uint8_t* s = m.samples + c * K * m.px + i;
    for (int j = 0; j < m.history; ++j)
      v[j] = s[j * m.px];
    int b, d;
    median_mad([&](int j) { return static_cast<int>(v[j]); }, m.history, &b, &d);
    m.bg[c * m.px + i] = static_cast<uint8_t>(b);
    m.tau[c * m.px + i] = static_cast<uint8_t>(
        tau_of(d, k.factor16, c == 0 ? k.tau_min : k.tau_min_chroma, k.tau_max));
  }
}

__device__ __forceinline__ PixelModel model_at(const MotionState& m, size_t i, uint32_t scale16) {
  PixelModel p{};
  for (int c = 0; c < m.nc; ++c) {
    p.b[c] = m.bg[c * m.px + i];
    p.tau[c] = scale_tau(m.tau[c * m.px + i], scale16);
  }
  return p;
}

__device__ __forceinline__ void values(const MotionState& m, size_t i, int v[3]) {
  for (int c = 0; c < 3; ++c)
    v[c] = c < m.nc ? m.cur[c * m.px + i] : 0;
}

__global__ void begin_kernel(MotionState m, bool hists) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t == 0)
    *m.fig = MotionFigures{};
  if (!hists)
    return;
  if (t < seg::kGainBins)
    m.gain_hist[t] = 0;
  if (t < 2 * seg::kOffsetBins)
    m.off_hist[t] = 0;
}

__global__ void load_kernel(PixelSource src, MotionState m) {
  const int x = blockIdx.x * kTileW + threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  if (x >= m.w || y >= m.h)
    return;
  uint8_t v[3];
  fetch_yuv(src, x, y, m.nc == 1, v);
  const size_t i = static_cast<size_t>(y) * m.w + x;
  for (int c = 0; c < m.nc; ++c)
    m.in[c * m.px + i] = v[c];
}

__global__ void fill_kernel(MotionState m, MotionConsts k, int slot, bool last) {
  const int x = blockIdx.x * kTileW + threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  if (x >= m.w || y >= m.h)
    return;
  const size_t i = static_cast<size_t>(y) * m.w + x, K = static_cast<size_t>(m.history);
  for (int c = 0; c < m.nc; ++c)
    m.samples[(c * K + slot) * m.px + i] = m.in[c * m.px + i];
  if (last) {
    m.head[i] = 0;
    refresh(m, k, i);
  }
  m.prev[i] = m.in[i];
  m.mask[i] = 0;
}

__global__ void restart_kernel(MotionState m, MotionConsts k) {
  const int x = blockIdx.x * kTileW + threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  if (x >= m.w || y >= m.h)
    return;
  const size_t i = static_cast<size_t>(y) * m.w + x, K = static_cast<size_t>(m.history);
  for (int c = 0; c < m.nc; ++c) {
    const uint8_t v = m.in[c * m.px + i];
    for (size_t j = 0; j < K; ++j)
      m.samples[(c * K + j) * m.px + i] = v;
    m.bg[c * m.px + i] = v;
    m.tau[c * m.px + i] = static_cast<uint8_t>(c == 0 ? k.tau_min : k.tau_min_chroma);
  }
  m.head[i] = m.shadow[i] = m.cnt[i] = m.mask[i] = 0;
  m.age[i] = 0;
  m.prev[i] = m.in[i];
}

// Gain votes of the previous frame's background pixels (every other row and column).
__global__ void gain_votes_kernel(MotionState m, MotionConsts k) {
  const int x = 2 * (blockIdx.x * kTileW + threadIdx.x),
            y = 2 * (blockIdx.y * kTileH + threadIdx.y);
  if (x >= m.w || y >= m.h)
    return;
  const size_t i = static_cast<size_t>(y) * m.w + x;
  if (m.mask[i] || m.shadow[i] || m.bg[i] - k.black < seg::kGainMinLevel)
    return;
  const int v = m.in[i] - k.black;
  atomicAdd(&m.gain_hist[seg::gain_bin(v < 0 ? 0 : v, m.bg[i] - k.black)], 1u);
  atomicAdd(&m.fig->gain_votes, 1u);
}

__global__ void gain_solve_kernel(MotionState m, bool illumination) {
  MotionFigures& f = *m.fig;
  const float g =
      illumination ? seg::gain_median([&](int j) { return m.gain_hist[j]; }, f.gain_votes) : 1.0f;
  f.gain = g;
  f.g16_vote = static_cast<uint32_t>(llround(static_cast<double>(g) * 65536.0));
}

__global__ void offset_votes_kernel(MotionState m) {
  const int x = 2 * (blockIdx.x * kTileW + threadIdx.x),
            y = 2 * (blockIdx.y * kTileH + threadIdx.y);
  if (x >= m.w || y >= m.h)
    return;
  const size_t i = static_cast<size_t>(y) * m.w + x;
  if (m.mask[i] || m.shadow[i])
    return;
  for (int c = 1; c < m.nc; ++c) {
    const int vote = chroma_offset_vote(m.in[c * m.px + i], m.bg[c * m.px + i], m.fig->g16_vote);
    const int b = (vote < -255 ? -255 : (vote > 254 ? 254 : vote)) + 255;
    atomicAdd(&m.off_hist[(c - 1) * seg::kOffsetBins + b], 1u);
  }
  atomicAdd(&m.fig->offset_votes, 1u);
}

// The applied gain (dead zone), the threshold scale and the chroma offsets.
__global__ void offset_solve_kernel(MotionState m, bool illumination) {
  MotionFigures& f = *m.fig;
  for (int c = 1; c < m.nc && illumination; ++c) {
    const uint32_t* h = m.off_hist + (c - 1) * seg::kOffsetBins;
    const int o = seg::offset_median([&](int j) { return h[j]; }, f.offset_votes);
    f.offset[c - 1] = (o >= -1 && o <= 1) ? 0 : o;
  }
  f.g16 = fabsf(f.gain - 1.0f) < kGainDeadZone ? 65536u : f.g16_vote;
  f.tau_scale16 =
      f.g16 < 65536u ? static_cast<uint32_t>((65536ull * 65536ull + f.g16 / 2) / f.g16) : 65536u;
}

// cur and the own test.
__global__ void own_kernel(MotionState m, MotionConsts k) {
  const int x = blockIdx.x * kTileW + threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  if (x >= m.w || y >= m.h)
    return;
  const size_t i = static_cast<size_t>(y) * m.w + x;
  const MotionFigures& f = *m.fig;
  int v[3] = {0, 0, 0};
  v[0] = compensate(m.in[i], k.black, 0, f.g16);
  for (int c = 1; c < m.nc; ++c)
    v[c] = compensate(m.in[c * m.px + i], 128, f.offset[c - 1], f.g16);
  for (int c = 0; c < m.nc; ++c)
    m.cur[c * m.px + i] = static_cast<uint8_t>(v[c]);
  int margin;
  m.own[i] = matches(v, model_at(m, i, f.tau_scale16), m.nc, &margin);
}

// Neighbour test, shadows, the change counts, cnt and the adoption choice.
__global__ void test_kernel(MotionState m, MotionConsts k) {
  const int x = blockIdx.x * kTileW + threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  const bool inside = x < m.w && y < m.h;
  bool raw = false, shadow = false, diff = false;
  if (inside) {
    const size_t i = static_cast<size_t>(y) * m.w + x;
    const uint32_t scale = m.fig->tau_scale16;
    int v[3];
    values(m, i, v);
    auto model = [&](int xx, int yy) {
      return model_at(m, static_cast<size_t>(yy) * m.w + xx, scale);
    };
    auto shows_bg = [&](int xx, int yy) { return m.own[static_cast<size_t>(yy) * m.w + xx] != 0; };
    const MotionTest t = motion_test(v, m.nc, x, y, m.w, m.h, k.radius, model, shows_bg);
    raw = !t.own && t.neighbour < 0;
    if (raw && m.nc == 3 && k.shadows &&
        seg::shadow_yuv(v[0], v[1], v[2], m.bg[i], m.bg[m.px + i], m.bg[2 * m.px + i], k.black,
                        k.lo16, k.hi16, k.shadow_chroma)) {
      shadow = true;
      raw = false;
    }
    m.raw[i] = raw ? 255 : 0;
    m.shadow[i] = shadow;
    const int d = m.cur[i] > m.prev[i] ? m.cur[i] - m.prev[i] : m.prev[i] - m.cur[i];
    diff = d > m.tau[i];
    const int c = (!t.own && t.neighbour >= 0) ? (m.cnt[i] < 255 ? m.cnt[i] + 1 : 255) : 0;
    m.cnt[i] = static_cast<uint8_t>(c);
    m.adopt[i] =
        static_cast<int8_t>((k.adopt_frames > 0 && c >= k.adopt_frames) ? t.neighbour : -1);
  }
  count(raw, &m.fig->raw);
  count(shadow, &m.fig->shadow);
  count(diff, &m.fig->diff);
}

__global__ void majority_kernel(MotionState m, MotionConsts k) {
  const int x = blockIdx.x * kTileW + threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  if (x >= m.w || y >= m.h)
    return;
  auto at = [&](int xx, int yy) { return m.raw[static_cast<size_t>(yy) * m.w + xx]; };
  const size_t i = static_cast<size_t>(y) * m.w + x;
  m.mask[i] = k.cleanup ? seg::majority3x3(at, x, y, m.w, m.h) : m.raw[i];
}

// Adoption: reads only neighbours that do not adopt in this frame (their samples do not change
// here), so the threads' order does not matter.
__global__ void adopt_kernel(MotionState m, MotionConsts k) {
  const int x = blockIdx.x * kTileW + threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  if (x >= m.w || y >= m.h)
    return;
  const size_t i = static_cast<size_t>(y) * m.w + x;
  m.adopted[i] = 0;
  const int a = m.adopt[i];
  if (a < 0)
    return;
  const int side = 2 * k.radius + 1;
  const size_t q = static_cast<size_t>(y + a / side - k.radius) * m.w + (x + a % side - k.radius);
  if (m.adopt[q] >= 0)
    return;
  const size_t n = static_cast<size_t>(m.nc) * m.history;
  for (size_t j = 0; j < n; ++j)
    m.samples[j * m.px + i] = m.samples[j * m.px + q];
  m.head[i] = m.head[q];
  for (int c = 0; c < m.nc; ++c) {
    m.bg[c * m.px + i] = m.bg[c * m.px + q];
    m.tau[c * m.px + i] = m.tau[c * m.px + q];
  }
  m.cnt[i] = 0;
  m.adopted[i] = 1;
}

// Sample updates (blind while refilling, else background pixels at their turn), absorption of
// long-stopped foreground, the foreground count, prev = cur.
__global__ void update_kernel(MotionState m, MotionConsts k) {
  const int x = blockIdx.x * kTileW + threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  const bool inside = x < m.w && y < m.h;
  bool fg = false;
  if (inside) {
    const size_t i = static_cast<size_t>(y) * m.w + x, K = static_cast<size_t>(m.history);
    fg = m.mask[i] != 0;
    const bool own_bg = m.raw[i] == 0 && m.cnt[i] == 0 && !m.adopted[i] && !m.shadow[i];
    if (k.blind || (sample_phase(x, y, k.frame, k.sample_period) && own_bg && !fg)) {
      for (int c = 0; c < m.nc; ++c)
        m.samples[(c * K + m.head[i]) * m.px + i] = m.cur[c * m.px + i];
      m.head[i] = static_cast<uint8_t>((m.head[i] + 1) % m.history);
      refresh(m, k, i);
    }
    const int age = fg ? (m.age[i] < 65535 ? m.age[i] + 1 : 65535) : 0;
    m.age[i] = static_cast<uint16_t>(age);
    if (k.absorb_frames > 0 && age >= k.absorb_frames) {
      for (int c = 0; c < m.nc; ++c)
        for (size_t j = 0; j < K; ++j)
          m.samples[(c * K + j) * m.px + i] = m.cur[c * m.px + i];
      refresh(m, k, i);
      m.age[i] = 0;
    }
    m.prev[i] = m.cur[i];
  }
  count(fg, &m.fig->foreground);
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
  const uint32_t g16 = raw ? 65536u : m.fig->g16;
  const uint8_t v[3] = {static_cast<uint8_t>(raw ? m.in[i] : uncompensate(m.bg[i], k.black, g16)),
                        128, 128};
  store_background(bg, x, y, true, v);
}

} // namespace

#define CVIS_MOTION_LAUNCH(kernel, grid, ...)                                                      \
  do {                                                                                             \
    kernel<<<grid, tile_block(), 0, s>>>(__VA_ARGS__);                                             \
    CVIS_CUDA_CHECK_LAUNCH(s, "motion " #kernel);                                                  \
  } while (0)

Status launch_motion_begin(const MotionState& m, bool illumination, cudaStream_t s) {
  begin_kernel<<<cuda::div_up(2 * seg::kOffsetBins > seg::kGainBins ? 2 * seg::kOffsetBins
                                                                    : seg::kGainBins,
                              256),
                 256, 0, s>>>(m, illumination);
  CVIS_CUDA_CHECK_LAUNCH(s, "motion begin_kernel");
  return Status::Ok();
}

Status launch_motion_load(const PixelSource& src, const MotionState& m, cudaStream_t s) {
  CVIS_MOTION_LAUNCH(load_kernel, tile_grid(m.w, m.h), src, m);
  return Status::Ok();
}

Status launch_motion_fill(const MotionState& m, const MotionConsts& k, int slot, bool last,
                          cudaStream_t s) {
  CVIS_MOTION_LAUNCH(fill_kernel, tile_grid(m.w, m.h), m, k, slot, last);
  return Status::Ok();
}

Status launch_motion_restart(const MotionState& m, const MotionConsts& k, cudaStream_t s) {
  CVIS_MOTION_LAUNCH(restart_kernel, tile_grid(m.w, m.h), m, k);
  return Status::Ok();
}

Status launch_motion_gain(const MotionState& m, const MotionConsts& k, bool illumination,
                          cudaStream_t s) {
  const dim3 half = tile_grid((m.w + 1) / 2, (m.h + 1) / 2);
  if (illumination)
    CVIS_MOTION_LAUNCH(gain_votes_kernel, half, m, k);
  gain_solve_kernel<<<1, 1, 0, s>>>(m, illumination);
  CVIS_CUDA_CHECK_LAUNCH(s, "motion gain_solve_kernel");
  if (illumination && m.nc == 3)
    CVIS_MOTION_LAUNCH(offset_votes_kernel, half, m);
  offset_solve_kernel<<<1, 1, 0, s>>>(m, illumination);
  CVIS_CUDA_CHECK_LAUNCH(s, "motion offset_solve_kernel");
  return Status::Ok();
}

Status launch_motion_classify(const MotionState& m, const MotionConsts& k, cudaStream_t s) {
  const dim3 grid = tile_grid(m.w, m.h);
  CVIS_MOTION_LAUNCH(own_kernel, grid, m, k);
  CVIS_MOTION_LAUNCH(test_kernel, grid, m, k);
  CVIS_MOTION_LAUNCH(majority_kernel, grid, m, k);
  return Status::Ok();
}

Status launch_motion_update(const MotionState& m, const MotionConsts& k, cudaStream_t s) {
  const dim3 grid = tile_grid(m.w, m.h);
  CVIS_MOTION_LAUNCH(adopt_kernel, grid, m, k);
  CVIS_MOTION_LAUNCH(update_kernel, grid, m, k);
  return Status::Ok();
}

Status launch_motion_output(const MotionState& m, const MotionConsts& k, uint8_t* mask,
                            size_t mask_pitch, bool has_background, const PixelDest& bg, bool raw,
                            cudaStream_t s) {
  CVIS_MOTION_LAUNCH(output_kernel, tile_grid(m.w, m.h), m, k, mask, mask_pitch, has_background, bg,
                     raw);
  return Status::Ok();
}

} // namespace cvis::median3d::kernels

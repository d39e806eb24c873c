// Background subtraction kernels. One thread per pixel (but the shift test: below); the per-pixel
// arithmetic is bgsub_math.hpp, shared with the CPU reference. Built with -ftz=true (see
// meson.build): the CPU reference flushes denormals too.
#include "bgsub_kernels.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/preload.hpp"
#include "common/cuda/tiles.hpp"
#include "cpwl/cpwl_device.cuh"

namespace cvis::bgsub::kernels {

namespace {

constexpr int kBx = cuda::kTileW, kBy = cuda::kTileH; // the 32 x 8 tile (common/cuda/tiles.hpp)
constexpr int kFused = 7;                             // bgsub::Kernel::kFastFused

dim3 grid_for(int w, int h) {
  return cuda::tile_grid(w, h);
}

__device__ __forceinline__ size_t plane_elems(const DeviceModel& m) {
  return static_cast<size_t>(m.height) * m.stride;
}

__global__ void features_kernel(PixelSource src, bool chroma, DeviceModel m) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  m.feat[static_cast<size_t>(y) * m.stride + x] = feature_of(fetch_rgb(src, x, y), chroma);
}

// kRawBorrowed pixels of the mask's background that borrowed_learnable() lets learn: kRawLent.
__global__ void lend_kernel(DeviceModel m, int levels, int need_moving, int need_still,
                            unsigned long long wide_limit) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  const size_t i = static_cast<size_t>(y) * m.stride + x;
  if (m.raw[i] != kRawBorrowed || m.mask[i])
    return;
  const int need = m.fig->wide > wide_limit ? need_moving : need_still;
  const size_t plane = plane_elems(m);
  auto raw = [&](int xx, int yy) { return m.raw[static_cast<size_t>(yy) * m.stride + xx]; };
  auto smp = [&](int k, int xx, int yy) {
    return __ldg(m.samples + k * plane + static_cast<size_t>(yy) * m.stride + xx);
  };
  if (borrowed_learnable(raw, smp, m.num_samples, m.cur[i], levels, need, x, y, m.width, m.height))
    m.raw[i] = kRawLent;
}

// The shift test's 8-neighbours among its kShiftNeighbours.
constexpr unsigned ring1_bits() {
  unsigned bits = 0;
  for (int j = 0; j < kShiftNeighbours; ++j)
    if (shift_within(j, 1))
      bits |= 1u << j;
  return bits;
}
constexpr unsigned kRing1 = ring1_bits();
static_assert(kRing1 == 0x399c0u, "j = 6-8, 11, 12, 15-17: cells 6-8, 11, 13, 16-18 of the 5x5");

// Whether the value v of pixel (px, y) lies on the segment from one of its samples to the same
// sample of a neighbour in `ex` (explained neighbours, the same mask in every lane): the warp's
// lanes split the (sample, neighbour) pairs, n = |ex| lanes per sample, and stop at the first pair
// on the segment.
__device__ bool shift_pairs(const DeviceModel& m, unsigned ex, uint32_t v, int px, int y, int lane,
                            int levels) {
  if (!ex)
    return false;
  const size_t plane = plane_elems(m);
  // Lane -> (sample offset kl, the jr-th neighbour j of ex).
  const int n = __popc(ex), per = 32 / n, kl = lane / n, jr = lane - kl * n;
  unsigned bits = ex;
  for (int t = 0; t < jr; ++t)
    bits &= bits - 1;
  const int j = __ffs(bits) - 1;
  const size_t a_at = static_cast<size_t>(y) * m.stride + px;
  const size_t b_at = static_cast<size_t>(y + shift_dy(j)) * m.stride + px + shift_dx(j);
  bool hit = false;
  for (int k0 = 0; k0 < m.num_samples && !hit; k0 += per) {
    const int k = k0 + kl;
    const bool test = kl < per && k < m.num_samples &&
                      on_segment(v, __ldg(m.samples + k * plane + a_at),
                                 __ldg(m.samples + k * plane + b_at), levels);
    hit = __any_sync(~0u, test);
  }
  return hit;
}

// Params::shift_test: raw foreground that shift_explained() explains becomes kRawShifted, in place
// as the CPU pass (the test accepts no neighbour that is raw foreground, before or after it became
// kRawShifted). Few pixels are tested (raw foreground beside explained pixels: contours, specks)
// and each may read 9 L samples (25 L at reach 2), so one thread per pixel left most lanes idle
// behind a serial loop: a warp (one tile row) takes its tested pixels one at a time instead, its
// lanes splitting the (sample, explained neighbour) pairs (shift_pairs). Any pair decides, so the
// 8-neighbours go first (a creep of up to a pixel is found there, at a third of the reads) and
// the outer ring only when they do not explain the pixel; apart, each set also packs the warp
// better (24 neighbours took one sample per pass over 24 lanes, the rings of 8 and 16 take 4 and 2).
__global__ void shift_kernel(DeviceModel m, int levels, int reach) {
  static_assert(kBx == 32, "a warp is one tile row");
  const int lane = threadIdx.x, x = blockIdx.x * kBx + lane, y = blockIdx.y * kBy + threadIdx.y;
  const size_t i = static_cast<size_t>(y) * m.stride + x;
  auto raw = [&](int xx, int yy) { return m.raw[static_cast<size_t>(yy) * m.stride + xx]; };
  unsigned explained = 0;
  if (x < m.width && y < m.height && m.raw[i] == kRawForeground)
    explained = shift_neighbours(raw, x, y, m.width, m.height, reach);
  const uint32_t own = explained ? m.cur[i] : 0u;
  for (unsigned todo = __ballot_sync(~0u, explained != 0); todo; todo &= todo - 1) {
    const int src = __ffs(todo) - 1;
    const unsigned ex = __shfl_sync(~0u, explained, src);
    const uint32_t v = __shfl_sync(~0u, own, src);
    const int px = x - lane + src;
    const bool hit = shift_pairs(m, ex & kRing1, v, px, y, lane, levels) ||
                     shift_pairs(m, ex & ~kRing1, v, px, y, lane, levels);
    if (hit && lane == src)
      m.raw[i] = kRawShifted;
  }
}

// The differences live in shared memory (kShared: difference k of thread t at k * 256 + t, no
// bank conflicts) or, where the device has too little shared memory for L, in a local array. In
// local memory 188 bytes per pixel (L = 48) overflow L1 at full occupancy, and the median's
// passes then re-read them from L2.
template <bool kShared>
__global__ void __launch_bounds__(kBx* kBy)
    update_kernel(DeviceModel m, bool update, bool conservative, bool blind) {
  extern __shared__ uint32_t shared_diffs[];
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  const size_t i = static_cast<size_t>(y) * m.stride + x;
  const size_t plane = plane_elems(m);
  const int L = m.num_samples;
  int h = m.head[i];
  if (update) {
    auto raw = [&](int xx, int yy) { return m.raw[static_cast<size_t>(yy) * m.stride + xx]; };
    if (!blind && !updatable(raw, m.mask[i], x, y, m.width, m.height, conservative))
      return;
    m.samples[h * plane + i] = m.cur[i];
    h = (h + 1 == L) ? 0 : h + 1;
    m.head[i] = static_cast<uint8_t>(h);
  }
  uint32_t local[kShared ? 1 : kMaxSamples];
  uint32_t* diffs = local;
  int stride = 1;
  if constexpr (kShared) {
    diffs = shared_diffs + threadIdx.y * kBx + threadIdx.x;
    stride = kBx * kBy;
  }
  // median3 takes the multiset of the L - 1 differences of consecutive samples in time order: the
  // circular pairs of slots (k - 1, k) except the one from the newest sample (slot h - 1) to the
  // oldest (slot h). Walked in storage order, one pointer and no modulo: the pairs of slots
  // k = 1 .. L - 1, then the wrap pair (L - 1, 0) takes the place of the excluded pair (k = h) if
  // h > 0 (h = 0 excludes the wrap pair itself). The samples are loaded kBatch at a time ahead of
  // their use (one load in flight per thread left the kernel waiting on DRAM latency).
  // Differences saturate at 127 (bits <= 7: what median3's counting path needs; its median is
  // capped at 2^bits - 1 anyway) or at 2^bits - 1 = 255 (bits = 8, the radix path); both are
  // symmetric in their operands.
  constexpr int kBatch = 8;
  const uint32_t* p = m.samples + i;
  const uint32_t first = *p;
  auto walk = [&](auto diff) {
    uint32_t prev = first;
    for (int k = 1; k < L; k += kBatch) {
      p += plane;
      uint32_t cur[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        cur[u] = k + u < L ? p[u * plane] : 0u;
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        if (k + u < L) {
          diffs[(k + u - 1) * stride] = diff(cur[u], prev);
          prev = cur[u];
        }
      }
      p += (kBatch - 1) * plane;
    }
    if (h > 0)
      diffs[(h - 1) * stride] = diff(first, prev);
  };
  if (m.median_bits <= 7) {
    walk([](uint32_t a, uint32_t b) { return absdiff3_sat127(a, b); });
  } else {
    walk([](uint32_t a, uint32_t b) { return absdiff3(a, b, 255); });
  }
  m.medians[i] = median3(diffs, L - 1, m.median_bits, stride);
}

// The 1-D kernel value for a scaled difference t (an index into a uniform table for the uniform
// CPWL kernels, u = |d| / sigma for the others).
template <int E, int P>
__device__ __forceinline__ float kernel_1d(const cpwl::dev::SharedTable& s, float t) {
  if constexpr (E == cpwl::dev::kTextureUniform) {
    return tex1D<float>(s.tex, t + 0.5f);
  } else if constexpr (E == cpwl::dev::kManualUniform) {
    return cpwl::lookup_manual(s.values, s.n, t);
  } else if constexpr (E == cpwl::dev::kSlopeUniform) {
    return cpwl::lookup_slope(s.slope, s.n, t);
  } else {
    return cpwl::dev::evaluate<E, P>(s, t);
  }
}

template <int E>
inline constexpr bool kIndexesUniformTable =
    E == cpwl::dev::kTextureUniform || E == cpwl::dev::kManualUniform ||
    E == cpwl::dev::kSlopeUniform;

template <int E>
inline constexpr bool kUsesTable = E != cpwl::dev::kExact&& E != cpwl::dev::kFast&& E != kFused;

// kde_sums for radius 1 and a pixel with all 8 neighbours inside: one pass over the samples with
// the nine neighbours' sums side by side (nine loads from one pointer, immediate offsets), then the
// same (dy, dx) order of weighted sums as kde_sums: the same bits. With `early`, every kGroup
// samples the whole expression is evaluated with the partial sums (each <= its final value, and
// every operation is monotone: a lower bound of the total, as in early_cut) and the sum stops once
// that bound decides background. All nine neighbours count from the first samples on, so the centre
// row's large weights are not left for the last third of the sum.
template <typename Prod>
__device__ __forceinline__ void
kde_sums_r1(const uint32_t* __restrict__ row0, size_t stride, size_t plane, int L, uint32_t feat,
            const ModelConsts& c, const float scale[3], Prod prod, const EarlyCut* early,
            float* total, float* weight_sum) {
  constexpr int kGroup = 4;
  const float fb[3] = {biased_channel(feat, 0), biased_channel(feat, 1), biased_channel(feat, 2)};
  auto term = [&](uint32_t ref) {
    return prod(kernel_arg(ref, fb, scale, 0), kernel_arg(ref, fb, scale, 1),
                kernel_arg(ref, fb, scale, 2));
  };
  float s[9];
#pragma unroll
  for (int q = 0; q < 9; ++q)
    s[q] = 0.0f;
  auto finish = [&]() {
    float acc = 0.0f;
#pragma unroll
    for (int q = 0; q < 9; ++q)
      acc = add_rn(acc, mul_rn(c.weights[q], s[q]));
    return acc;
  };
  auto step = [&](const uint32_t* p) {
#pragma unroll
    for (int dy = 0; dy < 3; ++dy) {
      const uint32_t* r = p + dy * stride; // row y - 1 + dy, column x
      const uint32_t a = __ldg(r - 1), b = __ldg(r), d = __ldg(r + 1);
      s[dy * 3] = add_rn(s[dy * 3], term(a));
      s[dy * 3 + 1] = add_rn(s[dy * 3 + 1], term(b));
      s[dy * 3 + 2] = add_rn(s[dy * 3 + 2], term(d));
    }
  };
  const uint32_t* p = row0;
  int k = 0;
  for (; k + kGroup <= L; k += kGroup) {
#pragma unroll
    for (int u = 0; u < kGroup; ++u) {
      step(p);
      p += plane;
    }
    if (early) {
      const float bound = finish();
      if (decided_background(bound, *early)) {
        *total = bound;
        *weight_sum = early->weight_sum;
        return;
      }
    }
  }
  for (; k < L; ++k) {
    step(p);
    p += plane;
  }
  float wsum = 0.0f;
#pragma unroll
  for (int q = 0; q < 9; ++q)
    wsum = add_rn(wsum, c.weights[q]);
  *total = finish();
  *weight_sum = wsum;
}

// 2^a (ex2.approx.ftz: the SFU, as __expf uses it).
__device__ __forceinline__ float exp2_approx(float a) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
  return r;
}

template <int E, int P>
__global__ void __launch_bounds__(kBx* kBy)
    classify_kernel(DeviceModel m, ModelConsts c, ShadowConsts sh, cpwl::TableView t) {
  extern __shared__ float2 smem2[];
  cpwl::dev::SharedTable st{};
  if constexpr (kUsesTable<E>)
    st = cpwl::dev::load_shared<E>(t, reinterpret_cast<float*>(smem2));
  __syncthreads();
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  const size_t i = static_cast<size_t>(y) * m.stride + x;
  const uint32_t med = m.medians[i];
  const uint32_t feat = m.cur[i];
  float inv_sigma[3], scale[3];
  for (int ch = 0; ch < 3; ++ch) {
    inv_sigma[ch] = mul_rn(__ldg(m.lut + ch * 256 + channel(med, ch)), m.fig->gains.widen[ch]);
    scale[ch] = mul_rn(inv_sigma[ch], c.arg_scale);
  }
  const uint32_t* __restrict__ samples = m.samples;
  const size_t plane = plane_elems(m);
  const size_t stride = m.stride;
  auto prod = [&st](float t0, float t1, float t2) {
    if constexpr (E == kFused) {
      return exp2_approx(fused_exponent2(t0, t1, t2));
    } else {
      return mul_rn(mul_rn(kernel_1d<E, P>(st, t0), kernel_1d<E, P>(st, t1)),
                    kernel_1d<E, P>(st, t2));
    }
  };
  // The density output needs the whole sum; the classification does not (early_cut).
  constexpr bool kNonnegative = E == cpwl::dev::kExact || E == cpwl::dev::kFast || E == kFused;
  EarlyCut cut;
  const EarlyCut* early = nullptr;
  if (kNonnegative && m.density == nullptr) {
    cut = early_cut(kde_weight_sum(x, y, c), inv_sigma, c);
    early = &cut;
  }
  float total, wsum;
  if (c.radius == 1 && x > 0 && y > 0 && x + 1 < m.width && y + 1 < m.height) {
    kde_sums_r1(samples + i - stride, stride, plane, c.num_samples, feat, c, scale, prod, early,
                &total, &wsum);
  } else {
    auto sample = [samples, plane, stride](int k, int xx, int yy) {
      return __ldg(samples + k * plane + static_cast<size_t>(yy) * stride + xx);
    };
    kde_sums(feat, x, y, c, scale, sample, prod, &total, &wsum, early);
  }
  const float d = kde_density(total, wsum, inv_sigma, c);
  uint8_t r = classify_density(d, c);
  if (r == 0 && c.update_own &&
      !own_explained(
          feat, c, scale, inv_sigma, [&](int k) { return __ldg(samples + k * plane + i); }, prod,
          kNonnegative)) {
    r = kRawBorrowed;
  }
  if (r == kRawForeground && sh.enabled &&
      shadow_explained(
          feat, [&](int k) { return samples[k * plane + i]; }, c.num_samples, sh.lo16, sh.hi16,
          sh.chroma, sh.need)) {
    r = kRawShadow;
  }
  m.raw[i] = r;
  if (m.density)
    m.density[i] = d;
}

__global__ void binarize_kernel(DeviceModel m) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  const size_t i = static_cast<size_t>(y) * m.stride + x;
  m.mask[i] = m.raw[i] == kRawForeground ? 255 : 0;
}

__global__ void median_kernel(const uint8_t* src, uint8_t* dst, DeviceModel m) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  auto at = [&](int xx, int yy) { return src[static_cast<size_t>(yy) * m.stride + xx]; };
  dst[static_cast<size_t>(y) * m.stride + x] = median3x3(at, x, y, m.width, m.height);
}

__global__ void morph_kernel(const uint8_t* src, uint8_t* dst, DeviceModel m, bool dilate) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  auto at = [&](int xx, int yy) { return src[static_cast<size_t>(yy) * m.stride + xx]; };
  dst[static_cast<size_t>(y) * m.stride + x] = morph3x3(at, x, y, m.width, m.height, dilate);
}

CVIS_PRELOAD_MODULE(features_kernel);

} // namespace

Status launch_features(const PixelSource& src, bool chromaticity, const DeviceModel& m,
                       cudaStream_t stream) {
  features_kernel<<<grid_for(m.width, m.height), dim3(kBx, kBy), 0, stream>>>(src, chromaticity, m);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub features_kernel");
  return Status::Ok();
}

Status plan_update(int num_samples, UpdatePlan* plan) {
  UpdatePlan p;
  p.num_samples = num_samples;
  p.smem = sizeof(uint32_t) * (num_samples - 1) * kBx * kBy;
  int dev = 0, optin = 0;
  CVIS_CUDA_CHECK(cudaGetDevice(&dev));
  CVIS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  p.shared = p.smem <= static_cast<size_t>(optin);
  if (p.shared && p.smem > 48 * 1024) {
    CVIS_CUDA_CHECK(cudaFuncSetAttribute(update_kernel<true>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(p.smem)));
  }
  *plan = p;
  return Status::Ok();
}

Status launch_lend(const DeviceModel& m, int levels, int need_moving, int need_still,
                   unsigned long long wide_limit, cudaStream_t stream) {
  lend_kernel<<<grid_for(m.width, m.height), dim3(kBx, kBy), 0, stream>>>(m, levels, need_moving,
                                                                          need_still, wide_limit);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub lend_kernel");
  return Status::Ok();
}

Status launch_shift(const DeviceModel& m, int levels, int reach, cudaStream_t stream) {
  shift_kernel<<<grid_for(m.width, m.height), dim3(kBx, kBy), 0, stream>>>(m, levels, reach);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub shift_kernel");
  return Status::Ok();
}

Status launch_update(const DeviceModel& m, const UpdatePlan& plan, bool update, bool conservative,
                     bool blind, cudaStream_t stream) {
  if (plan.num_samples != m.num_samples)
    return internal_error("bgsub: update plan for another number of samples");
  const dim3 grid = grid_for(m.width, m.height), block(kBx, kBy);
  if (plan.shared) {
    update_kernel<true><<<grid, block, plan.smem, stream>>>(m, update, conservative, blind);
  } else {
    update_kernel<false><<<grid, block, 0, stream>>>(m, update, conservative, blind);
  }
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub update_kernel");
  return Status::Ok();
}

#define CVIS_CLASSIFY(E, P)                                                                        \
  classify_kernel<E, P><<<grid_for(m.width, m.height), dim3(kBx, kBy), smem, stream>>>(m, c, sh, t)
#define CVIS_CLASSIFY_TEX_OPT(P) CVIS_CLASSIFY(cpwl::dev::kTextureOptimized, P)
#define CVIS_CLASSIFY_MAN_OPT(P) CVIS_CLASSIFY(cpwl::dev::kManualOptimized, P)

Status launch_classify(int kernel, const DeviceModel& m, const ModelConsts& c,
                       const ShadowConsts& sh, const cpwl::TableView& t, cudaStream_t stream) {
  const size_t smem =
      t.n > 0 ? sizeof(float) * static_cast<size_t>(cpwl::dev::shared_floats(t.n, t.pow2)) : 0;
  switch (kernel) {
  case cpwl::dev::kExact:
    CVIS_CLASSIFY(cpwl::dev::kExact, 16);
    break;
  case cpwl::dev::kFast:
    CVIS_CLASSIFY(cpwl::dev::kFast, 16);
    break;
  case cpwl::dev::kTextureUniform:
    CVIS_CLASSIFY(cpwl::dev::kTextureUniform, 16);
    break;
  case cpwl::dev::kManualUniform:
    CVIS_CLASSIFY(cpwl::dev::kManualUniform, 16);
    break;
  case cpwl::dev::kSlopeUniform:
    CVIS_CLASSIFY(cpwl::dev::kSlopeUniform, 16);
    break;
  case kFused:
    CVIS_CLASSIFY(kFused, 16);
    break;
  case cpwl::dev::kTextureOptimized:
    CVIS_CPWL_DISPATCH_POW2(t.pow2, CVIS_CLASSIFY_TEX_OPT,
                            return invalid_argument("bgsub: unsupported CPWL search size"));
    break;
  case cpwl::dev::kManualOptimized:
    CVIS_CPWL_DISPATCH_POW2(t.pow2, CVIS_CLASSIFY_MAN_OPT,
                            return invalid_argument("bgsub: unsupported CPWL search size"));
    break;
  default:
    return invalid_argument("bgsub: unknown kernel");
  }
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub classify_kernel");
  return Status::Ok();
}

Status launch_cleanup(int cleanup, const DeviceModel& m, cudaStream_t stream) {
  const dim3 grid = grid_for(m.width, m.height), block(kBx, kBy);
  if (cleanup == 0) {
    binarize_kernel<<<grid, block, 0, stream>>>(m);
    CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub binarize_kernel");
    return Status::Ok();
  }
  if (cleanup == 1) {
    median_kernel<<<grid, block, 0, stream>>>(m.raw, m.mask, m);
    CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub median_kernel");
    return Status::Ok();
  }
  morph_kernel<<<grid, block, 0, stream>>>(m.raw, m.tmp, m, false);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub morph_kernel (erode)");
  morph_kernel<<<grid, block, 0, stream>>>(m.tmp, m.mask, m, true);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub morph_kernel (dilate)");
  return Status::Ok();
}

} // namespace cvis::bgsub::kernels

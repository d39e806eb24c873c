// Background subtraction kernels. One thread per pixel everywhere; the per-pixel arithmetic is
// bgsub_math.hpp, shared with the CPU reference. Built with -ftz=true (see meson.build): the CPU
// reference flushes denormals too.
#include <climits>

#include "bgsub_kernels.hpp"
#include "common/cuda/check.hpp"
#include "cpwl/cpwl_device.cuh"

namespace cvis::bgsub::kernels {

namespace {

constexpr int kBx = 32, kBy = 8; // a warp is 32 consecutive pixels of a row
constexpr int kFused = 7;        // bgsub::Kernel::kFastFused

dim3 grid_for(int w, int h) {
  return dim3((w + kBx - 1) / kBx, (h + kBy - 1) / kBy);
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

__global__ void update_kernel(DeviceModel m, bool update, bool conservative) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  const size_t i = static_cast<size_t>(y) * m.stride + x;
  const size_t plane = plane_elems(m);
  const int L = m.num_samples;
  int h = m.head[i];
  if (update) {
    auto raw = [&](int xx, int yy) { return m.raw[static_cast<size_t>(yy) * m.stride + xx]; };
    if (!updatable(raw, m.mask[i], x, y, m.width, m.height, conservative))
      return;
    m.samples[h * plane + i] = m.feat[i];
    h = (h + 1 == L) ? 0 : h + 1;
    m.head[i] = static_cast<uint8_t>(h);
  }
  uint32_t diffs[kMaxSamples];
  uint32_t prev = m.samples[h * plane + i];
  int s = h;
  for (int j = 1; j < L; ++j) {
    s = (s + 1 == L) ? 0 : s + 1;
    const uint32_t cur = m.samples[s * plane + i];
    diffs[j - 1] = absdiff3(cur, prev, (1 << m.median_bits) - 1);
    prev = cur;
  }
  m.medians[i] = median3(diffs, L - 1, m.median_bits);
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

template <int E, int P>
__global__ void __launch_bounds__(kBx* kBy)
    classify_kernel(DeviceModel m, ModelConsts c, cpwl::TableView t) {
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
  float inv_sigma[3], scale[3];
  for (int ch = 0; ch < 3; ++ch) {
    inv_sigma[ch] = __ldg(m.lut + ch * 256 + channel(med, ch));
    scale[ch] =
        kIndexesUniformTable<E> ? cpwl::mul_rn(inv_sigma[ch], c.table_scale) : inv_sigma[ch];
  }
  const uint32_t* __restrict__ samples = m.samples;
  const size_t plane = plane_elems(m);
  const size_t stride = m.stride;
  auto sample = [samples, plane, stride](int k, int xx, int yy) {
    return __ldg(samples + k * plane + static_cast<size_t>(yy) * stride + xx);
  };
  auto prod = [&st](float t0, float t1, float t2) {
    if constexpr (E == kFused) {
      return __expf(fused_exponent(t0, t1, t2));
    } else {
      return cpwl::mul_rn(cpwl::mul_rn(kernel_1d<E, P>(st, t0), kernel_1d<E, P>(st, t1)),
                          kernel_1d<E, P>(st, t2));
    }
  };
  float total, wsum;
  kde_sums(m.feat[i], x, y, c, scale, sample, prod, &total, &wsum);
  const float d = kde_density(total, wsum, inv_sigma, c);
  m.raw[i] = classify_density(d, c);
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

// ---- connected components: union-find with atomicMin, after Playne & Hawick (IEEE TPDS 2018).
// Labels use the dense index y * width + x, so the final root of a component is its first pixel in
// raster order, as in the CPU reference.

__device__ int find_root(const int32_t* labels, int i) {
  const volatile int32_t* l = labels; // other threads relink concurrently: no stale L1 reads
  int p = l[i];
  while (p != i) {
    i = p;
    p = l[i];
  }
  return i;
}

// Links the trees of a and b, the larger root under the smaller one. atomicMin returns the real
// parent when another thread got there first; the loop then continues from it.
__device__ void unite(int32_t* labels, int a, int b) {
  while (true) {
    a = find_root(labels, a);
    b = find_root(labels, b);
    if (a == b)
      return;
    if (a < b) {
      const int old = atomicMin(labels + b, a);
      if (old == b)
        return;
      b = old;
    } else {
      const int old = atomicMin(labels + a, b);
      if (old == a)
        return;
      a = old;
    }
  }
}

__device__ __forceinline__ bool is_fg(const DeviceModel& m, int x, int y) {
  return m.mask[static_cast<size_t>(y) * m.stride + x] != 0;
}

__global__ void ccl_init(DeviceModel m) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height)
    return;
  const int idx = y * m.width + x;
  m.labels[idx] = is_fg(m, x, y) ? idx : -1;
}

__global__ void ccl_merge(DeviceModel m) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height || !is_fg(m, x, y))
    return;
  const int idx = y * m.width + x;
  if (x > 0 && is_fg(m, x - 1, y))
    unite(m.labels, idx, idx - 1);
  if (y > 0) {
    if (x > 0 && is_fg(m, x - 1, y - 1))
      unite(m.labels, idx, idx - m.width - 1);
    if (is_fg(m, x, y - 1))
      unite(m.labels, idx, idx - m.width);
    if (x + 1 < m.width && is_fg(m, x + 1, y - 1))
      unite(m.labels, idx, idx - m.width + 1);
  }
}

__global__ void ccl_flatten(DeviceModel m) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height || !is_fg(m, x, y))
    return;
  const int idx = y * m.width + x;
  m.labels[idx] = find_root(m.labels, idx);
}

__global__ void ccl_roots(DeviceModel m) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x >= m.width || y >= m.height || !is_fg(m, x, y))
    return;
  const int idx = y * m.width + x;
  if (m.labels[idx] != idx)
    return;
  const int k = atomicAdd(&m.counters->roots, 1);
  if (k >= m.blob_capacity)
    return; // cannot happen: capacity bounds the 8-connected components
  m.slot[idx] = k;
  m.components[k] = BlobRecord{idx, INT_MAX, INT_MAX, -1, -1, 0};
}

// Counts the foreground (warp ballots; every thread of the warp takes part) and, when `stats`,
// accumulates area and bounding box of each component.
__global__ void ccl_stats(DeviceModel m, bool stats) {
  const int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  const bool fg = x < m.width && y < m.height && is_fg(m, x, y);
  const unsigned ballot = __ballot_sync(0xffffffffu, fg);
  if ((threadIdx.x & 31) == 0 && ballot) {
    atomicAdd(&m.counters->foreground, static_cast<unsigned long long>(__popc(ballot)));
  }
  if (!fg || !stats)
    return;
  const int k = m.slot[m.labels[y * m.width + x]];
  if (k < 0 || k >= m.blob_capacity)
    return;
  BlobRecord* b = m.components + k;
  atomicAdd(&b->area, 1);
  atomicMin(&b->x0, x);
  atomicMin(&b->y0, y);
  atomicMax(&b->x1, x);
  atomicMax(&b->y1, y);
}

__global__ void ccl_keep(DeviceModel m, int min_area) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= m.counters->roots || k >= m.blob_capacity)
    return;
  const BlobRecord b = m.components[k];
  if (b.area < min_area)
    return;
  const int j = atomicAdd(&m.counters->kept, 1);
  m.kept[j] = b;
}

} // namespace

Status launch_features(const PixelSource& src, bool chromaticity, const DeviceModel& m,
                       cudaStream_t stream) {
  features_kernel<<<grid_for(m.width, m.height), dim3(kBx, kBy), 0, stream>>>(src, chromaticity, m);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub features_kernel");
  return Status::Ok();
}

Status launch_update(const DeviceModel& m, bool update, bool conservative, cudaStream_t stream) {
  update_kernel<<<grid_for(m.width, m.height), dim3(kBx, kBy), 0, stream>>>(m, update,
                                                                            conservative);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub update_kernel");
  return Status::Ok();
}

#define CVIS_CLASSIFY(E, P)                                                                        \
  classify_kernel<E, P><<<grid_for(m.width, m.height), dim3(kBx, kBy), smem, stream>>>(m, c, t)
#define CVIS_CLASSIFY_TEX_OPT(P) CVIS_CLASSIFY(cpwl::dev::kTextureOptimized, P)
#define CVIS_CLASSIFY_MAN_OPT(P) CVIS_CLASSIFY(cpwl::dev::kManualOptimized, P)

Status launch_classify(int kernel, const DeviceModel& m, const ModelConsts& c,
                       const cpwl::TableView& t, cudaStream_t stream) {
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

Status launch_blobs(const DeviceModel& m, int min_area, cudaStream_t stream) {
  const dim3 grid = grid_for(m.width, m.height), block(kBx, kBy);
  CVIS_CUDA_CHECK(cudaMemsetAsync(m.counters, 0, sizeof(CclCounters), stream));
  ccl_init<<<grid, block, 0, stream>>>(m);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub ccl_init");
  ccl_merge<<<grid, block, 0, stream>>>(m);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub ccl_merge");
  ccl_flatten<<<grid, block, 0, stream>>>(m);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub ccl_flatten");
  ccl_roots<<<grid, block, 0, stream>>>(m);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub ccl_roots");
  ccl_stats<<<grid, block, 0, stream>>>(m, true);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub ccl_stats");
  ccl_keep<<<(m.blob_capacity + 255) / 256, 256, 0, stream>>>(m, min_area);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub ccl_keep");
  return Status::Ok();
}

Status launch_count(const DeviceModel& m, cudaStream_t stream) {
  CVIS_CUDA_CHECK(cudaMemsetAsync(m.counters, 0, sizeof(CclCounters), stream));
  ccl_stats<<<grid_for(m.width, m.height), dim3(kBx, kBy), 0, stream>>>(m, false);
  CVIS_CUDA_CHECK_LAUNCH(stream, "bgsub ccl_stats (count)");
  return Status::Ok();
}

} // namespace cvis::bgsub::kernels

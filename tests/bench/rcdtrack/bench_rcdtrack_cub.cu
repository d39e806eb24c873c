// The comparison build of bench_rcdtrack: integral images by CUB scans, the scan-transpose-scan
// scheme the thesis replaced ([32] in the thesis, Bilgic et al.): a kernel writes every feature
// and product plane, one segmented row scan over all planes (cub::DeviceScan::InclusiveSumByKey,
// key = plane row), a transpose, the same scan, and a transpose back. Same int64 values as the
// engine's integrals (checked by the benchmark).
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

#include "bench_rcdtrack_cub.hpp"
#include "rcdtrack_math.hpp"

namespace bench {

using namespace cvis::rcdtrack;

namespace {

__global__ void planes_kernel(cvis::PixelSource src, Layout L, int64_t* planes) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= src.width)
    return;
  int f[kMaxFeatures];
  pixel_features(src, L, x, y, f);
  const size_t plane = static_cast<size_t>(src.width) * src.height;
  for (int p = 0; p < L.planes; ++p)
    planes[p * plane + static_cast<size_t>(y) * src.width + x] = plane_value(L.plane[p], f, x, y);
}

// Transposes each of `n` planes of rows x cols into cols x rows.
__global__ void transpose_kernel(const int64_t* in, int64_t* out, int rows, int cols) {
  __shared__ int64_t tile[32][33];
  const size_t plane = static_cast<size_t>(rows) * cols;
  in += blockIdx.z * plane;
  out += blockIdx.z * plane;
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int k = 0; k < 32; k += 8)
    if (x < cols && y + k < rows)
      tile[threadIdx.y + k][threadIdx.x] = in[static_cast<size_t>(y + k) * cols + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int k = 0; k < 32; k += 8)
    if (x < rows && y + k < cols)
      out[static_cast<size_t>(y + k) * rows + x] = tile[threadIdx.x][threadIdx.y + k];
}

struct RowOf {
  int cols;
  __host__ __device__ int operator()(int i) const { return i / cols; }
};

} // namespace

cudaError_t cub_integrals(const cvis::PixelSource& src, const Layout& layout, int64_t* a,
                          int64_t* b, void* temp, size_t* temp_bytes, cudaStream_t stream) {
  const int w = src.width, h = src.height, P = layout.planes;
  const int n = w * h * P;
  const auto rows_wh = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), RowOf{w});
  const auto rows_hw = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), RowOf{h});
  if (!temp) { // size query
    size_t s1 = 0, s2 = 0;
    cudaError_t e = cub::DeviceScan::InclusiveSumByKey(nullptr, s1, rows_wh, a, b, n);
    if (e == cudaSuccess)
      e = cub::DeviceScan::InclusiveSumByKey(nullptr, s2, rows_hw, a, b, n);
    *temp_bytes = s1 > s2 ? s1 : s2;
    return e;
  }
  planes_kernel<<<dim3((w + 127) / 128, h), 128, 0, stream>>>(src, layout, a);
  cudaError_t e = cub::DeviceScan::InclusiveSumByKey(temp, *temp_bytes, rows_wh, a, b, n,
                                                     ::cuda::std::equal_to<>(), stream);
  if (e != cudaSuccess)
    return e;
  transpose_kernel<<<dim3((w + 31) / 32, (h + 31) / 32, P), dim3(32, 8), 0, stream>>>(b, a, h, w);
  e = cub::DeviceScan::InclusiveSumByKey(temp, *temp_bytes, rows_hw, a, b, n,
                                         ::cuda::std::equal_to<>(), stream);
  if (e != cudaSuccess)
    return e;
  transpose_kernel<<<dim3((h + 31) / 32, (w + 31) / 32, P), dim3(32, 8), 0, stream>>>(b, a, w, h);
  return cudaGetLastError();
}

namespace {

// Counts entries where the inclusive integral `cubv` (h x w per plane) differs from the engine's
// exclusive one (h+1 x w+1 per plane, zero first row and column).
__global__ void compare_kernel(const int64_t* cubv, const int64_t* eng, int w, int h, int planes,
                               unsigned long long* bad) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t plane = static_cast<size_t>(w) * h;
  if (i >= plane * planes)
    return;
  const size_t p = i / plane, r = i % plane, y = r / w, x = r % w;
  const int64_t e = eng[p * (static_cast<size_t>(w + 1) * (h + 1)) + (y + 1) * (w + 1) + x + 1];
  if (e != cubv[i])
    atomicAdd(bad, 1ull);
}

} // namespace

cudaError_t count_mismatches(const int64_t* cubv, const int64_t* engine, int w, int h, int planes,
                             unsigned long long* bad_device, cudaStream_t stream) {
  const size_t n = static_cast<size_t>(w) * h * planes;
  compare_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(cubv, engine, w, h,
                                                                             planes, bad_device);
  return cudaGetLastError();
}

} // namespace bench

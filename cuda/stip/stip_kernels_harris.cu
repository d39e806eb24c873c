// Kernels of the front end's CUDA backend, third part: the space-time Harris detector. Each output
// value is computed by one thread with the loop of the reference
// (actionmatch_frontend_ref_harris.cpp) and the fe:: operations, so the bits are the CPU's; the
// spatial integration reuses the separable passes of actionmatch_frontend_kernels.cu.
#include "stip_kernels.hpp"
#include "stip_ops.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/tiles.hpp"
#include "common/cuda/preload.hpp"

namespace cvis::stip::kernels {

namespace {

using cuda::div_up;
using cuda::tile_block;
using cuda::tile_grid;
using fe::clampi;

__global__ void harris_temporal_kernel(Gabor g, int n, float* L, float* Lt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float l = 0.0f, lt = 0.0f;
  for (int k = 0; k < g.n; ++k) {
    const float sv = g.frames[k][i];
    l = l + g.even[k] * sv;
    lt = lt + g.odd[k] * sv;
  }
  L[i] = l;
  Lt[i] = lt;
}

struct Outs {
  float* p[6];
};

__global__ void harris_products_kernel(const float* L, const float* Lt, int w, int h, float sigma,
                                       float tau, Outs out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const size_t row = static_cast<size_t>(y) * w, i = row + x;
  float v[6];
  fe::harris_products(L[row + clampi(x - 1, 0, w - 1)], L[row + clampi(x + 1, 0, w - 1)],
                      L[static_cast<size_t>(clampi(y - 1, 0, h - 1)) * w + x],
                      L[static_cast<size_t>(clampi(y + 1, 0, h - 1)) * w + x], Lt[i], sigma, tau,
                      v);
#pragma unroll
  for (int c = 0; c < 6; ++c)
    out.p[c][i] = v[c];
}

__global__ void harris_response_kernel(HarrisSum a, int n, float* R) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float mu[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  for (int j = 0; j < a.n; ++j) {
    const float* base = a.ring + static_cast<size_t>(a.slot[j]) * 6 * n + i;
#pragma unroll
    for (int c = 0; c < 6; ++c)
      mu[c] = mu[c] + a.taps[j] * base[static_cast<size_t>(c) * n];
  }
  R[i] = fe::harris_response(mu, a.k);
}

CVIS_PRELOAD_MODULE(harris_temporal_kernel);

} // namespace

#define LAUNCH_CHECK(name) CVIS_CUDA_CHECK_LAUNCH(stream, name)

Status launch_harris_temporal(const Gabor& g, int w, int h, float* L, float* Lt,
                              cudaStream_t stream) {
  const int n = w * h;
  harris_temporal_kernel<<<div_up(n, 256), 256, 0, stream>>>(g, n, L, Lt);
  LAUNCH_CHECK("harris_temporal_kernel");
  return Status::Ok();
}

Status launch_harris_products(const float* L, const float* Lt, int w, int h, float sigma,
                              float tau, float* const out[6], cudaStream_t stream) {
  Outs o;
  for (int c = 0; c < 6; ++c)
    o.p[c] = out[c];
  harris_products_kernel<<<tile_grid(w, h), tile_block(), 0, stream>>>(L, Lt, w, h, sigma, tau,
                                                                       o);
  LAUNCH_CHECK("harris_products_kernel");
  return Status::Ok();
}

Status launch_harris_response(const HarrisSum& a, int w, int h, float* R, cudaStream_t stream) {
  const int n = w * h;
  harris_response_kernel<<<div_up(n, 256), 256, 0, stream>>>(a, n, R);
  LAUNCH_CHECK("harris_response_kernel");
  return Status::Ok();
}

} // namespace cvis::stip::kernels

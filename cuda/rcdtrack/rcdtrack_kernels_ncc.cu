// Template matching for the tracker's refinement: one block per job holds the job's frame luma
// blocks and its template in shared memory, each thread scores offsets by rcdtrack_ncc.hpp's
// arithmetic, and a block reduction keeps the best (ncc_before, as the CPU reference's loop
// order does). Luma read-back: one block per region.
#include "common/cuda/check.hpp"
#include "common/cuda/preload.hpp"
#include "rcdtrack_kernels.hpp"
#include "rcdtrack_ncc.hpp"

namespace cvis::rcdtrack::kernels {

namespace {

constexpr int kNccThreads = 256;

__global__ void __launch_bounds__(kNccThreads)
    ncc_kernel(PixelSource src, const TemplateJob* jobs, const uint8_t* samples,
               DevTemplateHit* out) {
  extern __shared__ uint8_t sh[];
  __shared__ double best_score[kNccThreads];
  __shared__ int best_index[kNccThreads];
  const TemplateJob j = jobs[blockIdx.x];
  const int cols = j.nx - 1 + j.tw, rows = j.ny - 1 + j.th;
  uint8_t* f = sh;
  uint8_t* t = sh + cols * rows;
  for (int i = threadIdx.x; i < cols * rows; i += blockDim.x)
    f[i] = static_cast<uint8_t>(
        luma_block(src, j.x0 + (i % cols) * j.stride, j.y0 + (i / cols) * j.stride, j.stride));
  for (int i = threadIdx.x; i < j.tw * j.th; i += blockDim.x)
    t[i] = samples[j.first + i];
  __syncthreads();
  const int64_t n = static_cast<int64_t>(j.tw) * j.th;
  double score = -2.0;
  int index = -1;
  for (int o = threadIdx.x; o < j.nx * j.ny; o += blockDim.x) {
    const int ox = o % j.nx, oy = o / j.nx;
    int32_t st = 0, stt = 0, sf = 0, sff = 0, sft = 0;
    for (int y = 0; y < j.th; ++y) {
      const uint8_t* fr = f + (oy + y) * cols + ox;
      const uint8_t* tr = t + y * j.tw;
      for (int x = 0; x < j.tw; ++x) {
        const int32_t a = fr[x], b = tr[x];
        st += b;
        stt += b * b;
        sf += a;
        sff += a * a;
        sft += a * b;
      }
    }
    const double s = ncc_score(n, st, stt, sf, sff, sft);
    if (ncc_before(s, o, score, index)) {
      score = s;
      index = o;
    }
  }
  best_score[threadIdx.x] = score;
  best_index[threadIdx.x] = index;
  __syncthreads();
  for (int half = kNccThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      const double s = best_score[threadIdx.x + half];
      const int i = best_index[threadIdx.x + half];
      if (i >= 0 && (best_index[threadIdx.x] < 0 ||
                     ncc_before(s, i, best_score[threadIdx.x], best_index[threadIdx.x]))) {
        best_score[threadIdx.x] = s;
        best_index[threadIdx.x] = i;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = {best_score[0], best_index[0]};
}

CVIS_PRELOAD_MODULE(ncc_kernel);

__global__ void luma_kernel(PixelSource src, const LumaRegion* regions, const int64_t* first,
                            uint8_t* out) {
  const LumaRegion r = regions[blockIdx.x];
  for (int i = threadIdx.x; i < r.cols * r.rows; i += blockDim.x)
    out[first[blockIdx.x] + i] = static_cast<uint8_t>(
        luma_block(src, r.x + (i % r.cols) * r.stride, r.y + (i / r.cols) * r.stride, r.stride));
}

} // namespace

Status launch_templates(const PixelSource& src, const TemplateJob* jobs, int n_jobs,
                        const uint8_t* samples, int shared_bytes, DevTemplateHit* out,
                        cudaStream_t stream) {
  if (n_jobs <= 0)
    return Status::Ok();
  ncc_kernel<<<n_jobs, kNccThreads, shared_bytes, stream>>>(src, jobs, samples, out);
  CVIS_CUDA_CHECK_LAUNCH(stream, "ncc_kernel");
  return Status::Ok();
}

Status launch_luma(const PixelSource& src, const LumaRegion* regions, const int64_t* first,
                   int n_regions, uint8_t* out, cudaStream_t stream) {
  if (n_regions <= 0)
    return Status::Ok();
  luma_kernel<<<n_regions, 256, 0, stream>>>(src, regions, first, out);
  CVIS_CUDA_CHECK_LAUNCH(stream, "luma_kernel");
  return Status::Ok();
}

} // namespace cvis::rcdtrack::kernels

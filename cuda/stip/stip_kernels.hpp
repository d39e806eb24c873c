// Kernels of the front end's CUDA backend (actionmatch_frontend_kernels.cu: the image work;
// actionmatch_frontend_kernels_points.cu: response, points, descriptors;
// actionmatch_frontend_kernels_harris.cu: the Harris detector) and their launchers; only
// actionmatch_frontend_cuda.cpp includes this header. Float images are packed (pitch = width
// elements) as in the reference (ref::Image), so that fe::bilinear indexes them the same way.
// Every launcher enqueues on `stream` and reports the launch status.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "common/status.hpp"

namespace cvis::stip::kernels {

// Longest filters: the Gaussian of sigma 8 (2 ceil(24) + 1 taps), the Gabor pair of tau 8
// (2 ceil(16) + 1 taps).
inline constexpr int kMaxTaps = 49;
inline constexpr int kMaxGabor = 33;
inline constexpr int kMaxPoints = 64;
inline constexpr int kMaxDescDim = 234; // kSpeedDescriptorDim; FrameResult rows are `dim` apart
inline constexpr int kMaxHofBins = 9;

struct Taps {
  int n = 0; // odd
  float t[kMaxTaps] = {};
};

// A local maximum of R, or a kept point.
struct Candidate {
  float r;
  int32_t y, x;
};

// Device scalars of one push: the luma byte sum and the number of NMS candidates.
struct Counters {
  unsigned long long byte_sum;
  int32_t candidates, pad;
};

// What a final frame sends back to the host (one copy): the number of candidates, the kept points
// (strongest first) and their descriptors.
struct FrameResult {
  int32_t candidates, pad;
  Candidate points[kMaxPoints];
  float desc[kMaxPoints * kMaxDescDim]; // kept points x dim, packed
};

// Sum of the w x h luma bytes into c->byte_sum (integer atomics: exact, any order).
Status launch_luma_sum(const uint8_t* luma, size_t pitch, int w, int h, Counters* c,
                       cudaStream_t stream);
// Rows pass of the loaded frame (byte * (1/255) * gain, gain = fe::gain_scale(c->byte_sum) when
// `normalise`, else 1) with t0 into out0 and with t1 into out1 (w x h each).
Status launch_load_rows(const uint8_t* luma, size_t pitch, int w, int h, bool normalise,
                        const Counters* c, const Taps& t0, const Taps& t1, float* out0,
                        float* out1, cudaStream_t stream);

// `count` (<= 3) separable passes at once, image 0 with t0 and the others with t1.
// rows: out_k(x, y) = sum_j taps[j] in_k(clamp(step x + j - r), y), out w_out x h_in;
// cols: out_k(x, y) = sum_j taps[j] in_k(x, clamp(step y + j - r)), out w_in x h_out.
// The input is w_in x h_in; step 2 decimates (pyramid).
struct Pass {
  const float* in[3];
  float* out[3];
  int count;
  int w_in, h_in, w_out, h_out, step;
};
Status launch_rows(const Pass& p, const Taps& t0, const Taps& t1, cudaStream_t stream);
Status launch_cols(const Pass& p, const Taps& t0, const Taps& t1, cudaStream_t stream);

// Lucas-Kanade on one pyramid level (w x h), window radius r <= kMaxFlowRadius.
inline constexpr int kMaxFlowRadius = 7;
// Initial flow (u, v) = 2 x the coarser level's flow (cu, cv; cw wide) at (x/2, y/2), or 0 when
// cu is null; and the row sums (hxx, hxy, hyy) of the products of P's central-difference gradient.
Status launch_lk_tensor_rows(const float* P, int w, int h, int r, const float* cu,
                             const float* cv, int cw, float* u, float* v, float* hxx, float* hxy,
                             float* hyy, cudaStream_t stream);
// Row sums of bx = Ix (C(x + u) - P), by = Iy (C(x + u) - P).
Status launch_lk_mismatch_rows(const float* P, const float* C, const float* u, const float* v,
                               int w, int h, int r, float* hbx, float* hby, cudaStream_t stream);
// Column sums of the row sums hbx, hby, then fe::lk_update of (u, v) with the tensor sums g.
Status launch_lk_update(const float* g11, const float* g12, const float* g22, const float* hbx,
                        const float* hby, int w, int h, int r, float* u, float* v,
                        cudaStream_t stream);

// HoG votes of S and HoF votes of (u, v) (zero flow when u is nullptr; fe::hof_vote's split).
Status launch_votes(const float* S, const float* u, const float* v, int w, int h, float flow_min,
                    float split, uint8_t* hog_bin, float* hog_w, uint8_t* hof_bin, float* hof_w,
                    cudaStream_t stream);

// R = E^2 + O^2 from the 2 r + 1 smoothed frames at frames[k] (oldest first).
struct Gabor {
  int n = 0;
  float even[kMaxGabor] = {}, odd[kMaxGabor] = {};
  const float* frames[kMaxGabor] = {};
};
Status launch_response(const Gabor& g, int w, int h, float* R, cudaStream_t stream);

// Harris, first step: L = sum_k even[k] frames[k] and Lt = sum_k odd[k] frames[k] (the temporal
// Gaussian and its derivative in the Gabor pair's slots).
Status launch_harris_temporal(const Gabor& g, int w, int h, float* L, float* Lt,
                              cudaStream_t stream);
// Harris, second step: the six products (fe::harris_products) of L's central differences and Lt,
// into out[0..5].
Status launch_harris_products(const float* L, const float* Lt, int w, int h, float sigma,
                              float tau, float* const out[6], cudaStream_t stream);
// Harris, last step: mu_c = sum_j taps[j] ring[(slot[j] * 6 + c) * w * h + i], then
// R = fe::harris_response(mu, k).
struct HarrisSum {
  int n = 0;
  float taps[kMaxGabor] = {};
  int slot[kMaxGabor] = {};
  const float* ring = nullptr;
  float k = 0;
};
Status launch_harris_response(const HarrisSum& a, int w, int h, float* R, cudaStream_t stream);

// 3-D local maxima of `cur` above `threshold` (prev / next may be null) appended to `cand` with
// c->candidates as the counter (c->candidates must be 0 before).
Status launch_nms(const float* prev, const float* cur, const float* next, int w, int h,
                  int radius, float threshold, Candidate* cand, Counters* c, cudaStream_t stream);
// The `max_points` first candidates in fe::point_before order, into out->points (by rank), and
// the candidate count into out->candidates. `capacity` bounds the launch (the most candidates).
Status launch_rank(const Candidate* cand, const Counters* c, int capacity, int max_points,
                   FrameResult* out, cudaStream_t stream);

// Descriptor of each kept point of frame f: the votes of frames f - cell_frames ..
// f + cell_frames - 1 within first..last (vote-ring slot = frame % ring).
struct DescArgs {
  const uint8_t* hog_bin;
  const float* hog_w;
  const uint8_t* hof_bin;
  const float* hof_w;
  int w, h, ring, cell, cell_frames, max_points;
  int hof_bins, dim; // HoF bins per cell (<= kMaxHofBins), values per descriptor
  int64_t f, first, last;
};
Status launch_descriptors(const DescArgs& a, FrameResult* out, cudaStream_t stream);

} // namespace cvis::stip::kernels

// The template refinement's arithmetic, shared verbatim by the CPU reference and the kernel
// (rcdtrack_kernels_ncc.cu): luma block sums, and the normalised cross-correlation from exact
// integer sums with the same floating-point operations on both backends (no contraction), so
// that both pick the same offset.
#pragma once

#include <cmath>
#include <cstdint>

#include "common/color.hpp"
#include "common/hd.hpp"
#include "rcdtrack_math.hpp"

namespace cvis::rcdtrack {

// A template job's samples and offsets per side, at most (the planner keeps to them; a kernel
// block holds a job's frame blocks and template in shared memory).
inline constexpr int kMaxTemplateSide = 64;
inline constexpr int kMaxOffsetSide = 33;
// Blocks are of stride x stride pixels, stride at most this.
inline constexpr int kMaxTemplateStride = 64;

// Mean of luma_of over the stride x stride pixels from (x, y), rounded (0..255: a job's sums then
// fit 32 bits); the caller keeps the pixels in the frame.
CVIS_HD int32_t luma_block(const PixelSource& src, int x, int y, int stride) {
  int32_t s = 0;
  for (int dy = 0; dy < stride; ++dy)
    for (int dx = 0; dx < stride; ++dx)
      s += luma_of(fetch_rgb(src, x + dx, y + dy));
  const int32_t n = stride * stride;
  return (s + n / 2) / n;
}

// Normalised cross-correlation of n sample pairs (template t, frame f) from their sums: st = sum
// t, stt = sum t^2, sf, sff, sft likewise. -2 when either side is flat (no correlation defined).
// The integer parts are exact; the rest is one product, one square root and one division.
CVIS_HD double ncc_score(int64_t n, int64_t st, int64_t stt, int64_t sf, int64_t sff, int64_t sft) {
  const int64_t num = n * sft - sf * st;
  const int64_t vf = n * sff - sf * sf, vt = n * stt - st * st;
  if (vf <= 0 || vt <= 0)
    return -2.0;
  const double p = static_cast<double>(vf) * static_cast<double>(vt);
  return static_cast<double>(num) / sqrt(p);
}

// Order of template hits: the higher score first, ties to the lower offset index.
CVIS_HD bool ncc_before(double a, int ia, double b, int ib) {
  return a > b || (a == b && ia < ib);
}

} // namespace cvis::rcdtrack

// Search arithmetic shared verbatim by the CPU search and the CUDA kernels (CVIS_HD): the
// bit-plane form of a descriptor, its dot product with a query, the similarity from integer sums
// and the tie rule. Same operations on both sides, so the same bits.
//
// Bit planes: level i (0..7) of a descriptor is b0 + 2 b1 + 4 b2; plane k holds bit k of every
// level, 144 bits in 9 halfwords (bin i is bit i % 16 of halfword i / 16). A row is 27 halfwords,
// plane-major: 54 bytes, as many as the packed form.
//
// With a_i the row's levels and b_i the query's:
//   AB = sum a_i b_i = sum_{k,l} 2^(k+l) popcount(plane_k(a) & plane_l(b))
//   ta = sum a_i, AA = sum a_i^2 (per row, kept beside the planes), tb, BB (the query's)
//   Tanimoto T = AB ta tb / (BB ta^2 + AA tb^2 - AB ta tb)      (LIRE's formula, multiplied out)
// Every term is an integer below 2^35, exact in double; T is their quotient rounded once.
#pragma once

#include <cstdint>

#include "common/hd.hpp"

#if !defined(__CUDA_ARCH__)
#include <bitset>
#endif

namespace cvis::cedd::search {

inline constexpr int kHalfwords = 27; // per row
inline constexpr int kPlaneHalfwords = 9;

// ta in the low 16 bits, AA in the high 16 bits (ta <= 1008, AA <= 7056).
CVIS_HD uint32_t pack_norms(uint32_t ta, uint32_t aa) {
  return ta | (aa << 16);
}

// The level of bin i of the packed form (the CEDD meta's: bits 3i .. 3i+2, little-endian).
CVIS_HD uint32_t packed_level(const uint8_t* packed, int i) {
  const int bit = 3 * i;
  const uint32_t two =
      packed[bit >> 3] | (((bit >> 3) + 1 < 54 ? packed[(bit >> 3) + 1] : 0u) << 8);
  return (two >> (bit & 7)) & 7u;
}

// Row planes and norms of a packed descriptor.
CVIS_HD void planes_from_packed(const uint8_t* packed, uint16_t* planes, uint32_t* norms) {
  for (int h = 0; h < kHalfwords; ++h)
    planes[h] = 0;
  uint32_t ta = 0, aa = 0;
  for (int i = 0; i < 144; ++i) {
    const uint32_t v = packed_level(packed, i);
    ta += v;
    aa += v * v;
    for (int k = 0; k < 3; ++k)
      if ((v >> k) & 1u)
        planes[k * kPlaneHalfwords + (i >> 4)] |= static_cast<uint16_t>(1u << (i & 15));
  }
  *norms = pack_norms(ta, aa);
}

CVIS_HD int popcount32(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __popc(x);
#else
  return static_cast<int>(std::bitset<32>(x).count());
#endif
}

// Plane k of a row or query as 5 words (the last holds 16 bits).
struct Planes {
  uint32_t w[3][5];
};

CVIS_HD void words_of(const uint16_t* h, Planes* p) {
  for (int k = 0; k < 3; ++k) {
    const uint16_t* q = h + k * kPlaneHalfwords;
    for (int j = 0; j < 4; ++j)
      p->w[k][j] = static_cast<uint32_t>(q[2 * j]) | (static_cast<uint32_t>(q[2 * j + 1]) << 16);
    p->w[k][4] = q[8];
  }
}

// sum a_i b_i from the two descriptors' planes.
CVIS_HD uint32_t dot(const Planes& a, const Planes& b) {
  uint32_t s = 0;
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l) {
      uint32_t c = 0;
      for (int j = 0; j < 5; ++j)
        c += static_cast<uint32_t>(popcount32(a.w[k][j] & b.w[l][j]));
      s += c << (k + l);
    }
  return s;
}

// The Tanimoto coefficient of a row (dot product ab, norms) against a query (tb, bb): 1 for equal
// descriptors, 0 for disjoint ones; both empty: 1, one empty: 0 (LIRE's distances 0 and 100).
CVIS_HD double similarity(uint32_t ab, uint32_t norms, uint32_t tb, uint32_t bb) {
  const int64_t ta = norms & 0xffffu, aa = norms >> 16;
  if (ta == 0 && tb == 0)
    return 1.0;
  if (ta == 0 || tb == 0)
    return 0.0;
  const int64_t n = static_cast<int64_t>(ab) * ta * tb;
  const int64_t d = static_cast<int64_t>(bb) * ta * ta + aa * tb * tb - n;
  return static_cast<double>(n) / static_cast<double>(d);
}

// The tie rule: a higher similarity first, then the smaller id.
CVIS_HD bool before(double sa, int64_t ia, double sb, int64_t ib) {
  return sa > sb || (sa == sb && ia < ib);
}

} // namespace cvis::cedd::search

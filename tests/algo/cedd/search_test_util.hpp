// Seeded descriptor sets for the search tests (cpu and gpu suites) and an independent oracle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "cedd/cedd_search.hpp"

namespace cvis::cedd::test {

// n descriptors (levels) with unique ids. `distinct` > 0: only that many different descriptors
// (ties everywhere); ids are shuffled (not in row order), so the tie rule is exercised.
struct DescriptorRows {
  std::vector<uint8_t> levels; // n * 144
  std::vector<uint8_t> packed; // n * 54
  std::vector<int64_t> ids;
  size_t size() const { return ids.size(); }
};

inline void pack(const uint8_t* levels, uint8_t* packed) {
  for (int i = 0; i < kPackedBytes; ++i)
    packed[i] = 0;
  for (int i = 0; i < 144; ++i) {
    const int bit = 3 * i;
    const uint32_t v = static_cast<uint32_t>(levels[i] & 7u) << (bit & 7);
    packed[bit >> 3] |= static_cast<uint8_t>(v);
    if (v > 0xffu)
      packed[(bit >> 3) + 1] |= static_cast<uint8_t>(v >> 8);
  }
}

// Sparse levels like real CEDD descriptors: most bins 0, some 1..7; `zero`: every 50th row empty.
inline DescriptorRows make_rows(size_t n, uint32_t seed, size_t distinct = 0, bool zero = false) {
  std::mt19937 rng(seed);
  DescriptorRows r;
  r.levels.resize(n * 144);
  r.packed.resize(n * kPackedBytes);
  const size_t base_count = distinct > 0 ? distinct : n;
  std::vector<uint8_t> base(base_count * 144);
  for (size_t i = 0; i < base_count; ++i) {
    const int density = 10 + static_cast<int>(rng() % 50); // percent of non-zero bins
    for (int b = 0; b < 144; ++b)
      base[i * 144 + b] =
          static_cast<int>(rng() % 100) < density ? static_cast<uint8_t>(1 + rng() % 7) : 0;
  }
  for (size_t i = 0; i < n; ++i) {
    const size_t src = distinct > 0 ? rng() % distinct : i;
    for (int b = 0; b < 144; ++b)
      r.levels[i * 144 + b] = (zero && i % 50 == 7) ? 0 : base[src * 144 + b];
    pack(&r.levels[i * 144], &r.packed[i * kPackedBytes]);
  }
  r.ids.resize(n);
  for (size_t i = 0; i < n; ++i)
    r.ids[i] = static_cast<int64_t>(i) * 3 + 1000;
  std::shuffle(r.ids.begin(), r.ids.end(), rng);
  return r;
}

} // namespace cvis::cedd::test

// Brute-force Tanimoto top-k search over CEDD descriptors, on the CPU or the GPU (README.md here,
// "Search").
//
// A DescriptorSet holds descriptors (in the 54-byte packed form of the CEDD meta) with a 64-bit
// id each; append() adds rows at any time (the CUDA set keeps them in device memory, in chunks,
// so a set grows without copying); search() ranks every row against a query and returns the k
// best. Both backends compute the same similarity bits (cedd_search_core.hpp: exact integer sums,
// one rounding) and break ties the same way (higher similarity first, then the smaller id), so
// their results are identical.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/backend.hpp"
#include "common/status.hpp"

namespace cvis::cedd {

inline constexpr int kPackedBytes = 54;
inline constexpr int kMaxSearchK = 256;

struct SearchHit {
  int64_t id = 0;
  double similarity = 0.0; // Tanimoto coefficient, 0..1 (1: the same descriptor)
};

// LIRE's distance scale (0 = the same descriptor .. 100).
inline double tanimoto_distance(double similarity) {
  return 100.0 - 100.0 * similarity;
}

// The similarity of two descriptors given as 144 levels (0..7): what search() ranks by.
double tanimoto_similarity(const uint8_t* a_levels, const uint8_t* b_levels);

// The tie rule of every search: higher similarity first, then the smaller id.
bool ranks_before(const SearchHit& a, const SearchHit& b);

struct SearchParams {
  int cpu_threads = 0; // CPU set: threads a search uses (0: all cores)
  // CUDA set: rows per device chunk (a power of two; memory grows one chunk at a time).
  uint32_t chunk_rows = 1u << 20;
};

class DescriptorSet {
public:
  virtual ~DescriptorSet() = default;
  virtual Backend backend() const = 0;

  // Before the first append (or after clear()). kInvalidArgument for bad values.
  virtual Status configure(const SearchParams& params) = 0;

  // Adds n rows: packed[i * kPackedBytes ..] and ids[i] (ids must be unique; any order). The CUDA
  // set copies them to the device on `stream` and is done with the host arrays on return.
  // Errors: kOutOfMemory, kCudaError.
  virtual Status append(const uint8_t* packed, const int64_t* ids, size_t n,
                        StreamHandle stream) = 0;

  // The min(k, size()) best rows for `query_levels` (144 levels 0..7), best first. Errors:
  // kInvalidArgument (k < 1 or k > kMaxSearchK), kCudaError.
  virtual Status search(const uint8_t* query_levels, int k, std::vector<SearchHit>* hits,
                        StreamHandle stream) = 0;

  virtual size_t size() const = 0;
  virtual void clear() = 0; // forgets every row (the CUDA set keeps its memory)
};

// `backend` must be kCpu or kCuda. Returns nullptr and sets *status (kNoDevice) when the CUDA
// backend is not in this build or there is no device.
std::unique_ptr<DescriptorSet> make_descriptor_set(Backend backend, Status* status);

} // namespace cvis::cedd

// CPU search: rows in bit-plane form (cedd_search_core.hpp), a scan per thread keeping its k best
// in a heap, the heaps merged. The reference of the CUDA search (same similarity, same tie rule).
#include <algorithm>
#include <thread>
#include <vector>

#include "cedd/cedd_search_core.hpp"
#include "cedd/cedd_search_internal.hpp"

namespace cvis::cedd::search {
namespace {

// Below this many rows per thread, threads cost more than they save.
constexpr size_t kRowsPerThread = 1 << 16;

// x86-64's baseline has no popcount instruction; a clone of the scan for CPUs that have one is
// picked at load time (3.4x faster here). Both clones compute the same integers.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CVIS_SCAN_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define CVIS_SCAN_CLONES
#endif

// Rows [begin, end): their k best for the query in a heap, the worst kept row at the front.
CVIS_SCAN_CLONES void scan_rows(const uint16_t* planes, const uint32_t* norms, const int64_t* ids,
                                size_t begin, size_t end, const Planes& q, uint32_t qn, int k,
                                std::vector<SearchHit>* heap) {
  heap->reserve(static_cast<size_t>(k) + 1);
  for (size_t r = begin; r < end; ++r) {
    Planes a;
    words_of(&planes[r * kHalfwords], &a);
    const SearchHit h{ids[r], similarity(dot(a, q), norms[r], qn & 0xffffu, qn >> 16)};
    if (heap->size() == static_cast<size_t>(k) && !ranks_before(h, heap->front()))
      continue;
    heap->push_back(h);
    std::push_heap(heap->begin(), heap->end(), ranks_before);
    if (heap->size() > static_cast<size_t>(k)) {
      std::pop_heap(heap->begin(), heap->end(), ranks_before);
      heap->pop_back();
    }
  }
}

class CpuSet final : public DescriptorSet {
public:
  Backend backend() const override { return Backend::kCpu; }

  Status configure(const SearchParams& params) override {
    if (params.cpu_threads < 0)
      return invalid_argument("cedd search: cpu_threads must be >= 0");
    params_ = params;
    return Status::Ok();
  }

  Status append(const uint8_t* packed, const int64_t* ids, size_t n, StreamHandle) override {
    const size_t old = ids_.size();
    planes_.resize((old + n) * kHalfwords);
    norms_.resize(old + n);
    ids_.insert(ids_.end(), ids, ids + n);
    for (size_t i = 0; i < n; ++i)
      planes_from_packed(packed + i * kPackedBytes, &planes_[(old + i) * kHalfwords],
                         &norms_[old + i]);
    return Status::Ok();
  }

  Status search(const uint8_t* query_levels, int k, std::vector<SearchHit>* hits,
                StreamHandle) override {
    CVIS_RETURN_IF_ERROR(check_k(k));
    uint8_t packed[kPackedBytes];
    pack_levels(query_levels, packed);
    uint16_t qh[kHalfwords];
    uint32_t qn = 0;
    planes_from_packed(packed, qh, &qn);
    Planes q;
    words_of(qh, &q);
    const size_t n = ids_.size();
    size_t threads = params_.cpu_threads > 0 ? static_cast<size_t>(params_.cpu_threads)
                                             : std::max(1u, std::thread::hardware_concurrency());
    threads = std::max<size_t>(1, std::min(threads, n / kRowsPerThread));
    std::vector<std::vector<SearchHit>> best(threads);
    auto scan = [&](size_t t) {
      scan_rows(planes_.data(), norms_.data(), ids_.data(), n * t / threads, n * (t + 1) / threads,
                q, qn, k, &best[t]);
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t)
      pool.emplace_back(scan, t);
    scan(0);
    for (std::thread& th : pool)
      th.join();
    hits->clear();
    for (const auto& b : best)
      hits->insert(hits->end(), b.begin(), b.end());
    std::sort(hits->begin(), hits->end(), ranks_before);
    if (hits->size() > static_cast<size_t>(k))
      hits->resize(static_cast<size_t>(k));
    return Status::Ok();
  }

  size_t size() const override { return ids_.size(); }
  void clear() override {
    planes_.clear();
    norms_.clear();
    ids_.clear();
  }

private:
  SearchParams params_;
  std::vector<uint16_t> planes_; // kHalfwords per row
  std::vector<uint32_t> norms_;
  std::vector<int64_t> ids_;
};

} // namespace

std::unique_ptr<DescriptorSet> make_cpu_set() {
  return std::make_unique<CpuSet>();
}

} // namespace cvis::cedd::search

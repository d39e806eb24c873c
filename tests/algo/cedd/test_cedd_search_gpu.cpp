// CEDD search on the GPU against the CPU search (suite gpu): the same ids, in the same order, with
// bit-identical similarities (both compute cedd_search_core.hpp's integer sums and one division),
// on sets that cross device chunks, grow between searches, hold many ties (the tie rule decides)
// and empty descriptors, and on an order where every row beats the threshold (a merge per tile).
// Each test starts with CVIS_REQUIRE_GPU().
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cedd/cedd_search.hpp"
#include "common/backend.hpp"
#include "search_test_util.hpp"
#include "test_images.hpp"

namespace cvis::cedd {
namespace {

using test::DescriptorRows;
using test::make_rows;

struct Sets {
  std::unique_ptr<DescriptorSet> cpu, gpu;
  StreamHandle stream = nullptr;
  explicit Sets(uint32_t chunk_rows) {
    Status st;
    cpu = make_descriptor_set(Backend::kCpu, &st);
    gpu = make_descriptor_set(Backend::kCuda, &st);
    EXPECT_TRUE(st.ok()) << st.to_string();
    SearchParams p;
    p.chunk_rows = chunk_rows;
    EXPECT_TRUE(gpu && gpu->configure(p).ok());
    EXPECT_TRUE(stream_create(&stream).ok());
  }
  ~Sets() {
    gpu.reset();
    stream_destroy(stream);
  }
  void append(const DescriptorRows& r, size_t begin, size_t end) {
    ASSERT_TRUE(
        cpu->append(&r.packed[begin * kPackedBytes], &r.ids[begin], end - begin, nullptr).ok());
    const Status st =
        gpu->append(&r.packed[begin * kPackedBytes], &r.ids[begin], end - begin, stream);
    ASSERT_TRUE(st.ok()) << st.to_string();
  }
  void expect_same(const uint8_t* q, int k, const std::string& what) {
    std::vector<SearchHit> want, got;
    ASSERT_TRUE(cpu->search(q, k, &want, nullptr).ok());
    const Status st = gpu->search(q, k, &got, stream);
    ASSERT_TRUE(st.ok()) << what << ": " << st.to_string();
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].id, want[i].id) << what << " rank " << i;
      EXPECT_EQ(got[i].similarity, want[i].similarity) << what << " rank " << i;
    }
  }
};

TEST(CeddSearchGpu, SameAsCpu) {
  CVIS_REQUIRE_GPU();
  const bool small = cvis::test::sanitizer_run();
  struct Case {
    size_t n;
    uint32_t chunk;
    size_t distinct;
  };
  std::vector<Case> cases = {{1, 64, 0},         {511, 64, 0},         {512, 128, 0},
                             {513, 64, 0},       {3000, 256, 5},       {20000, 1024, 0},
                             {70000, 4096, 200}, {300000, 1u << 16, 0}};
  if (small)
    cases = {{1, 64, 0}, {513, 64, 0}, {3000, 256, 5}};
  const int ks[] = {1, 10, 64, 256};
  uint32_t seed = 100;
  for (const Case& c : cases) {
    const DescriptorRows rows = make_rows(c.n, seed++, c.distinct, true);
    const DescriptorRows q = make_rows(3, seed++);
    Sets s(c.chunk);
    s.append(rows, 0, rows.size());
    for (int k : ks)
      for (int qi = 0; qi < 4; ++qi) {
        const uint8_t* query = qi < 3 ? &q.levels[qi * 144] : &rows.levels[(c.n / 3) * 144];
        s.expect_same(query, k,
                      "n=" + std::to_string(c.n) + " chunk=" + std::to_string(c.chunk) +
                          " k=" + std::to_string(k) + " query " + std::to_string(qi));
      }
  }
}

// The set grows between searches (the cache extended as rows arrive), across chunk boundaries.
TEST(CeddSearchGpu, GrowsBetweenSearches) {
  CVIS_REQUIRE_GPU();
  const size_t n = cvis::test::sanitizer_run() ? 900 : 20000;
  const DescriptorRows rows = make_rows(n, 7, 50, false);
  const DescriptorRows q = make_rows(2, 8);
  Sets s(256);
  const size_t step[] = {1, 100, 255, 1, 513, 4000};
  size_t at = 0, i = 0;
  while (at < n) {
    const size_t end = std::min(n, at + step[i++ % 6]);
    s.append(rows, at, end);
    at = end;
    s.expect_same(&q.levels[(i % 2) * 144], 10, "after " + std::to_string(at) + " rows");
  }
}

// Rows ordered from least to most similar to the query: every row of every tile enters the list,
// so every tile merges (the worst case of the selection).
TEST(CeddSearchGpu, EveryRowBeatsTheThreshold) {
  CVIS_REQUIRE_GPU();
  const size_t n = cvis::test::sanitizer_run() ? 1500 : 30000;
  DescriptorRows rows = make_rows(n, 9);
  const DescriptorRows q = make_rows(1, 10);
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i)
    order[i] = i;
  std::vector<double> sim(n);
  for (size_t i = 0; i < n; ++i)
    sim[i] = tanimoto_similarity(&rows.levels[i * 144], q.levels.data());
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sim[a] < sim[b]; });
  DescriptorRows sorted;
  sorted.packed.resize(n * kPackedBytes);
  sorted.levels.resize(n * 144);
  for (size_t i = 0; i < n; ++i) {
    std::copy_n(&rows.packed[order[i] * kPackedBytes], kPackedBytes,
                &sorted.packed[i * kPackedBytes]);
    std::copy_n(&rows.levels[order[i] * 144], 144, &sorted.levels[i * 144]);
    sorted.ids.push_back(static_cast<int64_t>(n - i)); // later rows: smaller ids
  }
  Sets s(1024);
  s.append(sorted, 0, n);
  for (int k : {1, 33, 256})
    s.expect_same(q.levels.data(), k, "k=" + std::to_string(k));
}

TEST(CeddSearchGpu, EmptySetAndBadK) {
  CVIS_REQUIRE_GPU();
  Sets s(64);
  const DescriptorRows q = make_rows(1, 3);
  std::vector<SearchHit> hits{{1, 0.5}};
  ASSERT_TRUE(s.gpu->search(q.levels.data(), 5, &hits, s.stream).ok());
  EXPECT_TRUE(hits.empty());
  EXPECT_EQ(s.gpu->search(q.levels.data(), 0, &hits, s.stream).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(s.gpu->search(q.levels.data(), kMaxSearchK + 1, &hits, s.stream).code(),
            StatusCode::kInvalidArgument);
  SearchParams bad;
  bad.chunk_rows = 100;
  EXPECT_EQ(s.gpu->configure(bad).code(), StatusCode::kInvalidArgument);
}

} // namespace
} // namespace cvis::cedd

// CEDD search on the CPU (suite cpu): the CPU set against an independent oracle that ranks by the
// exact Tanimoto coefficient (integer cross-multiplication, no rounding at all) with the tie rule;
// the similarity against LIRE's distance formula; threads, appends, clear, bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cedd/cedd_search.hpp"
#include "search_test_util.hpp"

namespace cvis::cedd {
namespace {

using test::DescriptorRows;
using test::make_rows;

// T = num / den exactly (LIRE's formula multiplied out, cedd_search_core.hpp).
struct Exact {
  int64_t num = 0, den = 1;
  int64_t id = 0;
};

Exact exact(const uint8_t* a, const uint8_t* b, int64_t id) {
  int64_t ta = 0, tb = 0, aa = 0, bb = 0, ab = 0;
  for (int i = 0; i < 144; ++i) {
    ta += a[i];
    tb += b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
    ab += a[i] * b[i];
  }
  if (ta == 0 && tb == 0)
    return {1, 1, id};
  if (ta == 0 || tb == 0)
    return {0, 1, id};
  const int64_t n = ab * ta * tb;
  return {n, bb * ta * ta + aa * tb * tb - n, id};
}

// Strict order of the oracle: a larger exact coefficient first; equal coefficients by id.
bool exact_before(const Exact& x, const Exact& y) {
  const __int128 l = static_cast<__int128>(x.num) * y.den, r = static_cast<__int128>(y.num) * x.den;
  return l > r || (l == r && x.id < y.id);
}

// LIRE's CEDD.getDistance (shared notes, section 11): normalised doubles summed in bin order.
double lire_distance(const uint8_t* a, const uint8_t* b) {
  double ta = 0, tb = 0, p = 0, q = 0, r = 0;
  for (int i = 0; i < 144; ++i) {
    ta += a[i];
    tb += b[i];
  }
  if (ta == 0 && tb == 0)
    return 0;
  if (ta == 0 || tb == 0)
    return 100;
  for (int i = 0; i < 144; ++i) {
    const double x = a[i] / ta, y = b[i] / tb;
    p += x * y;
    q += y * y;
    r += x * x;
  }
  return 100.0 - 100.0 * (p / (q + r - p));
}

std::unique_ptr<DescriptorSet> cpu_set(int threads) {
  Status st;
  auto s = make_descriptor_set(Backend::kCpu, &st);
  EXPECT_TRUE(st.ok()) << st.to_string();
  SearchParams p;
  p.cpu_threads = threads;
  EXPECT_TRUE(s->configure(p).ok());
  return s;
}

// The oracle's k best of `rows` for query levels `q`, and the check of `got` against them: the
// same ids in the same order, similarity = num / den rounded once.
void expect_oracle(const DescriptorRows& rows, const uint8_t* q, int k,
                   const std::vector<SearchHit>& got, const std::string& what) {
  std::vector<Exact> all;
  for (size_t i = 0; i < rows.size(); ++i)
    all.push_back(exact(&rows.levels[i * 144], q, rows.ids[i]));
  std::sort(all.begin(), all.end(), exact_before);
  const size_t want_n = std::min(all.size(), static_cast<size_t>(k));
  ASSERT_EQ(got.size(), want_n) << what;
  for (size_t i = 0; i < want_n; ++i) {
    EXPECT_EQ(got[i].id, all[i].id) << what << " rank " << i;
    // Exact: the coefficient's integers are below 2^35, so one correctly rounded division.
    EXPECT_EQ(got[i].similarity, static_cast<double>(all[i].num) / static_cast<double>(all[i].den))
        << what << " rank " << i;
  }
}

TEST(CeddSearchCpu, MatchesTheExactOracle) {
  struct Case {
    size_t n;
    int k;
    size_t distinct;
    bool zero;
  } cases[] = {{1, 1, 0, false},    {5, 10, 0, false},     {300, 1, 0, false},
               {300, 10, 0, true},  {2000, 256, 0, false}, {2000, 10, 7, false},
               {5000, 50, 3, true}, {513, 256, 1, false}};
  uint32_t seed = 11;
  for (const Case& c : cases) {
    const DescriptorRows rows = make_rows(c.n, seed++, c.distinct, c.zero);
    const DescriptorRows queries = make_rows(4, seed++, 0, false);
    auto set = cpu_set(1);
    ASSERT_TRUE(set->append(rows.packed.data(), rows.ids.data(), rows.size(), nullptr).ok());
    EXPECT_EQ(set->size(), c.n);
    for (size_t qi = 0; qi < 5; ++qi) {
      // Query 4 is a stored row itself (similarity 1, ties with its duplicates).
      const uint8_t* q = qi < 4 ? &queries.levels[qi * 144] : &rows.levels[(c.n / 2) * 144];
      std::vector<SearchHit> hits;
      ASSERT_TRUE(set->search(q, c.k, &hits, nullptr).ok());
      expect_oracle(rows, q, c.k, hits,
                    "n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) +
                        " distinct=" + std::to_string(c.distinct) + " query " + std::to_string(qi));
    }
  }
}

// The similarity is LIRE's Tanimoto: distances agree within 1e-9 (LIRE rounds every normalised
// product and sum; ours is one rounding of the exact ratio: a few ulps of 100 apart).
TEST(CeddSearchCpu, SimilarityIsLiresTanimoto) {
  const DescriptorRows rows = make_rows(400, 5, 0, true);
  for (size_t i = 0; i + 1 < rows.size(); ++i) {
    const uint8_t* a = &rows.levels[i * 144];
    const uint8_t* b = &rows.levels[(i + 1) * 144];
    EXPECT_NEAR(tanimoto_distance(tanimoto_similarity(a, b)), lire_distance(a, b), 1e-9) << i;
    EXPECT_EQ(tanimoto_similarity(a, b), tanimoto_similarity(b, a)) << i;
  }
  EXPECT_EQ(tanimoto_similarity(&rows.levels[0], &rows.levels[0]), 1.0);
}

// Threads split the rows; the result is the same as one thread's (the tie rule is total).
TEST(CeddSearchCpu, ThreadsGiveTheSameResult) {
  const DescriptorRows rows = make_rows(200000, 21, 40, false);
  const DescriptorRows q = make_rows(3, 22);
  auto one = cpu_set(1), four = cpu_set(4);
  ASSERT_TRUE(one->append(rows.packed.data(), rows.ids.data(), rows.size(), nullptr).ok());
  ASSERT_TRUE(four->append(rows.packed.data(), rows.ids.data(), rows.size(), nullptr).ok());
  for (int i = 0; i < 3; ++i) {
    std::vector<SearchHit> a, b;
    ASSERT_TRUE(one->search(&q.levels[i * 144], 100, &a, nullptr).ok());
    ASSERT_TRUE(four->search(&q.levels[i * 144], 100, &b, nullptr).ok());
    ASSERT_EQ(a.size(), b.size());
    for (size_t j = 0; j < a.size(); ++j) {
      EXPECT_EQ(a[j].id, b[j].id) << j;
      EXPECT_EQ(a[j].similarity, b[j].similarity) << j;
    }
  }
}

// Appending in pieces is appending at once; clear() empties; bad k is refused.
TEST(CeddSearchCpu, AppendClearAndBounds) {
  const DescriptorRows rows = make_rows(1000, 31);
  const DescriptorRows q = make_rows(1, 32);
  auto whole = cpu_set(1), pieces = cpu_set(1);
  ASSERT_TRUE(whole->append(rows.packed.data(), rows.ids.data(), 1000, nullptr).ok());
  for (size_t off = 0; off < 1000; off += 333) {
    const size_t m = std::min<size_t>(333, 1000 - off);
    ASSERT_TRUE(pieces->append(&rows.packed[off * kPackedBytes], &rows.ids[off], m, nullptr).ok());
  }
  std::vector<SearchHit> a, b;
  ASSERT_TRUE(whole->search(q.levels.data(), 20, &a, nullptr).ok());
  ASSERT_TRUE(pieces->search(q.levels.data(), 20, &b, nullptr).ok());
  ASSERT_EQ(a.size(), 20u);
  for (size_t j = 0; j < a.size(); ++j)
    EXPECT_EQ(a[j].id, b[j].id) << j;
  EXPECT_EQ(whole->search(q.levels.data(), 0, &a, nullptr).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(whole->search(q.levels.data(), kMaxSearchK + 1, &a, nullptr).code(),
            StatusCode::kInvalidArgument);
  whole->clear();
  EXPECT_EQ(whole->size(), 0u);
  ASSERT_TRUE(whole->search(q.levels.data(), 5, &a, nullptr).ok());
  EXPECT_TRUE(a.empty());
}

} // namespace
} // namespace cvis::cedd

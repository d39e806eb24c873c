// Search over a store (suite cpu, CPU ranking; the GPU ranking is checked against the CPU's in
// tests/algo/cedd): the nearest rows with the tie rule, a cached searcher extended by the rows
// stored after it was opened, the filters, the one-shot search, a stored row as the query.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "store/search.hpp"
#include "store_test_util.hpp"

using namespace cvis::store;
using store_test::Backend;

namespace {

DescriptorRow row(const std::string& stream, int64_t frame, std::mt19937* rng, int copy_of = -1,
                  const std::vector<DescriptorRow>* from = nullptr) {
  DescriptorRow r;
  r.key = {stream, "s", frame, 0};
  r.pts = frame * 100;
  if (copy_of >= 0) {
    std::copy(from->at(copy_of).levels, from->at(copy_of).levels + kLevels, r.levels);
  } else {
    for (int i = 0; i < kLevels; ++i)
      r.levels[i] = (*rng)() % 3 == 0 ? static_cast<uint8_t>(1 + (*rng)() % 7) : 0;
  }
  return r;
}

// The expected ranking: tanimoto_similarity of every row (read back with its id), tie rule.
std::vector<int64_t> expected(Store* s, const Filter& f, const uint8_t* q, int k) {
  std::vector<cvis::cedd::SearchHit> all;
  EXPECT_TRUE(s->for_each_descriptor(f, 0, -1, true, [&](const DescriptorRow& r) {
                 all.push_back({r.id, cvis::cedd::tanimoto_similarity(r.levels, q)});
                 return true;
               }).ok());
  std::sort(all.begin(), all.end(), cvis::cedd::ranks_before);
  std::vector<int64_t> ids;
  for (size_t i = 0; i < all.size() && i < static_cast<size_t>(k); ++i)
    ids.push_back(all[i].id);
  return ids;
}

std::vector<int64_t> ids_of(const std::vector<SearchResult>& r) {
  std::vector<int64_t> ids;
  for (const auto& x : r)
    ids.push_back(x.row.id);
  return ids;
}

class SearchTest : public ::testing::TestWithParam<Backend> {};

TEST_P(SearchTest, CachedSearcherIsExtendedAndAgreesWithOneShot) {
  STORE_REQUIRE(GetParam());
  auto db = store_test::make_db(GetParam());
  std::mt19937 rng(42);
  std::unique_ptr<Store> w;
  ASSERT_TRUE(open_store(db->location(), Access::kWrite, &w).ok());
  Batch b;
  for (int f = 0; f < 300; ++f) // every 10th row repeats an earlier one: ties
    b.descriptors.push_back(
        row(f % 2 ? "a" : "b", f, &rng, f % 10 == 9 ? f - 5 : -1, &b.descriptors));
  bool transient = false;
  ASSERT_TRUE(w->write(b, &transient).ok());
  SearchOptions opt;
  opt.backend = cvis::Backend::kCpu;
  Searcher s;
  ASSERT_TRUE(s.open(db->location(), Filter(), opt).ok());
  EXPECT_EQ(s.size(), 300u);
  std::vector<SearchResult> got;
  const uint8_t* q = b.descriptors[4].levels; // a stored row and its copy at 9: a tie at 1.0
  ASSERT_TRUE(s.search(q, 12, &got).ok());
  EXPECT_EQ(ids_of(got), expected(w.get(), Filter(), q, 12));
  ASSERT_GE(got.size(), 2u);
  EXPECT_EQ(got[0].distance, 0.0);
  EXPECT_EQ(got[1].distance, 0.0);
  EXPECT_LT(got[0].row.id, got[1].row.id);
  EXPECT_EQ(got[0].row.key.frame, 4);
  // Rows stored after the searcher opened are found by its next search.
  Batch more;
  for (int f = 300; f < 350; ++f)
    more.descriptors.push_back(row("a", f, &rng));
  more.descriptors.push_back(row("late", 999, &rng, 4, &b.descriptors));
  ASSERT_TRUE(w->write(more, &transient).ok());
  ASSERT_TRUE(s.search(q, 12, &got).ok());
  EXPECT_EQ(s.size(), 351u);
  EXPECT_EQ(ids_of(got), expected(w.get(), Filter(), q, 12));
  EXPECT_EQ(got[2].row.key.stream, "late");
  // One-shot search: the same answer; with a filter, only the stream's rows in the time range.
  size_t scanned = 0;
  std::vector<SearchResult> once;
  ASSERT_TRUE(search_once(db->location(), Filter(), q, 12, opt, &once, &scanned).ok());
  EXPECT_EQ(scanned, 351u);
  EXPECT_EQ(ids_of(once), ids_of(got));
  Filter f;
  f.stream = "a";
  f.pts_from = 5000;
  f.pts_to = 20000;
  ASSERT_TRUE(search_once(db->location(), f, q, 200, opt, &once, &scanned).ok());
  EXPECT_EQ(scanned, 75u); // odd frames 51..199
  EXPECT_EQ(ids_of(once), expected(w.get(), f, q, 200));
  for (const auto& r : once) {
    EXPECT_EQ(r.row.key.stream, "a");
    EXPECT_GE(r.row.pts, 5000);
    EXPECT_LE(r.row.pts, 20000);
  }
  DescriptorRow stored;
  ASSERT_TRUE(read_row(db->location(), got[0].row.id, &stored).ok());
  EXPECT_EQ(stored.key.frame, 4);
  EXPECT_FALSE(read_row(db->location(), 123456789, &stored).ok());
  EXPECT_EQ(search_once(db->location(), f, q, 0, opt, &once, &scanned).code(),
            cvis::StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Backends, SearchTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) {
                           return std::string(store_test::name(info.param));
                         });

} // namespace

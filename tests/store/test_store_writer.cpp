// The writer (suite cpu), on both back ends: rows written on the writer thread's own timer,
// concurrent writers, an ended writer's disk queue sent by the next one (a batch stored already is
// stored once), a refused COMMIT retried; on PostgreSQL, the server stopped in the middle of a
// stream and started again (every row once), and a flush that times out saying what is missing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <thread>

#include "store/backends.hpp"
#include "store/writer.hpp"
#include "store_test_util.hpp"

using namespace cvis::store;
using store_test::Backend;

namespace {

Batch rows(const std::string& stream, int64_t first_frame, int frames, int per_frame = 1) {
  Batch b;
  for (int f = 0; f < frames; ++f)
    for (int r = 0; r < per_frame; ++r) {
      DescriptorRow d;
      d.key = {stream, "", first_frame + f, r};
      d.pts = (first_frame + f) * 1000;
      d.levels[r % kLevels] = static_cast<uint8_t>(1 + f % 7);
      b.descriptors.push_back(d);
    }
  return b;
}

struct Events {
  std::mutex mu;
  std::vector<WriterEvent> seen;
  std::function<void(const WriterEvent&)> fn() {
    return [this](const WriterEvent& e) {
      std::lock_guard<std::mutex> lk(mu);
      seen.push_back(e);
    };
  }
  int count(WriterEventKind k) {
    std::lock_guard<std::mutex> lk(mu);
    int n = 0;
    for (const auto& e : seen)
      n += e.kind == k;
    return n;
  }
};

// Waits up to `seconds` for `pred`.
template <typename P> bool wait_for(P pred, double seconds) {
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::milliseconds(static_cast<int>(seconds * 1000));
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

class WriterTest : public ::testing::TestWithParam<Backend> {
protected:
  WriterOptions options() {
    WriterOptions o;
    o.queue_root = queue_.path();
    o.commit_interval_ms = 50;
    o.retry_ms = 200;
    return o;
  }
  store_test::TempDir queue_;
};

TEST_P(WriterTest, RowsAreWrittenOnTheirOwnTimer) {
  STORE_REQUIRE(GetParam());
  auto db = store_test::make_db(GetParam());
  Writer w;
  ASSERT_TRUE(w.open(db->location(), options()).ok());
  ASSERT_TRUE(w.add(rows("timer", 0, 3)).ok());
  EXPECT_TRUE(wait_for([&] { return db->query_int("SELECT COUNT(*) FROM descriptors") == 3; }, 10));
  EXPECT_EQ(db->query_int("SELECT COUNT(DISTINCT run_id) FROM descriptors"), 1);
  EXPECT_EQ(db->query_rows("SELECT run_id FROM descriptors LIMIT 1"),
            std::vector<std::string>{w.run_id()});
  ASSERT_TRUE(w.add(rows("timer", 3, 2)).ok());
  EXPECT_TRUE(w.flush(-1).ok());
  EXPECT_EQ(w.stats().stored_rows, 5u);
  EXPECT_TRUE(w.close(1000).ok());
}

TEST_P(WriterTest, ConcurrentWritersStoreEveryRowOnce) {
  STORE_REQUIRE(GetParam());
  auto db = store_test::make_db(GetParam());
  const int kWriters = 6, kBatches = 40, kFrames = 5, kPerFrame = 3;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t)
    threads.emplace_back([&, t] {
      Writer w;
      cvis::Status st = w.open(db->location(), options());
      for (int b = 0; st.ok() && b < kBatches; ++b)
        st = w.add(rows("s" + std::to_string(t), b * kFrames, kFrames, kPerFrame));
      if (st.ok())
        st = w.close(60000);
      if (!st.ok()) {
        failures++;
        ADD_FAILURE() << "writer " << t << ": " << st.to_string();
      }
    });
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(failures.load(), 0);
  const long long total = kWriters * kBatches * kFrames * kPerFrame;
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors"), total);
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM (SELECT DISTINCT stream, frame, region FROM "
                          "descriptors) AS k"),
            total);
}

// A writer that ended before sending its queue (e.g. its host lost power): the next writer of the
// store sends it; the batch that was in fact stored already (its COMMIT went through, the queue
// file was not yet removed) is stored once.
TEST_P(WriterTest, AnEndedWritersQueueIsSentByTheNextOnce) {
  STORE_REQUIRE(GetParam());
  auto db = store_test::make_db(GetParam());
  Batch stored = rows("crashed", 0, 10), waiting = rows("crashed", 10, 5);
  for (auto* b : {&stored, &waiting})
    for (auto& d : b->descriptors)
      d.key.run_id = "old-run_id";
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(open_store(db->location(), Access::kWrite, &s).ok());
    bool transient = false;
    ASSERT_TRUE(s->write(stored, &transient).ok());
  }
  Location loc;
  ASSERT_TRUE(parse_location(db->location(), &loc).ok());
  {
    DiskQueue ended;
    ended.configure(queue_.path(), loc.display, "old-run_id", 1 << 20);
    bool full = false;
    ASSERT_TRUE(ended.push(stored, &full).ok());
    ASSERT_TRUE(ended.push(waiting, &full).ok());
  }
  Writer w;
  ASSERT_TRUE(w.open(db->location(), options()).ok());
  EXPECT_EQ(w.stats().added_rows, 15u);
  ASSERT_TRUE(w.flush(20000).ok());
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors"), 15);
  EXPECT_EQ(db->query_int("SELECT MAX(frame) FROM descriptors"), 14);
  EXPECT_TRUE(w.close(1000).ok());
}

int fail_once(void* data) {
  return static_cast<std::atomic<int>*>(data)->fetch_sub(1) > 0;
}

// A COMMIT the database refuses: the batch waits on disk, is reported once, and is stored when it
// is tried again; rows added meanwhile are not lost either.
TEST(WriterSqlite, RefusedCommitIsRetriedAndNothingIsLost) {
  store_test::TempDir queue;
  auto db = store_test::make_db(Backend::kSqlite);
  Events ev;
  WriterOptions o;
  o.queue_root = queue.path();
  o.commit_interval_ms = 20;
  o.retry_ms = 100;
  Writer w;
  ASSERT_TRUE(w.open(db->location(), o, ev.fn()).ok());
  std::atomic<int> failing{1};
  ASSERT_TRUE(sqlite_set_commit_hook(w.store_for_tests(), fail_once, &failing));
  ASSERT_TRUE(w.add(rows("r", 0, 4)).ok());
  ASSERT_TRUE(wait_for([&] { return ev.count(WriterEventKind::kRefused) == 1; }, 10));
  ASSERT_TRUE(w.add(rows("r", 4, 4)).ok());
  EXPECT_TRUE(wait_for([&] { return w.stats().stored_rows == 8; }, 20));
  EXPECT_TRUE(w.flush(5000).ok());
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors"), 8);
  EXPECT_EQ(ev.count(WriterEventKind::kRefused), 1);
  EXPECT_TRUE(w.close(1000).ok());
}

// The server goes away in the middle of a stream and comes back: the rows wait on disk (a warning
// says so), are sent when it is back, and each is stored exactly once.
TEST(WriterPostgres, ServerStoppedAndStartedEveryRowOnce) {
  STORE_REQUIRE(Backend::kPostgres);
  store_test::TempDir queue;
  auto db = store_test::make_db(Backend::kPostgres);
  Events ev;
  WriterOptions o;
  o.queue_root = queue.path();
  o.commit_interval_ms = 20;
  o.retry_ms = 200;
  Writer w;
  ASSERT_TRUE(w.open(db->location(), o, ev.fn()).ok());
  // Rows keep coming until 50 batches after the server is back, however long that takes.
  std::atomic<int> stop_after{std::numeric_limits<int>::max()};
  std::atomic<int> batches{0};
  std::thread feeder([&] {
    for (int b = 0; b < stop_after; ++b) {
      EXPECT_TRUE(w.add(rows("live", b * 2, 2, 2)).ok());
      batches = b + 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(15));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  ASSERT_TRUE(store_test::pg_server("stop"));
  EXPECT_TRUE(wait_for([&] { return ev.count(WriterEventKind::kUnreachable) >= 1; }, 20));
  EXPECT_TRUE(wait_for([&] { return w.stats().disk_rows > 0; }, 20));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_TRUE(store_test::pg_server("start"));
  stop_after = batches.load() + 50;
  feeder.join();
  const cvis::Status st = w.flush(60000);
  EXPECT_TRUE(st.ok()) << st.to_string();
  EXPECT_GE(ev.count(WriterEventKind::kRecovered), 1);
  EXPECT_EQ(w.stats().disk_rows, 0u);
  EXPECT_TRUE(w.close(1000).ok());
  const long long total = batches.load() * 2 * 2;
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors"), total);
  EXPECT_EQ(
      db->query_int("SELECT COUNT(*) FROM (SELECT DISTINCT frame, region FROM descriptors) k"),
      total);
}

// A flush while the server is away times out with the count of rows not stored and where they
// wait; the next writer of the store sends them.
TEST(WriterPostgres, TimedOutFlushSaysWhatIsMissingAndTheNextWriterSendsIt) {
  STORE_REQUIRE(Backend::kPostgres);
  store_test::TempDir queue;
  auto db = store_test::make_db(Backend::kPostgres);
  WriterOptions o;
  o.queue_root = queue.path();
  o.commit_interval_ms = 20;
  o.retry_ms = 200;
  {
    Writer w;
    ASSERT_TRUE(w.open(db->location(), o).ok());
    ASSERT_TRUE(store_test::pg_server("stop"));
    ASSERT_TRUE(w.add(rows("away", 0, 25, 4)).ok());
    const cvis::Status st = w.flush(1500);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("100 of 100 rows are not stored"), std::string::npos)
        << st.message();
    EXPECT_NE(st.message().find(queue.path()), std::string::npos) << st.message();
    EXPECT_FALSE(w.close(0).ok());
  }
  ASSERT_TRUE(store_test::pg_server("start"));
  Writer next;
  ASSERT_TRUE(next.open(db->location(), o).ok());
  EXPECT_TRUE(next.flush(30000).ok());
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors WHERE stream = 'away'"), 100);
  EXPECT_TRUE(next.close(1000).ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, WriterTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) {
                           return std::string(store_test::name(info.param));
                         });

} // namespace

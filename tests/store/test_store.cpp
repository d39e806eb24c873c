// The store library (suite cpu), each case on both back ends: SQLite, and PostgreSQL on the
// throw-away server of scripts/pg-scratch.sh (skipped, saying why, where there is none). Schema,
// every table, idempotent keys, track spans, reads with filters, errors at open (no password in
// any message), a read-only role, and the settled id that keeps a cached search from missing rows
// committed late.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "store/store.hpp"
#include "store_test_util.hpp"

#if defined(CVIS_TEST_LIBPQ)
#include <libpq-fe.h>
#endif

using namespace cvis::store;
using store_test::Backend;

namespace {

DescriptorRow descriptor(const std::string& stream, int64_t frame, int region, int roi_id = -1) {
  DescriptorRow r;
  r.key = {stream, "s1", frame, region};
  r.pts = frame * 1000;
  r.roi_id = roi_id;
  r.roi_type = roi_id >= 0 ? "track" : "";
  r.x = region;
  r.w = 10;
  r.h = 20;
  r.distance = roi_id < 0 ? 1.5 : -1.0;
  for (int i = 0; i < kLevels; ++i)
    r.levels[i] = static_cast<uint8_t>((i * 7 + frame + region) % 8);
  return r;
}

Batch one_of_each(const std::string& stream, int64_t frame) {
  Batch b;
  b.descriptors.push_back(descriptor(stream, frame, 0));
  b.descriptors.push_back(descriptor(stream, frame, 1, 4));
  b.shots.push_back({{stream, "s1", frame, 0}, frame * 1000, 40.5, "cedd"});
  BoxRow box;
  box.key = {stream, "s1", frame, 0};
  box.pts = frame * 1000;
  box.roi_type = "foreground";
  box.roi_id = 3;
  box.x = 1;
  box.y = 2;
  box.w = 3;
  box.h = 4;
  box.attrs = "foreground, area=(uint)12;";
  b.boxes.push_back(box);
  b.tracks.push_back({stream, "s1", 9, frame, frame + 5, frame * 1000, (frame + 5) * 1000});
  ActionRow a;
  a.key = {stream, "s1", frame, 0};
  a.label = "wave\ttab\nnewline\\slash";
  a.model_id = 2;
  a.score = 0.25;
  a.distance = 3.5;
  a.first_frame = frame - 10;
  a.last_frame = frame;
  b.actions.push_back(a);
  return b;
}

std::unique_ptr<Store> open_ok(const std::string& loc, Access access) {
  std::unique_ptr<Store> s;
  const cvis::Status st = open_store(loc, access, &s);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return s;
}

cvis::Status write_batch(Store* s, const Batch& b) {
  bool transient = false;
  return s->write(b, &transient);
}

class StoreTest : public ::testing::TestWithParam<Backend> {};

TEST_P(StoreTest, EveryTableIsWrittenOnceAndKeepsItsValues) {
  STORE_REQUIRE(GetParam());
  auto db = store_test::make_db(GetParam());
  auto s = open_ok(db->location(), Access::kWrite);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->schema_version(), kSchemaVersion);
  const Batch b = one_of_each("cam", 100);
  ASSERT_TRUE(write_batch(s.get(), b).ok());
  // The same batch again (a batch sent twice after a reconnection): nothing new.
  ASSERT_TRUE(write_batch(s.get(), b).ok());
  for (const char* t : {"descriptors", "shots", "boxes", "tracks", "actions"})
    EXPECT_EQ(db->query_int(std::string("SELECT COUNT(*) FROM ") + t), t[0] == 'd' ? 2 : 1) << t;
  EXPECT_EQ(db->query_rows("SELECT stream, run_id, frame, region, pts, roi_id, roi_type, x, w, h, "
                           "shot_change FROM descriptors ORDER BY region"),
            (std::vector<std::string>{"cam|s1|100|0|100000|-1||0|10|20|0",
                                      "cam|s1|100|1|100000|4|track|1|10|20|0"}));
  EXPECT_EQ(db->query_rows("SELECT source, frame, pts FROM shots"),
            std::vector<std::string>{"cedd|100|100000"});
  EXPECT_EQ(db->query_rows("SELECT roi_type, roi_id, x, y, w, h, attrs FROM boxes"),
            std::vector<std::string>{"foreground|3|1|2|3|4|foreground, area=(uint)12;"});
  EXPECT_EQ(db->query_rows("SELECT label, model_id, first_frame, last_frame, start_ns IS NULL "
                           "FROM actions"),
            std::vector<std::string>{std::string("wave\ttab\nnewline\\slash|2|90|100|") +
                                     (GetParam() == Backend::kSqlite ? "1" : "t")});
  // Track spans: the store keeps the union of what it is sent.
  Batch t;
  t.tracks.push_back({"cam", "s1", 9, 95, 101, 95000, 101000});
  t.tracks.push_back({"cam", "s1", 9, 97, 99, 97000, 99000}); // inside: no change
  ASSERT_TRUE(write_batch(s.get(), t).ok());
  EXPECT_EQ(db->query_rows("SELECT first_frame, last_frame, first_pts, last_pts FROM tracks"),
            std::vector<std::string>{"95|105|95000|105000"});
  // Another run_id's rows of the same stream and frames are other rows.
  Batch other = b;
  for (auto& r : other.descriptors)
    r.key.run_id = "s2";
  ASSERT_TRUE(write_batch(s.get(), other).ok());
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors"), 4);
}

TEST_P(StoreTest, ReadersSelectByStreamTimeAndType) {
  STORE_REQUIRE(GetParam());
  auto db = store_test::make_db(GetParam());
  auto w = open_ok(db->location(), Access::kWrite);
  ASSERT_TRUE(w);
  Batch b;
  for (int f = 0; f < 10; ++f) {
    b.descriptors.push_back(descriptor(f % 2 ? "odd" : "even", f, 0));
    b.descriptors.push_back(descriptor(f % 2 ? "odd" : "even", f, 1, 7));
  }
  ASSERT_TRUE(write_batch(w.get(), b).ok());
  auto r = open_ok(db->location(), Access::kRead);
  ASSERT_TRUE(r);
  auto ids = [&](const Filter& f, int64_t after = 0, int64_t up_to = -1) {
    std::vector<int64_t> out;
    EXPECT_TRUE(r->for_each_descriptor(f, after, up_to, false, [&](const DescriptorRow& row) {
                   out.push_back(row.key.frame * 10 + row.key.region);
                   return true;
                 }).ok());
    return out;
  };
  Filter f;
  EXPECT_EQ(ids(f).size(), 20u);
  f.stream = "odd";
  f.roi_type = "frame";
  EXPECT_EQ(ids(f), (std::vector<int64_t>{10, 30, 50, 70, 90}));
  f.pts_from = 3000;
  f.pts_to = 7000;
  f.roi_type = "track";
  EXPECT_EQ(ids(f), (std::vector<int64_t>{31, 51, 71}));
  int64_t last = 0;
  ASSERT_TRUE(r->settled_last_id(&last).ok());
  std::vector<int64_t> all_ids;
  ASSERT_TRUE(r->for_each_descriptor(Filter(), 0, -1, true, [&](const DescriptorRow& row) {
                 all_ids.push_back(row.id);
                 return true;
               }).ok());
  ASSERT_EQ(all_ids.size(), 20u);
  EXPECT_EQ(last, all_ids.back());
  EXPECT_EQ(ids(Filter(), all_ids[3], all_ids[6]).size(), 3u);
  std::vector<DescriptorRow> rows;
  ASSERT_TRUE(r->descriptors_by_id({all_ids[4], all_ids[1], 999999}, &rows).ok());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].id, all_ids[1]);
  EXPECT_EQ(rows[1].key.stream, "even");
  EXPECT_EQ(rows[1].key.frame, 2);
  EXPECT_EQ(rows[1].distance, 1.5);
  EXPECT_EQ(0, std::memcmp(rows[1].levels, descriptor("even", 2, 0).levels, kLevels));
  ASSERT_TRUE(w->delete_descriptors("odd", 0, last).ok());
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors"), 10);
}

// Errors at open say what is wrong and never show the password.
TEST_P(StoreTest, OpenErrorsAreClearAndHideThePassword) {
  STORE_REQUIRE(GetParam());
  std::unique_ptr<Store> s;
  if (GetParam() == Backend::kSqlite) {
    cvis::Status st = open_store("/nonexistent-dir/x.db", Access::kWrite, &s);
    EXPECT_EQ(st.code(), cvis::StatusCode::kIoError);
    EXPECT_NE(st.message().find("/nonexistent-dir/x.db"), std::string::npos) << st.message();
    auto db = store_test::make_db(GetParam());
    st = open_store(db->location(), Access::kRead, &s); // no file
    EXPECT_FALSE(st.ok());
    return;
  }
  const std::string secret = "Sup3rSecretPw";
  struct Case {
    std::string location, expect;
  } cases[] = {
      {store_test::pg_uri("postgres", "cvis", secret), "password authentication failed"},
      {store_test::pg_uri("no_such_database"), "no_such_database"},
      {"postgresql://cvis:" + secret + "@/postgres?host=/nonexistent&port=1", "cannot connect"},
      {"host=/nonexistent port=1 dbname=x user=cvis password=" + secret, "cannot connect"},
      {"postgresql://cvis:" + secret + "@/postgres?host=/tmp&port=notaport", "port"},
  };
  for (const Case& c : cases) {
    const cvis::Status st = open_store(c.location, Access::kWrite, &s);
    EXPECT_EQ(st.code(), cvis::StatusCode::kIoError) << c.location;
    EXPECT_NE(st.message().find(c.expect), std::string::npos) << st.message();
    EXPECT_EQ(st.message().find(secret), std::string::npos) << st.message();
  }
}

#if defined(CVIS_TEST_LIBPQ)
// A role that may read but not write fails at open, and changes nothing; so does one that may not
// create the tables of a new store.
TEST(StorePostgres, ReadOnlyRoleFailsAtOpenAndWritesNothing) {
  STORE_REQUIRE(Backend::kPostgres);
  auto db = store_test::make_db(Backend::kPostgres);
  ASSERT_TRUE(open_ok(db->location(), Access::kWrite)); // the schema, made by its owner
  const std::string name = db->location().substr(
      db->location().find("@/") + 2, db->location().find('?') - db->location().find("@/") - 2);
  ASSERT_TRUE(store_test::pg_exec("postgres", "DROP ROLE IF EXISTS reader; CREATE ROLE reader "
                                              "LOGIN PASSWORD 'readerpw'"));
  ASSERT_TRUE(db->exec("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader"));
  const std::string uri = store_test::pg_uri(name, "reader", "readerpw");
  std::unique_ptr<Store> s;
  cvis::Status st = open_store(uri, Access::kWrite, &s);
  EXPECT_EQ(st.code(), cvis::StatusCode::kIoError);
  EXPECT_NE(st.message().find("may not write"), std::string::npos) << st.message();
  EXPECT_EQ(st.message().find("readerpw"), std::string::npos) << st.message();
  EXPECT_TRUE(open_store(uri, Access::kRead, &s).ok()); // reading is fine
  // A new database the role cannot create tables in: an error, and no table at all.
  auto empty = store_test::make_db(Backend::kPostgres);
  const std::string ename =
      empty->location().substr(empty->location().find("@/") + 2,
                               empty->location().find('?') - empty->location().find("@/") - 2);
  ASSERT_TRUE(empty->exec("REVOKE CREATE ON SCHEMA public FROM PUBLIC"));
  st = open_store(store_test::pg_uri(ename, "reader", "readerpw"), Access::kWrite, &s);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("nothing was changed"), std::string::npos) << st.message();
  EXPECT_EQ(empty->query_int("SELECT COUNT(*) FROM pg_tables WHERE schemaname = 'public'"), 0);
  store_test::pg_exec("postgres", "DROP OWNED BY reader CASCADE");
}

// A batch that got its ids before another but commits after it: a reader asking for the settled
// id waits for it, so a cached search never skips it.
TEST(StorePostgres, SettledIdWaitsForBatchesInFlight) {
  STORE_REQUIRE(Backend::kPostgres);
  auto db = store_test::make_db(Backend::kPostgres);
  auto w = open_ok(db->location(), Access::kWrite);
  ASSERT_TRUE(w);
  // A writer's batch by hand: the shared lock, rows with ids, not committed yet.
  PGconn* late = PQconnectdb(db->location().c_str());
  ASSERT_EQ(PQstatus(late), CONNECTION_OK);
  PQclear(PQexec(late, "BEGIN"));
  PQclear(PQexec(late, "SELECT pg_advisory_xact_lock_shared(1129728339, 1)"));
  PQclear(PQexec(late, "INSERT INTO descriptors(stream, frame, roi_id, levels, run_id, region) "
                       "VALUES ('late', 0, -1, decode(repeat('00', 144), 'hex'), 's', 0)"));
  Batch b;
  b.descriptors.push_back(descriptor("early", 0, 0));
  ASSERT_TRUE(write_batch(w.get(), b).ok()); // a larger id, committed first
  auto r = open_ok(db->location(), Access::kRead);
  int64_t settled = -1;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    EXPECT_TRUE(r->settled_last_id(&settled).ok());
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(done.load()); // still waiting for the late batch
  PQclear(PQexec(late, "COMMIT"));
  reader.join();
  PQfinish(late);
  EXPECT_EQ(settled, db->query_int("SELECT MAX(id) FROM descriptors"));
  int n = 0;
  ASSERT_TRUE(r->for_each_descriptor(Filter(), 0, settled, true, [&](const DescriptorRow&) {
                 ++n;
                 return true;
               }).ok());
  EXPECT_EQ(n, 2);
}
#endif

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) {
                           return std::string(store_test::name(info.param));
                         });

} // namespace

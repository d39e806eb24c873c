// The SQLite back end (suite cpu): an index of the first version (written before the other
// tables, the keys and the schema version existed) is read as it is and migrated by a writer;
// a damaged table 'info' is reported as damaged.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>

#include "store/store.hpp"
#include "store_test_util.hpp"

using namespace cvis::store;

namespace {

// The first version's file, as its writer made it, with rows of two streams; stream "a" frame 0
// has two rows with the same roi_id (two ROI types), which the new keys tell apart.
void make_v1(const std::string& path, bool user_version) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  std::string sql =
      "CREATE TABLE info(key TEXT PRIMARY KEY, value TEXT);"
      "CREATE TABLE descriptors(id INTEGER PRIMARY KEY, stream TEXT NOT NULL, frame INTEGER NOT "
      "NULL, pts INTEGER, roi_id INTEGER NOT NULL, roi_type TEXT, x INTEGER, y INTEGER, w INTEGER,"
      " h INTEGER, shot_change INTEGER NOT NULL DEFAULT 0, distance REAL, levels BLOB NOT NULL);"
      "CREATE INDEX descriptors_stream_frame ON descriptors(stream, frame);"
      "INSERT INTO info(key, value) VALUES ('descriptor', 'cedd-lire-144'), ('schema', '1');";
  if (user_version)
    sql += "PRAGMA user_version = 1;";
  const char* rows[] = {"'a', 0, 0, -1, NULL", "'a', 0, 0, 3, 'foreground'",
                        "'a', 0, 0, 3, 'track'", "'a', 1, 33, -1, NULL", "'b', 0, NULL, -1, NULL"};
  for (const char* r : rows)
    sql += std::string("INSERT INTO descriptors(stream, frame, pts, roi_id, roi_type, levels) "
                       "VALUES (") +
           r + ", zeroblob(144));";
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

TEST(StoreSqlite, FirstVersionIsReadAsItIsAndMigratedByAWriter) {
  for (bool uv : {true, false}) {
    auto db = store_test::make_db(store_test::Backend::kSqlite);
    make_v1(db->location(), uv);
    std::unique_ptr<Store> r;
    ASSERT_TRUE(open_store(db->location(), Access::kRead, &r).ok());
    EXPECT_EQ(r->schema_version(), 1);
    int n = 0;
    ASSERT_TRUE(r->for_each_descriptor(Filter(), 0, -1, false, [&](const DescriptorRow& row) {
                   EXPECT_EQ(row.key.run_id, "");
                   ++n;
                   return true;
                 }).ok());
    EXPECT_EQ(n, 5);
    r.reset();
    EXPECT_EQ(db->query_int("PRAGMA user_version"), uv ? 1 : 0); // the reader changed nothing
    std::unique_ptr<Store> w;
    ASSERT_TRUE(open_store(db->location(), Access::kWrite, &w).ok());
    EXPECT_EQ(w->schema_version(), kSchemaVersion);
    EXPECT_EQ(db->query_int("PRAGMA user_version"), kSchemaVersion);
    EXPECT_EQ(db->query_rows("SELECT stream, frame, region, run_id FROM descriptors ORDER BY id"),
              (std::vector<std::string>{"a|0|0|", "a|0|1|", "a|0|2|", "a|1|0|", "b|0|0|"}));
    EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM sqlite_master WHERE name IN ('shots', 'boxes', "
                            "'tracks', 'actions', 'descriptors_key')"),
              5);
    Batch b;
    DescriptorRow d;
    d.key = {"a", "new", 0, 0};
    b.descriptors.push_back(d);
    bool transient = false;
    ASSERT_TRUE(w->write(b, &transient).ok());
    EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors"), 6);
  }
}

// A damaged page under the table 'info' is reported as a read error of that table (with SQLite's
// reason), not as "a database but not a CEDD index".
TEST(StoreSqlite, DamagedInfoTableIsReportedAsDamaged) {
  auto db = store_test::make_db(store_test::Backend::kSqlite);
  {
    std::unique_ptr<Store> w;
    ASSERT_TRUE(open_store(db->location(), Access::kWrite, &w).ok());
  } // closed: the WAL is checkpointed into the file
  const long long page = db->query_int("SELECT rootpage FROM sqlite_master WHERE name = 'info'");
  const long long size = db->query_int("PRAGMA page_size");
  ASSERT_GT(page, 0);
  FILE* f = std::fopen(db->location().c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  std::fseek(f, static_cast<long>((page - 1) * size), SEEK_SET);
  for (long long i = 0; i < size; ++i)
    std::fputc(0xA5, f); // not a b-tree page
  std::fclose(f);
  for (Access a : {Access::kRead, Access::kWrite}) {
    std::unique_ptr<Store> s;
    const cvis::Status st = open_store(db->location(), a, &s);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("cannot read the table 'info'"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("malformed"), std::string::npos) << st.message();
    EXPECT_EQ(st.message().find("not a CEDD index"), std::string::npos) << st.message();
  }
}

TEST(StoreSqlite, OtherDatabasesAreNotIndexes) {
  auto db = store_test::make_db(store_test::Backend::kSqlite);
  ASSERT_TRUE(db->exec("CREATE TABLE t(a)"));
  std::unique_ptr<Store> s;
  for (Access a : {Access::kRead, Access::kWrite}) {
    const cvis::Status st = open_store(db->location(), a, &s);
    EXPECT_NE(st.message().find("not a CEDD index"), std::string::npos) << st.message();
  }
  EXPECT_EQ(db->query_rows("SELECT name FROM sqlite_master"), std::vector<std::string>{"t"});
  ASSERT_TRUE(db->exec("CREATE TABLE info(key, value); INSERT INTO info VALUES ('descriptor', "
                       "'other')"));
  const cvis::Status st = open_store(db->location(), Access::kRead, &s);
  EXPECT_NE(st.message().find("descriptor 'other'"), std::string::npos) << st.message();
  ASSERT_TRUE(db->exec("UPDATE info SET value = 'cedd-lire-144'; PRAGMA user_version = 3"));
  EXPECT_NE(open_store(db->location(), Access::kWrite, &s).message().find("version 3"),
            std::string::npos);
}

} // namespace

// cudacedd's index (cpu suite): six pipelines writing one new SQLite index at once (every row
// present), writers never holding SQLite's write lock while rows wait for their commit, the schema
// version set and checked, concurrent creation of one file, the frame / pts columns after a seek
// (frame numbers from the stream position, pts in stream time), the stream name taken from the
// upstream source's location, index-location refused while PLAYING, a PostgreSQL index-location
// (on the throw-away server; skipped without one). The store itself: tests/store.
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "cedd_test_util.hpp"
#include "store/store.hpp"
#include "store/writer.hpp"
#include "store_test_util.hpp"

using namespace cedd_test;
using cvis::store::Batch;
using cvis::store::DescriptorRow;

namespace {

class CeddIndexTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
  void TearDown() override {
    for (const std::string& db : dbs_)
      for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        unlink((db + suffix).c_str());
  }
  std::string temp_db() {
    char tmpl[] = "/tmp/cedd-index-test-XXXXXX";
    int fd = mkstemp(tmpl);
    close(fd);
    unlink(tmpl);
    dbs_.push_back(std::string(tmpl) + ".db");
    return dbs_.back();
  }
  std::vector<std::string> dbs_;
};

// The result of `sql` (one integer) on its own connection; -1 on error.
long long query_int(const std::string& db, const std::string& sql) {
  sqlite3* s = nullptr;
  long long v = -1;
  if (sqlite3_open_v2(db.c_str(), &s, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(s, 10000);
    sqlite3_stmt* q = nullptr;
    if (sqlite3_prepare_v2(s, sql.c_str(), -1, &q, nullptr) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
      v = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
  }
  sqlite3_close(s);
  return v;
}

bool exec_sql(const std::string& db, const std::string& sql) {
  sqlite3* s = nullptr;
  bool ok = sqlite3_open_v2(db.c_str(), &s, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) ==
                SQLITE_OK &&
            sqlite3_exec(s, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(s);
  return ok;
}

Batch row(const std::string& stream, int frame) {
  DescriptorRow r;
  r.key.stream = stream;
  r.key.frame = frame;
  r.pts = frame * 1000;
  for (int i = 0; i < 144; ++i)
    r.levels[i] = static_cast<uint8_t>((i + frame) % 8);
  Batch b;
  b.descriptors.push_back(r);
  return b;
}

cvis::store::WriterOptions options(int commit_ms) {
  cvis::store::WriterOptions o;
  o.commit_interval_ms = commit_ms;
  return o;
}

// Six live pipelines (30 fps, 2 s each) on one index that none of them found: every frame of
// every stream is there. (Before: each held the write lock for a second at a time and at least
// one failed with "database is locked".)
TEST_F(CeddIndexTest, SixPipelinesOnOneIndexEveryRowPresent) {
  const std::string db = temp_db();
  const int kPipelines = 6, kFrames = 60;
  std::vector<GstElement*> pipes;
  for (int i = 0; i < kPipelines; ++i) {
    const std::string launch =
        "videotestsrc is-live=true num-buffers=" + std::to_string(kFrames) +
        " pattern=" + std::to_string(i) +
        " ! video/x-raw,format=RGBA,width=64,height=48,framerate=30/1 ! cudacedd backend=cpu "
        "stream-name=s" +
        std::to_string(i) + " index-location=" + db + " ! fakesink";
    GError* err = nullptr;
    pipes.push_back(gst_parse_launch(launch.c_str(), &err));
    ASSERT_NE(pipes.back(), nullptr) << (err ? err->message : "");
  }
  for (GstElement* p : pipes)
    ASSERT_NE(gst_element_set_state(p, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  for (size_t i = 0; i < pipes.size(); ++i) {
    GstBus* bus = gst_element_get_bus(pipes[i]);
    GstMessage* m = gst_bus_timed_pop_filtered(
        bus, 60 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
    ASSERT_NE(m, nullptr) << "pipeline " << i << ": timeout";
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
      GError* e = nullptr;
      gst_message_parse_error(m, &e, nullptr);
      ADD_FAILURE() << "pipeline " << i << ": " << (e ? e->message : "error");
      g_clear_error(&e);
    }
    gst_message_unref(m);
    gst_object_unref(bus);
  }
  for (GstElement* p : pipes) {
    gst_element_set_state(p, GST_STATE_NULL);
    gst_object_unref(p);
  }
  EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors"), kPipelines * kFrames);
  for (int i = 0; i < kPipelines; ++i) {
    const std::string w = " FROM descriptors WHERE stream='s" + std::to_string(i) + "'";
    EXPECT_EQ(query_int(db, "SELECT COUNT(DISTINCT frame)" + w), kFrames) << i;
    EXPECT_EQ(query_int(db, "SELECT MIN(frame)" + w), 0) << i;
    EXPECT_EQ(query_int(db, "SELECT MAX(frame)" + w), kFrames - 1) << i;
  }
  EXPECT_EQ(query_int(db, "PRAGMA user_version"), cvis::store::kSchemaVersion);
}

// A stream that stalls after one frame neither keeps its row uncommitted nor blocks another
// pipeline writing the same index. (Before: its transaction stayed open, holding the write lock,
// until a next frame; the other pipeline failed with "database is locked" after 5 s.)
TEST_F(CeddIndexTest, AStalledStreamDoesNotBlockOtherWriters) {
  const std::string db = temp_db();
  GstHarness* stalled = gst_harness_new_parse(
      ("cudacedd backend=cpu stream-name=stalled index-location=" + db).c_str());
  gst_harness_set_src_caps_str(stalled, caps_string(GST_VIDEO_FORMAT_RGBA, 32, 24).c_str());
  GstBuffer* b = make_frame(GST_VIDEO_FORMAT_RGBA, 32, 24, 5);
  GST_BUFFER_PTS(b) = 0;
  ASSERT_EQ(gst_harness_push(stalled, b), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(stalled));
  EXPECT_EQ(run_pipeline("videotestsrc num-buffers=10 ! video/x-raw,format=RGBA,width=32,"
                         "height=24 ! cudacedd backend=cpu stream-name=other index-location=" +
                             db + " ! fakesink",
                         nullptr, nullptr, 30),
            "");
  EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors WHERE stream='other'"), 10);
  long long n = 0;
  for (int i = 0; i < 40 && n != 1; ++i) { // committed within the commit interval (1 s)
    n = query_int(db, "SELECT COUNT(*) FROM descriptors WHERE stream='stalled'");
    if (n != 1)
      g_usleep(50000);
  }
  EXPECT_EQ(n, 1);
  gst_harness_teardown(stalled);
}

// Rows waiting for their commit do not hold the write lock: another writer gets it at once.
TEST_F(CeddIndexTest, QueuedRowsDoNotHoldTheWriteLock) {
  const std::string db = temp_db();
  cvis::store::Writer idx;
  ASSERT_TRUE(idx.open(db, options(5000)).ok());
  for (int f = 0; f < 5; ++f)
    ASSERT_TRUE(idx.add(row("a", f)).ok());
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &other), SQLITE_OK);
  sqlite3_busy_timeout(other, 0);
  EXPECT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE; INSERT INTO info VALUES ('other', 'x'); COMMIT",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(other);
  sqlite3_close(other);
  EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors"), 0); // not committed yet
  ASSERT_TRUE(idx.flush(-1).ok());
  EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors"), 5);
  EXPECT_TRUE(idx.close(-1).ok());
}

TEST_F(CeddIndexTest, SchemaVersionIsSetAndChecked) {
  const std::string db = temp_db();
  std::unique_ptr<cvis::store::Store> s;
  ASSERT_TRUE(cvis::store::open_store(db, cvis::store::Access::kWrite, &s).ok());
  s.reset();
  EXPECT_EQ(query_int(db, "PRAGMA user_version"), cvis::store::kSchemaVersion);
  // A newer schema is refused by readers and writers, and left as it is.
  ASSERT_TRUE(exec_sql(db, "PRAGMA user_version = 3"));
  for (auto access : {cvis::store::Access::kRead, cvis::store::Access::kWrite}) {
    cvis::Status st = cvis::store::open_store(db, access, &s);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("version 3"), std::string::npos) << st.message();
  }
  EXPECT_EQ(query_int(db, "PRAGMA user_version"), 3);
}

// Writers opening one new file together: one creates the schema (in a transaction), every other
// finds it complete.
TEST_F(CeddIndexTest, ConcurrentCreationOfOneFile) {
  for (int round = 0; round < 10; ++round) {
    const std::string db = temp_db();
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t) {
      threads.emplace_back([&, t] {
        cvis::store::Writer idx;
        cvis::Status s = idx.open(db, options(1000));
        if (s.ok())
          s = idx.add(row("t" + std::to_string(t), 0));
        if (s.ok())
          s = idx.close(-1);
        if (!s.ok()) {
          failures++;
          ADD_FAILURE() << "writer " << t << ": " << s.to_string();
        }
      });
    }
    for (auto& th : threads)
      th.join();
    EXPECT_EQ(failures.load(), 0) << "round " << round;
    EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors"), 6);
    EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM info"), 2);
  }
}

// After a seek (flush + a segment at 2 s) frames are numbered from the stream position and pts
// is stream time; a segment whose timestamps start at 10 s for stream time 5 s stores frame 150
// at 5 s; a seek back to a frame stored already stores nothing new.
TEST_F(CeddIndexTest, FrameAndPtsFollowTheStreamPosition) {
  const std::string db = temp_db();
  GstHarness* hs = gst_harness_new_parse(("cudacedd backend=cpu index-location=" + db).c_str());
  gst_harness_set_src_caps_str(hs, caps_string(GST_VIDEO_FORMAT_RGBA, 32, 24).c_str());
  auto push = [&](GstClockTime pts, guint32 seed) {
    GstBuffer* b = make_frame(GST_VIDEO_FORMAT_RGBA, 32, 24, seed);
    GST_BUFFER_PTS(b) = pts;
    GST_BUFFER_DURATION(b) = GST_SECOND / 30;
    EXPECT_EQ(gst_harness_push(hs, b), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(hs));
  };
  for (int i = 0; i < 3; ++i)
    push(i * GST_SECOND / 30, i);
  // Seek to 2 s.
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_stop(TRUE)));
  GstSegment seg;
  gst_segment_init(&seg, GST_FORMAT_TIME);
  seg.start = seg.time = seg.position = 2 * GST_SECOND;
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_segment(&seg)));
  for (int i = 0; i < 2; ++i)
    push(2 * GST_SECOND + i * GST_SECOND / 30, 10 + i);
  // Timestamps from 10 s, stream time 5 s.
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_stop(TRUE)));
  gst_segment_init(&seg, GST_FORMAT_TIME);
  seg.start = seg.position = 10 * GST_SECOND;
  seg.time = 5 * GST_SECOND;
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_segment(&seg)));
  push(10 * GST_SECOND, 20);
  // Back to the start: frame 0 again, already stored (one row per stream, run_id, frame and
  // region), so nothing new.
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_stop(TRUE)));
  gst_segment_init(&seg, GST_FORMAT_TIME);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_segment(&seg)));
  push(0, 0);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  gst_harness_teardown(hs);
  EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors"), 6);
  const long long s30 = GST_SECOND / 30;
  const long long want[][2] = {{0, 0},
                               {1, s30},
                               {2, 2 * s30},
                               {60, 2 * (long long)GST_SECOND},
                               {61, 2 * (long long)GST_SECOND + s30},
                               {150, 5 * (long long)GST_SECOND}};
  for (int i = 0; i < 6; ++i) {
    const std::string w = " FROM descriptors WHERE id=" + std::to_string(i + 1);
    EXPECT_EQ(query_int(db, "SELECT frame" + w), want[i][0]) << "row " << i;
    EXPECT_EQ(query_int(db, "SELECT pts" + w), want[i][1]) << "row " << i;
  }
}

// Without stream-name, rows carry the upstream source's location (the URI query), not the
// stream-start event's stream id (a hash); stream-name still wins.
TEST_F(CeddIndexTest, StreamNameIsTheUpstreamLocation) {
  const std::string db = temp_db();
  const std::string raw = db + ".rgba";
  dbs_.push_back(raw);
  {
    FILE* f = fopen(raw.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    for (int i = 0; i < 3 * 32 * 24 * 4; ++i)
      fputc((i * 7) & 0xff, f);
    fclose(f);
  }
  const std::string parse =
      " ! rawvideoparse width=32 height=24 format=rgba framerate=30/1 ! cudacedd backend=cpu "
      "index-location=" +
      db;
  EXPECT_EQ(run_pipeline("filesrc location=" + raw + parse + " ! fakesink", nullptr, nullptr), "");
  EXPECT_EQ(run_pipeline("filesrc location=" + raw + parse + " stream-name=named ! fakesink",
                         nullptr, nullptr),
            "");
  EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors WHERE stream = '" + raw + "'"), 3);
  EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors WHERE stream = 'named'"), 3);
  EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors"), 6);
}

// Warnings GLib logs (a refused property value), collected instead of printed.
struct LogCatcher {
  std::vector<std::string> lines;
  guint id = 0;
  LogCatcher() {
    id = g_log_set_handler(
        nullptr, static_cast<GLogLevelFlags>(G_LOG_LEVEL_WARNING | G_LOG_FLAG_FATAL),
        [](const gchar*, GLogLevelFlags, const gchar* msg, gpointer self) {
          static_cast<LogCatcher*>(self)->lines.push_back(msg ? msg : "");
        },
        this);
  }
  ~LogCatcher() { g_log_remove_handler(nullptr, id); }
};

// index-location (and stream-name) are read at start: set while PLAYING they are refused with a
// warning and keep their value. (Before: silently accepted, and ignored.)
TEST_F(CeddIndexTest, IndexLocationIsRefusedWhilePlaying) {
  const std::string db = temp_db();
  GError* err = nullptr;
  GstElement* p = gst_parse_launch(
      ("videotestsrc is-live=true ! video/x-raw,format=RGBA,width=32,height=24 ! cudacedd "
       "name=c backend=cpu index-location=" +
       db + " ! fakesink")
          .c_str(),
      &err);
  ASSERT_NE(p, nullptr);
  GstElement* c = gst_bin_get_by_name(GST_BIN(p), "c");
  ASSERT_NE(gst_element_set_state(p, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  ASSERT_EQ(gst_element_get_state(p, nullptr, nullptr, 10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  {
    LogCatcher log;
    g_object_set(c, "index-location", "/tmp/other.db", "stream-name", "x", nullptr);
    ASSERT_EQ(log.lines.size(), 2u);
    EXPECT_NE(log.lines[0].find("'index-location' can only be changed in the NULL or READY"),
              std::string::npos)
        << log.lines[0];
  }
  gchar* loc = nullptr;
  gchar* name = nullptr;
  g_object_get(c, "index-location", &loc, "stream-name", &name, nullptr);
  EXPECT_STREQ(loc, db.c_str());
  EXPECT_EQ(name, nullptr);
  g_free(loc);
  gst_element_set_state(p, GST_STATE_READY);
  g_object_set(c, "index-location", "/tmp/other.db", nullptr);
  g_object_get(c, "index-location", &loc, nullptr);
  EXPECT_STREQ(loc, "/tmp/other.db");
  g_free(loc);
  gst_element_set_state(p, GST_STATE_NULL);
  gst_object_unref(c);
  gst_object_unref(p);
}

// A PostgreSQL index-location: every row, one shot row per shot change; a wrong password is an
// error at start that does not show the password.
TEST_F(CeddIndexTest, PostgresIndexLocation) {
  STORE_REQUIRE(store_test::Backend::kPostgres);
  auto db = store_test::make_db(store_test::Backend::kPostgres);
  std::vector<GstStructure*> shots;
  EXPECT_EQ(run_pipeline("videotestsrc num-buffers=20 pattern=smpte ! video/x-raw,format=RGBA,"
                         "width=64,height=48,framerate=10/1 ! cudacedd backend=cpu "
                         "stream-name=pg index-location=\"" +
                             db->location() + "\" ! fakesink",
                         "cvis-shot-change", &shots),
            "");
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors WHERE stream = 'pg'"), 20);
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM shots WHERE stream = 'pg'"),
            static_cast<long long>(shots.size()));
  for (GstStructure* st : shots)
    gst_structure_free(st);
  const std::string bad = store_test::pg_uri("postgres", "cvis", "WrongPw123");
  const std::string err =
      run_pipeline("videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,"
                   "width=32,height=24 ! cudacedd backend=cpu index-location=\"" +
                       bad + "\" ! fakesink",
                   nullptr, nullptr);
  EXPECT_NE(err.find("Cannot use index-location"), std::string::npos) << err;
  EXPECT_NE(err.find("password authentication failed"), std::string::npos) << err;
  EXPECT_EQ(err.find("WrongPw123"), std::string::npos) << err;
}

} // namespace

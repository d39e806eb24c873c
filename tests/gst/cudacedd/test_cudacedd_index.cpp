// The CEDD index (cpu suite): six pipelines writing one new index at once (every row present),
// writers never holding SQLite's write lock while rows wait for their commit, the schema version
// (PRAGMA user_version) set and checked, concurrent creation of one file, a failed COMMIT reported
// with the connection left usable, replacing a stream's rows, and the frame / pts columns after a
// seek (frame numbers from the stream position, pts in stream time).
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "cedd_test_util.hpp"
#include "ceddindex.h"

using namespace cedd_test;
using cvis::cedd::CeddIndex;
using cvis::cedd::IndexRow;

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

IndexRow row(const std::string& stream, int frame) {
  IndexRow r;
  r.stream = stream;
  r.frame = frame;
  r.pts = frame * 1000;
  for (int i = 0; i < 144; ++i)
    r.levels[i] = static_cast<uint8_t>((i + frame) % 8);
  return r;
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
  EXPECT_EQ(query_int(db, "PRAGMA user_version"), 1);
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
  CeddIndex idx;
  ASSERT_TRUE(idx.open(db, true).ok());
  idx.set_commit_interval_ms(5000);
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
  ASSERT_TRUE(idx.flush().ok());
  EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors"), 5);
  EXPECT_TRUE(idx.close().ok());
}

// The writer commits on its own timer: nothing has to come after the last row.
TEST_F(CeddIndexTest, RowsAreCommittedWithoutFurtherCalls) {
  const std::string db = temp_db();
  CeddIndex idx;
  ASSERT_TRUE(idx.open(db, true).ok());
  idx.set_commit_interval_ms(50);
  for (int f = 0; f < 3; ++f)
    ASSERT_TRUE(idx.add(row("timer", f)).ok());
  long long n = 0;
  for (int i = 0; i < 100 && n != 3; ++i) {
    g_usleep(20000);
    n = query_int(db, "SELECT COUNT(*) FROM descriptors");
  }
  EXPECT_EQ(n, 3);
  EXPECT_TRUE(idx.close().ok());
}

TEST_F(CeddIndexTest, SchemaVersionIsSetAndChecked) {
  const std::string db = temp_db();
  {
    CeddIndex idx;
    ASSERT_TRUE(idx.open(db, true).ok());
    ASSERT_TRUE(idx.close().ok());
  }
  EXPECT_EQ(query_int(db, "PRAGMA user_version"), 1);
  // An index written before user_version was set (0) is version 1; a writer marks it.
  ASSERT_TRUE(exec_sql(db, "PRAGMA user_version = 0"));
  {
    CeddIndex reader;
    EXPECT_TRUE(reader.open(db, false).ok());
  }
  EXPECT_EQ(query_int(db, "PRAGMA user_version"), 0);
  {
    CeddIndex writer;
    EXPECT_TRUE(writer.open(db, true).ok());
  }
  EXPECT_EQ(query_int(db, "PRAGMA user_version"), 1);
  // A newer schema is refused by readers and writers, and left as it is.
  ASSERT_TRUE(exec_sql(db, "PRAGMA user_version = 2"));
  for (bool create : {false, true}) {
    CeddIndex idx;
    cvis::Status s = idx.open(db, create);
    EXPECT_FALSE(s.ok()) << create;
    EXPECT_NE(s.message().find("version 2"), std::string::npos) << s.message();
  }
  EXPECT_EQ(query_int(db, "PRAGMA user_version"), 2);
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
        CeddIndex idx;
        cvis::Status s = idx.open(db, true);
        if (s.ok())
          s = idx.add(row("t" + std::to_string(t), 0));
        if (s.ok())
          s = idx.close();
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

int fail_commit(void* data) {
  return static_cast<std::atomic<int>*>(data)->fetch_sub(1) > 0;
}

// A failed COMMIT loses that batch only: it is reported once, the connection is outside any
// transaction (another writer can write at once), and later rows are written.
TEST_F(CeddIndexTest, FailedCommitIsReportedAndTheWriterGoesOn) {
  const std::string db = temp_db();
  CeddIndex idx;
  ASSERT_TRUE(idx.open(db, true).ok());
  std::atomic<int> failing{1};
  idx.set_commit_hook(fail_commit, &failing);
  for (int f = 0; f < 3; ++f)
    ASSERT_TRUE(idx.add(row("lost", f)).ok());
  cvis::Status s = idx.flush();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), cvis::StatusCode::kIoError) << s.to_string();
  EXPECT_TRUE(idx.flush().ok()); // reported once
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &other), SQLITE_OK);
  sqlite3_busy_timeout(other, 0);
  EXPECT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE; COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(other);
  for (int f = 0; f < 2; ++f)
    ASSERT_TRUE(idx.add(row("kept", f)).ok());
  EXPECT_TRUE(idx.close().ok());
  EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors WHERE stream='lost'"), 0);
  EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors WHERE stream='kept'"), 2);
}

TEST_F(CeddIndexTest, DeleteRowsOfAStreamInAnIdRange) {
  const std::string db = temp_db();
  CeddIndex idx;
  ASSERT_TRUE(idx.open(db, true).ok());
  for (int f = 0; f < 4; ++f)
    ASSERT_TRUE(idx.add(row("x", f)).ok());
  ASSERT_TRUE(idx.add(row("y", 0)).ok());
  ASSERT_TRUE(idx.flush().ok());
  int64_t last = 0;
  ASSERT_TRUE(idx.last_id(&last).ok());
  EXPECT_EQ(last, 5);
  for (int f = 0; f < 4; ++f)
    ASSERT_TRUE(idx.add(row("x", f)).ok());
  ASSERT_TRUE(idx.flush().ok());
  ASSERT_TRUE(idx.delete_rows("x", 0, last).ok()); // the older run of x
  EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors WHERE stream='x'"), 4);
  EXPECT_EQ(query_int(db, "SELECT MIN(id) FROM descriptors WHERE stream='x'"), 6);
  EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors WHERE stream='y'"), 1);
  std::vector<IndexRow> rows;
  ASSERT_TRUE(idx.read_all(&rows).ok());
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].stream, "y");
  EXPECT_EQ(rows[1].id, 6);
  EXPECT_TRUE(idx.close().ok());
}

// After a seek (flush + a segment at 2 s) frames are numbered from the stream position and pts
// is stream time; a segment whose timestamps start at 10 s for stream time 0 stores 0.
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
  // Timestamps from 10 s, stream time 0.
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_stop(TRUE)));
  gst_segment_init(&seg, GST_FORMAT_TIME);
  seg.start = seg.position = 10 * GST_SECOND;
  seg.time = 0;
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_segment(&seg)));
  push(10 * GST_SECOND, 20);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  gst_harness_teardown(hs);
  EXPECT_EQ(query_int(db, "SELECT COUNT(*) FROM descriptors"), 6);
  const long long s30 = GST_SECOND / 30;
  const long long want[][2] = {{0, 0},
                               {1, s30},
                               {2, 2 * s30},
                               {60, 2 * (long long)GST_SECOND},
                               {61, 2 * (long long)GST_SECOND + s30},
                               {0, 0}};
  for (int i = 0; i < 6; ++i) {
    const std::string w = " FROM descriptors WHERE id=" + std::to_string(i + 1);
    EXPECT_EQ(query_int(db, "SELECT frame" + w), want[i][0]) << "row " << i;
    EXPECT_EQ(query_int(db, "SELECT pts" + w), want[i][1]) << "row " << i;
  }
}

} // namespace

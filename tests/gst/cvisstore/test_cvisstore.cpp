// cvisstore (suite cpu), on both back ends (PostgreSQL on the throw-away server; skipped without
// one): every kind of metadata becomes its rows, frames pass through untouched, `records` picks
// the tables; several pipelines in separate processes write one store at once (exact counts); the
// server stopped in the middle of a stream and started again (exact counts, no duplicates, a
// warning while it is away); a bad URI, a wrong password, a missing database, a read-only role:
// an element error at start, and nothing written; EOS while the server is away: an error that
// says what is not stored, sent later by the next writer.
#include <gst/check/gstharness.h>
#include <gst/cvis/cvis.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "store_test_util.hpp"

using store_test::Backend;

namespace {

struct GstEnvironment : ::testing::Environment {
  void SetUp() override { gst_init(nullptr, nullptr); }
};
::testing::Environment* const gst_environment =
    ::testing::AddGlobalTestEnvironment(new GstEnvironment);

class CvisStoreTest : public ::testing::TestWithParam<Backend> {
protected:
  std::string queue() const { return queue_.path(); }
  store_test::TempDir queue_;
};

const char* kCaps = "video/x-raw,format=RGBA,width=64,height=48,framerate=10/1";

GstBuffer* frame(int i) {
  GstBuffer* b = gst_buffer_new_allocate(nullptr, 64 * 48 * 4, nullptr);
  gst_buffer_memset(b, 0, static_cast<guint8>(i), 64 * 48 * 4);
  GST_BUFFER_PTS(b) = i * GST_SECOND / 10;
  GST_BUFFER_DURATION(b) = GST_SECOND / 10;
  return b;
}

// Frame i carries: a CEDD meta (the frame and ROI 7's descriptors; a shot change at frame 2), a
// foreground box, the box of track 7 (lost on frame 3), and on frame 4 an action with its box.
void decorate(GstBuffer* b, int i) {
  GstVideoRegionOfInterestMeta* fg = gst_buffer_add_cvis_foreground_box(b, 1, 2, 3, 4, 0, 12);
  (void)fg;
  GstVideoRegionOfInterestMeta* t =
      gst_buffer_add_video_region_of_interest_meta(b, "track", 10, 11, 20, 21);
  t->id = 7;
  gst_video_region_of_interest_meta_add_param(
      t, gst_structure_new("rcdtrack", "id", G_TYPE_INT, 7, "lost", G_TYPE_BOOLEAN, i == 3, NULL));
  GstCvisCeddRegion regs[2] = {{GST_CVIS_CEDD_FRAME_ID, 0, 0, 64, 48}, {7, 10, 11, 20, 21}};
  guint8 levels[2 * GST_CVIS_CEDD_BINS];
  for (int k = 0; k < 2 * GST_CVIS_CEDD_BINS; ++k)
    levels[k] = static_cast<guint8>((k + i) % 8);
  GstCustomMeta* m = gst_buffer_add_cvis_cedd_meta(b, 2, regs, levels);
  gst_cvis_cedd_meta_set_shot(m, i == 2 ? 60.0 : 5.0, i == 2);
  if (i == 4) {
    GstCvisActionInfo a = {};
    a.label = "wave";
    a.model_source = "m";
    a.model_id = 3;
    a.score = 0.5;
    a.distance = 2.0;
    a.first_frame = 0;
    a.last_frame = 4;
    a.start = 0;
    a.end = GST_SECOND / 2;
    gst_buffer_add_cvis_action_meta(b, &a);
    GstVideoRegionOfInterestMeta* r =
        gst_buffer_add_video_region_of_interest_meta(b, GST_CVIS_ACTION_ROI_TYPE, 5, 6, 7, 8);
    gst_video_region_of_interest_meta_add_param(
        r, gst_structure_new("action", "label", G_TYPE_STRING, "wave", NULL));
  }
}

// Pushes 5 decorated frames and EOS through a harness of `description`.
void push_frames(const std::string& description, int frames = 5) {
  GstHarness* h = gst_harness_new_parse(description.c_str());
  gst_harness_set_src_caps_str(h, kCaps);
  for (int i = 0; i < frames; ++i) {
    GstBuffer* b = frame(i);
    decorate(b, i);
    ASSERT_EQ(gst_harness_push(h, b), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(h);
    ASSERT_EQ(out, b); // passthrough: the same buffer, metas and all
    gst_buffer_unref(out);
  }
  ASSERT_TRUE(gst_harness_push_event(h, gst_event_new_eos()));
  gst_harness_teardown(h);
}

TEST_P(CvisStoreTest, EveryKindOfMetadataBecomesRows) {
  STORE_REQUIRE(GetParam());
  auto db = store_test::make_db(GetParam());
  push_frames("cvisstore stream-name=cam location=\"" + db->location() +
              "\" queue-location=" + queue());
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors WHERE stream = 'cam'"), 10);
  EXPECT_EQ(db->query_rows("SELECT frame, region, roi_id, roi_type, shot_change FROM descriptors "
                           "WHERE frame = 2 ORDER BY region"),
            (std::vector<std::string>{"2|0|-1||1", "2|1|7|track|0"}));
  EXPECT_EQ(db->query_rows("SELECT frame, pts, source FROM shots"),
            std::vector<std::string>{"2|200000000|cedd"});
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM boxes"), 5 * 2 + 1);
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM boxes WHERE roi_type = 'foreground' AND "
                          "attrs LIKE 'foreground, area=(uint)12%'"),
            5);
  EXPECT_EQ(db->query_rows("SELECT track_id, first_frame, last_frame, last_pts FROM tracks"),
            std::vector<std::string>{"7|0|4|400000000"});
  EXPECT_EQ(db->query_rows("SELECT frame, label, model_id, first_frame, last_frame, end_ns, x, y, "
                           "w, h FROM actions"),
            std::vector<std::string>{"4|wave|3|0|4|500000000|5|6|7|8"});
  EXPECT_EQ(db->query_int("SELECT COUNT(DISTINCT run_id) FROM boxes"), 1);
}

TEST_P(CvisStoreTest, RecordsPicksTheTables) {
  STORE_REQUIRE(GetParam());
  auto db = store_test::make_db(GetParam());
  push_frames("cvisstore records=boxes+tracks location=\"" + db->location() +
              "\" queue-location=" + queue());
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors"), 0);
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM shots"), 0);
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM actions"), 0);
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM boxes"), 11);
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM tracks"), 1);
}

// Several pipelines, each its own process, write one store at once.
TEST_P(CvisStoreTest, SeveralProcessesWriteOneStore) {
  STORE_REQUIRE(GetParam());
  auto db = store_test::make_db(GetParam());
  // The child program: CVIS_LAUNCH_PIPELINE (the build's test setup), else beside this test.
  std::string exe_path = getenv("CVIS_LAUNCH_PIPELINE") ? getenv("CVIS_LAUNCH_PIPELINE") : "";
  if (exe_path.empty()) {
    char self[4096] = {};
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    const std::string dir = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string();
    exe_path = dir.substr(0, dir.rfind('/') + 1) + "launch_pipeline";
  }
  if (access(exe_path.c_str(), X_OK) != 0)
    GTEST_SKIP() << "no launch_pipeline program (CVIS_LAUNCH_PIPELINE, or beside the test)";
  const char* exe = exe_path.c_str();
  const int kProcs = 4, kFrames = 60;
  std::vector<pid_t> kids;
  for (int p = 0; p < kProcs; ++p) {
    const std::string launch =
        "videotestsrc num-buffers=" + std::to_string(kFrames) + " pattern=" + std::to_string(p) +
        " ! video/x-raw,format=RGBA,width=32,height=24,framerate=30/1 ! cudacedd backend=cpu "
        "regions=frame ! cvisstore commit-interval=50 stream-name=p" +
        std::to_string(p) + " location=\"" + db->location() + "\" queue-location=" + queue() +
        " ! fakesink";
    // Cross builds run the child through the exe wrapper (qemu-user), as Meson runs the test.
    const char* wrapper = getenv("CVIS_EXE_WRAPPER");
    const pid_t pid = fork();
    if (pid == 0) {
      if (wrapper && *wrapper)
        execlp(wrapper, wrapper, exe, launch.c_str(), static_cast<char*>(nullptr));
      else
        execl(exe, exe, launch.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors"), kProcs * kFrames);
  EXPECT_EQ(
      db->query_int("SELECT COUNT(*) FROM (SELECT DISTINCT stream, frame FROM descriptors) k"),
      kProcs * kFrames);
  EXPECT_EQ(db->query_int("SELECT COUNT(DISTINCT run_id) FROM descriptors"), kProcs);
}

// Runs `launch` to EOS or error; `during` runs on another thread meanwhile. Returns the error
// message ("" at EOS) and the warnings posted.
std::string run(const std::string& launch, std::vector<std::string>* warnings,
                const std::function<void()>& during = nullptr) {
  GError* err = nullptr;
  GstElement* p = gst_parse_launch(launch.c_str(), &err);
  if (!p)
    return err ? err->message : "parse failed";
  GstBus* bus = gst_element_get_bus(p);
  std::string error;
  if (gst_element_set_state(p, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    error = "state change failed";
  std::thread side(during ? during : [] {});
  for (;;) {
    GstMessage* m = gst_bus_timed_pop_filtered(
        bus, 120 * GST_SECOND,
        static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_WARNING));
    if (!m) {
      error = "timeout";
      break;
    }
    const GstMessageType t = GST_MESSAGE_TYPE(m);
    GError* e = nullptr;
    if (t == GST_MESSAGE_WARNING) {
      gst_message_parse_warning(m, &e, nullptr);
      if (warnings)
        warnings->push_back(e ? e->message : "");
    } else if (t == GST_MESSAGE_ERROR) {
      gst_message_parse_error(m, &e, nullptr);
      error = e ? e->message : "error";
    }
    g_clear_error(&e);
    gst_message_unref(m);
    if (t != GST_MESSAGE_WARNING)
      break;
  }
  side.join();
  gst_element_set_state(p, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(p);
  return error;
}

// The server goes away in the middle of a live stream and comes back: a warning while it is
// away, every frame's row stored once.
TEST(CvisStorePostgres, ServerStoppedInTheMiddleOfAStream) {
  STORE_REQUIRE(Backend::kPostgres);
  store_test::TempDir q;
  auto db = store_test::make_db(Backend::kPostgres);
  std::vector<std::string> warnings;
  const int kFrames = 180; // 6 s at 30 fps: the server is away and back well within
  const std::string err = run(
      "videotestsrc is-live=true num-buffers=" + std::to_string(kFrames) +
          " ! video/x-raw,format=RGBA,width=32,height=24,framerate=30/1 ! cudacedd backend=cpu ! "
          "cvisstore commit-interval=50 stream-name=live location=\"" +
          db->location() + "\" queue-location=" + q.path() + " ! fakesink",
      &warnings, [] {
        std::this_thread::sleep_for(std::chrono::milliseconds(800));
        EXPECT_TRUE(store_test::pg_server("stop"));
        std::this_thread::sleep_for(std::chrono::milliseconds(1000));
        EXPECT_TRUE(store_test::pg_server("start"));
      });
  EXPECT_EQ(err, "");
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings[0].find("disk queue"), std::string::npos) << warnings[0];
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors"), kFrames);
  EXPECT_EQ(db->query_int("SELECT COUNT(DISTINCT frame) FROM descriptors"), kFrames);
}

// Locations that cannot be used fail at start with an element error that names the reason (never
// the password); nothing is written.
TEST(CvisStorePostgres, UnusableLocationsFailAtStart) {
  STORE_REQUIRE(Backend::kPostgres);
  store_test::TempDir q;
  auto db = store_test::make_db(Backend::kPostgres);
  ASSERT_TRUE(db->exec("SELECT 1"));
  // The store's schema, and a role that may only read it.
  push_frames("cvisstore location=\"" + db->location() + "\" queue-location=" + q.path(), 1);
  const std::string loc = db->location();
  const std::string name = loc.substr(loc.find("@/") + 2, loc.find('?') - loc.find("@/") - 2);
  ASSERT_TRUE(store_test::pg_exec("postgres", "DROP ROLE IF EXISTS viewer; CREATE ROLE viewer "
                                              "LOGIN PASSWORD 'ViewerPw77'"));
  ASSERT_TRUE(db->exec("GRANT SELECT ON ALL TABLES IN SCHEMA public TO viewer"));
  const long long before = db->query_int("SELECT COUNT(*) FROM descriptors");
  struct Case {
    std::string location, expect, secret;
  } cases[] = {
      {"postgresql://cvis:BadUri99@/x?host=/tmp&port=notaport", "port", "BadUri99"},
      {store_test::pg_uri(name, "cvis", "WrongPw42"), "password authentication failed",
       "WrongPw42"},
      {store_test::pg_uri("no_such_db_here"), "no_such_db_here", ""},
      {store_test::pg_uri(name, "viewer", "ViewerPw77"), "may not write", "ViewerPw77"},
  };
  for (const Case& c : cases) {
    const std::string err = run("videotestsrc num-buffers=3 ! " + std::string(kCaps) +
                                    " ! cudacedd backend=cpu ! cvisstore location=\"" + c.location +
                                    "\" queue-location=" + q.path() + " ! fakesink",
                                nullptr);
    EXPECT_NE(err.find("Cannot use location"), std::string::npos) << err;
    EXPECT_NE(err.find(c.expect), std::string::npos) << err;
    if (!c.secret.empty()) {
      EXPECT_EQ(err.find(c.secret), std::string::npos) << err;
    }
  }
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors"), before);
  EXPECT_TRUE(store_test::pg_exec("postgres", "SELECT 1"));
  store_test::pg_exec(name, "DROP OWNED BY viewer CASCADE");
}

// EOS while the server is away: after eos-timeout an error says how many rows are not stored and
// where they wait; the next writer of the store sends them.
TEST(CvisStorePostgres, EosWhileTheServerIsAwaySaysWhatIsNotStored) {
  STORE_REQUIRE(Backend::kPostgres);
  store_test::TempDir q;
  auto db = store_test::make_db(Backend::kPostgres);
  std::vector<std::string> warnings;
  const std::string err =
      run("videotestsrc num-buffers=20 ! " + std::string(kCaps) +
              " ! identity sleep-time=100000 ! cudacedd backend=cpu ! cvisstore eos-timeout=1 "
              "commit-interval=20 stream-name=eos location=\"" +
              db->location() + "\" queue-location=" + q.path() + " ! fakesink",
          &warnings, [] { EXPECT_TRUE(store_test::pg_server("stop")); });
  EXPECT_NE(err.find("Not every row was stored at the end of the stream"), std::string::npos)
      << err;
  EXPECT_NE(err.find(q.path()), std::string::npos) << err;
  ASSERT_TRUE(store_test::pg_server("start"));
  push_frames("cvisstore stream-name=next location=\"" + db->location() +
              "\" queue-location=" + q.path());
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors WHERE stream = 'eos'"), 20);
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM descriptors WHERE stream = 'next'"), 10);
}

INSTANTIATE_TEST_SUITE_P(Backends, CvisStoreTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) {
                           return std::string(store_test::name(info.param));
                         });

} // namespace

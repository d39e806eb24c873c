// Parts of the store without a database (suite cpu): locations and their password-free display,
// the batch format of the disk queue, the disk queue itself (bounds, damaged files, adoption of an
// ended writer's queue, never a live one's).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "store/disk_queue.hpp"
#include "store/location.hpp"
#include "store/rows.hpp"
#include "store_test_util.hpp"

using namespace cvis::store;

namespace {

TEST(StoreLocation, KindDisplayAndSecrets) {
  struct Case {
    const char* text;
    Kind kind;
    const char* display;
    const char* secret; // "" : none
  } cases[] = {
      {"/var/lib/cvis/index.db", Kind::kSqlite, "/var/lib/cvis/index.db", ""},
      {"index.db", Kind::kSqlite, "index.db", ""},
      {"/tmp/a=b.db", Kind::kSqlite, "/tmp/a=b.db", ""},
      {"dbname.db", Kind::kSqlite, "dbname.db", ""},
      {"postgresql://cvis@db.example/cvis", Kind::kPostgres, "postgresql://cvis@db.example/cvis",
       ""},
      {"postgresql://cvis:s3cret@db.example:5433/cvis?sslmode=require", Kind::kPostgres,
       "postgresql://cvis@db.example:5433/cvis?sslmode=require", "s3cret"},
      {"POSTGRES://u:p%40ss@h/d", Kind::kPostgres, "POSTGRES://u@h/d", "p@ss"},
      {"postgresql:///cvis?host=/run/pg&password=pw%20x&user=u", Kind::kPostgres,
       "postgresql:///cvis?host=/run/pg&user=u", "pw x"},
      {"host=db.example dbname=cvis user=cvis password=secret9", Kind::kPostgres,
       "host=db.example dbname=cvis user=cvis", "secret9"},
      {"  dbname = cvis password = 'it\\'s \"quoted\"' host=h", Kind::kPostgres,
       "dbname = cvis host=h", "it's \"quoted\""},
  };
  for (const Case& c : cases) {
    Location l;
    ASSERT_TRUE(parse_location(c.text, &l).ok()) << c.text;
    EXPECT_EQ(l.kind, c.kind) << c.text;
    EXPECT_EQ(l.display, c.display) << c.text;
    EXPECT_EQ(l.target, c.text);
    if (*c.secret) {
      ASSERT_FALSE(l.secrets.empty()) << c.text;
      EXPECT_EQ(l.secrets[0], c.secret) << c.text;
      EXPECT_EQ(l.scrub(std::string("x ") + c.secret + " y"), "x *** y");
    }
  }
  Location l;
  EXPECT_EQ(parse_location("  ", &l).code(), cvis::StatusCode::kInvalidArgument);
}

Batch sample() {
  Batch b;
  DescriptorRow d;
  d.key = {"cam\t1", "sess", 7, 2};
  d.pts = 99;
  d.roi_id = 4;
  d.roi_type = "track";
  d.shot_change = true;
  d.distance = 0.125;
  for (int i = 0; i < kLevels; ++i)
    d.levels[i] = static_cast<uint8_t>(i % 8);
  b.descriptors.push_back(d);
  b.shots.push_back({{"cam", "sess", 7, 0}, 99, 40.0, "cedd"});
  BoxRow box;
  box.key = {"cam", "sess", 7, 1};
  box.attrs = "a; b";
  b.boxes.push_back(box);
  b.tracks.push_back({"cam", "sess", 3, 1, 9, 10, 90});
  ActionRow a;
  a.key = {"cam", "sess", 7, 0};
  a.label = "run";
  a.end = 5;
  b.actions.push_back(a);
  return b;
}

TEST(StoreBatch, SerialisedBatchReadsBack) {
  const Batch b = sample();
  const std::string bytes = serialize(b);
  Batch c;
  ASSERT_TRUE(deserialize(bytes, &c));
  EXPECT_EQ(serialize(c), bytes);
  EXPECT_EQ(c.rows(), 5u);
  EXPECT_EQ(c.descriptors[0].key.stream, "cam\t1");
  EXPECT_EQ(c.descriptors[0].levels[143], 143 % 8);
  EXPECT_EQ(c.tracks[0].last_pts, 90);
  // Any truncation, and a wrong version, is refused.
  for (size_t n : {size_t{0}, size_t{5}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_FALSE(deserialize(bytes.substr(0, n), &c)) << n;
  std::string v = bytes;
  v[5] = 9;
  EXPECT_FALSE(deserialize(v, &c));
}

TEST(StoreDiskQueue, FifoBoundedAndDamagedFilesSetAside) {
  store_test::TempDir root;
  DiskQueue q;
  q.configure(root.path(), "store-a", "writer-1", 4096);
  const Batch b = sample();
  bool full = false;
  size_t pushed = 0;
  while (q.push(b, &full).ok())
    ++pushed;
  EXPECT_TRUE(full);
  EXPECT_GE(pushed, 2u);
  EXPECT_LE(q.bytes(), 4096u);
  EXPECT_EQ(q.rows(), pushed * b.rows());
  Batch got;
  ASSERT_TRUE(q.front(&got).ok());
  EXPECT_EQ(serialize(got), serialize(b));
  ASSERT_TRUE(q.pop().ok());
  EXPECT_EQ(q.rows(), (pushed - 1) * b.rows());
  // Damage the next file: it is set aside (and says so), the one after still reads.
  std::string victim;
  FILE* ls = popen(("ls " + q.dir() + "/*.batch | head -n 1").c_str(), "r");
  char line[512] = {};
  if (ls && fgets(line, sizeof line, ls))
    victim = std::string(line).substr(0, std::string(line).find('\n'));
  if (ls)
    pclose(ls);
  ASSERT_FALSE(victim.empty());
  FILE* f = std::fopen(victim.c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  std::fputs("XXXX", f);
  std::fclose(f);
  const cvis::Status st = q.front(&got);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find(".bad"), std::string::npos) << st.message();
  if (pushed > 2) {
    EXPECT_TRUE(q.front(&got).ok());
  }
  q.close(); // not empty: the folder stays for the next writer
  EXPECT_EQ(access(q.dir().c_str(), F_OK), 0);
}

TEST(StoreDiskQueue, EndedWritersQueuesAreAdoptedLiveOnesAreNot) {
  store_test::TempDir root;
  const Batch b = sample();
  bool full = false;
  {
    DiskQueue ended;
    ended.configure(root.path(), "store-a", "ended", 1 << 20);
    ASSERT_TRUE(ended.push(b, &full).ok());
    ASSERT_TRUE(ended.push(b, &full).ok());
    ended.close();
  }
  DiskQueue live;
  live.configure(root.path(), "store-a", "live", 1 << 20);
  ASSERT_TRUE(live.push(b, &full).ok()); // holds its lock
  DiskQueue other_store;
  other_store.configure(root.path(), "store-b", "x", 1 << 20);
  uint64_t adopted = 0;
  ASSERT_TRUE(other_store.adopt_orphans(&adopted).ok());
  EXPECT_EQ(adopted, 0u); // another store's queues are not ours
  DiskQueue next;
  next.configure(root.path(), "store-a", "next", 1 << 20);
  ASSERT_TRUE(next.adopt_orphans(&adopted).ok());
  EXPECT_EQ(adopted, 2 * b.rows());
  EXPECT_EQ(next.rows(), 2 * b.rows());
  EXPECT_EQ(live.rows(), b.rows()); // untouched
  Batch got;
  ASSERT_TRUE(next.front(&got).ok());
  EXPECT_EQ(serialize(got), serialize(b));
  while (!next.empty())
    ASSERT_TRUE(next.pop().ok());
  next.close(); // empty: its folder goes
  EXPECT_NE(access(next.dir().c_str(), F_OK), 0);
}

} // namespace

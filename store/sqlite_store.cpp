// The SQLite back end: open (schema, migrations) and write.
#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "schema.hpp"
#include "sqlite_store.hpp"

namespace cvis::store {

namespace sqlite {

std::string text(sqlite3_stmt* q, int i) {
  const unsigned char* t = sqlite3_column_text(q, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}

void bind_text(sqlite3_stmt* s, int i, const std::string& v) {
  sqlite3_bind_text(s, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

namespace {

// A writer waits this long for another writer's transaction (they are short: one batch).
constexpr int kBusyTimeoutMs = 30000;

std::string uri_path(const std::string& path) {
  std::string out = "file:";
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x21 || c >= 0x7f) {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

bool has_content(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && st.st_size > 0;
}

void bind_opt(sqlite3_stmt* s, int i, int64_t v) {
  if (v >= 0)
    sqlite3_bind_int64(s, i, v);
  else
    sqlite3_bind_null(s, i);
}

void bind_opt(sqlite3_stmt* s, int i, double v) {
  if (v >= 0)
    sqlite3_bind_double(s, i, v);
  else
    sqlite3_bind_null(s, i);
}

void bind_key(sqlite3_stmt* s, const RowKey& k, bool region) {
  bind_text(s, 1, k.stream);
  bind_text(s, 2, k.run_id);
  sqlite3_bind_int64(s, 3, k.frame);
  if (region)
    sqlite3_bind_int(s, 4, k.region);
}

const char* const kInsert[] = {
    "INSERT INTO descriptors(stream, run_id, frame, region, pts, roi_id, roi_type, x, y, w, h,"
    " shot_change, distance, levels) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
    "INSERT INTO shots(stream, run_id, frame, pts, distance, source) VALUES (?,?,?,?,?,?)"
    " ON CONFLICT DO NOTHING",
    "INSERT INTO boxes(stream, run_id, frame, region, pts, roi_type, roi_id, parent_id, x, y, w,"
    " h, attrs) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
    "INSERT INTO tracks(stream, run_id, track_id, first_frame, last_frame, first_pts, last_pts)"
    " VALUES (?,?,?,?,?,?,?) ON CONFLICT(stream, run_id, track_id) DO UPDATE SET"
    " first_frame = min(first_frame, excluded.first_frame),"
    " last_frame = max(last_frame, excluded.last_frame),"
    " first_pts = CASE WHEN excluded.first_frame < first_frame THEN excluded.first_pts"
    " ELSE first_pts END,"
    " last_pts = CASE WHEN excluded.last_frame > last_frame THEN excluded.last_pts"
    " ELSE last_pts END",
    "INSERT INTO actions(stream, run_id, frame, region, pts, label, model_id, score, distance,"
    " first_frame, last_frame, start_ns, end_ns, x, y, w, h)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
};

} // namespace

Status SqliteStore::exec(const char* sql) {
  char* msg = nullptr;
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &msg);
  if (rc != SQLITE_OK) {
    rc_ = rc & 0xff;
    std::string m = msg ? msg : sqlite3_errmsg(db_);
    sqlite3_free(msg);
    return io_error("index '" + path() + "': " + m);
  }
  return Status::Ok();
}

void SqliteStore::close() {
  for (sqlite3_stmt*& s : insert_) {
    sqlite3_finalize(s);
    s = nullptr;
  }
  if (db_)
    sqlite3_close(db_);
  db_ = nullptr;
}

// Reads (and for writers, creates or migrates) the schema. A writer does it inside BEGIN
// IMMEDIATE, so two writers creating one new file cannot both create it, and a failure leaves no
// half schema.
Status SqliteStore::check_schema(bool write) {
  if (write)
    CVIS_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
  Status st;
  int tables = 0;
  bool has_info = false;
  sqlite3_stmt* q = nullptr;
  int rc =
      sqlite3_prepare_v2(db_, "SELECT name FROM sqlite_master WHERE type='table'", -1, &q, nullptr);
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
      ++tables;
      has_info = has_info || text(q, 0) == "info";
    }
  }
  if (rc != SQLITE_DONE) {
    rc_ = sqlite3_errcode(db_) & 0xff;
    st = error("cannot read");
  }
  sqlite3_finalize(q);
  int version = 0;
  if (st.ok() && tables == 0 && !write)
    st = io_error("'" + path() + "' is empty, not a CEDD index");
  if (st.ok() && tables > 0 && !has_info)
    st = io_error("'" + path() + "' is a database but not a CEDD index (it has no table 'info')");
  if (st.ok() && has_info) {
    // A damaged info table is reported as what it is, not as another kind of database.
    std::string tag;
    bool found = false;
    rc = sqlite3_prepare_v2(db_, "SELECT value FROM info WHERE key='descriptor'", -1, &q, nullptr);
    if (rc == SQLITE_OK) {
      rc = sqlite3_step(q);
      if (rc == SQLITE_ROW) {
        found = true;
        tag = text(q, 0);
        rc = SQLITE_DONE;
      }
    }
    if (rc != SQLITE_DONE) {
      rc_ = sqlite3_errcode(db_) & 0xff;
      st = io_error("cannot read the table 'info' of index '" + path() +
                    "': " + sqlite3_errmsg(db_));
    }
    sqlite3_finalize(q);
    if (st.ok() && !found)
      st = io_error("'" + path() +
                    "' is a database but not a CEDD index (its table 'info' has no 'descriptor')");
    if (st.ok() && tag != schema::kDescriptorTag)
      st = io_error("'" + path() + "' is a database but not a CEDD index (descriptor '" + tag +
                    "')");
    if (st.ok()) {
      version = -1;
      if (sqlite3_prepare_v2(db_, "PRAGMA user_version", -1, &q, nullptr) == SQLITE_OK &&
          sqlite3_step(q) == SQLITE_ROW)
        version = sqlite3_column_int(q, 0);
      sqlite3_finalize(q);
      if (version < 0)
        st = error("cannot read the schema version of");
      if (version == 0) // written before user_version was set: version 1
        version = 1;
    }
  }
  if (st.ok() && version > kSchemaVersion)
    st = io_error("'" + path() + "' is a CEDD index of schema version " + std::to_string(version) +
                  ", newer than this program's " + std::to_string(kSchemaVersion));
  if (st.ok() && write) {
    const auto& steps = schema::sqlite_migrations();
    for (int v = version + 1; st.ok() && v <= kSchemaVersion; ++v)
      st = exec(steps[static_cast<size_t>(v - 1)].c_str());
    if (st.ok())
      st = exec(("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str());
    if (st.ok())
      version = kSchemaVersion;
    if (st.ok())
      st = exec("COMMIT");
    if (!sqlite3_get_autocommit(db_))
      (void)exec("ROLLBACK");
  }
  version_ = version;
  return st;
}

Status SqliteStore::open(Access access) {
  const bool write = access == Access::kWrite;
  if (!write) {
    // Read-only: nothing is written, not even the journal's side files. A WAL index whose side
    // files are gone (its last writer closed it) cannot be opened read-only in a folder we may not
    // write (SQLite wants to create them); its main file then holds everything, and it is read
    // as immutable.
    Status st;
    for (int attempt = 0; attempt < 2; ++attempt) {
      close();
      const std::string name = attempt == 0 ? path() : uri_path(path()) + "?immutable=1";
      const int flags = SQLITE_OPEN_READONLY | (attempt == 0 ? 0 : SQLITE_OPEN_URI);
      if (sqlite3_open_v2(name.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
        st = error("cannot open index");
        close();
        return st;
      }
      sqlite3_busy_timeout(db_, kBusyTimeoutMs);
      rc_ = SQLITE_OK;
      st = check_schema(false);
      const bool no_side_files = rc_ == SQLITE_READONLY || rc_ == SQLITE_CANTOPEN;
      if (st.ok() || attempt == 1 || !no_side_files || has_content(path() + "-wal"))
        break;
    }
    if (!st.ok())
      close();
    return st;
  }
  if (sqlite3_open_v2(path().c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    Status st = error("cannot open index");
    close();
    return st;
  }
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  // SQLite returns SQLITE_BUSY without calling the busy handler where waiting could deadlock
  // (e.g. switching a new file to WAL while another connection opening it holds a read lock):
  // seen with 6 writers creating one file. Those are retried here, within the busy timeout.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  Status st;
  for (;;) {
    rc_ = SQLITE_OK;
    st = exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
    if (st.ok())
      st = check_schema(true);
    const bool busy = rc_ == SQLITE_BUSY || rc_ == SQLITE_LOCKED;
    if (st.ok() || !busy || std::chrono::steady_clock::now() >= deadline)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (int t = 0; st.ok() && t < kTables; ++t)
    if (sqlite3_prepare_v2(db_, kInsert[t], -1, &insert_[t], nullptr) != SQLITE_OK)
      st = error("cannot prepare the inserts into");
  if (!st.ok())
    close();
  return st;
}

// One transaction for the batch. BEGIN IMMEDIATE takes the write lock first (waiting for other
// writers' short transactions), so nothing fails half-way for lack of a lock; a COMMIT that
// reports SQLITE_BUSY keeps the transaction and is retried; any other failure rolls back, which
// leaves the connection outside a transaction (the next batch starts clean).
Status SqliteStore::write(const Batch& batch, bool* transient) {
  *transient = false;
  if (!db_ || !insert_[0])
    return internal_error("index not open for writing");
  rc_ = SQLITE_OK;
  Status st = exec("BEGIN IMMEDIATE");
  auto step = [&](sqlite3_stmt* s) {
    if (st.ok() && sqlite3_step(s) != SQLITE_DONE) {
      rc_ = sqlite3_errcode(db_) & 0xff;
      st = error("cannot write to index");
    }
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
  };
  for (size_t i = 0; st.ok() && i < batch.descriptors.size(); ++i) {
    const DescriptorRow& r = batch.descriptors[i];
    sqlite3_stmt* s = insert_[0];
    bind_key(s, r.key, true);
    bind_opt(s, 5, r.pts);
    sqlite3_bind_int(s, 6, r.roi_id);
    if (r.roi_id >= 0)
      bind_text(s, 7, r.roi_type);
    sqlite3_bind_int(s, 8, r.x);
    sqlite3_bind_int(s, 9, r.y);
    sqlite3_bind_int(s, 10, r.w);
    sqlite3_bind_int(s, 11, r.h);
    sqlite3_bind_int(s, 12, r.shot_change ? 1 : 0);
    bind_opt(s, 13, r.distance);
    sqlite3_bind_blob(s, 14, r.levels, kLevels, SQLITE_TRANSIENT);
    step(s);
  }
  for (size_t i = 0; st.ok() && i < batch.shots.size(); ++i) {
    const ShotRow& r = batch.shots[i];
    sqlite3_stmt* s = insert_[1];
    bind_key(s, r.key, false);
    bind_opt(s, 4, r.pts);
    bind_opt(s, 5, r.distance);
    bind_text(s, 6, r.source);
    step(s);
  }
  for (size_t i = 0; st.ok() && i < batch.boxes.size(); ++i) {
    const BoxRow& r = batch.boxes[i];
    sqlite3_stmt* s = insert_[2];
    bind_key(s, r.key, true);
    bind_opt(s, 5, r.pts);
    bind_text(s, 6, r.roi_type);
    sqlite3_bind_int(s, 7, r.roi_id);
    sqlite3_bind_int(s, 8, r.parent_id);
    sqlite3_bind_int(s, 9, r.x);
    sqlite3_bind_int(s, 10, r.y);
    sqlite3_bind_int(s, 11, r.w);
    sqlite3_bind_int(s, 12, r.h);
    bind_text(s, 13, r.attrs);
    step(s);
  }
  for (size_t i = 0; st.ok() && i < batch.tracks.size(); ++i) {
    const TrackRow& r = batch.tracks[i];
    sqlite3_stmt* s = insert_[3];
    bind_text(s, 1, r.stream);
    bind_text(s, 2, r.run_id);
    sqlite3_bind_int64(s, 3, r.track_id);
    sqlite3_bind_int64(s, 4, r.first_frame);
    sqlite3_bind_int64(s, 5, r.last_frame);
    bind_opt(s, 6, r.first_pts);
    bind_opt(s, 7, r.last_pts);
    step(s);
  }
  for (size_t i = 0; st.ok() && i < batch.actions.size(); ++i) {
    const ActionRow& r = batch.actions[i];
    sqlite3_stmt* s = insert_[4];
    bind_key(s, r.key, true);
    bind_opt(s, 5, r.pts);
    bind_text(s, 6, r.label);
    sqlite3_bind_int(s, 7, r.model_id);
    sqlite3_bind_double(s, 8, r.score);
    sqlite3_bind_double(s, 9, r.distance);
    sqlite3_bind_int64(s, 10, r.first_frame);
    sqlite3_bind_int64(s, 11, r.last_frame);
    bind_opt(s, 12, r.start);
    bind_opt(s, 13, r.end);
    sqlite3_bind_int(s, 14, r.x);
    sqlite3_bind_int(s, 15, r.y);
    sqlite3_bind_int(s, 16, r.w);
    sqlite3_bind_int(s, 17, r.h);
    step(s);
  }
  if (st.ok()) {
    int rc = SQLITE_BUSY;
    for (int attempt = 0; attempt < 100 && rc == SQLITE_BUSY; ++attempt) {
      rc = sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
      if (rc == SQLITE_BUSY)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (rc != SQLITE_OK) {
      rc_ = rc & 0xff;
      st = error("cannot commit to index");
    }
  }
  if (!st.ok() && !sqlite3_get_autocommit(db_))
    (void)exec("ROLLBACK");
  // Busy beyond the timeout, I/O errors and a full disk may pass; a refused row or schema not.
  *transient = !st.ok() && (rc_ == SQLITE_BUSY || rc_ == SQLITE_LOCKED || rc_ == SQLITE_IOERR ||
                            rc_ == SQLITE_FULL || rc_ == SQLITE_CANTOPEN);
  return st;
}

} // namespace sqlite

Status open_sqlite(const Location& location, Access access, std::unique_ptr<Store>* out) {
  auto s = std::make_unique<sqlite::SqliteStore>(location);
  CVIS_RETURN_IF_ERROR(s->open(access));
  *out = std::move(s);
  return Status::Ok();
}

bool sqlite_set_commit_hook(Store* store, int (*hook)(void*), void* data) {
  auto* s = dynamic_cast<sqlite::SqliteStore*>(store);
  if (s)
    s->set_commit_hook(hook, data);
  return s != nullptr;
}

} // namespace cvis::store

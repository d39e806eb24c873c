#include "ceddindex.h"

#include <sqlite3.h>

#include <chrono>

namespace cvis::cedd {

namespace {

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

const char* kSchema =
    "CREATE TABLE IF NOT EXISTS info(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE IF NOT EXISTS descriptors("
    " id INTEGER PRIMARY KEY, stream TEXT NOT NULL, frame INTEGER NOT NULL, pts INTEGER,"
    " roi_id INTEGER NOT NULL, roi_type TEXT, x INTEGER, y INTEGER, w INTEGER, h INTEGER,"
    " shot_change INTEGER NOT NULL DEFAULT 0, distance REAL, levels BLOB NOT NULL);"
    "CREATE INDEX IF NOT EXISTS descriptors_stream_frame ON descriptors(stream, frame);"
    "INSERT OR IGNORE INTO info(key, value) VALUES ('descriptor', 'cedd-lire-144'), ('schema', '1');";

}  // namespace

CeddIndex::~CeddIndex() { (void)close(); }

Status CeddIndex::error(const char* what) const {
  return io_error(std::string(what) + " '" + path_ + "': " + (db_ ? sqlite3_errmsg(db_) : "no database"));
}

Status CeddIndex::exec(const char* sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string m = msg ? msg : sqlite3_errmsg(db_);
    sqlite3_free(msg);
    return io_error("index '" + path_ + "': " + m);
  }
  return Status::Ok();
}

Status CeddIndex::open(const std::string& path, bool create) {
  CVIS_RETURN_IF_ERROR(close());
  path_ = path;
  int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    Status st = error("cannot open index");
    sqlite3_close(db_);
    db_ = nullptr;
    return st;
  }
  sqlite3_busy_timeout(db_, 5000);
  // The first statements read the header: a corrupt file or a non-database fails here, at start,
  // not at the first frame.
  // Readers leave the file as it is; writers switch it to WAL (readers then never block them).
  Status st = create ? exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
                     : exec("PRAGMA schema_version;");
  // A fresh file gets the schema; an existing database must already be a CEDD index (a reader,
  // or a writer pointed at someone else's database, never alters it).
  int tables = 0;
  bool has_info = false;
  if (st.ok()) {
    sqlite3_stmt* q = nullptr;
    if (sqlite3_prepare_v2(db_, "SELECT name FROM sqlite_master WHERE type='table'", -1, &q,
                           nullptr) != SQLITE_OK) {
      st = error("cannot read");
    } else {
      while (sqlite3_step(q) == SQLITE_ROW) {
        ++tables;
        const unsigned char* n = sqlite3_column_text(q, 0);
        if (n && std::string(reinterpret_cast<const char*>(n)) == "info") has_info = true;
      }
      sqlite3_finalize(q);
    }
  }
  if (st.ok() && tables == 0) {
    st = create ? exec(kSchema) : io_error("'" + path + "' is empty, not a CEDD index");
    has_info = st.ok();
  }
  if (st.ok()) {
    sqlite3_stmt* q = nullptr;
    bool ours = false;
    if (has_info &&
        sqlite3_prepare_v2(db_, "SELECT value FROM info WHERE key='descriptor'", -1, &q, nullptr) ==
            SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW) {
      const unsigned char* v = sqlite3_column_text(q, 0);
      ours = v && std::string(reinterpret_cast<const char*>(v)) == "cedd-lire-144";
    }
    sqlite3_finalize(q);
    if (!ours) st = io_error("'" + path + "' is a database but not a CEDD index");
  }
  if (st.ok() &&
      sqlite3_prepare_v2(db_,
                         "INSERT INTO descriptors(stream, frame, pts, roi_id, roi_type, x, y, w, h,"
                         " shot_change, distance, levels) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                         -1, &insert_, nullptr) != SQLITE_OK) {
    st = error("cannot prepare insert in");
  }
  if (!st.ok()) {
    sqlite3_finalize(insert_);
    insert_ = nullptr;
    sqlite3_close(db_);
    db_ = nullptr;
  }
  return st;
}

Status CeddIndex::add(const IndexRow& r) {
  if (!db_) return internal_error("index not open");
  if (!in_txn_) {
    CVIS_RETURN_IF_ERROR(exec("BEGIN"));
    in_txn_ = true;
    txn_start_us_ = now_us();
  }
  sqlite3_stmt* s = insert_;
  sqlite3_reset(s);
  sqlite3_bind_text(s, 1, r.stream.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 2, r.frame);
  if (r.pts >= 0) sqlite3_bind_int64(s, 3, r.pts); else sqlite3_bind_null(s, 3);
  sqlite3_bind_int(s, 4, r.roi_id);
  if (r.roi_id >= 0) sqlite3_bind_text(s, 5, r.roi_type.c_str(), -1, SQLITE_TRANSIENT);
  else sqlite3_bind_null(s, 5);
  sqlite3_bind_int(s, 6, r.x);
  sqlite3_bind_int(s, 7, r.y);
  sqlite3_bind_int(s, 8, r.w);
  sqlite3_bind_int(s, 9, r.h);
  sqlite3_bind_int(s, 10, r.shot_change ? 1 : 0);
  if (r.distance >= 0) sqlite3_bind_double(s, 11, r.distance); else sqlite3_bind_null(s, 11);
  sqlite3_bind_blob(s, 12, r.levels, 144, SQLITE_TRANSIENT);
  if (sqlite3_step(s) != SQLITE_DONE) return error("cannot write to index");
  ++rows_written_;
  return Status::Ok();
}

Status CeddIndex::maybe_commit() {
  if (in_txn_ && now_us() - txn_start_us_ >= static_cast<int64_t>(commit_interval_ms_) * 1000) {
    return flush();
  }
  return Status::Ok();
}

Status CeddIndex::flush() {
  if (!db_ || !in_txn_) return Status::Ok();
  in_txn_ = false;
  return exec("COMMIT");
}

Status CeddIndex::close() {
  if (!db_) return Status::Ok();
  Status st = flush();
  sqlite3_finalize(insert_);
  insert_ = nullptr;
  sqlite3_close(db_);
  db_ = nullptr;
  return st;
}

Status CeddIndex::read_all(std::vector<IndexRow>* rows) {
  if (!db_) return internal_error("index not open");
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(db_,
                         "SELECT stream, frame, pts, roi_id, roi_type, x, y, w, h, shot_change,"
                         " distance, levels FROM descriptors ORDER BY id",
                         -1, &q, nullptr) != SQLITE_OK) {
    return error("cannot read index");
  }
  int rc;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    IndexRow r;
    const unsigned char* t = sqlite3_column_text(q, 0);
    r.stream = t ? reinterpret_cast<const char*>(t) : "";
    r.frame = sqlite3_column_int64(q, 1);
    r.pts = sqlite3_column_type(q, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 2);
    r.roi_id = sqlite3_column_int(q, 3);
    const unsigned char* rt = sqlite3_column_text(q, 4);
    r.roi_type = rt ? reinterpret_cast<const char*>(rt) : "";
    r.x = sqlite3_column_int(q, 5);
    r.y = sqlite3_column_int(q, 6);
    r.w = sqlite3_column_int(q, 7);
    r.h = sqlite3_column_int(q, 8);
    r.shot_change = sqlite3_column_int(q, 9) != 0;
    r.distance = sqlite3_column_type(q, 10) == SQLITE_NULL ? -1.0 : sqlite3_column_double(q, 10);
    const void* b = sqlite3_column_blob(q, 11);
    if (b == nullptr || sqlite3_column_bytes(q, 11) != 144) {
      sqlite3_finalize(q);
      return io_error("index '" + path_ + "': a descriptor is not 144 bytes");
    }
    for (int i = 0; i < 144; ++i) r.levels[i] = static_cast<const uint8_t*>(b)[i];
    rows->push_back(std::move(r));
  }
  sqlite3_finalize(q);
  if (rc != SQLITE_DONE) return error("cannot read index");
  return Status::Ok();
}

}  // namespace cvis::cedd

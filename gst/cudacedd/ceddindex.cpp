#include "ceddindex.h"

#include <sqlite3.h>

#include <chrono>
#include <thread>
#include <utility>

namespace cvis::cedd {

namespace {

// Rows the queue holds before add() waits for the writer (about 1 MiB of rows).
constexpr size_t kQueueMax = 4096;
// A writer waits this long for another writer's transaction (they are short: a batch of inserts).
constexpr int kBusyTimeoutMs = 30000;

const char* kSchema =
    "CREATE TABLE info(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE descriptors("
    " id INTEGER PRIMARY KEY, stream TEXT NOT NULL, frame INTEGER NOT NULL, pts INTEGER,"
    " roi_id INTEGER NOT NULL, roi_type TEXT, x INTEGER, y INTEGER, w INTEGER, h INTEGER,"
    " shot_change INTEGER NOT NULL DEFAULT 0, distance REAL, levels BLOB NOT NULL);"
    "CREATE INDEX descriptors_stream_frame ON descriptors(stream, frame);"
    "INSERT INTO info(key, value) VALUES ('descriptor', 'cedd-lire-144'), ('schema', '1');"
    "PRAGMA user_version = 1;";

const char* kColumns =
    "stream, frame, pts, roi_id, roi_type, x, y, w, h, shot_change, distance, levels";

} // namespace

CeddIndex::~CeddIndex() {
  (void)close();
}

Status CeddIndex::error(const char* what) const {
  return io_error(std::string(what) + " '" + path_ +
                  "': " + (db_ ? sqlite3_errmsg(db_) : "no database"));
}

Status CeddIndex::exec(const char* sql) {
  char* msg = nullptr;
  exec_rc_ = sqlite3_exec(db_, sql, nullptr, nullptr, &msg) & 0xff;
  if (exec_rc_ != SQLITE_OK) {
    std::string m = msg ? msg : sqlite3_errmsg(db_);
    sqlite3_free(msg);
    return io_error("index '" + path_ + "': " + m);
  }
  return Status::Ok();
}

// Reads (and for writers, creates) the schema. A writer does it inside BEGIN IMMEDIATE, so two
// writers creating one new file cannot both create it, and a failure leaves no half schema.
Status CeddIndex::check_or_create_schema(bool create) {
  if (create)
    CVIS_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
  Status st;
  int tables = 0;
  bool has_info = false;
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT name FROM sqlite_master WHERE type='table'", -1, &q,
                         nullptr) != SQLITE_OK) {
    st = error("cannot read");
  } else {
    while (sqlite3_step(q) == SQLITE_ROW) {
      ++tables;
      const unsigned char* n = sqlite3_column_text(q, 0);
      if (n && std::string(reinterpret_cast<const char*>(n)) == "info")
        has_info = true;
    }
  }
  sqlite3_finalize(q);
  if (st.ok() && tables == 0) {
    st = create ? exec(kSchema) : io_error("'" + path_ + "' is empty, not a CEDD index");
    has_info = st.ok();
  }
  bool ours = false;
  if (st.ok() && has_info &&
      sqlite3_prepare_v2(db_, "SELECT value FROM info WHERE key='descriptor'", -1, &q, nullptr) ==
          SQLITE_OK) {
    if (sqlite3_step(q) == SQLITE_ROW) {
      const unsigned char* v = sqlite3_column_text(q, 0);
      ours = v && std::string(reinterpret_cast<const char*>(v)) == "cedd-lire-144";
    }
    sqlite3_finalize(q);
  }
  if (st.ok() && !ours)
    st = io_error("'" + path_ + "' is a database but not a CEDD index");
  int version = -1;
  if (st.ok() && sqlite3_prepare_v2(db_, "PRAGMA user_version", -1, &q, nullptr) == SQLITE_OK) {
    if (sqlite3_step(q) == SQLITE_ROW)
      version = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
  }
  if (st.ok() && version < 0)
    st = error("cannot read the schema version of");
  if (st.ok() && version > kIndexSchemaVersion) {
    st = io_error("'" + path_ + "' is a CEDD index of schema version " + std::to_string(version) +
                  ", newer than this program's " + std::to_string(kIndexSchemaVersion));
  }
  // Indexes written before user_version was set are version 1.
  if (st.ok() && version == 0 && create)
    st = exec("PRAGMA user_version = 1");
  if (create) {
    if (st.ok()) {
      st = exec("COMMIT");
    }
    if (!sqlite3_get_autocommit(db_))
      (void)exec("ROLLBACK");
  }
  return st;
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
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  // The first statements read the header: a corrupt file or a non-database fails here, at start,
  // not at the first frame. Readers leave the file as it is; writers switch it to WAL (readers
  // then never block them).
  // SQLite returns SQLITE_BUSY without calling the busy handler where waiting could deadlock
  // (e.g. switching a new file to WAL while another connection opening it holds a read lock):
  // seen with 6 writers creating one file. Those are retried here, within the busy timeout.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  Status st;
  for (;;) {
    st = create ? exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
                : exec("PRAGMA schema_version;");
    if (st.ok())
      st = check_or_create_schema(create);
    // exec_rc_ may be the rollback's by now: SQLite's "database is locked" text tells it too.
    const bool busy = exec_rc_ == SQLITE_BUSY || exec_rc_ == SQLITE_LOCKED ||
                      st.message().find("is locked") != std::string::npos;
    if (st.ok() || !busy || std::chrono::steady_clock::now() >= deadline)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (st.ok() && create &&
      sqlite3_prepare_v2(db_,
                         (std::string("INSERT INTO descriptors(") + kColumns +
                          ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?)")
                             .c_str(),
                         -1, &insert_, nullptr) != SQLITE_OK) {
    st = error("cannot prepare insert in");
  }
  if (!st.ok()) {
    sqlite3_finalize(insert_);
    insert_ = nullptr;
    sqlite3_close(db_);
    db_ = nullptr;
    return st;
  }
  if (create) {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = false;
    error_ = Status::Ok();
    writer_ = std::thread([this] { writer_loop(); });
  }
  return Status::Ok();
}

void CeddIndex::set_commit_interval_ms(int ms) {
  std::lock_guard<std::mutex> lk(mu_);
  commit_interval_ms_ = ms;
  work_cv_.notify_all();
}

int64_t CeddIndex::rows_written() const {
  std::lock_guard<std::mutex> lk(mu_);
  return committed_;
}

void CeddIndex::set_commit_hook(int (*hook)(void*), void* data) {
  if (db_)
    sqlite3_commit_hook(db_, hook, data);
}

Status CeddIndex::take_error() {
  Status s = error_;
  error_ = Status::Ok();
  return s;
}

Status CeddIndex::add(const IndexRow& row) {
  std::unique_lock<std::mutex> lk(mu_);
  if (!db_ || !writer_.joinable())
    return internal_error("index not open for writing");
  done_cv_.wait(lk, [&] { return queue_.size() < kQueueMax || !error_.ok(); });
  if (!error_.ok())
    return take_error();
  if (queue_.empty())
    oldest_ = std::chrono::steady_clock::now();
  queue_.push_back(row);
  ++queued_;
  if (queue_.size() == 1 || queue_.size() >= kQueueMax / 2)
    work_cv_.notify_all();
  return Status::Ok();
}

Status CeddIndex::flush() {
  std::unique_lock<std::mutex> lk(mu_);
  if (!writer_.joinable())
    return take_error();
  const int64_t target = queued_;
  ++flush_waiters_;
  work_cv_.notify_all();
  done_cv_.wait(lk, [&] { return written_ >= target; });
  --flush_waiters_;
  return take_error();
}

Status CeddIndex::close() {
  Status st;
  if (writer_.joinable()) {
    st = flush();
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
      work_cv_.notify_all();
    }
    writer_.join();
    std::lock_guard<std::mutex> lk(mu_);
    if (st.ok())
      st = take_error();
  }
  if (!db_)
    return st;
  sqlite3_finalize(insert_);
  insert_ = nullptr;
  sqlite3_close(db_);
  db_ = nullptr;
  return st;
}

// The writer thread: waits for rows, then writes everything queued at once when the oldest row
// is commit_interval old, when a flush waits, when the queue fills up, or at stop.
void CeddIndex::writer_loop() {
  std::unique_lock<std::mutex> lk(mu_);
  std::vector<IndexRow> batch;
  for (;;) {
    work_cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty())
      break; // stop_, nothing left
    // oldest_ stays put while the queue is not empty.
    const auto due = oldest_ + std::chrono::milliseconds(commit_interval_ms_);
    work_cv_.wait_until(
        lk, due, [&] { return stop_ || flush_waiters_ > 0 || queue_.size() >= kQueueMax / 2; });
    batch.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
    queue_.clear();
    lk.unlock();
    Status st = write_batch(&batch);
    lk.lock();
    written_ += static_cast<int64_t>(batch.size());
    if (st.ok()) {
      committed_ += static_cast<int64_t>(batch.size());
    } else if (error_.ok()) {
      error_ = st;
    }
    batch.clear();
    done_cv_.notify_all();
  }
}

// One transaction for the batch. BEGIN IMMEDIATE takes the write lock first (waiting for other
// writers' short transactions), so nothing fails half-way for lack of a lock; a COMMIT that
// reports SQLITE_BUSY keeps the transaction and is retried; any other failure rolls back, which
// leaves the connection outside a transaction (the next batch starts clean).
Status CeddIndex::write_batch(std::vector<IndexRow>* batch) {
  Status st = exec("BEGIN IMMEDIATE");
  if (!st.ok())
    return st;
  sqlite3_stmt* s = insert_;
  for (const IndexRow& r : *batch) {
    sqlite3_reset(s);
    sqlite3_bind_text(s, 1, r.stream.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 2, r.frame);
    if (r.pts >= 0)
      sqlite3_bind_int64(s, 3, r.pts);
    else
      sqlite3_bind_null(s, 3);
    sqlite3_bind_int(s, 4, r.roi_id);
    if (r.roi_id >= 0)
      sqlite3_bind_text(s, 5, r.roi_type.c_str(), -1, SQLITE_TRANSIENT);
    else
      sqlite3_bind_null(s, 5);
    sqlite3_bind_int(s, 6, r.x);
    sqlite3_bind_int(s, 7, r.y);
    sqlite3_bind_int(s, 8, r.w);
    sqlite3_bind_int(s, 9, r.h);
    sqlite3_bind_int(s, 10, r.shot_change ? 1 : 0);
    if (r.distance >= 0)
      sqlite3_bind_double(s, 11, r.distance);
    else
      sqlite3_bind_null(s, 11);
    sqlite3_bind_blob(s, 12, r.levels, 144, SQLITE_TRANSIENT);
    if (sqlite3_step(s) != SQLITE_DONE) {
      st = error("cannot write to index");
      break;
    }
  }
  sqlite3_reset(s);
  if (st.ok()) {
    int rc = SQLITE_BUSY;
    for (int attempt = 0; attempt < 100 && rc == SQLITE_BUSY; ++attempt) {
      rc = sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
      if (rc == SQLITE_BUSY)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (rc != SQLITE_OK)
      st = error("cannot commit to index");
  }
  if (!st.ok() && !sqlite3_get_autocommit(db_))
    (void)exec("ROLLBACK");
  return st;
}

Status CeddIndex::for_each(const std::function<bool(const IndexRow&)>& fn) {
  if (!db_)
    return internal_error("index not open");
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(
          db_, (std::string("SELECT ") + kColumns + ", id FROM descriptors ORDER BY id").c_str(),
          -1, &q, nullptr) != SQLITE_OK) {
    return error("cannot read index");
  }
  int rc;
  IndexRow r;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
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
    for (int i = 0; i < 144; ++i)
      r.levels[i] = static_cast<const uint8_t*>(b)[i];
    r.id = sqlite3_column_int64(q, 12);
    if (!fn(r)) {
      rc = SQLITE_DONE;
      break;
    }
  }
  sqlite3_finalize(q);
  if (rc != SQLITE_DONE)
    return error("cannot read index");
  return Status::Ok();
}

Status CeddIndex::read_all(std::vector<IndexRow>* rows) {
  return for_each([rows](const IndexRow& r) {
    rows->push_back(r);
    return true;
  });
}

Status CeddIndex::last_id(int64_t* id) {
  *id = 0;
  if (!db_)
    return internal_error("index not open");
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT COALESCE(MAX(id), 0) FROM descriptors", -1, &q, nullptr) !=
      SQLITE_OK) {
    return error("cannot read index");
  }
  const int rc = sqlite3_step(q);
  if (rc == SQLITE_ROW)
    *id = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  return rc == SQLITE_ROW ? Status::Ok() : error("cannot read index");
}

Status CeddIndex::delete_rows(const std::string& stream, int64_t after_id, int64_t up_to_id) {
  if (!db_)
    return internal_error("index not open");
  CVIS_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
  sqlite3_stmt* q = nullptr;
  Status st;
  if (sqlite3_prepare_v2(db_, "DELETE FROM descriptors WHERE stream = ? AND id > ? AND id <= ?", -1,
                         &q, nullptr) != SQLITE_OK) {
    st = error("cannot delete from index");
  } else {
    sqlite3_bind_text(q, 1, stream.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(q, 2, after_id);
    sqlite3_bind_int64(q, 3, up_to_id);
    if (sqlite3_step(q) != SQLITE_DONE)
      st = error("cannot delete from index");
  }
  sqlite3_finalize(q);
  if (st.ok())
    st = exec("COMMIT");
  if (!sqlite3_get_autocommit(db_))
    (void)exec("ROLLBACK");
  return st;
}

} // namespace cvis::cedd

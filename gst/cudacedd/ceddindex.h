/* CeddIndex: the SQLite index written by cudacedd (and read by cvis-cedd search).
 *
 * Schema (PRAGMA user_version = 1; documented for users in docs/elements/cudacedd.md):
 *   info(key TEXT PRIMARY KEY, value TEXT)              -- 'descriptor' = 'cedd-lire-144', 'schema'
 * = '1' descriptors(id INTEGER PRIMARY KEY, stream TEXT NOT NULL,                   -- stream name
 * (file path, stream-id, ...) frame INTEGER NOT NULL,                 -- frame number within the
 * stream, from 0 pts INTEGER,                            -- stream time in ns; NULL when unknown
 *               roi_id INTEGER NOT NULL,                -- -1: whole frame; else the ROI meta id
 *               roi_type TEXT,                          -- ROI label (NULL for frames)
 *               x INTEGER, y INTEGER, w INTEGER, h INTEGER,
 *               shot_change INTEGER NOT NULL DEFAULT 0, -- 1: first frame of a new shot
 *               distance REAL,                          -- Tanimoto distance to the previous frame
 *               levels BLOB NOT NULL)                   -- 144 bytes, values 0..7
 * A file without user_version (written before it was set) but with the info table is version 1.
 *
 * Writers (open with create = true) hand rows to a writer thread through a queue: add() only
 * queues, so the caller (a streaming thread) never waits for SQLite. The thread writes what is
 * queued in short transactions (BEGIN IMMEDIATE .. COMMIT: the write lock is held only while the
 * rows are inserted) at least every commit interval, and at once on flush() and close(). Several
 * processes or pipelines may write one index (WAL journal; writers wait for each other's short
 * transactions). A batch whose transaction fails (COMMIT or an insert) is rolled back, the
 * connection stays usable, and the error is returned once by the next add(), flush() or close().
 * What flush() returned OK for survives a crash of the writer.
 */
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/status.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace cvis::cedd {

inline constexpr int kIndexSchemaVersion = 1;

struct IndexRow {
  std::string stream;
  int64_t frame = 0;
  int64_t pts = -1; // -1: none (stored as NULL)
  int roi_id = -1;
  std::string roi_type;
  int x = 0, y = 0, w = 0, h = 0;
  bool shot_change = false;
  double distance = -1.0; // < 0: none (stored as NULL)
  uint8_t levels[144] = {};
  int64_t id = 0; // set by for_each (the row's id); ignored by add
};

class CeddIndex {
public:
  CeddIndex() = default;
  ~CeddIndex();
  CeddIndex(const CeddIndex&) = delete;
  CeddIndex& operator=(const CeddIndex&) = delete;

  // Opens the database and checks it is a CEDD index of a version this code reads. `create`:
  // a writer (creates the file and the schema when missing, in one transaction) with its writer
  // thread; otherwise a reader. Errors (kIoError): unwritable location, not a database / corrupt,
  // a database of another kind, a newer schema version.
  Status open(const std::string& path, bool create);
  bool is_open() const { return db_ != nullptr; }

  // Writers. add() queues `row` (it blocks only while the queue is full).
  Status add(const IndexRow& row);
  Status flush(); // waits until every queued row is committed
  Status close(); // flush, stop the writer thread, close (readers: close)
  void set_commit_interval_ms(int ms);

  // Readers: calls `fn` for every row in insertion order (one row in memory at a time) until it
  // returns false.
  Status for_each(const std::function<bool(const IndexRow&)>& fn);
  // Every row (tests and small indexes).
  Status read_all(std::vector<IndexRow>* rows);

  // The largest row id (0 for none), and deleting the rows of `stream` with after_id < id <=
  // up_to_id in one transaction (cvis-cedd index replaces a file's rows once it is indexed anew).
  Status last_id(int64_t* id);
  Status delete_rows(const std::string& stream, int64_t after_id, int64_t up_to_id);

  int64_t rows_written() const;
  // sqlite3_commit_hook on the connection (tests: make COMMIT fail).
  void set_commit_hook(int (*hook)(void*), void* data);

private:
  Status exec(const char* sql);
  Status error(const char* what) const;
  Status check_or_create_schema(bool create);
  Status write_batch(std::vector<IndexRow>* batch);
  void writer_loop();
  Status take_error(); // the writer's error (once), under mu_

  sqlite3* db_ = nullptr;
  int exec_rc_ = 0;  // primary result code of the last exec()
  sqlite3_stmt* insert_ = nullptr;
  std::string path_;

  // Writer thread and its queue.
  mutable std::mutex mu_;
  std::condition_variable work_cv_; // rows, flush or stop for the writer
  std::condition_variable done_cv_; // a batch was written (flush, full queue)
  std::thread writer_;
  std::deque<IndexRow> queue_;
  int64_t queued_ = 0;    // rows ever queued
  int64_t written_ = 0;   // rows ever handled by the writer (committed or lost)
  int64_t committed_ = 0; // rows committed
  int flush_waiters_ = 0;
  bool stop_ = false;
  Status error_;
  int commit_interval_ms_ = 1000;
  std::chrono::steady_clock::time_point oldest_; // when the oldest queued row was queued
};

} // namespace cvis::cedd

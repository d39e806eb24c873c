/* CeddIndex: the SQLite index written by cudacedd (and read by cvis-cedd search).
 *
 * Schema (user_version 1; documented for users in docs/elements/cudacedd.md):
 *   info(key TEXT PRIMARY KEY, value TEXT)              -- 'descriptor' = 'cedd-lire-144', 'schema' = '1'
 *   descriptors(id INTEGER PRIMARY KEY,
 *               stream TEXT NOT NULL,                   -- stream name (file path, stream-id, ...)
 *               frame INTEGER NOT NULL,                 -- frame number within the stream, from 0
 *               pts INTEGER,                            -- nanoseconds; NULL when the buffer had none
 *               roi_id INTEGER NOT NULL,                -- -1: whole frame; else the ROI meta id
 *               roi_type TEXT,                          -- ROI label (NULL for frames)
 *               x INTEGER, y INTEGER, w INTEGER, h INTEGER,
 *               shot_change INTEGER NOT NULL DEFAULT 0, -- 1: first frame of a new shot
 *               distance REAL,                          -- Tanimoto distance to the previous frame
 *               levels BLOB NOT NULL)                   -- 144 bytes, values 0..7
 *
 * Writes are batched in transactions (WAL journal) committed at least every `commit_interval_ms`,
 * on flush() and on close(); what is committed survives a crash or kill of the writer.
 * Not thread-safe: one writer per object (SQLite serialises several writers on one file).
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace cvis::cedd {

struct IndexRow {
  std::string stream;
  int64_t frame = 0;
  int64_t pts = -1;  // -1: none (stored as NULL)
  int roi_id = -1;
  std::string roi_type;
  int x = 0, y = 0, w = 0, h = 0;
  bool shot_change = false;
  double distance = -1.0;  // < 0: none (stored as NULL)
  uint8_t levels[144] = {};
};

class CeddIndex {
 public:
  CeddIndex() = default;
  ~CeddIndex();
  CeddIndex(const CeddIndex&) = delete;
  CeddIndex& operator=(const CeddIndex&) = delete;

  // Opens (creating when `create`) the database and checks it is a CEDD index. Errors (kIoError):
  // unwritable location, not a database / corrupt, a database of another kind.
  Status open(const std::string& path, bool create);
  bool is_open() const { return db_ != nullptr; }

  Status add(const IndexRow& row);
  // Commits when the open transaction is older than the commit interval.
  Status maybe_commit();
  Status flush();  // commits now
  Status close();  // commits and closes
  void set_commit_interval_ms(int ms) { commit_interval_ms_ = ms; }

  // All rows (for search), in insertion order.
  Status read_all(std::vector<IndexRow>* rows);
  int64_t rows_written() const { return rows_written_; }

 private:
  Status exec(const char* sql);
  Status error(const char* what) const;

  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  bool in_txn_ = false;
  int64_t txn_start_us_ = 0;
  int commit_interval_ms_ = 1000;
  int64_t rows_written_ = 0;
  std::string path_;
};

}  // namespace cvis::cedd

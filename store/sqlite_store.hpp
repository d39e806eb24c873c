// The SQLite back end's store (internal to store/: sqlite_store.cpp opens and writes,
// sqlite_read.cpp reads).
#pragma once

#include <sqlite3.h>

#include <string>

#include "backends.hpp"

namespace cvis::store::sqlite {

// Text of column `i` ("" for NULL).
std::string text(sqlite3_stmt* q, int i);
void bind_text(sqlite3_stmt* s, int i, const std::string& v);

constexpr int kTables = 5;

class SqliteStore final : public Store {
public:
  explicit SqliteStore(const Location& loc) { location_ = loc; }
  ~SqliteStore() override { close(); }

  Status open(Access access);
  Status write(const Batch& batch, bool* transient) override;
  Status reconnect() override { return Status::Ok(); }
  Status for_each_descriptor(const Filter& filter, int64_t after_id, int64_t up_to_id,
                             bool levels_only,
                             const std::function<bool(const DescriptorRow&)>& fn) override;
  Status descriptors_by_id(const std::vector<int64_t>& ids,
                           std::vector<DescriptorRow>* rows) override;
  Status settled_last_id(int64_t* id) override;
  Status delete_descriptors(const std::string& stream, int64_t after_id, int64_t up_to_id) override;
  void set_commit_hook(int (*hook)(void*), void* data) { sqlite3_commit_hook(db_, hook, data); }

private:
  const std::string& path() const { return location_.target; }
  Status error(const std::string& what) const {
    return io_error(what + " '" + path() + "': " + (db_ ? sqlite3_errmsg(db_) : "no database"));
  }
  Status exec(const char* sql);
  Status check_schema(bool write);
  Status read_descriptor_rows(sqlite3_stmt* q, bool levels_only,
                              const std::function<bool(const DescriptorRow&)>& fn);
  void close();

  sqlite3* db_ = nullptr;
  int rc_ = SQLITE_OK; // primary result code of the last failed call
  sqlite3_stmt* insert_[kTables] = {};
};

} // namespace cvis::store::sqlite

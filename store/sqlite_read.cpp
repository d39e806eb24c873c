// The SQLite back end: reads.
#include "schema.hpp"
#include "sqlite_store.hpp"

namespace cvis::store::sqlite {

namespace {

int64_t int64_or(sqlite3_stmt* q, int i, int64_t null_value) {
  return sqlite3_column_type(q, i) == SQLITE_NULL ? null_value : sqlite3_column_int64(q, i);
}

// Columns selected by the readers: version 1's, id, then version 2's keys.
std::string select_columns(int version, bool levels_only) {
  if (levels_only)
    return "id, levels";
  return std::string(schema::kDescriptorColumnsV1) + ", id" +
         (version >= 2 ? ", run_id, region" : ", '', 0");
}

} // namespace

Status SqliteStore::read_descriptor_rows(sqlite3_stmt* q, bool levels_only,
                                         const std::function<bool(const DescriptorRow&)>& fn) {
  int rc;
  DescriptorRow r;
  const int lv = levels_only ? 1 : 11;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    const void* b = sqlite3_column_blob(q, lv);
    if (!levels_ok(b, static_cast<size_t>(sqlite3_column_bytes(q, lv))))
      return io_error("index '" + path() + "': a descriptor is not 144 bytes");
    std::copy(static_cast<const uint8_t*>(b), static_cast<const uint8_t*>(b) + kLevels, r.levels);
    if (levels_only) {
      r.id = sqlite3_column_int64(q, 0);
    } else {
      r.key.stream = text(q, 0);
      r.key.frame = sqlite3_column_int64(q, 1);
      r.pts = int64_or(q, 2, -1);
      r.roi_id = sqlite3_column_int(q, 3);
      r.roi_type = text(q, 4);
      r.x = sqlite3_column_int(q, 5);
      r.y = sqlite3_column_int(q, 6);
      r.w = sqlite3_column_int(q, 7);
      r.h = sqlite3_column_int(q, 8);
      r.shot_change = sqlite3_column_int(q, 9) != 0;
      r.distance = sqlite3_column_type(q, 10) == SQLITE_NULL ? -1.0 : sqlite3_column_double(q, 10);
      r.id = sqlite3_column_int64(q, 12);
      r.key.run_id = text(q, 13);
      r.key.region = sqlite3_column_int(q, 14);
    }
    if (!fn(r))
      return Status::Ok();
  }
  return rc == SQLITE_DONE ? Status::Ok() : error("cannot read index");
}

Status SqliteStore::for_each_descriptor(const Filter& f, int64_t after_id, int64_t up_to_id,
                                        bool levels_only,
                                        const std::function<bool(const DescriptorRow&)>& fn) {
  if (!db_)
    return internal_error("index not open");
  std::string sql =
      "SELECT " + select_columns(version_, levels_only) + " FROM descriptors WHERE id > ?1";
  if (up_to_id >= 0)
    sql += " AND id <= ?2";
  if (!f.stream.empty())
    sql += " AND stream = ?3";
  if (f.pts_from >= 0)
    sql += " AND pts >= ?4";
  if (f.pts_to >= 0)
    sql += " AND pts <= ?5";
  if (f.roi_type == "frame")
    sql += " AND roi_id < 0";
  else if (!f.roi_type.empty())
    sql += " AND roi_id >= 0 AND roi_type = ?6";
  sql += " ORDER BY id";
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &q, nullptr) != SQLITE_OK)
    return error("cannot read index");
  sqlite3_bind_int64(q, 1, after_id);
  sqlite3_bind_int64(q, 2, up_to_id);
  bind_text(q, 3, f.stream);
  sqlite3_bind_int64(q, 4, f.pts_from);
  sqlite3_bind_int64(q, 5, f.pts_to);
  bind_text(q, 6, f.roi_type);
  Status st = read_descriptor_rows(q, levels_only, fn);
  sqlite3_finalize(q);
  return st;
}

Status SqliteStore::descriptors_by_id(const std::vector<int64_t>& ids,
                                      std::vector<DescriptorRow>* rows) {
  rows->clear();
  if (!db_)
    return internal_error("index not open");
  std::string list;
  for (int64_t id : ids)
    list += (list.empty() ? "" : ",") + std::to_string(id);
  if (list.empty())
    return Status::Ok();
  const std::string sql = "SELECT " + select_columns(version_, false) +
                          " FROM descriptors WHERE id IN (" + list + ") ORDER BY id";
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &q, nullptr) != SQLITE_OK)
    return error("cannot read index");
  Status st = read_descriptor_rows(q, false, [rows](const DescriptorRow& r) {
    rows->push_back(r);
    return true;
  });
  sqlite3_finalize(q);
  return st;
}

// Rows are numbered max(id) + 1 under the write lock, so a committed id is never followed by a
// smaller one: the largest id is settled.
Status SqliteStore::settled_last_id(int64_t* id) {
  *id = 0;
  if (!db_)
    return internal_error("index not open");
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT COALESCE(MAX(id), 0) FROM descriptors", -1, &q, nullptr) !=
      SQLITE_OK)
    return error("cannot read index");
  const int rc = sqlite3_step(q);
  if (rc == SQLITE_ROW)
    *id = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  return rc == SQLITE_ROW ? Status::Ok() : error("cannot read index");
}

Status SqliteStore::delete_descriptors(const std::string& stream, int64_t after_id,
                                       int64_t up_to_id) {
  if (!db_)
    return internal_error("index not open");
  CVIS_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
  sqlite3_stmt* q = nullptr;
  Status st;
  if (sqlite3_prepare_v2(db_, "DELETE FROM descriptors WHERE stream = ? AND id > ? AND id <= ?", -1,
                         &q, nullptr) != SQLITE_OK) {
    st = error("cannot delete from index");
  } else {
    bind_text(q, 1, stream);
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

} // namespace cvis::store::sqlite

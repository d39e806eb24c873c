// The PostgreSQL back end (libpq). Batches go through COPY into temporary staging tables and one
// INSERT ... SELECT ... ON CONFLICT per table, in one transaction; reads stream through
// COPY ... TO STDOUT in binary format (pg_read.cpp).
#include <cstdlib>

#include "backends.hpp"
#include "pg_conn.hpp"
#include "pg_read.hpp"
#include "schema.hpp"

namespace cvis::store {

namespace {

using pg::Result;

const char* kStageTables =
    "CREATE TEMP TABLE IF NOT EXISTS s_descriptors(stream TEXT, run_id TEXT, frame BIGINT,"
    " region INTEGER, pts BIGINT, roi_id INTEGER, roi_type TEXT, x INTEGER, y INTEGER,"
    " w INTEGER, h INTEGER, shot_change INTEGER, distance DOUBLE PRECISION, levels BYTEA)"
    " ON COMMIT DELETE ROWS;"
    "CREATE TEMP TABLE IF NOT EXISTS s_shots(stream TEXT, run_id TEXT, frame BIGINT, pts BIGINT,"
    " distance DOUBLE PRECISION, source TEXT) ON COMMIT DELETE ROWS;"
    "CREATE TEMP TABLE IF NOT EXISTS s_boxes(stream TEXT, run_id TEXT, frame BIGINT,"
    " region INTEGER, pts BIGINT, roi_type TEXT, roi_id INTEGER, parent_id INTEGER, x INTEGER,"
    " y INTEGER, w INTEGER, h INTEGER, attrs TEXT) ON COMMIT DELETE ROWS;"
    "CREATE TEMP TABLE IF NOT EXISTS s_tracks(stream TEXT, run_id TEXT, track_id BIGINT,"
    " first_frame BIGINT, last_frame BIGINT, first_pts BIGINT, last_pts BIGINT)"
    " ON COMMIT DELETE ROWS;"
    "CREATE TEMP TABLE IF NOT EXISTS s_actions(stream TEXT, run_id TEXT, frame BIGINT,"
    " region INTEGER, pts BIGINT, label TEXT, model_id INTEGER, score DOUBLE PRECISION,"
    " distance DOUBLE PRECISION, first_frame BIGINT, last_frame BIGINT, start_ns BIGINT,"
    " end_ns BIGINT, x INTEGER, y INTEGER, w INTEGER, h INTEGER) ON COMMIT DELETE ROWS;";

const char* kDescriptorCols = "stream, run_id, frame, region, pts, roi_id, roi_type, x, y, w, h,"
                              " shot_change, distance, levels";
const char* kShotCols = "stream, run_id, frame, pts, distance, source";
const char* kBoxCols =
    "stream, run_id, frame, region, pts, roi_type, roi_id, parent_id, x, y, w, h, attrs";
const char* kActionCols = "stream, run_id, frame, region, pts, label, model_id, score, distance,"
                          " first_frame, last_frame, start_ns, end_ns, x, y, w, h";
const char* kTrackUpsert =
    "INSERT INTO tracks(stream, run_id, track_id, first_frame, last_frame, first_pts, last_pts)"
    " SELECT stream, run_id, track_id, min(first_frame), max(last_frame),"
    " (array_agg(first_pts ORDER BY first_frame))[1],"
    " (array_agg(last_pts ORDER BY last_frame DESC))[1]"
    " FROM s_tracks GROUP BY stream, run_id, track_id"
    " ON CONFLICT (stream, run_id, track_id) DO UPDATE SET"
    " first_frame = LEAST(tracks.first_frame, EXCLUDED.first_frame),"
    " last_frame = GREATEST(tracks.last_frame, EXCLUDED.last_frame),"
    " first_pts = CASE WHEN EXCLUDED.first_frame < tracks.first_frame THEN EXCLUDED.first_pts"
    " ELSE tracks.first_pts END,"
    " last_pts = CASE WHEN EXCLUDED.last_frame > tracks.last_frame THEN EXCLUDED.last_pts"
    " ELSE tracks.last_pts END";

// COPY text rows.
class Line {
public:
  explicit Line(std::string* out) : out_(out) {}
  Line& text(const std::string& s) {
    sep();
    pg::copy_text(out_, s);
    return *this;
  }
  Line& null_or_text(const std::string& s, bool null) { return null ? null_() : text(s); }
  Line& num(int64_t v) {
    sep();
    *out_ += std::to_string(v);
    return *this;
  }
  Line& opt(int64_t v) { return v >= 0 ? num(v) : null_(); }
  Line& real(double v) {
    sep();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    *out_ += buf;
    return *this;
  }
  Line& opt_real(double v) { return v >= 0 ? real(v) : null_(); }
  Line& bytes(const uint8_t* p, size_t n) {
    sep();
    pg::copy_bytea(out_, p, n);
    return *this;
  }
  Line& key(const RowKey& k, bool region) {
    text(k.stream).text(k.run_id).num(k.frame);
    return region ? num(k.region) : *this;
  }
  void end() { *out_ += '\n'; }

private:
  void sep() {
    if (!first_)
      *out_ += '\t';
    first_ = false;
  }
  Line& null_() {
    sep();
    *out_ += "\\N";
    return *this;
  }
  std::string* out_;
  bool first_ = true;
};

class PgStore final : public Store {
public:
  explicit PgStore(const Location& loc) : conn_(loc) { location_ = loc; }

  Status open(Access access);
  Status write(const Batch& batch, bool* transient) override;
  Status reconnect() override {
    staged_ = false;
    return conn_.connect();
  }
  Status for_each_descriptor(const Filter& f, int64_t after_id, int64_t up_to_id, bool levels_only,
                             const std::function<bool(const DescriptorRow&)>& fn) override {
    return pg::read_descriptors(&conn_, version_, f, after_id, up_to_id, {}, levels_only, fn);
  }
  Status descriptors_by_id(const std::vector<int64_t>& ids,
                           std::vector<DescriptorRow>* rows) override {
    rows->clear();
    if (ids.empty())
      return Status::Ok();
    return pg::read_descriptors(&conn_, version_, Filter(), 0, -1, ids, false,
                                [rows](const DescriptorRow& r) {
                                  rows->push_back(r);
                                  return true;
                                });
  }
  Status settled_last_id(int64_t* id) override;
  Status delete_descriptors(const std::string& stream, int64_t after_id,
                            int64_t up_to_id) override {
    return conn_.exec("DELETE FROM descriptors WHERE stream = $1 AND id > $2 AND id <= $3", nullptr,
                      nullptr, {stream, std::to_string(after_id), std::to_string(up_to_id)});
  }

private:
  Status check_schema(bool write);
  Status check_privileges();
  Status rollback(Status st) {
    if (!conn_.bad())
      (void)conn_.exec("ROLLBACK");
    return st;
  }

  pg::Conn conn_;
  bool staged_ = false; // the staging tables exist on this connection
};

std::string lock_sql(const char* fn, int key) {
  return std::string("SELECT ") + fn + "(" + std::to_string(pg::kLockClass) + ", " +
         std::to_string(key) + ")";
}

// Creates or migrates the schema under an advisory lock (concurrent writers of a new database
// wait for the first one), each step in the same transaction: a failure leaves no half schema.
Status PgStore::check_schema(bool write) {
  const std::string& where = location_.display;
  if (write) {
    CVIS_RETURN_IF_ERROR(conn_.exec("BEGIN"));
    Status st = conn_.exec(lock_sql("pg_advisory_xact_lock", pg::kSchemaLock));
    if (!st.ok())
      return rollback(st);
  }
  Result r;
  Status st = conn_.exec("SELECT to_regclass('info') IS NOT NULL", &r);
  int version = 0;
  if (st.ok() && std::string(PQgetvalue(r.get(), 0, 0)) == "t") {
    st = conn_.exec("SELECT key, value FROM info WHERE key IN ('descriptor', 'schema')", &r);
    std::string tag, schema_text = "1";
    for (int i = 0; st.ok() && i < PQntuples(r.get()); ++i) {
      const std::string k = PQgetvalue(r.get(), i, 0);
      (k == "descriptor" ? tag : schema_text) = PQgetvalue(r.get(), i, 1);
    }
    if (st.ok() && tag != schema::kDescriptorTag)
      st = io_error("'" + where + "' holds a table 'info' but no CEDD index (descriptor '" + tag +
                    "')");
    version = std::atoi(schema_text.c_str());
  } else if (st.ok() && !write) {
    st = io_error("'" + where + "' holds no CEDD index (no table 'info')");
  }
  if (st.ok() && version > kSchemaVersion)
    st = io_error("'" + where + "' is a CEDD index of schema version " + std::to_string(version) +
                  ", newer than this program's " + std::to_string(kSchemaVersion));
  if (!write) {
    version_ = version;
    return st;
  }
  const auto& steps = schema::postgres_migrations();
  for (int v = version + 1; st.ok() && v <= kSchemaVersion; ++v) {
    st = conn_.exec(steps[static_cast<size_t>(v - 1)]);
    if (!st.ok())
      st = io_error("cannot create or migrate the CEDD index in '" + where +
                    "' (nothing was changed): " + st.message());
  }
  if (st.ok())
    st = conn_.exec("COMMIT");
  if (!st.ok())
    return rollback(st);
  version_ = kSchemaVersion;
  return Status::Ok();
}

// A role that may read but not write fails here, at open, rather than at its first batch.
Status PgStore::check_privileges() {
  std::string sql = "SELECT current_user";
  for (const std::string& t : schema::written_tables()) {
    sql += ", has_table_privilege('" + t + "', 'INSERT')";
    sql += ", has_sequence_privilege(pg_get_serial_sequence('" + t + "', 'id'), 'USAGE')";
  }
  sql += ", has_table_privilege('tracks', 'UPDATE'), has_table_privilege('tracks', 'SELECT')";
  Result r;
  CVIS_RETURN_IF_ERROR(conn_.exec(sql, &r));
  const auto& tables = schema::written_tables();
  std::string missing;
  for (size_t i = 0; i < tables.size(); ++i) {
    if (std::string(PQgetvalue(r.get(), 0, static_cast<int>(1 + 2 * i))) != "t")
      missing += (missing.empty() ? "" : ", ") + std::string("INSERT on ") + tables[i];
    if (std::string(PQgetvalue(r.get(), 0, static_cast<int>(2 + 2 * i))) != "t")
      missing +=
          (missing.empty() ? "" : ", ") + std::string("USAGE on the id sequence of ") + tables[i];
  }
  const int n = static_cast<int>(1 + 2 * tables.size());
  if (std::string(PQgetvalue(r.get(), 0, n)) != "t" ||
      std::string(PQgetvalue(r.get(), 0, n + 1)) != "t")
    missing += (missing.empty() ? "" : ", ") + std::string("SELECT and UPDATE on tracks");
  if (!missing.empty())
    return io_error("role '" + std::string(PQgetvalue(r.get(), 0, 0)) +
                    "' may not write to the CEDD index in '" + location_.display +
                    "' (missing: " + missing + ")");
  return Status::Ok();
}

Status PgStore::open(Access access) {
  CVIS_RETURN_IF_ERROR(conn_.connect());
  CVIS_RETURN_IF_ERROR(check_schema(access == Access::kWrite));
  if (access == Access::kWrite)
    CVIS_RETURN_IF_ERROR(check_privileges());
  return Status::Ok();
}

Status PgStore::write(const Batch& b, bool* transient) {
  *transient = true;
  if (conn_.bad())
    return io_error("not connected to '" + location_.display + "'");
  if (!staged_) {
    CVIS_RETURN_IF_ERROR(conn_.exec(kStageTables, nullptr, transient));
    staged_ = true;
  }
  CVIS_RETURN_IF_ERROR(conn_.exec("BEGIN", nullptr, transient));
  Status st =
      conn_.exec(lock_sql("pg_advisory_xact_lock_shared", pg::kWriteLock), nullptr, transient);
  std::string data;
  // COPY the rows of one table into its staging table, then move them over.
  auto table = [&](const char* name, const std::string& cols, const std::string& insert) {
    if (!st.ok() || data.empty())
      return;
    st =
        conn_.copy_in(std::string("COPY s_") + name + "(" + cols + ") FROM STDIN", data, transient);
    if (st.ok())
      st = conn_.exec(insert, nullptr, transient);
    data.clear();
  };
  auto plain = [](const char* name, const char* cols) {
    return std::string("INSERT INTO ") + name + "(" + cols + ") SELECT " + cols + " FROM s_" +
           name + " ON CONFLICT DO NOTHING";
  };
  for (const DescriptorRow& r : b.descriptors) {
    Line(&data)
        .key(r.key, true)
        .opt(r.pts)
        .num(r.roi_id)
        .null_or_text(r.roi_type, r.roi_id < 0)
        .num(r.x)
        .num(r.y)
        .num(r.w)
        .num(r.h)
        .num(r.shot_change ? 1 : 0)
        .opt_real(r.distance)
        .bytes(r.levels, kLevels)
        .end();
  }
  table("descriptors", kDescriptorCols, plain("descriptors", kDescriptorCols));
  for (const ShotRow& r : b.shots)
    Line(&data).key(r.key, false).opt(r.pts).opt_real(r.distance).text(r.source).end();
  table("shots", kShotCols, plain("shots", kShotCols));
  for (const BoxRow& r : b.boxes) {
    Line(&data)
        .key(r.key, true)
        .opt(r.pts)
        .text(r.roi_type)
        .num(r.roi_id)
        .num(r.parent_id)
        .num(r.x)
        .num(r.y)
        .num(r.w)
        .num(r.h)
        .text(r.attrs)
        .end();
  }
  table("boxes", kBoxCols, plain("boxes", kBoxCols));
  for (const TrackRow& r : b.tracks) {
    Line(&data)
        .text(r.stream)
        .text(r.run_id)
        .num(r.track_id)
        .num(r.first_frame)
        .num(r.last_frame)
        .opt(r.first_pts)
        .opt(r.last_pts)
        .end();
  }
  table("tracks", "stream, run_id, track_id, first_frame, last_frame, first_pts, last_pts",
        kTrackUpsert);
  for (const ActionRow& r : b.actions) {
    Line(&data)
        .key(r.key, true)
        .opt(r.pts)
        .text(r.label)
        .num(r.model_id)
        .real(r.score)
        .real(r.distance)
        .num(r.first_frame)
        .num(r.last_frame)
        .opt(r.start)
        .opt(r.end)
        .num(r.x)
        .num(r.y)
        .num(r.w)
        .num(r.h)
        .end();
  }
  table("actions", kActionCols, plain("actions", kActionCols));
  if (st.ok())
    st = conn_.exec("COMMIT", nullptr, transient);
  if (!st.ok())
    return rollback(st);
  return Status::Ok();
}

// Writers hold the write lock (shared) from before their rows get ids until they commit: while
// this reader holds it exclusively, no batch is in flight, so every id up to the largest is
// settled.
Status PgStore::settled_last_id(int64_t* id) {
  *id = 0;
  CVIS_RETURN_IF_ERROR(conn_.exec(lock_sql("pg_advisory_lock", pg::kWriteLock)));
  Result r;
  Status st = conn_.exec("SELECT COALESCE(max(id), 0) FROM descriptors", &r);
  if (st.ok())
    *id = std::strtoll(PQgetvalue(r.get(), 0, 0), nullptr, 10);
  Status unlock = conn_.exec(lock_sql("pg_advisory_unlock", pg::kWriteLock));
  return st.ok() ? unlock : st;
}

} // namespace

Status open_postgres(const Location& location, Access access, std::unique_ptr<Store>* out) {
  auto s = std::make_unique<PgStore>(location);
  CVIS_RETURN_IF_ERROR(s->open(access));
  *out = std::move(s);
  return Status::Ok();
}

bool have_postgres() {
  return true;
}

} // namespace cvis::store

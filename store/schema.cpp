#include "schema.hpp"

namespace cvis::store::schema {

namespace {

// Version 2 in either spelling: `I` integer, `B` 64-bit integer, `R` double, `K` the id column.
std::string v2(const std::string& big, const std::string& real, const std::string& key) {
  return
      // Keys of the descriptors: the writer's run_id and the record's index within its frame.
      // Version 1 rows get the run_id '' and their position within their frame (by id).
      "ALTER TABLE descriptors ADD COLUMN run_id TEXT NOT NULL DEFAULT '';"
      "ALTER TABLE descriptors ADD COLUMN region INTEGER NOT NULL DEFAULT 0;"
      "UPDATE descriptors SET region = r.n FROM (SELECT id, row_number() OVER "
      " (PARTITION BY stream, frame ORDER BY id) - 1 AS n FROM descriptors) AS r"
      " WHERE descriptors.id = r.id;"
      "CREATE UNIQUE INDEX descriptors_key ON descriptors(stream, run_id, frame, region);"
      "CREATE INDEX descriptors_stream_pts ON descriptors(stream, pts);"
      "CREATE TABLE shots(id " +
      key + ", stream TEXT NOT NULL, run_id TEXT NOT NULL, frame " + big + " NOT NULL, pts " +
      big + ", distance " + real +
      ", source TEXT NOT NULL, UNIQUE(stream, run_id, frame, source));"
      "CREATE TABLE boxes(id " +
      key + ", stream TEXT NOT NULL, run_id TEXT NOT NULL, frame " + big +
      " NOT NULL, region INTEGER NOT NULL, pts " + big +
      ", roi_type TEXT, roi_id INTEGER, parent_id INTEGER,"
      " x INTEGER, y INTEGER, w INTEGER, h INTEGER, attrs TEXT,"
      " UNIQUE(stream, run_id, frame, region));"
      "CREATE INDEX boxes_stream_pts ON boxes(stream, pts);"
      "CREATE INDEX boxes_type_id ON boxes(roi_type, roi_id);"
      "CREATE TABLE tracks(id " +
      key + ", stream TEXT NOT NULL, run_id TEXT NOT NULL, track_id " + big +
      " NOT NULL, first_frame " + big + " NOT NULL, last_frame " + big + " NOT NULL, first_pts " +
      big + ", last_pts " + big +
      ", UNIQUE(stream, run_id, track_id));"
      "CREATE TABLE actions(id " +
      key + ", stream TEXT NOT NULL, run_id TEXT NOT NULL, frame " + big +
      " NOT NULL, region INTEGER NOT NULL, pts " + big +
      ", label TEXT NOT NULL, model_id INTEGER, score " + real + ", distance " + real +
      ", first_frame " + big + ", last_frame " + big + ", start_ns " + big + ", end_ns " + big +
      ", x INTEGER, y INTEGER, w INTEGER, h INTEGER, UNIQUE(stream, run_id, frame, region));"
      "CREATE INDEX actions_label ON actions(label);"
      "UPDATE info SET value = '2' WHERE key = 'schema';";
}

} // namespace

const std::vector<std::string>& sqlite_migrations() {
  static const std::vector<std::string> steps = {
      // Version 1: the first SQLite index, exactly as it was written.
      "CREATE TABLE info(key TEXT PRIMARY KEY, value TEXT);"
      "CREATE TABLE descriptors("
      " id INTEGER PRIMARY KEY, stream TEXT NOT NULL, frame INTEGER NOT NULL, pts INTEGER,"
      " roi_id INTEGER NOT NULL, roi_type TEXT, x INTEGER, y INTEGER, w INTEGER, h INTEGER,"
      " shot_change INTEGER NOT NULL DEFAULT 0, distance REAL, levels BLOB NOT NULL);"
      "CREATE INDEX descriptors_stream_frame ON descriptors(stream, frame);"
      "INSERT INTO info(key, value) VALUES ('descriptor', 'cedd-lire-144'), ('schema', '1');",
      v2("INTEGER", "REAL", "INTEGER PRIMARY KEY"),
  };
  return steps;
}

const std::vector<std::string>& postgres_migrations() {
  static const std::vector<std::string> steps = {
      "CREATE TABLE info(key TEXT PRIMARY KEY, value TEXT);"
      "CREATE TABLE descriptors("
      " id BIGSERIAL PRIMARY KEY, stream TEXT NOT NULL, frame BIGINT NOT NULL, pts BIGINT,"
      " roi_id INTEGER NOT NULL, roi_type TEXT, x INTEGER, y INTEGER, w INTEGER, h INTEGER,"
      " shot_change INTEGER NOT NULL DEFAULT 0, distance DOUBLE PRECISION, levels BYTEA NOT NULL);"
      "CREATE INDEX descriptors_stream_frame ON descriptors(stream, frame);"
      "INSERT INTO info(key, value) VALUES ('descriptor', 'cedd-lire-144'), ('schema', '1');",
      v2("BIGINT", "DOUBLE PRECISION", "BIGSERIAL PRIMARY KEY"),
  };
  return steps;
}

const std::vector<std::string>& written_tables() {
  static const std::vector<std::string> t = {"descriptors", "shots", "boxes", "tracks", "actions"};
  return t;
}

} // namespace cvis::store::schema

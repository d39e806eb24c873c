// The schema's migrations, one SQL script per version and back end (the same tables, columns
// and keys in both; types differ only in spelling). Step v (1-based) takes a store from version
// v - 1 to v; version 0 is an empty database. Each step runs in one transaction.
#pragma once

#include <string>
#include <vector>

namespace cvis::store::schema {

// SQL scripts; migrations[v - 1] makes version v.
const std::vector<std::string>& sqlite_migrations();
const std::vector<std::string>& postgres_migrations();

// The value of info.descriptor that marks a store (every version).
inline constexpr const char* kDescriptorTag = "cedd-lire-144";

// The tables a writer inserts into (checked at open: a role that may not insert fails then).
const std::vector<std::string>& written_tables();

// The descriptor columns of version 1, in the order the readers select them.
inline constexpr const char* kDescriptorColumnsV1 =
    "stream, frame, pts, roi_id, roi_type, x, y, w, h, shot_change, distance, levels";

} // namespace cvis::store::schema

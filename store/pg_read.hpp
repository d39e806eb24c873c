// Reading descriptor rows from PostgreSQL: COPY (SELECT ...) TO STDOUT in binary format, parsed
// as it streams (memory does not grow with the number of rows).
#pragma once

#include <functional>
#include <vector>

#include "pg_conn.hpp"
#include "rows.hpp"

namespace cvis::store::pg {

// Rows of `filter` with after_id < id <= up_to_id (up_to_id < 0: no bound), or, when `ids` is
// not empty, the rows with those ids; in id order. `version`: the store's schema version.
Status read_descriptors(Conn* conn, int version, const Filter& filter, int64_t after_id,
                        int64_t up_to_id, const std::vector<int64_t>& ids, bool levels_only,
                        const std::function<bool(const DescriptorRow&)>& fn);

} // namespace cvis::store::pg

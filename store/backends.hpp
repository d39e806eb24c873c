// The back ends' factories (store.cpp picks one by the location's kind) and test hooks.
#pragma once

#include <memory>

#include "store.hpp"

namespace cvis::store {

Status open_sqlite(const Location& location, Access access, std::unique_ptr<Store>* out);
// In builds without libpq: a kInvalidArgument error saying so.
Status open_postgres(const Location& location, Access access, std::unique_ptr<Store>* out);

// Tests: sqlite3_commit_hook on a SQLite store's connection (a hook returning non-zero makes
// that COMMIT fail). False when `store` is not a SQLite store.
bool sqlite_set_commit_hook(Store* store, int (*hook)(void*), void* data);

// Shared by the back ends: the text of a descriptor's levels as 144 bytes.
inline bool levels_ok(const void* p, size_t n) {
  return p != nullptr && n == kLevels;
}

} // namespace cvis::store

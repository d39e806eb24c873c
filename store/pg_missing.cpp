// Builds without libpq: PostgreSQL locations are refused with a clear error.
#include "backends.hpp"

namespace cvis::store {

Status open_postgres(const Location& location, Access, std::unique_ptr<Store>*) {
  return invalid_argument("'" + location.display +
                          "' is a PostgreSQL location, but this build has no PostgreSQL support "
                          "(libpq was not found when it was built)");
}

bool have_postgres() {
  return false;
}

} // namespace cvis::store

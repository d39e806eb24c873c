#include "store.hpp"

#include "backends.hpp"

namespace cvis::store {

Status open_store(const Location& location, Access access, std::unique_ptr<Store>* out) {
  out->reset();
  return location.kind == Kind::kPostgres ? open_postgres(location, access, out)
                                          : open_sqlite(location, access, out);
}

Status open_store(const std::string& location, Access access, std::unique_ptr<Store>* out) {
  Location loc;
  CVIS_RETURN_IF_ERROR(parse_location(location, &loc));
  return open_store(loc, access, out);
}

} // namespace cvis::store

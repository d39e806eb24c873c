// The store: one interface, two back ends with the same schema (docs/store.md).
//
//   SQLite      a file; the embedded default. Several processes may write one file (WAL journal,
//               short write transactions).
//   PostgreSQL  a server (libpq), for many hosts. Compiled when libpq is found at build time;
//               otherwise opening a PostgreSQL location fails with a clear error.
//
// Opening checks the schema: a writer creates it, or migrates an older version (each step in one
// transaction: a failure leaves the store as it was), and checks that it may insert into every
// table, so that a read-only role or file fails at open, before anything is written. A reader
// reads versions 1 and 2 as they are (it never writes, and opens files read-only: an index in a
// read-only folder can be searched).
//
// Not thread-safe: one thread uses a Store at a time (Writer gives a store to its own thread).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "location.hpp"
#include "rows.hpp"

namespace cvis::store {

inline constexpr int kSchemaVersion = 2; // version 1: descriptors only (the first SQLite index)

enum class Access { kRead, kWrite };

class Store {
public:
  virtual ~Store() = default;

  const Location& location() const { return location_; }
  // The schema version found at open (after a writer's migration: kSchemaVersion).
  int schema_version() const { return version_; }

  // Writes `batch` in one transaction: all of it or nothing. Rows whose key is stored already are
  // left as they are (a track row widens the stored span to cover its own). On failure
  // `*transient` says whether the same batch may succeed later (server unreachable, connection
  // lost, file busy) or not (refused: permissions, constraints, disk full on the server...).
  virtual Status write(const Batch& batch, bool* transient) = 0;
  // After a transient failure: connects again (PostgreSQL; SQLite: nothing to do). Fails while the
  // server cannot be reached.
  virtual Status reconnect() = 0;

  // Descriptor rows selected by `filter` with after_id < id <= up_to_id (up_to_id < 0: no upper
  // bound), in id order, until `fn` returns false. `levels_only`: only id and levels are read.
  virtual Status for_each_descriptor(const Filter& filter, int64_t after_id, int64_t up_to_id,
                                     bool levels_only,
                                     const std::function<bool(const DescriptorRow&)>& fn) = 0;
  // The rows with these ids (missing ids are left out), in id order.
  virtual Status descriptors_by_id(const std::vector<int64_t>& ids,
                                   std::vector<DescriptorRow>* rows) = 0;
  // An id such that every descriptor row with a smaller or equal id is committed already (or
  // never will be): rows that arrive later have larger ids. 0 for an empty table.
  virtual Status settled_last_id(int64_t* id) = 0;
  // Deletes the descriptor rows of `stream` with after_id < id <= up_to_id, in one transaction.
  virtual Status delete_descriptors(const std::string& stream, int64_t after_id,
                                    int64_t up_to_id) = 0;

protected:
  Location location_;
  int version_ = 0;
};

// Opens the store at `location` (see location.hpp). Errors (never holding a password):
// kInvalidArgument for a location that cannot be parsed or a PostgreSQL location in a build
// without libpq; kIoError for everything the store or server says (unreachable, authentication,
// no such database, not an index, newer schema, no right to write, damaged file).
Status open_store(const std::string& location, Access access, std::unique_ptr<Store>* out);
Status open_store(const Location& location, Access access, std::unique_ptr<Store>* out);

} // namespace cvis::store

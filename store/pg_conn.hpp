// libpq helpers of the PostgreSQL back end: a connection with scrubbed error messages and the
// classification of failures into "try again later" and "refused".
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "location.hpp"

namespace cvis::store::pg {

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

// Advisory lock keys (two int4s: 'CVIS' and a number). Writers hold kWriteLock shared for each
// batch transaction; a reader that needs a settled id takes it exclusively for a moment. Schema
// creation and migration hold kSchemaLock.
inline constexpr int kLockClass = 0x43564953;
inline constexpr int kWriteLock = 1;
inline constexpr int kSchemaLock = 2;

class Conn {
public:
  explicit Conn(const Location& loc) : loc_(loc) {}
  ~Conn() { close(); }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  // Connects (libpq defaults for what the location leaves out, plus a connect timeout, TCP
  // keepalives and a user timeout, so that a vanished server is noticed in seconds).
  Status connect();
  void close();
  PGconn* get() const { return conn_; }
  bool bad() const { return !conn_ || PQstatus(conn_) == CONNECTION_BAD; }

  // Runs `sql` (with text parameters); OK for PGRES_COMMAND_OK / PGRES_TUPLES_OK. On failure
  // `*transient` (when non-null) tells whether it may pass (lost connection, server shutting
  // down, out of resources, serialisation failure).
  Status exec(const std::string& sql, Result* out = nullptr, bool* transient = nullptr,
              const std::vector<std::string>& params = {}, int result_format = 0);
  // COPY ... FROM STDIN with `data` (text format).
  Status copy_in(const std::string& sql, const std::string& data, bool* transient);

  // "<what> '<display>': <message>" with the password scrubbed; classifies `res` (may be null).
  Status failure(const std::string& what, PGresult* res, bool* transient) const;
  std::string quote(const std::string& literal) const; // a SQL literal ('' on failure)
  const Location& location() const { return loc_; }

private:
  Location loc_;
  PGconn* conn_ = nullptr;
};

// COPY text format: the field with \, tab, newline and CR escaped.
void copy_text(std::string* out, const std::string& s);
// A bytea field in COPY text format (hex).
void copy_bytea(std::string* out, const uint8_t* p, size_t n);

} // namespace cvis::store::pg

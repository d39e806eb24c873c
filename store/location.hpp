// Where a store lives: a SQLite file or a PostgreSQL server, from one string.
//
//   /var/lib/cvis/index.db                      SQLite file (created when a writer opens it)
//   postgresql://user@db.example/cvis           PostgreSQL URI (also postgres://)
//   host=db.example dbname=cvis user=cvis       libpq connection string (key=value words)
//
// Passwords come from libpq's usual sources (the URI or connection string, PGPASSWORD, the
// password file ~/.pgpass or PGPASSFILE). They never appear in what this library reports:
// `display` is the location without its password, and every message from the server or from
// libpq is scrubbed of the password before it is returned.
#pragma once

#include <string>
#include <vector>

#include "common/status.hpp"

namespace cvis::store {

enum class Kind { kSqlite, kPostgres };

struct Location {
  Kind kind = Kind::kSqlite;
  std::string target;               // the SQLite path, or the connection string / URI as given
  std::string display;              // for messages and logs: the same without a password
  std::vector<std::string> secrets; // strings scrubbed from messages (the password, decoded too)

  // `text` with every secret replaced by "***".
  std::string scrub(std::string text) const;
};

// Classifies `text` (see the top). Errors (kInvalidArgument): empty text; a PostgreSQL location
// that cannot be parsed (the message never holds the password).
Status parse_location(const std::string& text, Location* out);

// `conninfo` (URI or key=value words) without its password; `*password` (when non-null) gets
// the password, decoded ("" when there is none). Text that is neither form is returned unchanged.
std::string redact_conninfo(const std::string& conninfo, std::string* password = nullptr);

// Whether this build has the PostgreSQL back end (libpq found at build time).
bool have_postgres();

} // namespace cvis::store

// Test helpers for the store: a fresh store of either back end (a temporary SQLite file, or a new
// database on the throw-away PostgreSQL server of scripts/pg-scratch.sh), SQL on it, and the
// server's stop and start.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace store_test {

enum class Backend { kSqlite, kPostgres };
const char* name(Backend b);

// Why PostgreSQL cases cannot run here ("" when they can): the build has no libpq, or the test
// runs without the throw-away server (CVIS_PG_SKIP, no CVIS_PG_URI).
std::string postgres_unavailable();

// A URI of the throw-away server for `database` (the password comes from PGPASSFILE); `user`,
// `password`: other credentials ("" : the server's superuser, no password in the URI).
std::string pg_uri(const std::string& database, const std::string& user = "",
                   const std::string& password = "");

class Db {
public:
  virtual ~Db() = default;
  virtual std::string location() const = 0;
  // The first column of the first row of `sql` as an integer; -1 on error.
  virtual long long query_int(const std::string& sql) = 0;
  // Every row of `sql`, columns joined with '|'.
  virtual std::vector<std::string> query_rows(const std::string& sql) = 0;
  virtual bool exec(const std::string& sql) = 0;
};

// A new empty store location of `b` (removed / dropped at destruction).
std::unique_ptr<Db> make_db(Backend b);

// Superuser SQL on the PostgreSQL server's database `db` ("postgres": the maintenance one).
bool pg_exec(const std::string& db, const std::string& sql);

// Stops / starts the throw-away server ($CVIS_PG_CTL stop|start).
bool pg_server(const char* what);

// A temporary folder (removed with its content at destruction).
class TempDir {
public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

} // namespace store_test

// In a test of a back end: skips the test when it is PostgreSQL and no server is available.
#define STORE_REQUIRE(b)                                                                           \
  do {                                                                                             \
    if ((b) == ::store_test::Backend::kPostgres) {                                                 \
      const std::string why_ = ::store_test::postgres_unavailable();                               \
      if (!why_.empty())                                                                           \
        GTEST_SKIP() << "PostgreSQL: " << why_;                                                    \
    }                                                                                              \
  } while (0)

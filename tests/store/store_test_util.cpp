#include "store_test_util.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <random>

#include "store/location.hpp"

#if defined(CVIS_TEST_LIBPQ)
#include <libpq-fe.h>
#endif

namespace store_test {

const char* name(Backend b) {
  return b == Backend::kSqlite ? "sqlite" : "postgres";
}

std::string postgres_unavailable() {
  if (!cvis::store::have_postgres())
    return "this build has no PostgreSQL back end (libpq not found)";
#if !defined(CVIS_TEST_LIBPQ)
  return "the tests were built without libpq";
#else
  if (const char* skip = std::getenv("CVIS_PG_SKIP"); skip && *skip)
    return skip;
  if (!std::getenv("CVIS_PG_URI"))
    return "no throw-away server (run the test through scripts/pg-scratch.sh run)";
  return "";
#endif
}

std::string pg_uri(const std::string& database, const std::string& user,
                   const std::string& password) {
  const char* host = std::getenv("CVIS_PG_HOST");
  const char* port = std::getenv("CVIS_PG_PORT");
  const char* super = std::getenv("CVIS_PG_USER");
  std::string who = user.empty() ? (super ? super : "cvis") : user;
  if (!password.empty())
    who += ":" + password;
  return "postgresql://" + who + "@/" + database + "?host=" + (host ? host : "") +
         "&port=" + (port ? port : "");
}

TempDir::TempDir() {
  char tmpl[] = "/tmp/cvis-store-test-XXXXXX";
  path_ = mkdtemp(tmpl) ? tmpl : "/tmp";
}

TempDir::~TempDir() {
  if (path_ != "/tmp")
    (void)!system(("rm -rf '" + path_ + "'").c_str());
}

namespace {

class SqliteDb final : public Db {
public:
  SqliteDb() { path_ = dir_.path() + "/index.db"; }
  std::string location() const override { return path_; }
  long long query_int(const std::string& sql) override {
    long long v = -1;
    for_rows(sql, [&](sqlite3_stmt* q) {
      v = sqlite3_column_int64(q, 0);
      return false;
    });
    return v;
  }
  std::vector<std::string> query_rows(const std::string& sql) override {
    std::vector<std::string> out;
    for_rows(sql, [&](sqlite3_stmt* q) {
      std::string row;
      for (int i = 0; i < sqlite3_column_count(q); ++i) {
        const unsigned char* t = sqlite3_column_text(q, i);
        row += (i ? "|" : "") + std::string(t ? reinterpret_cast<const char*>(t) : "");
      }
      out.push_back(row);
      return true;
    });
    return out;
  }
  bool exec(const std::string& sql) override {
    sqlite3* s = nullptr;
    bool ok = sqlite3_open(path_.c_str(), &s) == SQLITE_OK &&
              sqlite3_exec(s, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(s);
    return ok;
  }

private:
  template <typename F> void for_rows(const std::string& sql, F f) {
    sqlite3* s = nullptr;
    if (sqlite3_open_v2(path_.c_str(), &s, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
      sqlite3_busy_timeout(s, 10000);
      sqlite3_stmt* q = nullptr;
      if (sqlite3_prepare_v2(s, sql.c_str(), -1, &q, nullptr) == SQLITE_OK)
        while (sqlite3_step(q) == SQLITE_ROW && f(q)) {
        }
      sqlite3_finalize(q);
    }
    sqlite3_close(s);
  }
  TempDir dir_;
  std::string path_;
};

#if defined(CVIS_TEST_LIBPQ)
class PgDb final : public Db {
public:
  PgDb() {
    std::random_device rd;
    name_ = "t" + std::to_string(rd()) + std::to_string(getpid());
    ok_ = pg_exec("postgres", "CREATE DATABASE " + name_);
  }
  ~PgDb() override {
    if (ok_)
      pg_exec("postgres", "DROP DATABASE " + name_ + " WITH (FORCE)");
  }
  std::string location() const override { return pg_uri(name_); }
  long long query_int(const std::string& sql) override {
    auto rows = query_rows(sql);
    return rows.empty() || rows[0].empty() ? -1 : std::atoll(rows[0].c_str());
  }
  std::vector<std::string> query_rows(const std::string& sql) override {
    std::vector<std::string> out;
    PGconn* c = PQconnectdb(location().c_str());
    if (PQstatus(c) == CONNECTION_OK) {
      PGresult* r = PQexec(c, sql.c_str());
      if (PQresultStatus(r) == PGRES_TUPLES_OK)
        for (int i = 0; i < PQntuples(r); ++i) {
          std::string row;
          for (int j = 0; j < PQnfields(r); ++j)
            row += (j ? "|" : "") + std::string(PQgetvalue(r, i, j));
          out.push_back(row);
        }
      PQclear(r);
    }
    PQfinish(c);
    return out;
  }
  bool exec(const std::string& sql) override { return pg_exec(name_, sql); }

private:
  std::string name_;
  bool ok_ = false;
};
#endif

} // namespace

std::unique_ptr<Db> make_db(Backend b) {
#if defined(CVIS_TEST_LIBPQ)
  if (b == Backend::kPostgres)
    return std::make_unique<PgDb>();
#endif
  (void)b;
  return std::make_unique<SqliteDb>();
}

bool pg_exec(const std::string& db, const std::string& sql) {
#if defined(CVIS_TEST_LIBPQ)
  PGconn* c = PQconnectdb(pg_uri(db).c_str());
  bool ok = PQstatus(c) == CONNECTION_OK;
  PQsetNoticeProcessor(
      c, [](void*, const char*) {}, nullptr);
  if (ok) {
    PGresult* r = PQexec(c, sql.c_str());
    ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    PQclear(r);
  }
  PQfinish(c);
  return ok;
#else
  (void)db;
  (void)sql;
  return false;
#endif
}

bool pg_server(const char* what) {
  const char* ctl = std::getenv("CVIS_PG_CTL");
  return ctl && system((std::string("'") + ctl + "' " + what).c_str()) == 0;
}

} // namespace store_test

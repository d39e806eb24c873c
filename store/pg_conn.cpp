#include "pg_conn.hpp"

#include <cstring>

namespace cvis::store::pg {

namespace {

void no_notices(void*, const char*) {}

// libpq ends its messages with a newline (sometimes several lines): one line for ours, without
// the severity prefix.
std::string one_line(const char* msg) {
  std::string s = msg ? msg : "";
  for (const char* prefix : {"ERROR:  ", "FATAL:  "})
    if (s.compare(0, std::strlen(prefix), prefix) == 0)
      s.erase(0, std::strlen(prefix));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  for (char& c : s)
    if (c == '\n')
      c = ' ';
  return s;
}

bool transient_state(const char* sqlstate) {
  if (!sqlstate)
    return false;
  const std::string s = sqlstate;
  return s.compare(0, 2, "08") == 0    // connection exception
         || s.compare(0, 2, "53") == 0 // insufficient resources (disk full, connections)
         || s == "57P01" || s == "57P02" || s == "57P03" // admin / crash shutdown, cannot connect
         || s == "40001" || s == "40P01";                // serialisation failure, deadlock
}

} // namespace

Status Conn::connect() {
  close();
  // Ours first: whatever the location says comes later in the arrays and wins.
  const char* keys[] = {"connect_timeout",
                        "keepalives_idle",
                        "keepalives_interval",
                        "keepalives_count",
                        "tcp_user_timeout",
                        "fallback_application_name",
                        "dbname",
                        nullptr};
  const char* values[] = {"10",   "10", "5", "3", "30000", "cvis-store", loc_.target.c_str(),
                          nullptr};
  conn_ = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (!conn_)
    return io_error("cannot connect to '" + loc_.display + "': out of memory");
  if (PQstatus(conn_) != CONNECTION_OK) {
    Status st = io_error("cannot connect to '" + loc_.display +
                         "': " + loc_.scrub(one_line(PQerrorMessage(conn_))));
    close();
    return st;
  }
  PQsetNoticeProcessor(conn_, no_notices, nullptr);
  return Status::Ok();
}

void Conn::close() {
  if (conn_)
    PQfinish(conn_);
  conn_ = nullptr;
}

Status Conn::failure(const std::string& what, PGresult* res, bool* transient) const {
  const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  std::string msg = res ? one_line(PQresultErrorMessage(res)) : "";
  if (msg.empty())
    msg = one_line(conn_ ? PQerrorMessage(conn_) : "not connected");
  if (transient)
    *transient = bad() || transient_state(state);
  return io_error(what + " '" + loc_.display + "': " + loc_.scrub(msg));
}

Status Conn::exec(const std::string& sql, Result* out, bool* transient,
                  const std::vector<std::string>& params, int result_format) {
  if (transient)
    *transient = true;
  if (!conn_)
    return io_error("not connected to '" + loc_.display + "'");
  std::vector<const char*> p;
  for (const std::string& s : params)
    p.push_back(s.c_str());
  // Without parameters: the simple protocol, which also runs several statements (schema scripts).
  Result r(p.empty() && result_format == 0
               ? PQexec(conn_, sql.c_str())
               : PQexecParams(conn_, sql.c_str(), static_cast<int>(p.size()), nullptr, p.data(),
                              nullptr, nullptr, result_format));
  const ExecStatusType t = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (t != PGRES_COMMAND_OK && t != PGRES_TUPLES_OK)
    return failure("store", r.get(), transient);
  if (transient)
    *transient = false;
  if (out)
    *out = std::move(r);
  return Status::Ok();
}

Status Conn::copy_in(const std::string& sql, const std::string& data, bool* transient) {
  *transient = true;
  Result r(PQexec(conn_, sql.c_str()));
  if (!r || PQresultStatus(r.get()) != PGRES_COPY_IN)
    return failure("store", r.get(), transient);
  const size_t kChunk = 1 << 20;
  for (size_t off = 0; off < data.size(); off += kChunk) {
    const size_t n = std::min(kChunk, data.size() - off);
    if (PQputCopyData(conn_, data.data() + off, static_cast<int>(n)) != 1)
      return failure("store", nullptr, transient);
  }
  if (PQputCopyEnd(conn_, nullptr) != 1)
    return failure("store", nullptr, transient);
  r.reset(PQgetResult(conn_));
  Status st = Status::Ok();
  if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK)
    st = failure("store", r.get(), transient);
  // Drain whatever else comes (nothing, normally) so the connection is ready for the next query.
  while (PGresult* extra = PQgetResult(conn_))
    PQclear(extra);
  if (st.ok())
    *transient = false;
  return st;
}

std::string Conn::quote(const std::string& literal) const {
  char* q = conn_ ? PQescapeLiteral(conn_, literal.c_str(), literal.size()) : nullptr;
  std::string s = q ? q : "''";
  PQfreemem(q);
  return s;
}

void copy_text(std::string* out, const std::string& s) {
  for (char c : s) {
    switch (c) {
    case '\\':
      *out += "\\\\";
      break;
    case '\t':
      *out += "\\t";
      break;
    case '\n':
      *out += "\\n";
      break;
    case '\r':
      *out += "\\r";
      break;
    default:
      *out += c;
    }
  }
}

void copy_bytea(std::string* out, const uint8_t* p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  *out += "\\\\x";
  for (size_t i = 0; i < n; ++i) {
    *out += digits[p[i] >> 4];
    *out += digits[p[i] & 15];
  }
}

} // namespace cvis::store::pg

#include "pg_read.hpp"

#include <cstring>
#include <type_traits>

#include "backends.hpp"

namespace cvis::store::pg {

namespace {

// Binary COPY: a signature, flags and a header extension, then per row a field count and each
// field as a length (-1: NULL) and its bytes, big-endian; a field count of -1 ends the data.
constexpr char kSignature[] = "PGCOPY\n\377\r\n";
constexpr size_t kSignatureSize = 11; // including the final NUL byte

class Reader {
public:
  Reader(const char* p, size_t n) : p_(p), n_(n) {}
  bool take(void* out, size_t k) {
    if (n_ - pos_ < k)
      return false;
    std::memcpy(out, p_ + pos_, k);
    pos_ += k;
    return true;
  }
  template <typename T> bool be(T* v) {
    unsigned char b[sizeof(T)];
    if (!take(b, sizeof(T)))
      return false;
    using U = std::make_unsigned_t<T>;
    U x = 0;
    for (size_t i = 0; i < sizeof(T); ++i)
      x = static_cast<U>((x << 8) | b[i]);
    *v = static_cast<T>(x);
    return true;
  }
  // The next field: *len = -1 for NULL, else its bytes at *data.
  bool field(int32_t* len, const char** data) {
    if (!be(len))
      return false;
    if (*len < 0)
      return true;
    if (n_ - pos_ < static_cast<size_t>(*len))
      return false;
    *data = p_ + pos_;
    pos_ += static_cast<size_t>(*len);
    return true;
  }
  size_t pos() const { return pos_; }
  void skip(size_t k) { pos_ += k; }

private:
  const char* p_;
  size_t n_;
  size_t pos_ = 0;
};

template <typename T> T be_value(const char* d) {
  Reader r(d, sizeof(T));
  T v{};
  r.be(&v);
  return v;
}

std::string select_list(int version, bool levels_only) {
  if (levels_only)
    return "id::int8, levels::bytea";
  return std::string("stream::text, frame::int8, pts::int8, roi_id::int4, roi_type::text,"
                     " x::int4, y::int4, w::int4, h::int4, shot_change::int4,"
                     " distance::float8, levels::bytea, id::int8, ") +
         (version >= 2 ? "run_id::text, region::int4" : "''::text, 0::int4");
}

// One row's fields into `r`; false when the data is not what the SELECT asked for.
bool parse_row(Reader* in, bool levels_only, DescriptorRow* r) {
  int16_t fields = 0;
  if (!in->be(&fields) || fields != (levels_only ? 2 : 15))
    return false;
  int32_t len[15];
  const char* d[15] = {};
  for (int i = 0; i < fields; ++i)
    if (!in->field(&len[i], &d[i]))
      return false;
  const int lv = levels_only ? 1 : 11;
  if (!levels_ok(d[lv], len[lv] < 0 ? 0 : static_cast<size_t>(len[lv])))
    return false;
  std::memcpy(r->levels, d[lv], kLevels);
  if (levels_only) {
    r->id = be_value<int64_t>(d[0]);
    return len[0] == 8;
  }
  auto i32 = [&](int i, int32_t null_value) {
    return len[i] == 4 ? be_value<int32_t>(d[i]) : null_value;
  };
  auto i64 = [&](int i, int64_t null_value) {
    return len[i] == 8 ? be_value<int64_t>(d[i]) : null_value;
  };
  auto str = [&](int i) {
    return len[i] > 0 ? std::string(d[i], static_cast<size_t>(len[i])) : std::string();
  };
  r->key.stream = str(0);
  r->key.frame = i64(1, 0);
  r->pts = i64(2, -1);
  r->roi_id = i32(3, -1);
  r->roi_type = str(4);
  r->x = i32(5, 0);
  r->y = i32(6, 0);
  r->w = i32(7, 0);
  r->h = i32(8, 0);
  r->shot_change = i32(9, 0) != 0;
  if (len[10] == 8) {
    const int64_t bits = be_value<int64_t>(d[10]);
    std::memcpy(&r->distance, &bits, 8);
  } else {
    r->distance = -1.0;
  }
  r->id = i64(12, 0);
  r->key.run_id = str(13);
  r->key.region = i32(14, 0);
  return true;
}

} // namespace

Status read_descriptors(Conn* conn, int version, const Filter& f, int64_t after_id,
                        int64_t up_to_id, const std::vector<int64_t>& ids, bool levels_only,
                        const std::function<bool(const DescriptorRow&)>& fn) {
  if (conn->bad())
    return io_error("not connected to '" + conn->location().display + "'");
  std::string where;
  if (!ids.empty()) {
    for (int64_t id : ids)
      where += (where.empty() ? "id IN (" : ",") + std::to_string(id);
    where += ")";
  } else {
    where = "id > " + std::to_string(after_id);
    if (up_to_id >= 0)
      where += " AND id <= " + std::to_string(up_to_id);
    if (!f.stream.empty())
      where += " AND stream = " + conn->quote(f.stream);
    if (f.pts_from >= 0)
      where += " AND pts >= " + std::to_string(f.pts_from);
    if (f.pts_to >= 0)
      where += " AND pts <= " + std::to_string(f.pts_to);
    if (f.roi_type == "frame")
      where += " AND roi_id < 0";
    else if (!f.roi_type.empty())
      where += " AND roi_id >= 0 AND roi_type = " + conn->quote(f.roi_type);
  }
  const std::string sql = "COPY (SELECT " + select_list(version, levels_only) +
                          " FROM descriptors WHERE " + where +
                          " ORDER BY id) TO STDOUT (FORMAT binary)";
  Result res(PQexec(conn->get(), sql.c_str()));
  if (!res || PQresultStatus(res.get()) != PGRES_COPY_OUT)
    return conn->failure("cannot read", res.get(), nullptr);
  bool header = false, go_on = true, bad = false;
  DescriptorRow row;
  for (;;) {
    char* buf = nullptr;
    const int n = PQgetCopyData(conn->get(), &buf, 0);
    if (n < 0)
      break; // -1: done, -2: error (the result below says which)
    Reader in(buf, static_cast<size_t>(n));
    if (!header) {
      char sig[kSignatureSize];
      uint32_t flags = 0, ext = 0;
      bad = !in.take(sig, kSignatureSize) || std::memcmp(sig, kSignature, kSignatureSize) != 0 ||
            !in.be(&flags) || !in.be(&ext);
      in.skip(ext);
      header = true;
    }
    int16_t end = 0;
    if (!bad && go_on && static_cast<size_t>(n) - in.pos() == 2 &&
        Reader(buf + in.pos(), 2).be(&end) && end == -1) {
      // the trailer
    } else if (!bad && go_on) {
      if (!parse_row(&in, levels_only, &row))
        bad = true;
      else
        go_on = fn(row);
    }
    PQfreemem(buf);
  }
  res.reset(PQgetResult(conn->get()));
  Status st = Status::Ok();
  if (!res || PQresultStatus(res.get()) != PGRES_COMMAND_OK)
    st = conn->failure("cannot read", res.get(), nullptr);
  while (PGresult* extra = PQgetResult(conn->get()))
    PQclear(extra);
  if (st.ok() && bad)
    st = io_error("store '" + conn->location().display + "': a descriptor row is not as expected");
  return st;
}

} // namespace cvis::store::pg

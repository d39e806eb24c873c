#include "location.hpp"

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace cvis::store {

namespace {

bool starts_with_ci(const std::string& s, const char* prefix) {
  const size_t n = std::strlen(prefix);
  if (s.size() < n)
    return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i])
      return false;
  return true;
}

bool is_uri(const std::string& s) {
  return starts_with_ci(s, "postgresql://") || starts_with_ci(s, "postgres://");
}

// libpq's connection keywords (PostgreSQL 15 and 17). A string that starts with one of them
// followed by '=' is a connection string; anything else is a file path.
const char* const kKeywords[] = {"host",
                                 "hostaddr",
                                 "port",
                                 "dbname",
                                 "user",
                                 "password",
                                 "passfile",
                                 "channel_binding",
                                 "connect_timeout",
                                 "client_encoding",
                                 "options",
                                 "application_name",
                                 "fallback_application_name",
                                 "keepalives",
                                 "keepalives_idle",
                                 "keepalives_interval",
                                 "keepalives_count",
                                 "tcp_user_timeout",
                                 "replication",
                                 "gssencmode",
                                 "sslmode",
                                 "requiressl",
                                 "sslcompression",
                                 "sslcert",
                                 "sslkey",
                                 "sslpassword",
                                 "sslcertmode",
                                 "sslrootcert",
                                 "sslcrl",
                                 "sslcrldir",
                                 "sslsni",
                                 "requirepeer",
                                 "ssl_min_protocol_version",
                                 "ssl_max_protocol_version",
                                 "krbsrvname",
                                 "gsslib",
                                 "gssdelegation",
                                 "service",
                                 "target_session_attrs",
                                 "load_balance_hosts",
                                 "require_auth",
                                 "sslnegotiation"};

bool is_conninfo(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
    ++i;
  size_t j = i;
  while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_'))
    ++j;
  const std::string word = s.substr(i, j - i);
  while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j])))
    ++j;
  if (j >= s.size() || s[j] != '=')
    return false;
  for (const char* k : kKeywords)
    if (word == k)
      return true;
  return false;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

std::string percent_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const int hi = hex_value(s[i + 1]);
      const int lo = hex_value(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

// URI: scheme://[user[:password]@][hosts][/dbname][?name=value&...]
std::string redact_uri(const std::string& uri, std::string* password, std::string* raw) {
  const size_t start = uri.find("://") + 3;
  size_t auth_end = uri.find_first_of("/?", start);
  if (auth_end == std::string::npos)
    auth_end = uri.size();
  std::string out = uri.substr(0, start);
  const std::string authority = uri.substr(start, auth_end - start);
  const size_t at = authority.rfind('@');
  if (at != std::string::npos) {
    const std::string userinfo = authority.substr(0, at);
    const size_t colon = userinfo.find(':');
    if (colon != std::string::npos) {
      *raw = userinfo.substr(colon + 1);
      *password = percent_decode(*raw);
      out += userinfo.substr(0, colon) + authority.substr(at);
    } else {
      out += authority;
    }
  } else {
    out += authority;
  }
  const size_t q = uri.find('?', auth_end);
  out += uri.substr(auth_end, (q == std::string::npos ? uri.size() : q) - auth_end);
  if (q == std::string::npos)
    return out;
  std::string kept;
  size_t p = q + 1;
  while (p <= uri.size()) {
    size_t amp = uri.find('&', p);
    if (amp == std::string::npos)
      amp = uri.size();
    const std::string param = uri.substr(p, amp - p);
    if (param.compare(0, 9, "password=") == 0) {
      *raw = param.substr(9);
      *password = percent_decode(*raw);
    } else if (!param.empty()) {
      kept += (kept.empty() ? "?" : "&") + param;
    }
    p = amp + 1;
  }
  return out + kept;
}

// key=value words; values may be single-quoted with backslash escapes.
std::string redact_words(const std::string& s, std::string* password) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
      ++i;
    if (i >= s.size())
      break;
    const size_t word_start = i;
    while (i < s.size() && s[i] != '=' && !std::isspace(static_cast<unsigned char>(s[i])))
      ++i;
    const std::string key = s.substr(word_start, i - word_start);
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
      ++i;
    if (i < s.size() && s[i] == '=')
      ++i;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
      ++i;
    std::string value;
    if (i < s.size() && s[i] == '\'') {
      ++i;
      while (i < s.size() && s[i] != '\'') {
        if (s[i] == '\\' && i + 1 < s.size())
          ++i;
        value += s[i++];
      }
      ++i; // closing quote
    } else {
      while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) {
        if (s[i] == '\\' && i + 1 < s.size())
          ++i;
        value += s[i++];
      }
    }
    const std::string raw = s.substr(word_start, i - word_start);
    if (key == "password") {
      *password = value;
      continue;
    }
    out += (out.empty() ? "" : " ") + raw;
  }
  return out;
}

// The redacted text; `*password` the password as libpq reads it, `*raw` as spelled in the text.
std::string redact(const std::string& conninfo, std::string* password, std::string* raw) {
  std::string out = conninfo;
  if (is_uri(conninfo)) {
    out = redact_uri(conninfo, password, raw);
  } else if (is_conninfo(conninfo)) {
    out = redact_words(conninfo, password);
    *raw = *password;
  }
  return out;
}

} // namespace

std::string redact_conninfo(const std::string& conninfo, std::string* password) {
  std::string pw, raw;
  const std::string out = redact(conninfo, &pw, &raw);
  if (password)
    *password = pw;
  return out;
}

std::string Location::scrub(std::string text) const {
  for (const std::string& s : secrets) {
    // One-character passwords are not scrubbed: they would mangle every message.
    if (s.size() < 2)
      continue;
    for (size_t p = text.find(s); p != std::string::npos; p = text.find(s, p + 3))
      text.replace(p, s.size(), "***");
  }
  return text;
}

Status parse_location(const std::string& text, Location* out) {
  *out = Location();
  size_t first = 0;
  while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first])))
    ++first;
  if (first == text.size())
    return invalid_argument("empty store location");
  if (!is_uri(text) && !is_conninfo(text)) {
    out->kind = Kind::kSqlite;
    out->target = text;
    out->display = text;
    return Status::Ok();
  }
  out->kind = Kind::kPostgres;
  out->target = text;
  std::string pw, raw;
  out->display = redact(text, &pw, &raw);
  if (!pw.empty())
    out->secrets.push_back(pw);
  if (!raw.empty() && raw != pw)
    out->secrets.push_back(raw);
  if (const char* env = std::getenv("PGPASSWORD"); env && *env)
    out->secrets.push_back(env);
  return Status::Ok();
}

} // namespace cvis::store

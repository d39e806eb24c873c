#include "cedd-format.h"

#include <cstdio>
#include <cstdlib>

namespace cvis::tool {

std::string hex(const uint8_t* bytes, size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; i++) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
  return out;
}

std::string json_string(const std::string& text) {
  // File names need not be UTF-8; JSON must be.
  gchar* valid = g_utf8_make_valid(text.c_str(), static_cast<gssize>(text.size()));
  std::string out = "\"";
  for (const char* p = valid; *p; p++) {
    const unsigned char c = static_cast<unsigned char>(*p);
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  g_free(valid);
  return out + "\"";
}

std::string format_time(GstClockTime pts) {
  if (!GST_CLOCK_TIME_IS_VALID(pts))
    return "-";
  char buf[64];
  snprintf(buf, sizeof buf, "%" GST_TIME_FORMAT, GST_TIME_ARGS(pts));
  return buf;
}

std::string format_double(double v) {
  // g_ascii_*: a '.' whatever LC_NUMERIC says.
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (int precision = 6; precision <= 17; precision++) {
    char format[8];
    snprintf(format, sizeof format, "%%.%dg", precision);
    g_ascii_formatd(buf, sizeof buf, format, v);
    if (g_ascii_strtod(buf, nullptr) == v)
      break;
  }
  return buf;
}

bool parse_time(const char* text, int64_t* ns) {
  // g_ascii_strtod: a '.' whatever LC_NUMERIC says.
  double total = 0.0;
  const char* p = text;
  for (int field = 0; field < 3; ++field) {
    char* end = nullptr;
    const double v = g_ascii_strtod(p, &end);
    if (end == p || v < 0)
      return false;
    total = total * 60.0 + v;
    if (*end == '\0') {
      *ns = static_cast<int64_t>(total * 1e9 + 0.5);
      return true;
    }
    if (*end != ':' || v != static_cast<double>(static_cast<int64_t>(v)))
      return false;
    p = end + 1;
  }
  return false;
}

} // namespace cvis::tool

/* cvis-cedd: text and JSON formatting helpers. */
#pragma once

#include <gst/gst.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace cvis::tool {

// Lower-case hex of `n` bytes.
std::string hex(const uint8_t* bytes, size_t n);

// A JSON string literal (quoted, escaped) of UTF-8 text; invalid bytes become U+FFFD.
std::string json_string(const std::string& text);

// "h:mm:ss.nnnnnnnnn", or "-" when `pts` is GST_CLOCK_TIME_NONE.
std::string format_time(GstClockTime pts);

// Shortest decimal text that reads back as the same double (JSON-safe for finite values), with a
// decimal point in every locale.
std::string format_double(double v);

// A stream time: seconds ("12.5") or h:mm:ss[.fff] ("0:01:02.5"), into nanoseconds. False when
// `text` is neither.
bool parse_time(const char* text, int64_t* ns);

} // namespace cvis::tool

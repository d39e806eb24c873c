// Status: the error type of the algorithm libraries under cuda/.
//
// No exception crosses a cuda/ interface: every fallible call returns a Status. The GStreamer layer
// maps the code to an element error once (gst/common/gstcvisfilter.cpp).
#pragma once

#include <string>
#include <utility>

namespace cvis {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,    // bad parameter value (a setting), bad view geometry
  kUnsupportedFormat,  // pixel format / memory space the method cannot take
  kNoDevice,           // CUDA requested but no usable device or driver
  kCudaError,          // a CUDA call or kernel launch failed
  kOutOfMemory,        // host or device allocation failed
  kIoError,            // file / database could not be read or written
  kInternal,           // a bug: an invariant did not hold
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "invalid-argument: width must be > 0" (for logs and tests).
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

const char* status_code_name(StatusCode code);

inline Status invalid_argument(std::string msg) {
  return Status(StatusCode::kInvalidArgument, std::move(msg));
}
inline Status unsupported_format(std::string msg) {
  return Status(StatusCode::kUnsupportedFormat, std::move(msg));
}
inline Status io_error(std::string msg) { return Status(StatusCode::kIoError, std::move(msg)); }
inline Status internal_error(std::string msg) {
  return Status(StatusCode::kInternal, std::move(msg));
}

}  // namespace cvis

// Returns from the enclosing function when `expr` yields a non-OK Status.
#define CVIS_RETURN_IF_ERROR(expr)         \
  do {                                     \
    ::cvis::Status cvis_status_ = (expr);  \
    if (!cvis_status_.ok()) return cvis_status_; \
  } while (0)

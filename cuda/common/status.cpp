#include "status.hpp"

namespace cvis {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid-argument";
    case StatusCode::kUnsupportedFormat: return "unsupported-format";
    case StatusCode::kNoDevice: return "no-device";
    case StatusCode::kCudaError: return "cuda-error";
    case StatusCode::kOutOfMemory: return "out-of-memory";
    case StatusCode::kIoError: return "io-error";
    case StatusCode::kInternal: return "internal";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  return std::string(status_code_name(code_)) + ": " + message_;
}

}  // namespace cvis

// Little-endian writer and bounds-checked reader of the dictionary file (FORMAT.md), shared by its
// parts (actionlearn_dict.cpp: header and models; actionlearn_dict_ridge.cpp: the classifier).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace cvis::actionlearn::io {

class Writer {
public:
  explicit Writer(std::vector<uint8_t>* out) : out_(out) {}
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      out_->push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      out_->push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void f32(float v) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    u32(b);
  }
  void f64(double v) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    u64(b);
  }
  void bytes(const std::string& s) { out_->insert(out_->end(), s.begin(), s.end()); }

private:
  std::vector<uint8_t>* out_;
};

class Reader {
public:
  Reader(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  size_t pos() const { return pos_; }
  size_t left() const { return n_ - pos_; }
  // A truncation error for `what` when fewer than `k` bytes are left.
  Status need(size_t k, const std::string& what) const {
    if (k <= left())
      return Status::Ok();
    return io_error("truncated: " + what + " needs " + std::to_string(k) + " bytes at offset " +
                    std::to_string(pos_) + ", " + std::to_string(left()) + " left");
  }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v |= static_cast<uint32_t>(p_[pos_ + i]) << (8 * i);
    pos_ += 4;
    return v;
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= static_cast<uint64_t>(p_[pos_ + i]) << (8 * i);
    pos_ += 8;
    return v;
  }
  float f32() {
    const uint32_t b = u32();
    float v;
    std::memcpy(&v, &b, 4);
    return v;
  }
  double f64() {
    const uint64_t b = u64();
    double v;
    std::memcpy(&v, &b, 8);
    return v;
  }
  std::string str(size_t k) {
    std::string s(reinterpret_cast<const char*>(p_ + pos_), k);
    pos_ += k;
    return s;
  }

private:
  const uint8_t* p_;
  size_t n_, pos_ = 0;
};

} // namespace cvis::actionlearn::io

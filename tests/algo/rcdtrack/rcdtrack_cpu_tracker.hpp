// The rcdtrack cpu tests' tracker: the CPU reference configured for w x h RGBA frames (a failure to
// make or configure it is a test failure).
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "rcdtrack.hpp"

namespace cvis::rcdtrack::test {

inline std::unique_ptr<Tracker> cpu_tracker(const Params& p, int w, int h) {
  Status st;
  auto t = make_tracker(Backend::kCpu, &st);
  EXPECT_TRUE(t && t->configure(p, w, h, PixelFormat::kRGBA).ok());
  return t;
}

} // namespace cvis::rcdtrack::test

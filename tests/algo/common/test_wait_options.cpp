// cvis::WaitOptions (cuda/common/backend.hpp): the defaults the elements run with, a round trip,
// and invalid options refused with the options in force kept. Process-wide state: each test
// restores the defaults.
#include <gtest/gtest.h>

#include "common/backend.hpp"

namespace {

using cvis::WaitOptions;
using cvis::WaitPolicy;

class WaitOptionsTest : public ::testing::Test {
protected:
  void TearDown() override { ASSERT_TRUE(cvis::set_wait_options(WaitOptions()).ok()); }
};

TEST_F(WaitOptionsTest, DefaultsAreTheHybridWaitWith300To1000Microseconds) {
  const WaitOptions w = cvis::wait_options();
  EXPECT_EQ(w.policy, WaitPolicy::kHybrid);
  EXPECT_EQ(w.poll_us, 300);
  EXPECT_EQ(w.poll_max_us, 1000);
}

TEST_F(WaitOptionsTest, SetOptionsAreRead) {
  for (WaitPolicy p : {WaitPolicy::kBlock, WaitPolicy::kSpin, WaitPolicy::kHybrid}) {
    WaitOptions w;
    w.policy = p;
    w.poll_us = 40 + static_cast<int>(p);
    w.poll_max_us = 700 + static_cast<int>(p);
    ASSERT_TRUE(cvis::set_wait_options(w).ok());
    EXPECT_EQ(cvis::wait_options().policy, p);
    EXPECT_EQ(cvis::wait_options().poll_us, w.poll_us);
    EXPECT_EQ(cvis::wait_options().poll_max_us, w.poll_max_us);
  }
  WaitOptions zero;
  zero.poll_us = 0; // hybrid without polling: sleeps at once
  zero.poll_max_us = 0;
  EXPECT_TRUE(cvis::set_wait_options(zero).ok());
  EXPECT_EQ(cvis::wait_options().poll_us, 0);
  EXPECT_EQ(cvis::wait_options().poll_max_us, 0);
}

TEST_F(WaitOptionsTest, InvalidOptionsAreRefusedAndTheOldOnesKept) {
  WaitOptions spin;
  spin.policy = WaitPolicy::kSpin;
  spin.poll_us = 50;
  ASSERT_TRUE(cvis::set_wait_options(spin).ok());
  WaitOptions negative;
  negative.poll_us = -1;
  EXPECT_EQ(cvis::set_wait_options(negative).code(), cvis::StatusCode::kInvalidArgument);
  WaitOptions negative_max;
  negative_max.poll_max_us = -1;
  EXPECT_EQ(cvis::set_wait_options(negative_max).code(), cvis::StatusCode::kInvalidArgument);
  WaitOptions unknown;
  unknown.policy = static_cast<WaitPolicy>(7);
  EXPECT_EQ(cvis::set_wait_options(unknown).code(), cvis::StatusCode::kInvalidArgument);
  EXPECT_EQ(cvis::wait_options().policy, WaitPolicy::kSpin);
  EXPECT_EQ(cvis::wait_options().poll_us, 50);
  EXPECT_EQ(cvis::wait_options().poll_max_us, 1000);
}

} // namespace

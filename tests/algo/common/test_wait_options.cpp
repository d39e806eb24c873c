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

// A stream whose recent waits were short is polled a quarter longer than them (plus 50 us), within
// [poll_us, poll_max_us]; one with long waits, or none yet, polls poll_us.
TEST_F(WaitOptionsTest, PollCoversRecentWaitsUnderTheBound) {
  const WaitOptions w; // 300, 1000
  EXPECT_EQ(cvis::hybrid_poll_us(w, -1), 300);
  EXPECT_EQ(cvis::hybrid_poll_us(w, 0), 300);
  EXPECT_EQ(cvis::hybrid_poll_us(w, 200), 300);
  EXPECT_EQ(cvis::hybrid_poll_us(w, 400), 550);
  EXPECT_EQ(cvis::hybrid_poll_us(w, 480), 650);
  EXPECT_EQ(cvis::hybrid_poll_us(w, 900), 1000);
  EXPECT_EQ(cvis::hybrid_poll_us(w, 1000), 1000);
  EXPECT_EQ(cvis::hybrid_poll_us(w, 1001), 300);
  EXPECT_EQ(cvis::hybrid_poll_us(w, 40000), 300);
  WaitOptions fixed;
  fixed.poll_max_us = 0; // the fixed poll
  EXPECT_EQ(cvis::hybrid_poll_us(fixed, 480), 300);
  EXPECT_EQ(cvis::hybrid_poll_us(fixed, 0), 300);
}

// The figure follows longer waits at once and shorter ones by an eighth a wait: the base class's
// second sync (a few microseconds) after each frame's long wait leaves the frame's figure nearly
// whole, so the next frame's wait is polled through.
TEST_F(WaitOptionsTest, ShortWaitsLowerTheFigureSlowly) {
  EXPECT_EQ(cvis::recent_wait_us(-1, 480), 480);
  EXPECT_EQ(cvis::recent_wait_us(480, 5), 420);
  EXPECT_EQ(cvis::recent_wait_us(420, 480), 480);
  EXPECT_EQ(cvis::recent_wait_us(480, 2000), 2000);
  int64_t figure = 480;
  for (int frame = 0; frame < 50; ++frame) {
    figure = cvis::recent_wait_us(figure, 480); // the library's wait
    EXPECT_GE(cvis::hybrid_poll_us(WaitOptions(), figure), 480);
    figure = cvis::recent_wait_us(figure, 5); // the base class's second sync
  }
  for (int k = 0; k < 60; ++k) // only short waits from now on: the figure falls to them
    figure = cvis::recent_wait_us(figure, 5);
  EXPECT_EQ(figure, 5);
}

} // namespace

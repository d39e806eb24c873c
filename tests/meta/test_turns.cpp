// GPU turns (gst/cvis/cvisturns.h): the default limit, the limit holds, waiting frames get slots
// in the order they asked, and lifting the limit admits every waiter. Threads only: no GPU.
#include <gst/cvis/cvisturns.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;

// Waits until `pred` holds (at most 5 s: the test fails, rather than hangs, on a lost wake-up).
template <typename P> bool eventually(P pred) {
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > until)
      return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(GpuTurns, DefaultLimitZeroLiftsItAndOutOfRangeDevicesIgnored) {
  EXPECT_EQ(gst_cvis_gpu_turns_get_slots(0), GST_CVIS_GPU_TURNS_DEFAULT_SLOTS);
  EXPECT_EQ(gst_cvis_gpu_turns_get_slots(15), 24u);
  for (int i = 0; i < 24; ++i)
    EXPECT_TRUE(gst_cvis_gpu_turn_acquire(0));
  std::atomic<bool> got{false};
  std::thread t25([&] {
    EXPECT_TRUE(gst_cvis_gpu_turn_acquire(0)); // the 25th waits
    got = true;
    gst_cvis_gpu_turn_release(0);
  });
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(got.load());
  gst_cvis_gpu_turn_release(0);
  EXPECT_TRUE(eventually([&] { return got.load(); }));
  t25.join();
  for (int i = 0; i < 23; ++i)
    gst_cvis_gpu_turn_release(0);
  gst_cvis_gpu_turns_set_slots(0, 0);
  EXPECT_EQ(gst_cvis_gpu_turns_get_slots(0), 0u);
  EXPECT_FALSE(gst_cvis_gpu_turn_acquire(0)); // no limit: nothing to give back
  gst_cvis_gpu_turns_set_slots(16, 3);
  gst_cvis_gpu_turns_set_slots(-1, 3);
  EXPECT_EQ(gst_cvis_gpu_turns_get_slots(16), 0u);
  EXPECT_EQ(gst_cvis_gpu_turns_get_slots(-1), 0u);
  EXPECT_FALSE(gst_cvis_gpu_turn_acquire(16));
  gst_cvis_gpu_turn_release(16); // harmless
}

// Eight threads ask one after another while both slots are held; then one slot is given back and
// goes round (the other stays held): they get it in the order they asked.
TEST(GpuTurns, WaitersAreServedFirstComeFirstServed) {
  const int dev = 1;
  gst_cvis_gpu_turns_set_slots(dev, 2);
  ASSERT_TRUE(gst_cvis_gpu_turn_acquire(dev));
  ASSERT_TRUE(gst_cvis_gpu_turn_acquire(dev));
  std::mutex m;
  std::vector<int> order;
  std::atomic<int> inside{2}, most{2}, asked{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      asked++;
      ASSERT_TRUE(gst_cvis_gpu_turn_acquire(dev));
      const int now = ++inside;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      {
        std::lock_guard<std::mutex> lk(m);
        order.push_back(i);
      }
      std::this_thread::sleep_for(2ms);
      --inside;
      gst_cvis_gpu_turn_release(dev);
    });
    // The next thread asks only once this one waits (asked, and no slot free).
    ASSERT_TRUE(eventually([&] { return asked.load() == i + 1; }));
    std::this_thread::sleep_for(5ms);
  }
  --inside;
  gst_cvis_gpu_turn_release(dev);
  for (auto& t : threads)
    t.join();
  --inside;
  gst_cvis_gpu_turn_release(dev);
  EXPECT_EQ(order, std::vector<int>({0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_LE(most.load(), 2);
  gst_cvis_gpu_turns_set_slots(dev, 0);
}

// Many threads taking turns at random: the limit is never exceeded and every turn ends.
TEST(GpuTurns, LimitHoldsUnderContention) {
  const int dev = 2;
  const unsigned slots = 3;
  gst_cvis_gpu_turns_set_slots(dev, slots);
  std::atomic<int> inside{0}, most{0}, done{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 12; ++i) {
    threads.emplace_back([&, i] {
      std::mt19937 rng(1000 + i);
      for (int k = 0; k < 200; ++k) {
        ASSERT_TRUE(gst_cvis_gpu_turn_acquire(dev));
        const int now = ++inside;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 50));
        --inside;
        gst_cvis_gpu_turn_release(dev);
        done++;
      }
    });
  }
  for (auto& t : threads)
    t.join();
  EXPECT_EQ(done.load(), 12 * 200);
  EXPECT_LE(most.load(), static_cast<int>(slots));
  EXPECT_GE(most.load(), 2) << "threads should have overlapped";
  gst_cvis_gpu_turns_set_slots(dev, 0);
}

// Waiters blocked behind a full device all go when the limit is lifted (0) or raised.
TEST(GpuTurns, LiftingTheLimitAdmitsEveryWaiter) {
  const int dev = 3;
  gst_cvis_gpu_turns_set_slots(dev, 1);
  ASSERT_TRUE(gst_cvis_gpu_turn_acquire(dev));
  std::atomic<int> in{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] {
      const gboolean held = gst_cvis_gpu_turn_acquire(dev);
      in++;
      if (held)
        gst_cvis_gpu_turn_release(dev);
    });
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(in.load(), 0);
  gst_cvis_gpu_turns_set_slots(dev, 3); // two more slots: two waiters go (and release: the rest)
  EXPECT_TRUE(eventually([&] { return in.load() == 4; }));
  for (auto& t : threads)
    t.join();
  gst_cvis_gpu_turn_release(dev);
  ASSERT_TRUE(gst_cvis_gpu_turn_acquire(dev));
  std::thread late([&] {
    if (gst_cvis_gpu_turn_acquire(dev))
      gst_cvis_gpu_turn_release(dev);
    in++;
  });
  std::this_thread::sleep_for(5ms);
  gst_cvis_gpu_turns_set_slots(dev, 0);
  EXPECT_TRUE(eventually([&] { return in.load() == 5; }));
  late.join();
  gst_cvis_gpu_turn_release(dev);
}

} // namespace

#include "kernels/optimized/threadpool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace ptec::kernels::optimized {
namespace {

class ThreadPoolTest : public ::testing::Test {
 protected:
  void TearDown() override { set_num_threads(0); }
};

TEST_F(ThreadPoolTest, DefaultIsOneThreadPerCoreAndZeroRestoresIt) {
  set_num_threads(0);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(num_threads(), cores);
  set_num_threads(3);
  EXPECT_EQ(num_threads(), 3);
  set_num_threads(0);
  EXPECT_EQ(num_threads(), cores);
}

TEST_F(ThreadPoolTest, EveryIndexRunsExactlyOnceOnSeveralThreads) {
  set_num_threads(4);
  std::vector<std::atomic<int>> hits(1000);
  std::mutex mu;
  std::set<std::thread::id> ids;
  parallel_for(1000, [&](int64_t i) {
    hits[static_cast<size_t>(i)].fetch_add(1);
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  for (const auto& h : hits) ASSERT_EQ(h.load(), 1);
  EXPECT_GE(ids.size(), 1u);
  EXPECT_LE(ids.size(), 4u);
}

TEST_F(ThreadPoolTest, OneThreadRunsOnTheCaller) {
  set_num_threads(1);
  const auto caller = std::this_thread::get_id();
  bool elsewhere = false;
  parallel_for(100, [&](int64_t) { elsewhere |= std::this_thread::get_id() != caller; });
  EXPECT_FALSE(elsewhere);
}

TEST_F(ThreadPoolTest, NestedRegionsRunSeriallyInsideTheOuterItem) {
  set_num_threads(2);
  std::atomic<int> total{0};
  parallel_for(8, [&](int64_t) {
    const auto outer = std::this_thread::get_id();
    parallel_for(10, [&](int64_t) {
      EXPECT_EQ(std::this_thread::get_id(), outer);
      total.fetch_add(1);
    });
  });
  EXPECT_EQ(total.load(), 80);
}

}  // namespace
}  // namespace ptec::kernels::optimized

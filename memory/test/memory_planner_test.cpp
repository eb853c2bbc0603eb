#include <gtest/gtest.h>

#include "ir/exception.h"
#include "memory/greedy_planner.h"
#include "memory/naive_planner.h"
#include "memory/verify_plan.h"

namespace ptec::memory {
namespace {

TensorLifetime tensor(const std::string& name, uint64_t nbytes, int64_t first, int64_t last) {
  TensorLifetime t;
  t.name = name;
  t.nbytes = nbytes;
  t.first = first;
  t.last = last;
  return t;
}

// x → t1 → t2 → t3 → t4 → out: each intermediate dies once the next one is computed.
std::vector<TensorLifetime> chain() {
  return {tensor("x", 64, 0, 6),  tensor("t1", 64, 1, 2), tensor("t2", 64, 2, 3),
          tensor("t3", 64, 3, 4), tensor("t4", 64, 4, 5), tensor("out", 64, 5, 6)};
}

TEST(GreedyPlanner, UsesLessMemoryThanNaiveOnAChain) {
  const MemoryPlan greedy = GreedyPlanner().plan(chain(), 16);
  const MemoryPlan naive = NaivePlanner().plan(chain(), 16);
  EXPECT_TRUE(verify_plan(greedy).empty());
  EXPECT_TRUE(verify_plan(naive).empty());
  EXPECT_EQ(naive.buffer_sizes, (std::vector<uint64_t>{0, 6 * 64}));
  // x lives throughout; at most two intermediates (producer and consumer) are live at once.
  EXPECT_EQ(greedy.buffer_sizes, (std::vector<uint64_t>{0, 3 * 64}));
  EXPECT_LT(greedy.total_bytes(), naive.total_bytes());
  EXPECT_EQ(greedy.planner, "greedy");
  EXPECT_EQ(naive.planner, "naive");
}

TEST(GreedyPlanner, BestFitReusesTheSmallestGapThatFits) {
  // Largest first: A@0, B@256, C@384, D@480, E@528. B and D die at 1, leaving gaps of 128 and
  // 48 bytes between the long-lived A, C and E. F (32 B, defined at 2) fits in both: best fit
  // takes the 48-byte gap (first fit would take the 128-byte one).
  std::vector<TensorLifetime> ts = {tensor("A", 256, 0, 9), tensor("B", 128, 0, 1),
                                    tensor("C", 96, 0, 9),  tensor("D", 48, 0, 1),
                                    tensor("E", 40, 0, 9),  tensor("F", 32, 2, 3)};
  const MemoryPlan plan = GreedyPlanner().plan(ts, 16);
  ASSERT_TRUE(verify_plan(plan).empty());
  std::vector<uint64_t> offsets;
  for (const Allocation& a : plan.allocations) offsets.push_back(a.offset);
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 256, 384, 480, 528, 480}));
  EXPECT_EQ(plan.buffer_sizes, (std::vector<uint64_t>{0, 576}));  // 568 rounded up to 16
}

TEST(Planners, OffsetsAreAligned) {
  std::vector<TensorLifetime> ts = {tensor("a", 3, 0, 9), tensor("b", 5, 0, 9),
                                    tensor("c", 17, 0, 9), tensor("d", 1, 0, 9)};
  for (uint64_t alignment : {1u, 16u, 64u}) {
    for (const MemoryPlan& plan :
         {GreedyPlanner().plan(ts, alignment), NaivePlanner().plan(ts, alignment)}) {
      EXPECT_TRUE(verify_plan(plan).empty()) << plan.planner << " " << alignment;
      for (const Allocation& a : plan.allocations) {
        EXPECT_EQ(a.offset % alignment, 0u) << plan.planner << " alignment " << alignment;
        EXPECT_EQ(a.memory_id, 1u);
      }
    }
  }
  // All four live at once with 16-byte alignment: 16 + 16 + 32 + 1 bytes, rounded up to 16.
  EXPECT_EQ(GreedyPlanner().plan(ts, 16).buffer_sizes[1], 80u);
}

TEST(Planners, RejectAlignmentThatIsNotAPowerOfTwo) {
  EXPECT_THROW(GreedyPlanner().plan(chain(), 24), Exception);
  EXPECT_THROW(NaivePlanner().plan(chain(), 0), Exception);
  EXPECT_THROW(make_planner("fancy"), Exception);
  EXPECT_EQ(make_planner("greedy")->name(), "greedy");
}

TEST(VerifyPlan, CatchesOverlappingLiveTensors) {
  MemoryPlan plan = GreedyPlanner().plan(chain(), 16);
  ASSERT_TRUE(verify_plan(plan).empty());
  // Put t2 on top of the input x, which is live for the whole method.
  plan.allocations[2] = plan.allocations[0];
  const std::vector<std::string> problems = verify_plan(plan);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("tensors x"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("and t2"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("overlap"), std::string::npos) << problems[0];
}

TEST(VerifyPlan, ReportsEveryProblem) {
  MemoryPlan plan = NaivePlanner().plan(chain(), 16);
  plan.allocations[0].offset = 8;      // misaligned, and overlaps t1 (x is always live)
  plan.allocations[5].offset = 10000;  // outside the arena
  plan.allocations[3].memory_id = 0;   // memory ids are 1-based
  plan.buffer_sizes[0] = 7;            // the placeholder must stay 0
  const std::vector<std::string> problems = verify_plan(plan);
  auto mentions = [&](const std::string& what) {
    for (const std::string& p : problems) {
      if (p.find(what) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(mentions("buffer_sizes[0]"));
  EXPECT_TRUE(mentions("tensor x: offset 8 is not a multiple of 16"));
  EXPECT_TRUE(mentions("tensor out: bytes [10000"));
  EXPECT_TRUE(mentions("tensor t3: memory_id 0"));
  EXPECT_TRUE(mentions("tensors x"));
  EXPECT_GE(problems.size(), 5u);
}

TEST(VerifyPlan, TensorsThatAreNeverLiveTogetherMayShare) {
  MemoryPlan plan = NaivePlanner().plan({tensor("a", 64, 0, 1), tensor("b", 64, 2, 3)}, 16);
  plan.allocations[1] = plan.allocations[0];
  EXPECT_TRUE(verify_plan(plan).empty());
  // Same position counts as live together (an out-variant kernel reads and writes at once).
  plan.tensors[1].first = 1;
  EXPECT_EQ(verify_plan(plan).size(), 1u);
}

}  // namespace
}  // namespace ptec::memory

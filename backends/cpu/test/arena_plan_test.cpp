// plan_arena: tensors live at the same time never share bytes; tensors that are not do.

#include "backends/cpu/runtime/arena_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace ptec::backends::cpu {
namespace {

size_t plan(std::vector<ArenaTensor>& tensors, size_t alignment = 64) {
  std::vector<uint32_t> scratch(2 * tensors.size() + 1);
  return plan_arena(tensors.data(), static_cast<uint32_t>(tensors.size()), alignment,
                    scratch.data());
}

// Every pair live at the same time occupies disjoint bytes; every tensor lies inside the arena.
void expect_valid(const std::vector<ArenaTensor>& tensors, size_t total, size_t alignment) {
  auto end = [&](const ArenaTensor& t) {
    return t.offset + (std::max<size_t>(t.bytes, 1) + alignment - 1) / alignment * alignment;
  };
  for (size_t i = 0; i < tensors.size(); ++i) {
    const ArenaTensor& a = tensors[i];
    EXPECT_EQ(a.offset % alignment, 0u) << "tensor " << i;
    EXPECT_LE(end(a), total) << "tensor " << i;
    for (size_t j = i + 1; j < tensors.size(); ++j) {
      const ArenaTensor& b = tensors[j];
      const bool live_together = a.first <= b.last && b.first <= a.last;
      const bool share_bytes = a.offset < end(b) && b.offset < end(a);
      EXPECT_FALSE(live_together && share_bytes) << "tensors " << i << " and " << j;
    }
  }
}

TEST(ArenaPlan, AChainNeedsTwoBuffers) {
  // t_i is written by node i and read by node i + 1.
  std::vector<ArenaTensor> chain;
  for (uint32_t i = 0; i < 8; ++i) chain.push_back({1000, i, i + 1, 0});
  const size_t total = plan(chain);
  EXPECT_EQ(total, 2 * 1024u);
  expect_valid(chain, total, 64);
}

TEST(ArenaPlan, TensorsLiveTogetherAreStacked) {
  std::vector<ArenaTensor> all = {{100, 0, 5, 0}, {64, 2, 3, 0}, {1, 3, 9, 0}, {0, 1, 5, 0}};
  const size_t total = plan(all);
  EXPECT_EQ(total, 128u + 64 + 64 + 64);  // each at least one aligned unit, none shared
  expect_valid(all, total, 64);
}

TEST(ArenaPlan, ASkipConnectionKeepsItsBytesWhileItIsLive) {
  // t0 (node 0) is read again by node 4; t1..t3 form a chain in between.
  std::vector<ArenaTensor> graph = {
      {4096, 0, 4, 0}, {4096, 1, 2, 0}, {4096, 2, 3, 0}, {4096, 3, 4, 0}};
  const size_t total = plan(graph);
  EXPECT_EQ(total, 3 * 4096u);
  expect_valid(graph, total, 64);
}

TEST(ArenaPlan, RandomLifetimesNeverOverlapAndReuseBytes) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<ArenaTensor> tensors;
    size_t sum = 0;
    for (uint32_t i = 0; i < 60; ++i) {
      const auto first = static_cast<uint32_t>(rng() % 40);
      const auto last = first + static_cast<uint32_t>(rng() % 6);
      const size_t bytes = rng() % 5000;
      tensors.push_back({bytes, first, last, 0});
      sum += (std::max<size_t>(bytes, 1) + 31) / 32 * 32;
    }
    const size_t total = plan(tensors, 32);
    expect_valid(tensors, total, 32);
    EXPECT_LT(total, sum) << "trial " << trial;  // short lifetimes over 40 nodes: bytes shared
  }
}

}  // namespace
}  // namespace ptec::backends::cpu

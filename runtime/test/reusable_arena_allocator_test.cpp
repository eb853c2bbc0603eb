#include "runtime/extension/reusable_arena_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace ptec::runtime {
namespace {

bool aligned(const void* p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

TEST(ReusableArenaAllocator, KeepsItsBlockAcrossResetsOnceLargeEnough) {
  ReusableArenaAllocator alloc;
  // First round: nothing is held yet, so both requests overflow; the reset sizes the block.
  void* a = alloc.allocate(1000, 64);
  void* b = alloc.allocate(3000, 64);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  std::memset(a, 1, 1000);
  std::memset(b, 2, 3000);
  alloc.reset();
  // Later rounds of the same requests come from one block, at the same addresses every time.
  void* a1 = alloc.allocate(1000, 64);
  void* b1 = alloc.allocate(3000, 64);
  alloc.reset();
  void* a2 = alloc.allocate(1000, 64);
  void* b2 = alloc.allocate(3000, 64);
  EXPECT_EQ(a1, a2);
  EXPECT_EQ(b1, b2);
  // Bump allocation inside one block: b follows a at the next 64-byte boundary.
  EXPECT_EQ(static_cast<uint8_t*>(b1) - static_cast<uint8_t*>(a1), 1024);
  EXPECT_TRUE(aligned(a1, 64) && aligned(b1, 64));
  std::memset(a2, 3, 1000);
  std::memset(b2, 4, 3000);  // ASan: both fit inside the block
}

TEST(ReusableArenaAllocator, GrowsWhenAnInstructionNeedsMoreAndNeverShrinks) {
  ReusableArenaAllocator alloc;
  alloc.allocate(100);
  alloc.reset();
  void* small = alloc.allocate(100);
  alloc.reset();
  void* big = alloc.allocate(1 << 20, 128);  // overflows the 100-byte block
  ASSERT_NE(big, nullptr);
  EXPECT_TRUE(aligned(big, 128));
  std::memset(big, 5, 1 << 20);
  alloc.reset();
  void* big1 = alloc.allocate(1 << 20, 128);
  alloc.reset();
  void* big2 = alloc.allocate(1 << 20, 128);
  EXPECT_EQ(big1, big2);
  alloc.reset();
  void* small2 = alloc.allocate(100);
  EXPECT_EQ(small2, big1);  // the big block serves small requests too
  (void)small;
}

TEST(ReusableArenaAllocator, RejectsBadAlignmentAndHugeSizes) {
  ReusableArenaAllocator alloc;
  EXPECT_EQ(alloc.allocate(16, 3), nullptr);
  EXPECT_EQ(alloc.allocate(16, 0), nullptr);
  EXPECT_EQ(alloc.allocate(SIZE_MAX - 8), nullptr);
  EXPECT_NE(alloc.allocate(0), nullptr);
}

}  // namespace
}  // namespace ptec::runtime

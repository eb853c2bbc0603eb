#include "emit/payload_identity.h"

#include <gtest/gtest.h>

#include <vector>

#include "emit/constant_segment.h"

namespace ptec::emit {
namespace {

ir::BufferPtr bytes(size_t n, uint8_t fill, size_t poke_at = SIZE_MAX) {
  std::vector<uint8_t> v(n, fill);
  if (poke_at < n) v[poke_at] ^= 1;
  return ir::Buffer::from_vector(std::move(v));
}

TEST(PayloadIdentity, FingerprintReadsTheEndsAndComparisonTheWhole) {
  // Equal ends, one byte different in the middle: same fingerprint, different payloads.
  const ir::BufferPtr a = bytes(100000, 3);
  const ir::BufferPtr b = bytes(100000, 3, 50000);
  EXPECT_EQ(payload_fingerprint(*a), payload_fingerprint(*b));
  EXPECT_FALSE(same_payload(*a, *b));
  EXPECT_TRUE(same_payload(*a, *bytes(100000, 3)));
  EXPECT_NE(payload_fingerprint(*a), payload_fingerprint(*bytes(100001, 3)));
  EXPECT_FALSE(same_payload(*a, *bytes(100001, 3)));
  EXPECT_TRUE(same_payload(*bytes(0, 0), *bytes(0, 1)));
}

TEST(PayloadIdentity, ConstantsThatDifferOnlyInTheMiddleAreStoredTwice) {
  ConstantSegmentBuilder segment(16);
  const uint32_t first = segment.add(bytes(100000, 3));
  const uint32_t second = segment.add(bytes(100000, 3, 50000));
  const uint32_t again = segment.add(bytes(100000, 3));
  EXPECT_NE(first, second);
  EXPECT_EQ(first, again);
}

}  // namespace
}  // namespace ptec::emit

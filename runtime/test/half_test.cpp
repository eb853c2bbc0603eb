// Half and BFloat16: exact conversions (round to nearest even), special values, arithmetic.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "runtime/core/bfloat16.h"
#include "runtime/core/half.h"

namespace ptec::runtime {
namespace {

uint16_t half_bits(float f) { return Half(f).x; }
uint16_t bf16_bits(float f) { return BFloat16(f).x; }
float from_half(uint16_t b) { return static_cast<float>(Half(b, Half::from_bits())); }
float from_bf16(uint16_t b) { return static_cast<float>(BFloat16(b, BFloat16::from_bits())); }
uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

TEST(Half, ExactValues) {
  EXPECT_EQ(half_bits(0.0f), 0x0000);
  EXPECT_EQ(half_bits(-0.0f), 0x8000);
  EXPECT_EQ(half_bits(1.0f), 0x3c00);
  EXPECT_EQ(half_bits(-2.0f), 0xc000);
  EXPECT_EQ(half_bits(65504.0f), 0x7bff);    // largest finite
  EXPECT_EQ(half_bits(0x1p-14f), 0x0400);    // smallest normal
  EXPECT_EQ(half_bits(0x1p-24f), 0x0001);    // smallest subnormal
  EXPECT_EQ(half_bits(0x3ffp-24f), 0x03ff);  // largest subnormal
  EXPECT_EQ(from_half(0x0001), 0x1p-24f);
  EXPECT_EQ(from_half(0x03ff), 0x3ffp-24f);
  EXPECT_EQ(from_half(0x7bff), 65504.0f);
  EXPECT_EQ(bits(from_half(0x8000)), 0x80000000u);
}

TEST(Half, SpecialValues) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(half_bits(kInf), 0x7c00);
  EXPECT_EQ(half_bits(-kInf), 0xfc00);
  EXPECT_TRUE(std::isinf(from_half(0x7c00)));
  const uint16_t nan = half_bits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  // A signaling NaN whose payload lives only in the low bits stays a NaN.
  const uint16_t snan = half_bits(std::bit_cast<float>(0xff800001u));
  EXPECT_EQ(snan & 0x7c00, 0x7c00);
  EXPECT_NE(snan & 0x03ff, 0);
  EXPECT_EQ(snan & 0x8000, 0x8000);
  EXPECT_TRUE(std::isnan(from_half(0x7e00)));
  EXPECT_TRUE(std::isnan(from_half(0xfc01)));
}

TEST(Half, OverflowAndRounding) {
  EXPECT_EQ(half_bits(65519.0f), 0x7bff);  // below the midpoint to 65536
  EXPECT_EQ(half_bits(65520.0f), 0x7c00);  // the tie rounds to even: infinity
  EXPECT_EQ(half_bits(1e10f), 0x7c00);
  EXPECT_EQ(half_bits(-1e10f), 0xfc00);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::max()), 0x7c00);
  // Ties: 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to even (1).
  EXPECT_EQ(half_bits(1.0f + 0x1p-11f), 0x3c00);
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9: to even (up).
  EXPECT_EQ(half_bits(1.0f + 3 * 0x1p-11f), 0x3c02);
  EXPECT_EQ(half_bits(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
  // Subnormal ties: 2^-25 rounds to zero, 3 * 2^-25 to 2 * 2^-24, just above 2^-25 to 2^-24.
  EXPECT_EQ(half_bits(0x1p-25f), 0x0000);
  EXPECT_EQ(half_bits(-0x1p-25f), 0x8000);
  EXPECT_EQ(half_bits(3 * 0x1p-25f), 0x0002);
  EXPECT_EQ(half_bits(0x1.000002p-25f), 0x0001);
  EXPECT_EQ(half_bits(1e-10f), 0x0000);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::denorm_min()), 0x0000);
  // The largest subnormal plus half an ulp rounds up to the smallest normal.
  EXPECT_EQ(half_bits(0x3ffp-24f + 0x1p-25f), 0x0400);
}

// Every finite half round-trips, and each midpoint between neighbours (and one float ulp either
// side of it) rounds as round-to-nearest-even requires.
TEST(Half, ExhaustiveRoundTripAndMidpoints) {
  for (uint32_t b = 0; b < 0x7c00; ++b) {
    for (uint32_t s : {0u, 0x8000u}) {
      const auto h = static_cast<uint16_t>(b | s);
      const float f = from_half(h);
      ASSERT_EQ(half_bits(f), h) << std::hex << h;
      if (b + 1 == 0x7c00) continue;
      const float next = from_half(static_cast<uint16_t>((b + 1) | s));
      const float mid = (f + next) / 2;  // exact in float
      const uint16_t even = (b & 1) == 0 ? h : static_cast<uint16_t>((b + 1) | s);
      ASSERT_EQ(half_bits(mid), even) << std::hex << h;
      ASSERT_EQ(half_bits(std::nextafter(mid, f)), h) << std::hex << h;
      ASSERT_EQ(half_bits(std::nextafter(mid, next)), static_cast<uint16_t>((b + 1) | s))
          << std::hex << h;
    }
  }
}

TEST(Half, Arithmetic) {
  const Half a(1.5f), b(2.25f);
  EXPECT_EQ(static_cast<float>(a + b), 3.75f);
  EXPECT_EQ(static_cast<float>(a - b), -0.75f);
  EXPECT_EQ(static_cast<float>(a * b), 3.375f);
  EXPECT_EQ(static_cast<float>(Half(1.0f) / Half(3.0f)), static_cast<float>(Half(1.0f / 3.0f)));
  EXPECT_EQ((-a).x, 0xbe00);
  EXPECT_EQ(static_cast<float>(Half(60000.0f) + Half(60000.0f)),
            std::numeric_limits<float>::infinity());
  Half c(1.0f);
  c += Half(0x1p-11f);  // a tie: stays 1
  EXPECT_EQ(c.x, 0x3c00);
  EXPECT_TRUE(a < b);
}

TEST(BFloat16, ExactAndSpecialValues) {
  EXPECT_EQ(bf16_bits(0.0f), 0x0000);
  EXPECT_EQ(bf16_bits(-0.0f), 0x8000);
  EXPECT_EQ(bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(bf16_bits(-2.0f), 0xc000);
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(bf16_bits(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(from_bf16(0x3f80), 1.0f);
  // Largest finite float rounds to infinity; the largest finite bfloat16 stays.
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(bf16_bits(from_bf16(0x7f7f)), 0x7f7f);
  // Subnormals: the smallest bfloat16 subnormal is exact; the float denorm_min is a tie-free
  // value below half of it and rounds to zero.
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x00010000u)), 0x0001);
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x00008000u)), 0x0000);  // tie to even zero
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x00018000u)), 0x0002);  // tie to even (up)
  // NaN: a payload only in the low 16 bits must not become infinity.
  const uint16_t nan = bf16_bits(std::bit_cast<float>(0x7f800001u));
  EXPECT_EQ(nan & 0x7f80, 0x7f80);
  EXPECT_NE(nan & 0x007f, 0);
  EXPECT_TRUE(std::isnan(from_bf16(bf16_bits(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(BFloat16, RoundingTies) {
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie, even below
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie, odd below: up
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x3f808001u)), 0x3f81);
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x3f807fffu)), 0x3f80);
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x7f7f8000u)), 0x7f80);  // tie overflows to inf
}

TEST(BFloat16, ExhaustiveRoundTrip) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const auto h = static_cast<uint16_t>(b);
    const float f = from_bf16(h);
    if (std::isnan(f)) {
      ASSERT_TRUE(std::isnan(from_bf16(bf16_bits(f))));
    } else {
      ASSERT_EQ(bf16_bits(f), h);
    }
  }
}

TEST(BFloat16, Arithmetic) {
  const BFloat16 a(1.5f), b(2.25f);
  EXPECT_EQ(static_cast<float>(a + b), 3.75f);
  EXPECT_EQ(static_cast<float>(a * b), 3.375f);
  EXPECT_EQ((-a).x, 0xbfc0);
  EXPECT_EQ(static_cast<float>(BFloat16(1.0f) + BFloat16(0x1p-8f)), 1.0f);  // tie to even
}

}  // namespace
}  // namespace ptec::runtime

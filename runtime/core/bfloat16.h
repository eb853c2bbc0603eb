#pragma once

// bfloat16 value type: the top 16 bits of a float. Conversion from float rounds to nearest, ties
// to even (overflow rounds to infinity, NaN stays a quiet NaN); conversion to float is exact;
// arithmetic goes through float with the result rounded back, as c10::BFloat16. Header-only.

#include <bit>
#include <cstdint>

namespace ptec::runtime {

namespace internal {

/// float -> bfloat16 bits, round to nearest even.
constexpr uint16_t float_to_bfloat16_bits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN, sign and top payload kept
  }
  // No overflow: the largest finite float rounds up to 0x7f80 (infinity) at most.
  const uint32_t rounded = x + 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}

constexpr float bfloat16_bits_to_float(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

}  // namespace internal

/// bfloat16 value (c10::BFloat16 / ExecuTorch's BFloat16): 16-bit storage, computes through float.
struct BFloat16 {
  uint16_t x = 0;

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return {}; }

  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  /// Rounds to nearest even; overflows to infinity.
  constexpr explicit BFloat16(float v) : x(internal::float_to_bfloat16_bits(v)) {}
  constexpr operator float() const { return internal::bfloat16_bits_to_float(x); }  // NOLINT
};

static_assert(sizeof(BFloat16) == 2);

constexpr BFloat16 operator+(BFloat16 a, BFloat16 b) { return BFloat16(float(a) + float(b)); }
constexpr BFloat16 operator-(BFloat16 a, BFloat16 b) { return BFloat16(float(a) - float(b)); }
constexpr BFloat16 operator*(BFloat16 a, BFloat16 b) { return BFloat16(float(a) * float(b)); }
constexpr BFloat16 operator/(BFloat16 a, BFloat16 b) { return BFloat16(float(a) / float(b)); }
constexpr BFloat16 operator-(BFloat16 a) {
  return BFloat16(static_cast<uint16_t>(a.x ^ 0x8000u), BFloat16::from_bits());
}
constexpr BFloat16& operator+=(BFloat16& a, BFloat16 b) { return a = a + b; }
constexpr BFloat16& operator-=(BFloat16& a, BFloat16 b) { return a = a - b; }
constexpr BFloat16& operator*=(BFloat16& a, BFloat16 b) { return a = a * b; }
constexpr BFloat16& operator/=(BFloat16& a, BFloat16 b) { return a = a / b; }

}  // namespace ptec::runtime

#pragma once

// IEEE 754 binary16 (float16) value type: 16-bit storage, exact conversions to and from float
// (round to nearest, ties to even; overflow rounds to infinity; NaN stays NaN), arithmetic through
// float with the result rounded back, as c10::Half. Header-only, constexpr, no UB.

#include <bit>
#include <cstdint>

namespace ptec::runtime {

namespace internal {

/// float -> binary16 bits, round to nearest even.
constexpr uint16_t float_to_half_bits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) {
    // NaN: keep the top payload bits and make it quiet, so it never becomes infinity.
    return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
  }
  // 65520 (halfway between the largest finite half, 65504, and 65536) and above round to inf.
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (abs < 0x38800000u) {
    // Below 2^-14: a subnormal half (units of 2^-24) or zero. 2^-25 and below round to zero
    // (2^-25 itself is a tie with the even zero).
    if (abs <= 0x33000000u) return sign;
    const uint32_t e = abs >> 23;  // 102 .. 112
    const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - e;  // 14 .. 24
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u) != 0)) ++q;  // may carry into the smallest normal
    return static_cast<uint16_t>(sign | q);
  }
  // Normal: rebias the exponent (127 -> 15) and round the mantissa from 23 to 10 bits; a carry
  // out of the mantissa increments the exponent, which is the correctly rounded result.
  const uint32_t rebiased = abs - 0x38000000u;
  const uint32_t rounded = (rebiased + 0xfffu + ((rebiased >> 13) & 1u)) >> 13;
  return static_cast<uint16_t>(sign | rounded);
}

/// binary16 bits -> float (exact).
constexpr float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24, exact in float.
    const float v = static_cast<float>(mant) * 0x1p-24f;
    return std::bit_cast<float>(std::bit_cast<uint32_t>(v) | sign);
  }
  if (exp == 0x1fu) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

}  // namespace internal

/// float16 value (c10::Half / ExecuTorch's Half): 16-bit storage, computes through float.
struct Half {
  uint16_t x = 0;

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return {}; }

  Half() = default;
  constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  /// Rounds to nearest even; overflows to infinity.
  constexpr explicit Half(float v) : x(internal::float_to_half_bits(v)) {}
  constexpr operator float() const { return internal::half_bits_to_float(x); }  // NOLINT
};

static_assert(sizeof(Half) == 2);

constexpr Half operator+(Half a, Half b) { return Half(float(a) + float(b)); }
constexpr Half operator-(Half a, Half b) { return Half(float(a) - float(b)); }
constexpr Half operator*(Half a, Half b) { return Half(float(a) * float(b)); }
constexpr Half operator/(Half a, Half b) { return Half(float(a) / float(b)); }
constexpr Half operator-(Half a) {
  return Half(static_cast<uint16_t>(a.x ^ 0x8000u), Half::from_bits());
}
constexpr Half& operator+=(Half& a, Half b) { return a = a + b; }
constexpr Half& operator-=(Half& a, Half b) { return a = a - b; }
constexpr Half& operator*=(Half& a, Half b) { return a = a * b; }
constexpr Half& operator/=(Half& a, Half b) { return a = a / b; }

}  // namespace ptec::runtime

#pragma once

// The element-wise activations the optimized kernels fuse into their epilogues (and the CPU
// backend also runs on their own).

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace ptec::kernels::optimized {

/// LeakyRelu's negative slope is the `lo` of the functions below (clamp_min of an epilogue).
enum class Activation : uint8_t {
  None,
  Relu,
  Clamp,
  Sigmoid,
  Tanh,
  HardSwish,
  Gelu,
  Silu,
  LeakyRelu
};

/// e^v without a library call, so that loops over it vectorize: Cephes' expf (e^v = 2^n e^r with
/// |r| <= ln2 / 2 and a degree-6 polynomial for e^r), within 2 ulp of std::exp over
/// [-87.3, 88.3]; below, the result is the smallest normal float's neighbourhood (~1e-38), above
/// ~2e38 instead of overflowing; NaN stays NaN.
inline float exp_approx(float v) {
  float x = v < -87.3f ? -87.3f : v;
  x = x > 88.3f ? 88.3f : x;
  x = x == x ? x : 0.0f;  // NaN: any finite value here, the result is v below
  // n = round(x / ln2): adding and subtracting 1.5 * 2^23 rounds to an integer with plain SSE2
  // arithmetic (std::floor would not vectorize without SSE4.1).
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const auto bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
  const float result = p * std::bit_cast<float>(bits);
  return v == v ? result : v;
}

/// The activations that are a clamp (None, Relu, Clamp), which kernels apply where they store
/// their outputs: v -> min(max(v, lo), hi) with NaN passing through, or, for `relu`,
/// v > 0 ? v : 0 with NaN giving 0 (as activate()). None is [-inf, +inf].
struct ClampBounds {
  bool relu = false;
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
};
inline bool is_clamp(Activation a) {
  return a == Activation::None || a == Activation::Relu || a == Activation::Clamp;
}
/// `a` (is_clamp) as bounds; Clamp uses [clamp_min, clamp_max].
inline ClampBounds clamp_bounds(Activation a, float clamp_min, float clamp_max) {
  ClampBounds b;
  if (a == Activation::Relu) {
    b.relu = true;
    b.lo = 0.0f;
  } else if (a == Activation::Clamp) {
    b.lo = clamp_min;
    b.hi = clamp_max;
  }
  return b;
}
/// v through the clamp `b` (ClampBounds' rules).
inline float apply_clamp(float v, const ClampBounds& b) {
  return b.relu ? (v > 0.0f ? v : 0.0f) : std::min(std::max(v, b.lo), b.hi);
}

/// `a` applied to v; Clamp uses [lo, hi], LeakyRelu lo as its slope. Gelu is the exact (erf)
/// form.
inline float activate(float v, Activation a, float lo, float hi) {
  switch (a) {
    case Activation::None: return v;
    case Activation::Relu: return v > 0.0f ? v : 0.0f;
    case Activation::Clamp: return std::min(std::max(v, lo), hi);
    case Activation::Sigmoid: return 1.0f / (1.0f + exp_approx(-v));
    case Activation::Tanh: return std::tanh(v);
    case Activation::HardSwish: return v * std::min(std::max(v + 3.0f, 0.0f), 6.0f) / 6.0f;
    case Activation::Gelu: return 0.5f * v * (1.0f + std::erf(v * 0.70710678118654752f));
    case Activation::Silu:  // -inf: NaN, as x * sigmoid(x) (exp_approx saturates)
      return v == -INFINITY ? NAN : v / (1.0f + exp_approx(-v));
    case Activation::LeakyRelu: return v > 0.0f ? v : v * lo;
  }
  return v;
}

/// `a` applied to x[0, n) in place. Sigmoid, SiLU, tanh, GELU and hard swish run vectorized for the
/// instruction set the GEMM uses (active_gemm_isa(), gemm.h), within the accuracy that
/// activation_simd.h states; without AVX2 they run activate() per element.
void activate_in_place(float* x, int64_t n, Activation a, float lo, float hi);

/// erf of x[0, n) in place, vectorized like activate_in_place (a Taylor
/// series within 4e-7 relative of std::erf below |x| = 0.5, above it within 5e-7 absolute by
/// the approximation ATen's vectorized CPU erf also takes); std::erf per element
/// without AVX2. NaN stays NaN.
void erf_in_place(float* x, int64_t n);

/// y[0, n) = softmax(x[0, n)) = e^(x - max x) / sum e^(x - max x), vectorized like
/// activate_in_place (terms below e^-87.3 of the largest are 0). A row holding NaN, or only
/// -infinity, gives NaN. y may be x.
void softmax_row(const float* x, float* y, int64_t n);

}  // namespace ptec::kernels::optimized

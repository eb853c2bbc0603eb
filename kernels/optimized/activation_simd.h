#pragma once

// Vectorized activations (sigmoid, SiLU, tanh, GELU, hard swish, erf) and the two passes of a
// softmax row for one instruction set each; activation.cpp picks a table by the CPU. Internal to
// kernels/optimized. The tables' translation units are compiled for their ISA and include only
// <immintrin.h> and this header, so no inline library function compiled for AVX2 / AVX-512 can be
// picked up elsewhere.
//
// Accuracy (against std::exp / std::tanh / std::erf): sigmoid and SiLU within 1e-6 relative,
// tanh within 2e-7 absolute, GELU within 1e-6 x max(1, |x|) absolute (erf by Abramowitz and
// Stegun 7.1.26, |error| <= 1.5e-7). Hard swish is exact: x * min(max(x + 3, 0), 6) / 6, as
// activate() computes it. NaN stays NaN.

#include <cstdint>

namespace ptec::kernels::optimized::detail {

using ActivationLoop = void (*)(float* x, int64_t n);

struct ActivationLoops {
  ActivationLoop sigmoid;
  ActivationLoop silu;
  ActivationLoop tanh;
  ActivationLoop gelu;
  ActivationLoop hardswish;
  /// erf itself: a series below |x| = 0.5 (4e-7 relative), the GELU's approximation above
  /// (1.5e-7 absolute, 5e-7 with fp32 rounding).
  ActivationLoop erf;
  /// The largest of x[0, n) (-infinity when n = 0; NaN or not when x holds NaN).
  float (*max)(const float* x, int64_t n);
  /// y[i] = e^(x[i] - shift), 0 where x[i] - shift < -87.3 (where e^ leaves the normal floats),
  /// within 2.5e-7 relative of std::exp; returns the sum of y. y may be x.
  float (*exp_shifted_sum)(const float* x, float* y, int64_t n, float shift);
};

extern const ActivationLoops kActivationAvx2;    // AVX2 + FMA
extern const ActivationLoops kActivationAvx512;  // AVX-512F

}  // namespace ptec::kernels::optimized::detail

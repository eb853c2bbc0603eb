#pragma once

// The element-wise activations the optimized kernels fuse into their epilogues (and the CPU
// backend also runs on their own).

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ptec::kernels::optimized {

enum class Activation : uint8_t { None, Relu, Clamp, Sigmoid, Tanh, HardSwish, Gelu, Silu };

/// `a` applied to v; Clamp uses [lo, hi]. Gelu is the exact (erf) form.
inline float activate(float v, Activation a, float lo, float hi) {
  switch (a) {
    case Activation::None: return v;
    case Activation::Relu: return v > 0.0f ? v : 0.0f;
    case Activation::Clamp: return std::min(std::max(v, lo), hi);
    case Activation::Sigmoid: return 1.0f / (1.0f + std::exp(-v));
    case Activation::Tanh: return std::tanh(v);
    case Activation::HardSwish: return v * std::min(std::max(v + 3.0f, 0.0f), 6.0f) / 6.0f;
    case Activation::Gelu: return 0.5f * v * (1.0f + std::erf(v * 0.70710678118654752f));
    case Activation::Silu: return v / (1.0f + std::exp(-v));
  }
  return v;
}

/// `a` applied to x[0, n) in place.
inline void activate_in_place(float* x, int64_t n, Activation a, float lo, float hi) {
  switch (a) {
    case Activation::None: return;
    case Activation::Relu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
      return;
    case Activation::Clamp:
      for (int64_t i = 0; i < n; ++i) x[i] = std::min(std::max(x[i], lo), hi);
      return;
    default:
      for (int64_t i = 0; i < n; ++i) x[i] = activate(x[i], a, lo, hi);
      return;
  }
}

}  // namespace ptec::kernels::optimized

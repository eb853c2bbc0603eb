#include "kernels/optimized/layer_norm.h"

#include <cmath>

namespace ptec::kernels::optimized {
namespace {

constexpr int kLanes = 16;

// The sum of f(x[i]) over [0, n) in kLanes float accumulators (vectorized), reduced pairwise.
template <typename F>
__attribute__((always_inline)) inline float lane_sum(const float* x, int64_t n, F f) {
  float acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) acc[l] += f(x[i + l]);
  }
  for (int l = 0; i < n; ++i, ++l) acc[l] += f(x[i]);
  for (int width = kLanes / 2; width > 0; width /= 2) {
    for (int l = 0; l < width; ++l) acc[l] += acc[l + width];
  }
  return acc[0];
}

}  // namespace

__attribute__((target_clones("avx512f", "avx2", "default"))) void layer_norm_row(
    const float* x, float* y, int64_t n, const float* weight, const float* bias, float eps) {
  if (n <= 0) return;
  const float mean = lane_sum(x, n, [](float v) { return v; }) / static_cast<float>(n);
  const float var =
      lane_sum(x, n, [mean](float v) { return (v - mean) * (v - mean); }) / static_cast<float>(n);
  const float rstd = 1.0f / std::sqrt(var + eps);
  if (weight != nullptr && bias != nullptr) {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd * weight[i] + bias[i];
  } else {
    for (int64_t i = 0; i < n; ++i) {
      float v = (x[i] - mean) * rstd;
      if (weight != nullptr) v *= weight[i];
      if (bias != nullptr) v += bias[i];
      y[i] = v;
    }
  }
}

}  // namespace ptec::kernels::optimized

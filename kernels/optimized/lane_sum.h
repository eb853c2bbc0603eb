#pragma once

// Float sums in 16 independent lanes, which the compiler vectorizes (a single running sum is
// one add latency per element). Internal to kernels/optimized: include it only from functions
// compiled per ISA (target_clones), where it is inlined.

#include <cstdint>

namespace ptec::kernels::optimized::detail {

inline constexpr int kSumLanes = 16;

/// The sum of f(x[i]) over [0, n): element i is added to lane i % 16 in order, then the lanes
/// are added pairwise (lane l + lane l + 8, then + 4, + 2, + 1).
template <typename F>
__attribute__((always_inline)) inline float lane_sum(const float* x, int64_t n, F f) {
  float acc[kSumLanes] = {};
  int64_t i = 0;
  for (; i + kSumLanes <= n; i += kSumLanes) {
    for (int l = 0; l < kSumLanes; ++l) acc[l] += f(x[i + l]);
  }
  for (int l = 0; i < n; ++i, ++l) acc[l] += f(x[i]);
  for (int width = kSumLanes / 2; width > 0; width /= 2) {
    for (int l = 0; l < width; ++l) acc[l] += acc[l + width];
  }
  return acc[0];
}

}  // namespace ptec::kernels::optimized::detail

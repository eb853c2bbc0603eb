#include "kernels/optimized/layer_norm.h"

#include <cmath>

#include "kernels/optimized/lane_sum.h"

namespace ptec::kernels::optimized {

__attribute__((target_clones("avx512f", "avx2", "default"))) void layer_norm_row(
    const float* x, float* y, int64_t n, const float* weight, const float* bias, float eps) {
  if (n <= 0) return;
  const float mean = detail::lane_sum(x, n, [](float v) { return v; }) / static_cast<float>(n);
  const float var = detail::lane_sum(x, n, [mean](float v) { return (v - mean) * (v - mean); }) /
                    static_cast<float>(n);
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

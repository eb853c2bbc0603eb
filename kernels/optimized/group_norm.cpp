#include "kernels/optimized/group_norm.h"

#include <algorithm>
#include <cmath>

#include "kernels/optimized/row_sum.h"
#include "kernels/optimized/threadpool.h"

namespace ptec::kernels::optimized {
namespace {

// sum((x[i] - mean)^2) over [0, n), in 16 lanes added pairwise.
float squared_deviations(const float* x, int64_t n, float mean) {
  float lanes[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int l = 0; l < 16; ++l) {
      const float d = x[i + l] - mean;
      lanes[l] += d * d;
    }
  }
  for (int l = 0; i < n; ++i, ++l) {
    const float d = x[i] - mean;
    lanes[l] += d * d;
  }
  for (int width = 8; width >= 1; width /= 2) {
    for (int l = 0; l < width; ++l) lanes[l] += lanes[l + width];
  }
  return lanes[0];
}

}  // namespace

void group_norm(const float* x, const float* weight, const float* bias, int64_t n, int64_t c,
                int64_t hxw, int64_t groups, double eps, float* y, float* means, float* rstds,
                Activation act, float lo, float hi) {
  if (n <= 0 || c <= 0 || groups <= 0) return;
  const int64_t cg = c / groups, len = cg * hxw;
  const bool clamp = is_clamp(act);
  const ClampBounds bounds = clamp_bounds(clamp ? act : Activation::None, lo, hi);
  parallel_for(n * groups, [&](int64_t i) {
    const float* xi = x + i * len;
    float* yi = y + i * len;
    const float mean = len > 0 ? row_sum(xi, len) / static_cast<float>(len) : 0.0f;
    const float var = len > 0 ? squared_deviations(xi, len, mean) / static_cast<float>(len) : 0.0f;
    const float rstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(var) + eps));
    for (int64_t ch = 0; ch < cg; ++ch) {
      const int64_t cc = (i % groups) * cg + ch;
      const float scale = weight != nullptr ? rstd * weight[cc] : rstd;
      const float shift = bias != nullptr ? bias[cc] : 0.0f;
      const float* xc = xi + ch * hxw;
      float* yc = yi + ch * hxw;
      if (bounds.relu) {
        for (int64_t j = 0; j < hxw; ++j) {
          const float v = (xc[j] - mean) * scale + shift;
          yc[j] = v > 0.0f ? v : 0.0f;
        }
      } else if (clamp && act != Activation::None) {
        for (int64_t j = 0; j < hxw; ++j) {
          yc[j] = std::min(std::max((xc[j] - mean) * scale + shift, bounds.lo), bounds.hi);
        }
      } else {
        for (int64_t j = 0; j < hxw; ++j) yc[j] = (xc[j] - mean) * scale + shift;
        if (!clamp) activate_in_place(yc, hxw, act, lo, hi);
      }
    }
    if (means != nullptr) means[i] = mean;
    if (rstds != nullptr) rstds[i] = rstd;
  });
}

}  // namespace ptec::kernels::optimized

#pragma once

// Layer normalization of one contiguous row, vectorized for the CPU it runs on.

#include <cstdint>

namespace ptec::kernels::optimized {

/// y[0, n) = (x - mean) / sqrt(var + eps) * weight + bias over x[0, n) (biased variance, two
/// passes so that a large mean does not cancel the variance). weight and bias may be null
/// (1 and 0). Sums run in float over 16 lanes, then pairwise. y may be x.
void layer_norm_row(const float* x, float* y, int64_t n, const float* weight, const float* bias,
                    float eps);

}  // namespace ptec::kernels::optimized

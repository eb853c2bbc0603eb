#pragma once

// Group normalization of fp32 contiguous tensors (N, C, ...): the statistics of each (image,
// group) are float sums in 16 lanes (row_sum.h), then each channel is normalized with its affine
// and, optionally, an activation in one pass. Groups run in parallel.

#include <cstdint>

#include "kernels/optimized/activation.h"

namespace ptec::kernels::optimized {

/// y = act((x - mean) * rstd * weight[c] + bias[c]) for x of n images of c channels of hxw values
/// each, mean and rstd = 1 / sqrt(var + eps) per image and group of c / groups channels (biased
/// variance, two passes). weight and bias may be null (1 and 0); means and rstds (n x groups) may
/// be null. act is applied with lo / hi as activate() takes them. y may be x. Needs c % groups ==
/// 0.
void group_norm(const float* x, const float* weight, const float* bias, int64_t n, int64_t c,
                int64_t hxw, int64_t groups, double eps, float* y, float* means = nullptr,
                float* rstds = nullptr, Activation act = Activation::None, float lo = 0.0f,
                float hi = 0.0f);

}  // namespace ptec::kernels::optimized

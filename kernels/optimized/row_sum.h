#pragma once

// The sum of one contiguous row, vectorized for the CPU it runs on: the reductions of mean and
// global average pooling.

#include <cstdint>

namespace ptec::kernels::optimized {

/// x[0] + ... + x[n - 1] in float, added in 16 lanes that are then added pairwise (lane_sum.h),
/// so it rounds differently from a running sum (and usually less). NaN and infinities
/// propagate as in any float sum; 0 for n <= 0.
float row_sum(const float* x, int64_t n);

}  // namespace ptec::kernels::optimized

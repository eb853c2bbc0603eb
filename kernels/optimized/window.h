#pragma once

// Which output columns of a sliding window (convolution, pooling) read inside the input along
// one axis, for kernels that handle the inside in one fast pass and the padded edges apart.

#include <algorithm>
#include <cstdint>

namespace ptec::kernels::optimized {

/// Output columns [lo, hi) (lo <= hi) of `out` outputs.
struct ColumnRange {
  int64_t lo = 0, hi = 0;
};

/// The columns ox whose input column ox * stride + offset lies in [0, width).
inline ColumnRange columns_reading_inside(int64_t offset, int64_t stride, int64_t width,
                                          int64_t out) {
  const int64_t lo = std::min(out, offset >= 0 ? 0 : (-offset + stride - 1) / stride);
  const int64_t hi =
      std::min(out, width - offset <= 0 ? 0 : (width - offset + stride - 1) / stride);
  return ColumnRange{lo, std::max(lo, hi)};
}

/// The columns ox whose every tap, ox * stride - pad + k * dilation for k in [0, taps), lies in
/// [0, width).
inline ColumnRange columns_with_all_taps_inside(int64_t pad, int64_t stride, int64_t dilation,
                                                int64_t taps, int64_t width, int64_t out) {
  const int64_t span = (taps - 1) * dilation;
  const int64_t lo = std::min(out, (pad + stride - 1) / stride);
  const int64_t last = width - 1 - span + pad;  // the largest ox * stride allowed
  const int64_t hi = std::min(out, last < 0 ? 0 : last / stride + 1);
  return ColumnRange{lo, std::max(lo, hi)};
}

}  // namespace ptec::kernels::optimized

#pragma once

// Output sizes and source-index math of ATen's upsample kernels (UpSample.h).

#include <cmath>
#include <cstdint>
#include <optional>

#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {

/// Resolves the .vec overloads' (output_size, scale_factors) pair for a 4-D input into the
/// output height/width and the per-axis scales (nullopt when only output_size was given).
/// Exactly one of the two must be present. Logs and fails the context on bad arguments.
bool upsample2d_output(KernelRuntimeContext& ctx, const char* op, const Tensor& in,
                       const OptIntList& output_size,
                       const std::optional<Span<const double>>& scale_factors, int64_t* oh,
                       int64_t* ow, std::optional<double>* scale_h, std::optional<double>* scale_w);

/// ATen's compute_scales_value: 1 / scale when a positive scale was given, else in / out.
inline float scale_value(const std::optional<double>& scale, int64_t in, int64_t out) {
  return scale.has_value() && *scale > 0 ? static_cast<float>(1.0 / *scale)
                                         : static_cast<float>(in) / static_cast<float>(out);
}

/// One output coordinate of a linear resize: source indices i0 <= i1 and their weights.
struct LinearTap {
  int64_t i0, i1;
  float l0, l1;
};

/// ATen's area_pixel_compute_scale / area_pixel_compute_source_index for linear modes: the tap
/// of output coordinate `o` resizing `in` to `out` (computed in float).
inline LinearTap linear_tap(int64_t o, int64_t in, int64_t out, bool align_corners,
                            const std::optional<double>& scale) {
  float s = 0;
  if (align_corners) {
    s = out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.f;
  } else {
    s = scale_value(scale, in, out);
  }
  float src = align_corners ? s * static_cast<float>(o) : s * (static_cast<float>(o) + 0.5f) - 0.5f;
  if (src < 0) src = 0;
  LinearTap t;
  t.i0 = static_cast<int64_t>(src);
  t.i1 = t.i0 + (t.i0 < in - 1 ? 1 : 0);
  t.l1 = src - static_cast<float>(t.i0);
  t.l0 = 1.f - t.l1;
  return t;
}

/// ATen's nearest_idx.
inline int64_t nearest_index(int64_t o, int64_t in, int64_t out,
                             const std::optional<double>& scale) {
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  const float s = scale_value(scale, in, out);
  const auto i = static_cast<int64_t>(std::floor(static_cast<float>(o) * s));
  return i < in - 1 ? i : in - 1;
}

}  // namespace ptec::kernels

#pragma once

// Output sizes and source-index math of ATen's upsample kernels (UpSample.h).

#include <cmath>
#include <cstdint>
#include <optional>

#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {

/// The geometry of a 2-D resize of an NCHW input: its planes (N x C) and sizes, the output sizes
/// and the per-axis scales (nullopt when only output_size was given).
struct Upsample2d {
  int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  std::optional<double> scale_h, scale_w;
};

/// The checks and sizing the .vec overloads share: resolves (output_size, scale_factors) for a
/// contiguous 4-D input (exactly one of the two present), checks that `out` is contiguous with
/// the input's dtype and that `dtype_ok` accepts that dtype (else "`op`: dtype D is not
/// `supported`"), and resizes `out` to [N, C, oh, ow]. Logs and fails the context on bad
/// arguments.
bool upsample2d_prepare(KernelRuntimeContext& ctx, const char* op, const Tensor& in,
                        const OptIntList& output_size,
                        const std::optional<Span<const double>>& scale_factors,
                        bool (*dtype_ok)(DType), const char* supported, Tensor& out, Upsample2d* g);

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

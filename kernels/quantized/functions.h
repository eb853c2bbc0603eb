#pragma once

// The quantized kernels' unboxed entry points: ExecuTorch's quantized_decomposed operators
// (kernels/quantized in ExecuTorch), with the out-variant schemas of /work/shared/OPERATORS.md.
// Quantized values live in plain integer tensors: Byte (uint8), Char (int8), Short (int16) or
// Int (int32); quant_min/quant_max must lie within that dtype's range. Scales and zero points
// given as tensors are Double and Long. Bad arguments log a message naming the op and fail the
// context with InvalidArgument.

#include <cstdint>
#include <optional>
#include <tuple>

#include "core/dtype.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {

/// quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
/// int quant_max, ScalarType dtype, *, Tensor(a!) out): out = clamp(zero_point +
/// round_half_even(input * (1.0f / float(scale))), quant_min, quant_max), the product rounded to
/// float first. input is Float or Double; out has dtype `dtype`.
Tensor& quantize_per_tensor_out(KernelRuntimeContext& ctx, const Tensor& input, double scale,
                                int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                DType dtype, Tensor& out);
/// quantize_per_tensor.Tensor_out: as .out with scale (Double) and zero_point (Long) given as
/// one-element tensors.
Tensor& quantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& input,
                                       const Tensor& scale, const Tensor& zero_point,
                                       int64_t quant_min, int64_t quant_max, DType dtype,
                                       Tensor& out);
/// quantize_per_channel.out(Tensor input, Tensor scales, Tensor zero_points, int axis,
/// int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out): as quantize_per_tensor
/// with scales[c] (Double) and zero_points[c] (Long) for index c of dim `axis`.
Tensor& quantize_per_channel_out(KernelRuntimeContext& ctx, const Tensor& input,
                                 const Tensor& scales, const Tensor& zero_points, int64_t axis,
                                 int64_t quant_min, int64_t quant_max, DType dtype, Tensor& out);

/// dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
/// int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out):
/// out = (input - zero_point) * float(scale), computed in float and converted to out's dtype
/// (Float or Double). input must have dtype `dtype`; quant_min/quant_max are metadata only
/// (checked quant_min <= quant_max).
Tensor& dequantize_per_tensor_out(KernelRuntimeContext& ctx, const Tensor& input, double scale,
                                  int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                  DType dtype, std::optional<DType> out_dtype, Tensor& out);
/// dequantize_per_tensor.Tensor_out: as .out with scale (Double) and zero_point (Long) given as
/// one-element tensors.
Tensor& dequantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& input,
                                         const Tensor& scale, const Tensor& zero_point,
                                         int64_t quant_min, int64_t quant_max, DType dtype,
                                         std::optional<DType> out_dtype, Tensor& out);
/// dequantize_per_channel.out(Tensor input, Tensor scales, Tensor? zero_points, int axis,
/// int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None,
/// Tensor(a!) out): as dequantize_per_tensor per index of dim `axis`; no zero_points means 0.
Tensor& dequantize_per_channel_out(KernelRuntimeContext& ctx, const Tensor& input,
                                   const Tensor& scales, const OptTensor& zero_points, int64_t axis,
                                   int64_t quant_min, int64_t quant_max, DType dtype,
                                   std::optional<DType> out_dtype, Tensor& out);

/// choose_qparams.Tensor_out(Tensor input, int quant_min, int quant_max, float eps,
/// ScalarType dtype, *, Tensor(a!) scale_out, Tensor(b!) zero_point_out): asymmetric per-tensor
/// parameters for a Float input, from its range extended to include 0 (ExecuTorch's algorithm:
/// scale = range / (quant_max - quant_min), 0.1 when that is 0 or its reciprocal overflows,
/// at least 6.1e-5; the zero point from the end with the smaller error, nudged to an integer in
/// [quant_min, quant_max]). scale_out (Double) and zero_point_out (Long) have one element each.
/// eps is unused, as in ExecuTorch.
std::tuple<Tensor&, Tensor&> choose_qparams_tensor_out(KernelRuntimeContext& ctx,
                                                       const Tensor& input, int64_t quant_min,
                                                       int64_t quant_max, double eps, DType dtype,
                                                       Tensor& scale_out, Tensor& zero_point_out);

}  // namespace ptec::kernels

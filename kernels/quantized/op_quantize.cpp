// quantize_per_tensor.out, quantize_per_tensor.Tensor_out and quantize_per_channel.out:
// affine quantization of a Float or Double tensor to Byte, Char, Short or Int, as ExecuTorch's
// kernels/quantized computes it: the input times the float reciprocal of the scale, rounded to
// float, rounded half to even, plus the zero point (truncated to int32) in float, clamped to
// [quant_min, quant_max]. ExecuTorch converts that float to int64 without a range check; here a
// value past the bounds (also +-inf) saturates, and NaN gives quant_min (what x86 hardware
// conversion gives ExecuTorch).

#include <cmath>

#include "kernels/quantized/functions.h"
#include "kernels/quantized/quant_util.h"

namespace ptec::kernels {
namespace {

template <typename Q, typename In>
Q quantize_val(float inv_scale, int32_t zero_point, In value, int64_t quant_min,
               int64_t quant_max) {
  const float rounded = std::nearbyint(static_cast<float>(inv_scale * value));
  const float q = static_cast<float>(zero_point) + rounded;
  if (std::isnan(q)) return static_cast<Q>(quant_min);
  const double d = q;
  if (d <= static_cast<double>(quant_min)) return static_cast<Q>(quant_min);
  if (d >= static_cast<double>(quant_max)) return static_cast<Q>(quant_max);
  return static_cast<Q>(static_cast<int64_t>(d));
}

/// The checks ExecuTorch makes before quantizing: a floating input, out of dtype `dtype` (one of
/// the quantized storage dtypes) and quant_min/quant_max within that dtype's range.
bool check_quantize_args(KernelRuntimeContext& ctx, const char* op, const Tensor& input,
                         int64_t quant_min, int64_t quant_max, DType dtype, const Tensor& out) {
  if (!check_contiguous(ctx, op, {&input, &out})) return false;
  PTEC_KERNEL_CHECK_MSG(ctx, input.dtype() == DType::Float || input.dtype() == DType::Double,
                        InvalidArgument, false, "%s: input has dtype %s; expected Float or Double",
                        op, to_string(input.dtype()));
  PTEC_KERNEL_CHECK_MSG(ctx, out.dtype() == dtype, InvalidArgument, false,
                        "%s: out has dtype %s but the dtype argument is %s", op,
                        to_string(out.dtype()), to_string(dtype));
  if (!quant::check_quant_dtype(ctx, op, dtype, "dtype")) return false;
  int64_t lo = 0, hi = 0;
  quant::quant_range(dtype, &lo, &hi);
  PTEC_KERNEL_CHECK_MSG(ctx, quant_min >= lo, InvalidArgument, false,
                        "%s: quant_min %lld is below the %s minimum %lld", op,
                        static_cast<long long>(quant_min), to_string(dtype),
                        static_cast<long long>(lo));
  PTEC_KERNEL_CHECK_MSG(ctx, quant_max <= hi, InvalidArgument, false,
                        "%s: quant_max %lld is above the %s maximum %lld", op,
                        static_cast<long long>(quant_max), to_string(dtype),
                        static_cast<long long>(hi));
  return true;
}

}  // namespace

Tensor& quantize_per_tensor_out(KernelRuntimeContext& ctx, const Tensor& input, double scale,
                                int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                DType dtype, Tensor& out) {
  constexpr const char* kOp = "quantize_per_tensor.out";
  if (!resize_out(ctx, kOp, out, input.sizes())) return out;
  if (!check_quantize_args(ctx, kOp, input, quant_min, quant_max, dtype, out)) return out;
  const float inv_scale = 1.0f / static_cast<float>(scale);
  const auto zp = static_cast<int32_t>(zero_point);
  const auto n = static_cast<int64_t>(input.numel());
  dispatch_float(input.dtype(), [&](auto in_tag) {
    using In = decltype(in_tag);
    quant::dispatch_quant(dtype, [&](auto q_tag) {
      using Q = decltype(q_tag);
      const In* x = input.const_data_ptr<In>();
      Q* y = out.mutable_data_ptr<Q>();
      for (int64_t i = 0; i < n; ++i) {
        y[i] = quantize_val<Q>(inv_scale, zp, x[i], quant_min, quant_max);
      }
    });
  });
  return out;
}

Tensor& quantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& input,
                                       const Tensor& scale, const Tensor& zero_point,
                                       int64_t quant_min, int64_t quant_max, DType dtype,
                                       Tensor& out) {
  constexpr const char* kOp = "quantize_per_tensor.Tensor_out";
  if (!quant::check_param_tensor(ctx, kOp, scale, DType::Double, 1, "scale")) return out;
  if (!quant::check_param_tensor(ctx, kOp, zero_point, DType::Long, 1, "zero_point")) return out;
  return quantize_per_tensor_out(ctx, input, scale.const_data_ptr<double>()[0],
                                 zero_point.const_data_ptr<int64_t>()[0], quant_min, quant_max,
                                 dtype, out);
}

Tensor& quantize_per_channel_out(KernelRuntimeContext& ctx, const Tensor& input,
                                 const Tensor& scales, const Tensor& zero_points, int64_t axis,
                                 int64_t quant_min, int64_t quant_max, DType dtype, Tensor& out) {
  constexpr const char* kOp = "quantize_per_channel.out";
  if (!resize_out(ctx, kOp, out, input.sizes())) return out;
  quant::ChannelLayout layout;
  if (!quant::channel_layout(ctx, kOp, input, axis, &layout)) return out;
  if (!quant::check_param_tensor(ctx, kOp, scales, DType::Double, layout.channels, "scales")) {
    return out;
  }
  if (!quant::check_param_tensor(ctx, kOp, zero_points, DType::Long, layout.channels,
                                 "zero_points")) {
    return out;
  }
  if (!check_quantize_args(ctx, kOp, input, quant_min, quant_max, dtype, out)) return out;
  const double* s = scales.const_data_ptr<double>();
  const int64_t* z = zero_points.const_data_ptr<int64_t>();
  dispatch_float(input.dtype(), [&](auto in_tag) {
    using In = decltype(in_tag);
    quant::dispatch_quant(dtype, [&](auto q_tag) {
      using Q = decltype(q_tag);
      const In* x = input.const_data_ptr<In>();
      Q* y = out.mutable_data_ptr<Q>();
      quant::for_each_channel(layout, [&](int64_t i, int64_t c) {
        y[i] = quantize_val<Q>(1.0f / static_cast<float>(s[c]), static_cast<int32_t>(z[c]), x[i],
                               quant_min, quant_max);
      });
    });
  });
  return out;
}

}  // namespace ptec::kernels

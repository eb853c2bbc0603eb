// dequantize_per_tensor.out, dequantize_per_tensor.Tensor_out and dequantize_per_channel.out:
// out = (input - zero_point) * float(scale), as ExecuTorch's kernels/quantized computes it: the
// difference and the product in float, then converted to out's dtype (Float or Double).
// quant_min/quant_max are metadata (ExecuTorch only checks quant_min <= quant_max). The
// per-tensor zero point is truncated to int32, as in ExecuTorch; the difference is taken in
// int64 (ExecuTorch's int32 subtraction could overflow for Int input).

#include "kernels/quantized/functions.h"
#include "kernels/quantized/quant_util.h"

namespace ptec::kernels {
namespace {

bool check_dequantize_args(KernelRuntimeContext& ctx, const char* op, const Tensor& input,
                           int64_t quant_min, int64_t quant_max, DType dtype,
                           std::optional<DType> out_dtype, const Tensor& out) {
  if (!check_contiguous(ctx, op, {&input, &out})) return false;
  if (!quant::check_quant_dtype(ctx, op, input.dtype(), "input")) return false;
  PTEC_KERNEL_CHECK_MSG(ctx, input.dtype() == dtype, InvalidArgument, false,
                        "%s: input has dtype %s but the dtype argument is %s", op,
                        to_string(input.dtype()), to_string(dtype));
  PTEC_KERNEL_CHECK_MSG(ctx, !out_dtype || out.dtype() == *out_dtype, InvalidArgument, false,
                        "%s: out has dtype %s but out_dtype is %s", op, to_string(out.dtype()),
                        out_dtype ? to_string(*out_dtype) : "None");
  PTEC_KERNEL_CHECK_MSG(ctx, quant_min <= quant_max, InvalidArgument, false,
                        "%s: quant_min %lld is greater than quant_max %lld", op,
                        static_cast<long long>(quant_min), static_cast<long long>(quant_max));
  PTEC_KERNEL_CHECK_MSG(ctx, out.dtype() == DType::Float || out.dtype() == DType::Double,
                        InvalidArgument, false, "%s: out has dtype %s; expected Float or Double",
                        op, to_string(out.dtype()));
  return true;
}

template <typename Out, typename Q>
Out dequantize_val(Q value, int64_t zero_point, float scale) {
  return static_cast<Out>(static_cast<float>(static_cast<int64_t>(value) - zero_point) * scale);
}

}  // namespace

Tensor& dequantize_per_tensor_out(KernelRuntimeContext& ctx, const Tensor& input, double scale,
                                  int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                  DType dtype, std::optional<DType> out_dtype, Tensor& out) {
  constexpr const char* kOp = "dequantize_per_tensor.out";
  if (!resize_out(ctx, kOp, out, input.sizes())) return out;
  if (!check_dequantize_args(ctx, kOp, input, quant_min, quant_max, dtype, out_dtype, out)) {
    return out;
  }
  const auto s = static_cast<float>(scale);
  const int64_t zp = static_cast<int32_t>(zero_point);
  const auto n = static_cast<int64_t>(input.numel());
  quant::dispatch_quant(input.dtype(), [&](auto q_tag) {
    using Q = decltype(q_tag);
    dispatch_float(out.dtype(), [&](auto out_tag) {
      using Out = decltype(out_tag);
      const Q* x = input.const_data_ptr<Q>();
      Out* y = out.mutable_data_ptr<Out>();
      for (int64_t i = 0; i < n; ++i) y[i] = dequantize_val<Out>(x[i], zp, s);
    });
  });
  return out;
}

Tensor& dequantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& input,
                                         const Tensor& scale, const Tensor& zero_point,
                                         int64_t quant_min, int64_t quant_max, DType dtype,
                                         std::optional<DType> out_dtype, Tensor& out) {
  constexpr const char* kOp = "dequantize_per_tensor.Tensor_out";
  if (!quant::check_param_tensor(ctx, kOp, scale, DType::Double, 1, "scale")) return out;
  if (!quant::check_param_tensor(ctx, kOp, zero_point, DType::Long, 1, "zero_point")) return out;
  return dequantize_per_tensor_out(ctx, input, scale.const_data_ptr<double>()[0],
                                   zero_point.const_data_ptr<int64_t>()[0], quant_min, quant_max,
                                   dtype, out_dtype, out);
}

Tensor& dequantize_per_channel_out(KernelRuntimeContext& ctx, const Tensor& input,
                                   const Tensor& scales, const OptTensor& zero_points, int64_t axis,
                                   int64_t quant_min, int64_t quant_max, DType dtype,
                                   std::optional<DType> out_dtype, Tensor& out) {
  constexpr const char* kOp = "dequantize_per_channel.out";
  if (!resize_out(ctx, kOp, out, input.sizes())) return out;
  quant::ChannelLayout layout;
  if (!quant::channel_layout(ctx, kOp, input, axis, &layout)) return out;
  if (!quant::check_param_tensor(ctx, kOp, scales, DType::Double, layout.channels, "scales")) {
    return out;
  }
  if (zero_points && !quant::check_param_tensor(ctx, kOp, *zero_points, DType::Long,
                                                layout.channels, "zero_points")) {
    return out;
  }
  if (!check_dequantize_args(ctx, kOp, input, quant_min, quant_max, dtype, out_dtype, out)) {
    return out;
  }
  const double* s = scales.const_data_ptr<double>();
  const int64_t* z = zero_points ? zero_points->const_data_ptr<int64_t>() : nullptr;
  quant::dispatch_quant(input.dtype(), [&](auto q_tag) {
    using Q = decltype(q_tag);
    dispatch_float(out.dtype(), [&](auto out_tag) {
      using Out = decltype(out_tag);
      const Q* x = input.const_data_ptr<Q>();
      Out* y = out.mutable_data_ptr<Out>();
      quant::for_each_channel(layout, [&](int64_t i, int64_t c) {
        y[i] = dequantize_val<Out>(x[i], z != nullptr ? z[c] : 0, static_cast<float>(s[c]));
      });
    });
  });
  return out;
}

}  // namespace ptec::kernels

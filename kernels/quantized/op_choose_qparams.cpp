// choose_qparams.Tensor_out: per-tensor asymmetric quantization parameters of a Float tensor,
// with ExecuTorch's algorithm (kernels/quantized, itself fbgemm's ChooseQuantizationParams):
// the range [min, max] is extended to contain 0; scale = (max - min) / (quant_max - quant_min)
// in double, replaced by 0.1 when it is 0 in float or its float reciprocal is infinite, and
// raised to 6.1e-5 (stretching the range) when smaller; the zero point comes from the end of the
// range with the smaller rounding error and is clamped to [quant_min, quant_max] or rounded half
// to even (in float). eps and dtype are unused, as in ExecuTorch. NaN or infinity in the input
// (a scale that is not finite) and an empty input are errors.

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "kernels/quantized/functions.h"

namespace ptec::kernels {
namespace {

constexpr float kSmallScaleThreshold = 6.1e-5f;

}  // namespace

std::tuple<Tensor&, Tensor&> choose_qparams_tensor_out(KernelRuntimeContext& ctx,
                                                       const Tensor& input, int64_t quant_min,
                                                       int64_t quant_max, double eps, DType dtype,
                                                       Tensor& scale_out, Tensor& zero_point_out) {
  constexpr const char* kOp = "choose_qparams.Tensor_out";
  (void)eps;
  (void)dtype;
  const std::tuple<Tensor&, Tensor&> ret{scale_out, zero_point_out};
  PTEC_KERNEL_CHECK_MSG(ctx, quant_min < quant_max, InvalidArgument, ret,
                        "%s: quant_min %lld must be less than quant_max %lld", kOp,
                        static_cast<long long>(quant_min), static_cast<long long>(quant_max));
  PTEC_KERNEL_CHECK_MSG(ctx, quant_min >= INT32_MIN && quant_max <= INT32_MAX, InvalidArgument, ret,
                        "%s: quant_min and quant_max must fit in int32", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, input.dtype() == DType::Float, InvalidArgument, ret,
                        "%s: input has dtype %s; expected Float", kOp, to_string(input.dtype()));
  PTEC_KERNEL_CHECK_MSG(ctx, scale_out.dtype() == DType::Double, InvalidArgument, ret,
                        "%s: scale_out has dtype %s; expected Double", kOp,
                        to_string(scale_out.dtype()));
  PTEC_KERNEL_CHECK_MSG(ctx, zero_point_out.dtype() == DType::Long, InvalidArgument, ret,
                        "%s: zero_point_out has dtype %s; expected Long", kOp,
                        to_string(zero_point_out.dtype()));
  PTEC_KERNEL_CHECK_MSG(ctx, scale_out.numel() == 1 && zero_point_out.numel() == 1, InvalidArgument,
                        ret,
                        "%s: scale_out and zero_point_out must have one element (got %zu, %zu)",
                        kOp, scale_out.numel(), zero_point_out.numel());
  PTEC_KERNEL_CHECK_MSG(ctx, input.numel() > 0, InvalidArgument, ret, "%s: input is empty", kOp);
  if (!check_contiguous(ctx, kOp, {&input})) return ret;

  const auto qmin = static_cast<int32_t>(quant_min);
  const auto qmax = static_cast<int32_t>(quant_max);
  const float* x = input.const_data_ptr<float>();
  const float* end = x + input.numel();
  float min = *std::min_element(x, end);
  float max = *std::max_element(x, end);
  min = std::min(min, 0.f);
  max = std::max(max, 0.f);

  double scale = (static_cast<double>(max) - min) / (static_cast<double>(qmax) - qmin);
  if (static_cast<float>(scale) == 0.0f || std::isinf(1.0f / static_cast<float>(scale))) {
    scale = 0.1;
  }
  PTEC_KERNEL_CHECK_MSG(ctx, scale > 0 && std::isfinite(scale), InvalidArgument, ret,
                        "%s: quantization scale must be finite and > 0 (the input holds NaN or "
                        "infinity)",
                        kOp);
  if (scale < kSmallScaleThreshold) {
    const auto org_scale = static_cast<float>(scale);
    scale = kSmallScaleThreshold;
    const auto range = static_cast<float>(static_cast<double>(qmax) - qmin);
    if (min == 0.0f) {
      max = kSmallScaleThreshold * range;
    } else if (max == 0.0f) {
      min = -kSmallScaleThreshold * range;
    } else {
      const float amplifier = kSmallScaleThreshold / org_scale;
      min *= amplifier;
      max *= amplifier;
    }
  }

  const double zero_point_from_min = qmin - min / scale;
  const double zero_point_from_max = qmax - max / scale;
  const double zero_point_from_min_error =
      std::abs(static_cast<double>(qmin)) - std::abs(min / scale);
  const double zero_point_from_max_error =
      std::abs(static_cast<double>(qmax)) - std::abs(max / scale);
  const double initial_zero_point = zero_point_from_min_error < zero_point_from_max_error
                                        ? zero_point_from_min
                                        : zero_point_from_max;
  int64_t nudged_zero_point = 0;
  if (initial_zero_point < qmin) {
    nudged_zero_point = qmin;
  } else if (initial_zero_point > qmax) {
    nudged_zero_point = qmax;
  } else {
    nudged_zero_point =
        static_cast<int64_t>(std::nearbyint(static_cast<float>(initial_zero_point)));
  }
  scale_out.mutable_data_ptr<double>()[0] = scale;
  zero_point_out.mutable_data_ptr<int64_t>()[0] = nudged_zero_point;
  return ret;
}

}  // namespace ptec::kernels

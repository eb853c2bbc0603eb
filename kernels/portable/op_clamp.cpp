// clamp.out: min(max(x, min), max) with optional bounds; the bounds take part in type promotion
// (an integral tensor clamped by a float bound gives a float result). NaN propagates; when
// min > max every element becomes max.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& clamp_out(KernelRuntimeContext& ctx, const Tensor& self, const OptScalar& min,
                  const OptScalar& max, Tensor& out) {
  constexpr const char* kOp = "clamp.out";
  PTEC_KERNEL_CHECK_MSG(ctx, min.has_value() || max.has_value(), InvalidArgument, out,
                        "%s: at least one of 'min' or 'max' must not be None", kOp);
  DType common = self.dtype();
  if (min) common = result_type(common, *min);
  if (max) common = result_type(common, *max);
  PTEC_KERNEL_CHECK_MSG(ctx, common != DType::Bool, InvalidArgument, out,
                        "%s: bool inputs are not supported", kOp);
  if (!unary_op_prologue(ctx, kOp, self, out, common)) return out;
  dispatch_real(common, [&](auto tag) {
    using CT = decltype(tag);
    const bool has_lo = min.has_value(), has_hi = max.has_value();
    const CT lo = has_lo ? scalar_to<CT>(*min) : CT{0};
    const CT hi = has_hi ? scalar_to<CT>(*max) : CT{0};
    apply_unary<CT>(ctx, kOp, self, out, [=](CT x) {
      if (is_nan(x)) return x;
      if (has_lo && x < lo) x = lo;
      if (has_hi && x > hi) x = hi;
      return x;
    });
  });
  return out;
}

}  // namespace ptec::kernels

namespace ptec::kernels {

// clamp.Tensor_out: as clamp.out with tensor bounds that broadcast against self.
Tensor& clamp_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const OptTensor& min,
                         const OptTensor& max, Tensor& out) {
  constexpr const char* kOp = "clamp.Tensor_out";
  PTEC_KERNEL_CHECK_MSG(ctx, min.has_value() || max.has_value(), InvalidArgument, out,
                        "%s: at least one of 'min' or 'max' must not be None", kOp);
  const Tensor& lo = min ? *min : self;
  const Tensor& hi = max ? *max : self;
  if (!check_contiguous(ctx, kOp, {&self, &lo, &hi, &out})) return out;
  PTEC_KERNEL_CHECK_MSG(ctx,
                        is_supported_dtype(self.dtype()) && is_supported_dtype(lo.dtype()) &&
                            is_supported_dtype(hi.dtype()) && is_supported_dtype(out.dtype()),
                        InvalidArgument, out, "%s: unsupported dtype", kOp);
  const DType common = promote_types(result_type(self, lo), result_type(self, hi));
  PTEC_KERNEL_CHECK_MSG(ctx, common != DType::Bool, InvalidArgument, out,
                        "%s: bool inputs are not supported", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, can_cast(common, out.dtype()), InvalidArgument, out,
                        "%s: result type %s can't be cast to the out dtype %s", kOp,
                        to_string(common), to_string(out.dtype()));
  Shape shape;
  if (!broadcast_shape(ctx, kOp, {&self, &lo, &hi}, &shape)) return out;
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  const bool has_lo = min.has_value(), has_hi = max.has_value();
  dispatch_real(common, [&](auto tag) {
    using CT = decltype(tag);
    apply_elementwise<CT, 3>(ctx, kOp, {&self, &lo, &hi}, out, [=](CT x, CT l, CT h) {
      if (is_nan(x)) return x;
      if (has_lo && (is_nan(l) || x < l)) x = l;
      if (has_hi && (is_nan(h) || x > h)) x = h;
      return x;
    });
  });
  return out;
}

}  // namespace ptec::kernels

// where.self_out: out = condition ? self : other, broadcasting all three.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& where_self_out(KernelRuntimeContext& ctx, const Tensor& condition, const Tensor& self,
                       const Tensor& other, Tensor& out) {
  constexpr const char* kOp = "where.self_out";
  if (!check_contiguous(ctx, kOp, {&condition, &self, &other, &out})) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, condition.dtype() == DType::Bool || condition.dtype() == DType::Byte,
                        InvalidArgument, out, "%s: condition must be bool (or uint8), got %s", kOp,
                        to_string(condition.dtype()));
  const DType common = result_type(self, other);
  PTEC_KERNEL_CHECK_MSG(ctx,
                        is_accepted_dtype(self.dtype(), kReducedFloat) &&
                            is_accepted_dtype(other.dtype(), kReducedFloat) &&
                            is_accepted_dtype(out.dtype(), kReducedFloat),
                        InvalidArgument, out, "%s: unsupported dtype (%s, %s -> %s)", kOp,
                        to_string(self.dtype()), to_string(other.dtype()), to_string(out.dtype()));
  if (!check_common_dtype(ctx, kOp, self.dtype(), other.dtype(), out, common, kReducedFloat)) {
    return out;
  }
  Shape shape;
  if (!broadcast_shape(ctx, kOp, {&condition, &self, &other}, &shape)) return out;
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  dispatch_real_bool(compute_dtype(common), [&](auto tag) {
    using CT = decltype(tag);
    apply_elementwise<CT, 3>(ctx, kOp, {&condition, &self, &other}, out,
                             [](CT c, CT x, CT y) { return c != CT{0} ? x : y; });
  });
  return out;
}

}  // namespace ptec::kernels

// sub.out, sub.Scalar_out and rsub.Scalar_out: out = self - alpha * other (rsub: other - alpha *
// self). Bool operands are rejected, as in ATen.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {
namespace {

bool check_not_bool(KernelRuntimeContext& ctx, const char* op, bool any_bool) {
  PTEC_KERNEL_CHECK_MSG(ctx, !any_bool, InvalidArgument, false,
                        "%s: subtraction with a bool tensor or scalar is not supported", op);
  return true;
}

// out = sign * (self - alpha * other) for tensor/scalar forms; `reverse` swaps the operands.
Tensor& sub_scalar_impl(KernelRuntimeContext& ctx, const char* op, const Tensor& self,
                        const Scalar& other, const Scalar& alpha, bool reverse, Tensor& out) {
  const DType common = result_type(self, other);
  if (!check_not_bool(ctx, op, self.dtype() == DType::Bool || other.is_boolean())) return out;
  if (!unary_op_prologue(ctx, op, self, out, common, kReducedFloat)) return out;
  if (!check_alpha(ctx, op, common, alpha)) return out;
  dispatch_real(compute_dtype(common), [&](auto tag) {
    using CT = decltype(tag);
    const CT a = scalar_to<CT>(alpha);
    const CT s = scalar_to<CT>(other);
    if (reverse) {
      apply_unary<CT>(ctx, op, self, out, [a, s](CT x) { return static_cast<CT>(s - a * x); });
    } else {
      const CT b = static_cast<CT>(a * s);
      apply_unary<CT>(ctx, op, self, out, [b](CT x) { return static_cast<CT>(x - b); });
    }
  });
  return out;
}

}  // namespace

Tensor& sub_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  constexpr const char* kOp = "sub.out";
  const DType common = result_type(self, other);
  if (!check_not_bool(ctx, kOp, self.dtype() == DType::Bool || other.dtype() == DType::Bool)) {
    return out;
  }
  if (!binary_op_prologue(ctx, kOp, self, other, out, common, kReducedFloat)) return out;
  if (!check_alpha(ctx, kOp, common, alpha)) return out;
  dispatch_real(compute_dtype(common), [&](auto tag) {
    using CT = decltype(tag);
    const CT a = scalar_to<CT>(alpha);
    apply_binary<CT>(ctx, kOp, self, other, out,
                     [a](CT x, CT y) { return static_cast<CT>(x - a * y); });
  });
  return out;
}

Tensor& sub_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, Tensor& out) {
  return sub_scalar_impl(ctx, "sub.Scalar_out", self, other, alpha, /*reverse=*/false, out);
}

Tensor& rsub_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                        const Scalar& alpha, Tensor& out) {
  return sub_scalar_impl(ctx, "rsub.Scalar_out", self, other, alpha, /*reverse=*/true, out);
}

}  // namespace ptec::kernels

// add.out and add.Scalar_out: out = self + alpha * other.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  constexpr const char* kOp = "add.out";
  const DType common = result_type(self, other);
  if (!binary_op_prologue(ctx, kOp, self, other, out, common, kReducedFloat)) return out;
  if (!check_alpha(ctx, kOp, common, alpha)) return out;
  dispatch_real_bool(compute_dtype(common), [&](auto tag) {
    using CT = decltype(tag);
    const CT a = scalar_to<CT>(alpha);
    apply_binary<CT>(ctx, kOp, self, other, out,
                     [a](CT x, CT y) { return static_cast<CT>(x + a * y); });
  });
  return out;
}

Tensor& add_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, Tensor& out) {
  constexpr const char* kOp = "add.Scalar_out";
  const DType common = result_type(self, other);
  if (!unary_op_prologue(ctx, kOp, self, out, common, kReducedFloat)) return out;
  if (!check_alpha(ctx, kOp, common, alpha)) return out;
  dispatch_real_bool(compute_dtype(common), [&](auto tag) {
    using CT = decltype(tag);
    const CT b = static_cast<CT>(scalar_to<CT>(alpha) * scalar_to<CT>(other));
    apply_unary<CT>(ctx, kOp, self, out, [b](CT x) { return static_cast<CT>(x + b); });
  });
  return out;
}

}  // namespace ptec::kernels

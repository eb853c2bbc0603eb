// mul.out and mul.Scalar_out: out = self * other.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& mul_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  constexpr const char* kOp = "mul.out";
  const DType common = result_type(self, other);
  if (!binary_op_prologue(ctx, kOp, self, other, out, common, kReducedFloat)) return out;
  dispatch_real_bool(compute_dtype(common), [&](auto tag) {
    using CT = decltype(tag);
    apply_binary<CT>(ctx, kOp, self, other, out, [](CT x, CT y) { return static_cast<CT>(x * y); });
  });
  return out;
}

Tensor& mul_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out) {
  constexpr const char* kOp = "mul.Scalar_out";
  const DType common = result_type(self, other);
  if (!unary_op_prologue(ctx, kOp, self, out, common, kReducedFloat)) return out;
  dispatch_real_bool(compute_dtype(common), [&](auto tag) {
    using CT = decltype(tag);
    const CT s = scalar_to<CT>(other);
    apply_unary<CT>(ctx, kOp, self, out, [s](CT x) { return static_cast<CT>(x * s); });
  });
  return out;
}

}  // namespace ptec::kernels

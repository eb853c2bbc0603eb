// div.out and div.Scalar_out: true division. Integral and bool operands divide as float
// (ATen's default float dtype), so out must be a floating type.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {
namespace {

DType true_div_type(DType common) { return is_floating_point(common) ? common : DType::Float; }

}  // namespace

Tensor& div_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  constexpr const char* kOp = "div.out";
  const DType common = true_div_type(result_type(self, other));
  if (!binary_op_prologue(ctx, kOp, self, other, out, common)) return out;
  dispatch_float(common, [&](auto tag) {
    using CT = decltype(tag);
    apply_binary<CT>(ctx, kOp, self, other, out, [](CT x, CT y) { return x / y; });
  });
  return out;
}

Tensor& div_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out) {
  constexpr const char* kOp = "div.Scalar_out";
  const DType common = true_div_type(result_type(self, other));
  if (!unary_op_prologue(ctx, kOp, self, out, common)) return out;
  dispatch_float(common, [&](auto tag) {
    using CT = decltype(tag);
    const CT s = scalar_to<CT>(other);
    apply_unary<CT>(ctx, kOp, self, out, [s](CT x) { return x / s; });
  });
  return out;
}

}  // namespace ptec::kernels

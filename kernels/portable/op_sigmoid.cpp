// sigmoid.out: 1 / (1 + exp(-x)). Integral and bool inputs compute in float.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& sigmoid_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  constexpr const char* kOp = "sigmoid.out";
  const DType common = is_floating_point(self.dtype()) ? self.dtype() : DType::Float;
  if (!unary_op_prologue(ctx, kOp, self, out, common)) return out;
  dispatch_float(common, [&](auto tag) {
    using CT = decltype(tag);
    apply_unary<CT>(ctx, kOp, self, out, [](CT x) { return CT{1} / (CT{1} + std::exp(-x)); });
  });
  return out;
}

}  // namespace ptec::kernels

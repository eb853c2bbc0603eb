// relu.out: max(x, 0), propagating NaN.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& relu_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  constexpr const char* kOp = "relu.out";
  PTEC_KERNEL_CHECK_MSG(ctx, self.dtype() != DType::Bool, InvalidArgument, out,
                        "%s: bool inputs are not supported", kOp);
  if (!unary_op_prologue(ctx, kOp, self, out, self.dtype())) return out;
  dispatch_real(self.dtype(), [&](auto tag) {
    using CT = decltype(tag);
    apply_unary<CT>(ctx, kOp, self, out, [](CT x) { return is_nan(x) || x > CT{0} ? x : CT{0}; });
  });
  return out;
}

}  // namespace ptec::kernels

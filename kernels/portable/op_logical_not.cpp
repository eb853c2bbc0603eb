// logical_not.out: x == 0, written as bool (or converted to out's dtype).

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& logical_not_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  constexpr const char* kOp = "logical_not.out";
  if (!unary_op_prologue(ctx, kOp, self, out, DType::Bool)) return out;
  dispatch_real_bool(self.dtype(), [&](auto tag) {
    using CT = decltype(tag);
    apply_unary<CT>(ctx, kOp, self, out, [](CT x) { return x == CT{0}; });
  });
  return out;
}

}  // namespace ptec::kernels

// neg.out and abs.out: computed in the input dtype (bool is rejected, as in ATen).

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {
namespace {

template <typename Fn>
Tensor& same_dtype_op(KernelRuntimeContext& ctx, const char* op, const Tensor& self, Tensor& out,
                      Fn fn) {
  PTEC_KERNEL_CHECK_MSG(ctx, self.dtype() != DType::Bool, InvalidArgument, out,
                        "%s: bool inputs are not supported", op);
  if (!unary_op_prologue(ctx, op, self, out, self.dtype(), kReducedFloat)) return out;
  dispatch_real(compute_dtype(self.dtype()), [&](auto tag) {
    using CT = decltype(tag);
    apply_unary<CT>(ctx, op, self, out, [&](CT x) { return static_cast<CT>(fn(x)); });
  });
  return out;
}

}  // namespace

Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return same_dtype_op(ctx, "neg.out", self, out, [](auto x) { return -x; });
}

Tensor& abs_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return same_dtype_op(ctx, "abs.out", self, out, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return std::fabs(x);
    } else {
      return x < T{0} ? static_cast<T>(-x) : x;
    }
  });
}

}  // namespace ptec::kernels

// hardtanh.out: clamp to [min_val, max_val], computed in the input dtype.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& hardtanh_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& min_val,
                     const Scalar& max_val, Tensor& out) {
  constexpr const char* kOp = "hardtanh.out";
  PTEC_KERNEL_CHECK_MSG(ctx, self.dtype() != DType::Bool, InvalidArgument, out,
                        "%s: bool inputs are not supported", kOp);
  if (!unary_op_prologue(ctx, kOp, self, out, self.dtype())) return out;
  dispatch_real(self.dtype(), [&](auto tag) {
    using CT = decltype(tag);
    const CT lo = scalar_to<CT>(min_val);
    const CT hi = scalar_to<CT>(max_val);
    apply_unary<CT>(ctx, kOp, self, out, [=](CT x) {
      if (is_nan(x)) return x;
      if (x < lo) x = lo;
      if (x > hi) x = hi;
      return x;
    });
  });
  return out;
}

}  // namespace ptec::kernels

// isnan.out and isinf.out: bool results; integral and bool inputs are never NaN or infinite.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {
namespace {

template <typename Fn>
Tensor& float_predicate(KernelRuntimeContext& ctx, const char* op, const Tensor& self, Tensor& out,
                        Fn fn) {
  if (!unary_op_prologue(ctx, op, self, out, DType::Bool)) return out;
  dispatch_real_bool(self.dtype(), [&](auto tag) {
    using CT = decltype(tag);
    apply_unary<CT>(ctx, op, self, out, [&](CT x) -> bool {
      bool result = false;
      if constexpr (std::is_floating_point_v<CT>) result = fn(x);
      return result;
    });
  });
  return out;
}

}  // namespace

Tensor& isnan_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return float_predicate(ctx, "isnan.out", self, out, [](auto x) { return std::isnan(x); });
}

Tensor& isinf_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return float_predicate(ctx, "isinf.out", self, out, [](auto x) { return std::isinf(x); });
}

}  // namespace ptec::kernels

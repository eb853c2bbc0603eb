// gelu.out: x * Phi(x) (approximate="none") or the tanh approximation (approximate="tanh").

#include <cmath>
#include <string_view>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& gelu_out(KernelRuntimeContext& ctx, const Tensor& self, std::string_view approximate,
                 Tensor& out) {
  constexpr const char* kOp = "gelu.out";
  PTEC_KERNEL_CHECK_MSG(ctx, approximate == "none" || approximate == "tanh", InvalidArgument, out,
                        "%s: approximate must be 'none' or 'tanh'", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, is_floating_point(self.dtype()), InvalidArgument, out,
                        "%s: dtype %s is not floating point", kOp, to_string(self.dtype()));
  if (approximate == "tanh") {
    return unary_float_op(ctx, kOp, self, out, [](auto x) {
      using T = decltype(x);
      const T k_beta = static_cast<T>(M_SQRT2 * M_2_SQRTPI * 0.5);
      const T k_kappa = static_cast<T>(0.044715);
      const T inner = k_beta * (x + k_kappa * x * x * x);
      return static_cast<T>(0.5) * x * (T{1} + std::tanh(inner));
    });
  }
  return unary_float_op(ctx, kOp, self, out, [](auto x) {
    using T = decltype(x);
    return x * static_cast<T>(0.5) * (T{1} + std::erf(x * static_cast<T>(M_SQRT1_2)));
  });
}

}  // namespace ptec::kernels

// leaky_relu.out and elu.out: floating activations with a negative-side slope / exponential.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {
namespace {

bool check_floating(KernelRuntimeContext& ctx, const char* op, const Tensor& self) {
  PTEC_KERNEL_CHECK_MSG(ctx, is_floating_point(self.dtype()), InvalidArgument, false,
                        "%s: dtype %s is not floating point", op, to_string(self.dtype()));
  return true;
}

}  // namespace

Tensor& leaky_relu_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& negative_slope,
                       Tensor& out) {
  constexpr const char* kOp = "leaky_relu.out";
  if (!check_floating(ctx, kOp, self)) return out;
  const double slope = negative_slope.to_double();
  return unary_float_op(ctx, kOp, self, out, [slope](auto x) {
    using T = decltype(x);
    return x > T{0} ? x : static_cast<T>(x * static_cast<T>(slope));
  });
}

Tensor& elu_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& alpha,
                const Scalar& scale, const Scalar& input_scale, Tensor& out) {
  constexpr const char* kOp = "elu.out";
  if (!check_floating(ctx, kOp, self)) return out;
  const double a = alpha.to_double(), s = scale.to_double(), is = input_scale.to_double();
  return unary_float_op(ctx, kOp, self, out, [=](auto x) {
    using T = decltype(x);
    const T neg_coef = static_cast<T>(a * s);
    return x > T{0} ? static_cast<T>(x * static_cast<T>(s))
                    : static_cast<T>(neg_coef * std::expm1(x * static_cast<T>(is)));
  });
}

}  // namespace ptec::kernels

// tanh.out: hyperbolic tangent; integral inputs compute in float.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& tanh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op(ctx, "tanh.out", self, out, [](auto x) { return std::tanh(x); });
}

}  // namespace ptec::kernels

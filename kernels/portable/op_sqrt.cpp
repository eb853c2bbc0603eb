// sqrt.out: square root; integral inputs compute in float.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& sqrt_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op(ctx, "sqrt.out", self, out, [](auto x) { return std::sqrt(x); });
}

}  // namespace ptec::kernels

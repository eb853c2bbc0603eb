// exp.out: e^x; integral inputs compute in float.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& exp_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op(ctx, "exp.out", self, out, [](auto x) { return std::exp(x); });
}

}  // namespace ptec::kernels

// log.out: natural logarithm; integral inputs compute in float.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& log_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op(ctx, "log.out", self, out, [](auto x) { return std::log(x); });
}

}  // namespace ptec::kernels

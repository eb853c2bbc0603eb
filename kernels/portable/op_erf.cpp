// erf.out: the error function; integral inputs compute in float.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& erf_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op(ctx, "erf.out", self, out, [](auto x) { return std::erf(x); });
}

}  // namespace ptec::kernels

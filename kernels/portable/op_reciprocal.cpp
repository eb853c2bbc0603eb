// reciprocal.out: 1 / x; integral inputs compute in float.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& reciprocal_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op(ctx, "reciprocal.out", self, out,
                        [](auto x) { return decltype(x){1} / x; });
}

}  // namespace ptec::kernels

// sigmoid.out: 1 / (1 + exp(-x)). Integral and bool inputs compute in float.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& sigmoid_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op(ctx, "sigmoid.out", self, out, [](auto x) {
    using T = decltype(x);
    return T{1} / (T{1} + std::exp(-x));
  });
}

}  // namespace ptec::kernels

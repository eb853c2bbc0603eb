// rsqrt.out: 1 / sqrt(x); integral inputs compute in float.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

Tensor& rsqrt_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op(ctx, "rsqrt.out", self, out,
                        [](auto x) { return decltype(x){1} / std::sqrt(x); });
}

}  // namespace ptec::kernels

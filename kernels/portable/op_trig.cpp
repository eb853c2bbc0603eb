// sin/cos/tan/asin/acos/atan/sinh/cosh/asinh/acosh/atanh.out: trigonometric and hyperbolic
// functions; integral and bool inputs compute in Float (ATen's default float dtype), floating ones
// in their own dtype.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

#define PTEC_DEFINE_FLOAT_UNARY(name, fn)                                                   \
  Tensor& name##_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {          \
    return unary_float_op(ctx, #name ".out", self, out, [](auto x) { return std::fn(x); }); \
  }

PTEC_DEFINE_FLOAT_UNARY(sin, sin)
PTEC_DEFINE_FLOAT_UNARY(cos, cos)
PTEC_DEFINE_FLOAT_UNARY(tan, tan)
PTEC_DEFINE_FLOAT_UNARY(asin, asin)
PTEC_DEFINE_FLOAT_UNARY(acos, acos)
PTEC_DEFINE_FLOAT_UNARY(atan, atan)
PTEC_DEFINE_FLOAT_UNARY(sinh, sinh)
PTEC_DEFINE_FLOAT_UNARY(cosh, cosh)
PTEC_DEFINE_FLOAT_UNARY(asinh, asinh)
PTEC_DEFINE_FLOAT_UNARY(acosh, acosh)
PTEC_DEFINE_FLOAT_UNARY(atanh, atanh)

#undef PTEC_DEFINE_FLOAT_UNARY

}  // namespace ptec::kernels

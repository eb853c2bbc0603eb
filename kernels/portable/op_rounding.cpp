// floor/ceil/round/trunc/sign.out: computed in the input dtype. On integral inputs the rounding
// ops are copies (as in ATen); round rounds half to even; sign gives -1, 0 or 1 (0 for NaN, as
// ATen computes (0 < x) - (x < 0)).
// Bool inputs are rejected except by sign (where sign(b) = b).

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {
namespace {

template <typename Fn>
Tensor& rounding_op(KernelRuntimeContext& ctx, const char* op, const Tensor& self, Tensor& out,
                    bool allow_bool, Fn fn) {
  PTEC_KERNEL_CHECK_MSG(ctx, allow_bool || self.dtype() != DType::Bool, InvalidArgument, out,
                        "%s: bool inputs are not supported", op);
  if (!unary_op_prologue(ctx, op, self, out, self.dtype())) return out;
  dispatch_real_bool(self.dtype(), [&](auto tag) {
    using CT = decltype(tag);
    apply_unary<CT>(ctx, op, self, out, [&](CT x) { return static_cast<CT>(fn(x)); });
  });
  return out;
}

/// `fn` on floating values, identity on integral ones.
template <typename Fn>
auto float_only(Fn fn) {
  return [fn](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) {
      return fn(x);
    } else {
      return x;
    }
  };
}

}  // namespace

Tensor& floor_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return rounding_op(ctx, "floor.out", self, out, false,
                     float_only([](auto x) { return std::floor(x); }));
}

Tensor& ceil_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return rounding_op(ctx, "ceil.out", self, out, false,
                     float_only([](auto x) { return std::ceil(x); }));
}

Tensor& round_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  // nearbyint in the default rounding mode rounds half to even, like ATen's round.
  return rounding_op(ctx, "round.out", self, out, false,
                     float_only([](auto x) { return std::nearbyint(x); }));
}

Tensor& trunc_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return rounding_op(ctx, "trunc.out", self, out, false,
                     float_only([](auto x) { return std::trunc(x); }));
}

Tensor& sign_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return rounding_op(ctx, "sign.out", self, out, true, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool>) {
      return x;
    } else {
      return static_cast<T>((T{0} < x) - (x < T{0}));
    }
  });
}

}  // namespace ptec::kernels

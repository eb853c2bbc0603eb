// remainder.Tensor_out / remainder.Scalar_out (Python's %: the result has the divisor's sign)
// and fmod.Tensor_out / fmod.Scalar_out (C's fmod: the dividend's sign), in the promoted dtype.
// Integral division by zero fails the context (ATen raises).

#include <cmath>
#include <type_traits>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {
namespace {

template <typename T>
T mod_value(T x, T y, bool python, bool& by_zero) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = std::fmod(x, y);
    if (python && r != T{0} && ((r < T{0}) != (y < T{0}))) r += y;
    return r;
  } else {
    if (y == T{0}) {
      by_zero = true;
      return T{0};
    }
    T r = static_cast<T>(x % y);
    if constexpr (std::is_signed_v<T>) {
      if (python && r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
    }
    return r;
  }
}

Tensor& mod_tensor(KernelRuntimeContext& ctx, const char* op, bool python, const Tensor& self,
                   const Tensor& other, Tensor& out) {
  const DType common = result_type(self, other);
  PTEC_KERNEL_CHECK_MSG(ctx, common != DType::Bool, InvalidArgument, out,
                        "%s: bool inputs are not supported", op);
  if (!binary_op_prologue(ctx, op, self, other, out, common, kReducedFloat | kBarebonesUnsigned))
    return out;
  bool by_zero = false;
  auto run = [&](auto tag) {
    using CT = decltype(tag);
    apply_binary<CT>(ctx, op, self, other, out,
                     [&](CT x, CT y) { return mod_value(x, y, python, by_zero); });
  };
  if (!dispatch_real(compute_dtype(common), run)) dispatch_unsigned(common, run);
  PTEC_KERNEL_CHECK_MSG(ctx, !by_zero, InvalidArgument, out, "%s: integer division by zero", op);
  return out;
}

Tensor& mod_scalar(KernelRuntimeContext& ctx, const char* op, bool python, const Tensor& self,
                   const Scalar& other, Tensor& out) {
  const DType common = result_type(self, other);
  PTEC_KERNEL_CHECK_MSG(ctx, common != DType::Bool, InvalidArgument, out,
                        "%s: bool inputs are not supported", op);
  if (!unary_op_prologue(ctx, op, self, out, common, kReducedFloat | kBarebonesUnsigned))
    return out;
  bool by_zero = false;
  auto run = [&](auto tag) {
    using CT = decltype(tag);
    const CT y = scalar_to<CT>(other);
    apply_unary<CT>(ctx, op, self, out, [&](CT x) { return mod_value(x, y, python, by_zero); });
  };
  if (!dispatch_real(compute_dtype(common), run)) dispatch_unsigned(common, run);
  PTEC_KERNEL_CHECK_MSG(ctx, !by_zero, InvalidArgument, out, "%s: integer division by zero", op);
  return out;
}

}  // namespace

Tensor& remainder_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                             Tensor& out) {
  return mod_tensor(ctx, "remainder.Tensor_out", true, self, other, out);
}

Tensor& remainder_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                             Tensor& out) {
  return mod_scalar(ctx, "remainder.Scalar_out", true, self, other, out);
}

Tensor& fmod_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out) {
  return mod_tensor(ctx, "fmod.Tensor_out", false, self, other, out);
}

Tensor& fmod_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                        Tensor& out) {
  return mod_scalar(ctx, "fmod.Scalar_out", false, self, other, out);
}

}  // namespace ptec::kernels

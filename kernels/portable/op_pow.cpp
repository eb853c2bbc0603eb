// pow.Tensor_Scalar_out and pow.Tensor_Tensor_out. Integral powers use exact repeated
// squaring; a negative integral exponent of an integral base is rejected, as in ATen.

#include <cmath>
#include <type_traits>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {
namespace {

template <typename T>
T power(T base, T exp) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::pow(base, exp);
  } else if constexpr (std::is_same_v<T, bool>) {
    return base || !exp;
  } else {
    if constexpr (std::is_signed_v<T>) {
      if (exp < 0) {  // only reachable for Tensor_Tensor; ATen: 1 -> 1, -1 -> +-1, else 0
        if (base == 1) return 1;
        if (base == -1) return (exp % 2 == 0) ? 1 : static_cast<T>(-1);
        return 0;
      }
    }
    T result = 1;
    while (exp > 0) {
      if (exp & 1) result = static_cast<T>(result * base);
      base = static_cast<T>(base * base);
      exp = static_cast<T>(exp >> 1);
    }
    return result;
  }
}

}  // namespace

Tensor& pow_tensor_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& exponent,
                              Tensor& out) {
  constexpr const char* kOp = "pow.Tensor_Scalar_out";
  const DType common = result_type(self, exponent);
  PTEC_KERNEL_CHECK_MSG(ctx, is_floating_point(common) || exponent.to_int() >= 0, InvalidArgument,
                        out, "%s: integers to negative integer powers are not allowed", kOp);
  if (!unary_op_prologue(ctx, kOp, self, out, common, kReducedFloat | kBarebonesUnsigned)) {
    return out;
  }
  auto run = [&](auto tag) {
    using CT = decltype(tag);
    const CT e = scalar_to<CT>(exponent);
    apply_unary<CT>(ctx, kOp, self, out, [e](CT x) { return power(x, e); });
  };
  if (!dispatch_real_bool(compute_dtype(common), run)) dispatch_unsigned(common, run);
  return out;
}

Tensor& pow_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& exponent,
                              Tensor& out) {
  constexpr const char* kOp = "pow.Tensor_Tensor_out";
  const DType common = result_type(self, exponent);
  if (!binary_op_prologue(ctx, kOp, self, exponent, out, common,
                          kReducedFloat | kBarebonesUnsigned)) {
    return out;
  }
  auto run = [&](auto tag) {
    using CT = decltype(tag);
    apply_binary<CT>(ctx, kOp, self, exponent, out, [](CT x, CT e) { return power(x, e); });
  };
  if (!dispatch_real_bool(compute_dtype(common), run)) dispatch_unsigned(common, run);
  return out;
}

}  // namespace ptec::kernels

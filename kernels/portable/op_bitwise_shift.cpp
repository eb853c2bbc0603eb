// bitwise_left_shift / bitwise_right_shift, .Tensor_out (broadcasting) and .Tensor_Scalar_out, in
// the promoted integral dtype (including the barebones unsigned types; bool is rejected, as in
// ATen). ATen's CPU semantics: a shift count that is negative or at least the bit width shifts
// everything out (left: 0; right: 0 for unsigned, the sign fill for signed).

#include <climits>
#include <type_traits>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {
namespace {

template <typename T>
T shift_left(T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr int kBits = sizeof(T) * CHAR_BIT;
  const auto count = static_cast<std::make_signed_t<T>>(b);
  if (count < 0 || count >= kBits) return T{0};
  // Shift the unsigned pattern (no signed overflow); integer promotion of narrow types is undone
  // by the conversion back, which keeps the low bits.
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << count));
}

template <typename T>
T shift_right(T a, T b) {
  constexpr int kBits = sizeof(T) * CHAR_BIT;
  const auto count = static_cast<std::make_signed_t<T>>(b);
  if (count < 0 || count >= kBits) {
    if constexpr (std::is_signed_v<T>) return a < 0 ? T{-1} : T{0};
    return T{0};
  }
  return static_cast<T>(a >> count);  // arithmetic for signed types (C++20)
}

template <bool kLeft>
Tensor& shift_tensor(KernelRuntimeContext& ctx, const char* op, const Tensor& self,
                     const Tensor& other, Tensor& out) {
  const DType common = result_type(self, other);
  PTEC_KERNEL_CHECK_MSG(ctx, common == kNoPromotion || is_integral(common, false), InvalidArgument,
                        out, "%s: expected integral inputs, got %s and %s", op,
                        to_string(self.dtype()), to_string(other.dtype()));
  if (!binary_op_prologue(ctx, op, self, other, out, common, kBarebonesUnsigned)) return out;
  auto run = [&](auto tag) {
    using CT = decltype(tag);
    apply_binary<CT>(ctx, op, self, other, out,
                     [](CT a, CT b) { return kLeft ? shift_left(a, b) : shift_right(a, b); });
  };
  if (!dispatch_int(common, run)) dispatch_unsigned(common, run);
  return out;
}

template <bool kLeft>
Tensor& shift_scalar(KernelRuntimeContext& ctx, const char* op, const Tensor& self,
                     const Scalar& other, Tensor& out) {
  const DType common = result_type(self, other);
  PTEC_KERNEL_CHECK_MSG(ctx, common == kNoPromotion || is_integral(common, false), InvalidArgument,
                        out, "%s: expected an integral tensor and scalar, got %s", op,
                        to_string(self.dtype()));
  if (!unary_op_prologue(ctx, op, self, out, common, kBarebonesUnsigned)) return out;
  auto run = [&](auto tag) {
    using CT = decltype(tag);
    const CT b = scalar_to<CT>(other);
    apply_unary<CT>(ctx, op, self, out,
                    [b](CT a) { return kLeft ? shift_left(a, b) : shift_right(a, b); });
  };
  if (!dispatch_int(common, run)) dispatch_unsigned(common, run);
  return out;
}

}  // namespace

Tensor& bitwise_left_shift_tensor_out(KernelRuntimeContext& ctx, const Tensor& self,
                                      const Tensor& other, Tensor& out) {
  return shift_tensor<true>(ctx, "bitwise_left_shift.Tensor_out", self, other, out);
}

Tensor& bitwise_left_shift_scalar_out(KernelRuntimeContext& ctx, const Tensor& self,
                                      const Scalar& other, Tensor& out) {
  return shift_scalar<true>(ctx, "bitwise_left_shift.Tensor_Scalar_out", self, other, out);
}

Tensor& bitwise_right_shift_tensor_out(KernelRuntimeContext& ctx, const Tensor& self,
                                       const Tensor& other, Tensor& out) {
  return shift_tensor<false>(ctx, "bitwise_right_shift.Tensor_out", self, other, out);
}

Tensor& bitwise_right_shift_scalar_out(KernelRuntimeContext& ctx, const Tensor& self,
                                       const Scalar& other, Tensor& out) {
  return shift_scalar<false>(ctx, "bitwise_right_shift.Tensor_Scalar_out", self, other, out);
}

}  // namespace ptec::kernels

// div.out, div.Scalar_out, div.out_mode and div.Scalar_mode_out: true division (or rounded, with
// a rounding mode). Integral and bool operands divide as
// float (ATen's default float dtype), so out must be a floating type.

#include <cmath>
#include <optional>
#include <string_view>
#include <type_traits>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {
namespace {

DType true_div_type(DType common) { return is_floating_point(common) ? common : DType::Float; }

}  // namespace

Tensor& div_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  constexpr const char* kOp = "div.out";
  const DType common = true_div_type(result_type(self, other));
  if (!binary_op_prologue(ctx, kOp, self, other, out, common, kReducedFloat)) return out;
  dispatch_float(compute_dtype(common), [&](auto tag) {
    using CT = decltype(tag);
    apply_binary<CT>(ctx, kOp, self, other, out, [](CT x, CT y) { return x / y; });
  });
  return out;
}

Tensor& div_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out) {
  constexpr const char* kOp = "div.Scalar_out";
  const DType common = true_div_type(result_type(self, other));
  if (!unary_op_prologue(ctx, kOp, self, out, common, kReducedFloat)) return out;
  dispatch_float(compute_dtype(common), [&](auto tag) {
    using CT = decltype(tag);
    const CT s = scalar_to<CT>(other);
    apply_unary<CT>(ctx, kOp, self, out, [s](CT x) { return x / s; });
  });
  return out;
}

}  // namespace ptec::kernels

namespace ptec::kernels {

namespace {

// x / y rounded toward zero (trunc) or down (floor), in the promoted dtype; an integral division
// by zero sets `divided_by_zero` and gives 0.
template <typename CT>
CT rounded_quotient(CT x, CT y, bool trunc, bool& divided_by_zero) {
  if constexpr (std::is_floating_point_v<CT>) {
    const CT q = x / y;
    return trunc ? std::trunc(q) : std::floor(q);
  } else {
    if (y == CT{0}) {
      divided_by_zero = true;
      return CT{0};
    }
    const CT q = static_cast<CT>(x / y);
    // C++ truncates; floor moves a negative inexact quotient down by one.
    if constexpr (std::is_signed_v<CT>) {
      if (!trunc && (x % y != 0) && ((x < 0) != (y < 0))) return static_cast<CT>(q - 1);
    }
    return q;
  }
}

// What the two rounding divisions share: the mode ("trunc" or "floor") and dtype checks, and the
// division-by-zero report. `run(trunc, divided_by_zero)` runs the prologue and the element loop
// and returns false when the prologue failed.
template <typename Run>
Tensor& rounded_div(KernelRuntimeContext& ctx, const char* op, std::string_view mode, DType common,
                    Tensor& out, Run run) {
  const bool trunc = mode == "trunc";
  PTEC_KERNEL_CHECK_MSG(ctx, trunc || mode == "floor", InvalidArgument, out,
                        "%s: rounding_mode must be 'trunc' or 'floor'", op);
  PTEC_KERNEL_CHECK_MSG(ctx, common != DType::Bool, InvalidArgument, out,
                        "%s: bool inputs are not supported", op);
  bool divided_by_zero = false;
  if (!run(trunc, divided_by_zero)) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, !divided_by_zero, InvalidArgument, out, "%s: integer division by zero",
                        op);
  return out;
}

}  // namespace

// div.out_mode: rounding_mode None is true division; "trunc" and "floor" round the quotient and
// keep the promoted dtype (integral division by zero fails the context, as ATen raises).
Tensor& div_out_mode(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                     const std::optional<std::string_view>& rounding_mode, Tensor& out) {
  constexpr const char* kOp = "div.out_mode";
  if (!rounding_mode) return div_out(ctx, self, other, out);
  const DType common = result_type(self, other);
  return rounded_div(ctx, kOp, *rounding_mode, common, out, [&](bool trunc, bool& zero) {
    if (!binary_op_prologue(ctx, kOp, self, other, out, common, kReducedFloat)) return false;
    dispatch_real(compute_dtype(common), [&](auto tag) {
      using CT = decltype(tag);
      apply_binary<CT>(ctx, kOp, self, other, out,
                       [&](CT x, CT y) { return rounded_quotient(x, y, trunc, zero); });
    });
    return true;
  });
}

// div.Scalar_mode_out: div.out_mode with a Scalar divisor (ATen's scalar promotion).
Tensor& div_scalar_mode_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                            const std::optional<std::string_view>& rounding_mode, Tensor& out) {
  constexpr const char* kOp = "div.Scalar_mode_out";
  if (!rounding_mode) return div_scalar_out(ctx, self, other, out);
  const DType common = result_type(self, other);
  return rounded_div(ctx, kOp, *rounding_mode, common, out, [&](bool trunc, bool& zero) {
    if (!unary_op_prologue(ctx, kOp, self, out, common, kReducedFloat)) return false;
    dispatch_real(compute_dtype(common), [&](auto tag) {
      using CT = decltype(tag);
      const CT s = scalar_to<CT>(other);
      apply_unary<CT>(ctx, kOp, self, out,
                      [&](CT x) { return rounded_quotient(x, s, trunc, zero); });
    });
    return true;
  });
}

}  // namespace ptec::kernels

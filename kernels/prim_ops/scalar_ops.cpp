// executorch_prim::* scalar ops: arithmetic, comparison and conversion on Int, Double and Bool
// EValues with Python semantics (ints stay ints unless a Double is involved; floordiv and mod
// round toward negative infinity; truediv always gives a Double).

#include <cmath>

#include "kernels/prim_ops/prim_op_util.h"

namespace ptec::kernels::prim {
namespace {

using runtime::EValue;
using runtime::KernelRuntimeContext;

enum class Arith { Add, Sub, Mul, TrueDiv, FloorDiv, Mod, Max, Min };
enum class Compare { Eq, Gt, Ge, Lt, Le };

bool is_number(const EValue& v) { return v.is_int() || v.is_double() || v.is_bool(); }
int64_t as_int(const EValue& v) { return v.is_bool() ? (v.to_bool() ? 1 : 0) : v.to_int(); }
double as_double(const EValue& v) {
  return v.is_double() ? v.to_double() : static_cast<double>(as_int(v));
}

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t floor_mod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

template <Arith kind>
void arith(KernelRuntimeContext& ctx, Span<EValue*> stack, const char* op) {
  if (!check_arity(ctx, op, stack, 3)) return;
  const EValue& a = *stack[0];
  const EValue& b = *stack[1];
  PTEC_KERNEL_CHECK_MSG(ctx, is_number(a) && is_number(b), InvalidArgument, ,
                        "%s: expected two scalars, got %s and %s", op, EValue::tag_name(a.tag()),
                        EValue::tag_name(b.tag()));
  if (kind != Arith::TrueDiv && !a.is_double() && !b.is_double()) {
    const int64_t x = as_int(a), y = as_int(b);
    if (kind == Arith::FloorDiv || kind == Arith::Mod) {
      PTEC_KERNEL_CHECK_MSG(ctx, y != 0, InvalidArgument, , "%s: division by zero", op);
    }
    int64_t r = 0;
    switch (kind) {
      case Arith::Add: r = x + y; break;
      case Arith::Sub: r = x - y; break;
      case Arith::Mul: r = x * y; break;
      case Arith::FloorDiv: r = floor_div(x, y); break;
      case Arith::Mod: r = floor_mod(x, y); break;
      case Arith::Max: r = x > y ? x : y; break;
      case Arith::Min: r = x < y ? x : y; break;
      case Arith::TrueDiv: break;
    }
    *stack[2] = EValue(r);
    return;
  }
  const double x = as_double(a), y = as_double(b);
  double r = 0;
  switch (kind) {
    case Arith::Add: r = x + y; break;
    case Arith::Sub: r = x - y; break;
    case Arith::Mul: r = x * y; break;
    case Arith::TrueDiv: r = x / y; break;
    case Arith::FloorDiv: r = std::floor(x / y); break;
    case Arith::Mod: r = x - std::floor(x / y) * y; break;
    case Arith::Max: r = x > y ? x : y; break;
    case Arith::Min: r = x < y ? x : y; break;
  }
  *stack[2] = EValue(r);
}

template <Compare kind>
void compare(KernelRuntimeContext& ctx, Span<EValue*> stack, const char* op) {
  if (!check_arity(ctx, op, stack, 3)) return;
  const EValue& a = *stack[0];
  const EValue& b = *stack[1];
  PTEC_KERNEL_CHECK_MSG(ctx, is_number(a) && is_number(b), InvalidArgument, ,
                        "%s: expected two scalars, got %s and %s", op, EValue::tag_name(a.tag()),
                        EValue::tag_name(b.tag()));
  bool r = false;
  if (!a.is_double() && !b.is_double()) {
    const int64_t x = as_int(a), y = as_int(b);
    r = kind == Compare::Eq   ? x == y
        : kind == Compare::Gt ? x > y
        : kind == Compare::Ge ? x >= y
        : kind == Compare::Lt ? x < y
                              : x <= y;
  } else {
    const double x = as_double(a), y = as_double(b);
    r = kind == Compare::Eq   ? x == y
        : kind == Compare::Gt ? x > y
        : kind == Compare::Ge ? x >= y
        : kind == Compare::Lt ? x < y
                              : x <= y;
  }
  *stack[2] = EValue(r);
}

/// One-argument ops: neg keeps the type; ceil/round/trunc/sym_int give Int; sym_float Double.
enum class Unary { Neg, Ceil, Round, Trunc, SymFloat, SymInt, Not };

template <Unary kind>
void unary(KernelRuntimeContext& ctx, Span<EValue*> stack, const char* op) {
  if (!check_arity(ctx, op, stack, 2)) return;
  const EValue& a = *stack[0];
  PTEC_KERNEL_CHECK_MSG(ctx, is_number(a), InvalidArgument, , "%s: expected a scalar, got %s", op,
                        EValue::tag_name(a.tag()));
  switch (kind) {
    case Unary::Neg: *stack[1] = a.is_double() ? EValue(-a.to_double()) : EValue(-as_int(a)); break;
    case Unary::Ceil: *stack[1] = EValue(static_cast<int64_t>(std::ceil(as_double(a)))); break;
    // Python's round: half to even.
    case Unary::Round:
      *stack[1] = EValue(static_cast<int64_t>(std::nearbyint(as_double(a))));
      break;
    case Unary::Trunc: *stack[1] = EValue(static_cast<int64_t>(std::trunc(as_double(a)))); break;
    case Unary::SymFloat: *stack[1] = EValue(as_double(a)); break;
    case Unary::SymInt: *stack[1] = EValue(static_cast<int64_t>(std::trunc(as_double(a)))); break;
    case Unary::Not: *stack[1] = EValue(!(as_double(a) != 0.0)); break;
  }
}

}  // namespace

#define PTEC_PRIM_FN(name, impl, qualified) \
  void name(KernelRuntimeContext& ctx, Span<EValue*> stack) { impl(ctx, stack, qualified); }

PTEC_PRIM_FN(add_scalar, arith<Arith::Add>, "executorch_prim::add.Scalar")
PTEC_PRIM_FN(sub_scalar, arith<Arith::Sub>, "executorch_prim::sub.Scalar")
PTEC_PRIM_FN(mul_scalar, arith<Arith::Mul>, "executorch_prim::mul.Scalar")
PTEC_PRIM_FN(truediv_scalar, arith<Arith::TrueDiv>, "executorch_prim::truediv.Scalar")
PTEC_PRIM_FN(floordiv_scalar, arith<Arith::FloorDiv>, "executorch_prim::floordiv.Scalar")
PTEC_PRIM_FN(mod_scalar, arith<Arith::Mod>, "executorch_prim::mod.Scalar")
PTEC_PRIM_FN(sym_max_scalar, arith<Arith::Max>, "executorch_prim::sym_max.Scalar")
PTEC_PRIM_FN(sym_min_scalar, arith<Arith::Min>, "executorch_prim::sym_min.Scalar")
PTEC_PRIM_FN(floordiv_int, arith<Arith::FloorDiv>, "executorch_prim::floordiv.int")
PTEC_PRIM_FN(mod_int, arith<Arith::Mod>, "executorch_prim::mod.int")
PTEC_PRIM_FN(eq_scalar, compare<Compare::Eq>, "executorch_prim::eq.Scalar")
PTEC_PRIM_FN(gt_scalar, compare<Compare::Gt>, "executorch_prim::gt.Scalar")
PTEC_PRIM_FN(ge_scalar, compare<Compare::Ge>, "executorch_prim::ge.Scalar")
PTEC_PRIM_FN(lt_scalar, compare<Compare::Lt>, "executorch_prim::lt.Scalar")
PTEC_PRIM_FN(le_scalar, compare<Compare::Le>, "executorch_prim::le.Scalar")
PTEC_PRIM_FN(neg_scalar, unary<Unary::Neg>, "executorch_prim::neg.Scalar")
PTEC_PRIM_FN(ceil_scalar, unary<Unary::Ceil>, "executorch_prim::ceil.Scalar")
PTEC_PRIM_FN(round_scalar, unary<Unary::Round>, "executorch_prim::round.Scalar")
PTEC_PRIM_FN(trunc_scalar, unary<Unary::Trunc>, "executorch_prim::trunc.Scalar")
PTEC_PRIM_FN(sym_float_scalar, unary<Unary::SymFloat>, "executorch_prim::sym_float.Scalar")
PTEC_PRIM_FN(sym_int_scalar, unary<Unary::SymInt>, "executorch_prim::sym_int.Scalar")
PTEC_PRIM_FN(sym_not_scalar, unary<Unary::Not>, "executorch_prim::sym_not.Scalar")

#undef PTEC_PRIM_FN

}  // namespace ptec::kernels::prim

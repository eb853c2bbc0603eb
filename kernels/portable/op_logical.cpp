// logical_and/or/xor.out: inputs of any dtype are true when nonzero (NaN is true); broadcasting;
// the result (0 or 1) is written in out's dtype (usually Bool).

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {
namespace {

enum class Logic { And, Or, Xor };

Tensor& logical_binary(KernelRuntimeContext& ctx, const char* op, Logic l, const Tensor& self,
                       const Tensor& other, Tensor& out) {
  if (!binary_op_prologue(ctx, op, self, other, out, DType::Bool)) return out;
  // Every input converts to bool (nonzero) on load, so one compute type serves all dtypes.
  apply_binary<bool>(ctx, op, self, other, out, [l](bool a, bool b) -> bool {
    switch (l) {
      case Logic::And: return a && b;
      case Logic::Or: return a || b;
      case Logic::Xor: return a != b;
    }
    return false;
  });
  return out;
}

}  // namespace

Tensor& logical_and_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out) {
  return logical_binary(ctx, "logical_and.out", Logic::And, self, other, out);
}

Tensor& logical_or_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                       Tensor& out) {
  return logical_binary(ctx, "logical_or.out", Logic::Or, self, other, out);
}

Tensor& logical_xor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out) {
  return logical_binary(ctx, "logical_xor.out", Logic::Xor, self, other, out);
}

}  // namespace ptec::kernels

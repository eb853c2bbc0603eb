// aten::sym_size.int and aten::sym_numel: a tensor's current size, as an Int EValue.

#include "kernels/prim_ops/prim_op_util.h"

namespace ptec::kernels::prim {

void sym_size_int(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack) {
  constexpr const char* kOp = "aten::sym_size.int";
  if (!check_arity(ctx, kOp, stack, 3)) return;
  PTEC_KERNEL_CHECK_MSG(ctx, stack[0]->is_tensor() && stack[1]->is_int(), InvalidArgument, ,
                        "%s: expected (Tensor, int)", kOp);
  const runtime::Tensor& t = stack[0]->to_tensor();
  const auto rank = static_cast<int64_t>(t.dim());
  int64_t d = stack[1]->to_int();
  if (d < 0) d += rank;
  PTEC_KERNEL_CHECK_MSG(ctx, d >= 0 && d < rank, InvalidArgument, ,
                        "%s: dim %lld is out of range for a tensor of rank %lld", kOp,
                        static_cast<long long>(stack[1]->to_int()), static_cast<long long>(rank));
  *stack[2] = runtime::EValue(static_cast<int64_t>(t.sizes()[static_cast<size_t>(d)]));
}

void sym_numel(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack) {
  constexpr const char* kOp = "aten::sym_numel";
  if (!check_arity(ctx, kOp, stack, 2)) return;
  PTEC_KERNEL_CHECK_MSG(ctx, stack[0]->is_tensor(), InvalidArgument, , "%s: expected a Tensor",
                        kOp);
  *stack[1] = runtime::EValue(static_cast<int64_t>(stack[0]->to_tensor().numel()));
}

}  // namespace ptec::kernels::prim

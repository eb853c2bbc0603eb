#pragma once

// Helpers of the prim op kernels: argument checks that fail the context naming the op.

#include "core/log.h"
#include "core/span.h"
#include "runtime/core/evalue.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace ptec::kernels::prim {

/// True when `stack` has `n` entries; else fails the context naming `op`.
inline bool check_arity(runtime::KernelRuntimeContext& ctx, const char* op,
                        Span<runtime::EValue*> stack, size_t n) {
  PTEC_KERNEL_CHECK_MSG(ctx, stack.size() == n, InvalidProgram, false,
                        "%s: expected %zu arguments (with the return slot), got %zu", op, n,
                        stack.size());
  return true;
}

void sym_size_int(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void sym_numel(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void local_scalar_dense(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void add_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void sub_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void mul_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void truediv_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void floordiv_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void mod_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void sym_max_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void sym_min_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void floordiv_int(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void mod_int(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void eq_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void gt_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void ge_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void lt_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void le_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void neg_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void ceil_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void round_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void trunc_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void sym_float_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void sym_int_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);
void sym_not_scalar(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack);

}  // namespace ptec::kernels::prim

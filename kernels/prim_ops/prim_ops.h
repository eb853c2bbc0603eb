#pragma once

#include "core/error.h"
#include "core/span.h"
#include "runtime/kernel/operator_registry.h"

namespace ptec::kernels {

/// The prim op table (FORMAT.md "Prim ops compiled into the runtime core"): aten::sym_size.int,
/// aten::sym_numel and the executorch_prim::* scalar ops on Int/Double/Bool EValues. Like
/// ExecuTorch's prim ops they take the functional arguments plus one return slot.
Span<const runtime::Kernel> prim_op_kernels();

/// Registers the prim ops with the runtime's operator registry. Idempotent (later calls return
/// the first call's result).
Error register_prim_ops();

}  // namespace ptec::kernels

#pragma once

#include "core/error.h"
#include "core/span.h"
#include "runtime/kernel/operator_registry.h"

namespace ptec::kernels {

/// The optimized kernels alone (operators they specialize; see kernels/optimized/ops/ops.h).
Span<const runtime::Kernel> optimized_kernels();

/// Registers the optimized kernels and, for every other operator, the portable one: the
/// library a program runs with by default. Use it instead of register_portable_kernels(), not
/// with it (the shared names would be registered twice). Idempotent like
/// register_portable_kernels().
Error register_optimized_kernels();

}  // namespace ptec::kernels

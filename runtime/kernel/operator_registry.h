#pragma once

#include <cstddef>

#include "core/error.h"
#include "core/span.h"
#include "runtime/core/evalue.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace ptec::runtime {

/// A boxed kernel: `stack` holds one EValue per schema argument (out arguments included) plus
/// one for the return value (FORMAT.md §3).
using OpFunction = void (*)(KernelRuntimeContext& ctx, Span<EValue*> stack);

/// A kernel keyed by "name.overload" as the .pte's Operator table spells it, e.g. "aten::add.out".
struct Kernel {
  const char* name;
  OpFunction fn;
};

/// Upper bound on registered kernels; the registry is a fixed table (no heap).
constexpr size_t kMaxRegisteredKernels = 2048;

/// Adds kernels to the process-wide registry. A name registered twice, or a full table, is an
/// error (InvalidArgument / OutOfResources) and nothing from `kernels` is registered.
/// `name` strings must have static storage duration.
Error register_kernels(Span<const Kernel> kernels);

/// Replaces the kernel registered under `name` with `fn` and stores the replaced one in
/// `previous` (when given): a test's instrumented kernel, or the reference runner pinning the
/// portable kernels. Methods resolve their kernels when they load, so methods loaded earlier keep
/// the kernels they resolved. NotFound when nothing is registered under `name`, InvalidArgument
/// for a null `fn`; nothing changes on error. Not thread-safe (like register_kernels).
Error replace_kernel(const char* name, OpFunction fn, OpFunction* previous = nullptr);

/// The kernel registered under `name`, or nullptr.
OpFunction get_op_function(const char* name);

/// True when a kernel is registered under `name`.
inline bool has_op_function(const char* name) { return get_op_function(name) != nullptr; }

/// All registered kernels, in registration order.
Span<const Kernel> registered_kernels();

}  // namespace ptec::runtime

#pragma once

#include "core/error.h"
#include "core/span.h"
#include "runtime/kernel/operator_registry.h"

namespace ptec::kernels {

/// The portable kernel table: one entry per "namespace::op.overload" (see register.cpp).
Span<const runtime::Kernel> portable_kernels();

/// Registers every portable kernel with the runtime's operator registry. Idempotent: the first
/// call registers, later calls return the first call's result. Returns InvalidArgument when one
/// of the names is already registered by someone else, OutOfResources when the table is full.
Error register_portable_kernels();

}  // namespace ptec::kernels

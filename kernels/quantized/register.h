#pragma once

#include "core/error.h"
#include "core/span.h"
#include "runtime/kernel/operator_registry.h"

namespace ptec::kernels {

/// The quantized kernel table: the quantized_decomposed:: operators (see register.cpp).
Span<const runtime::Kernel> quantized_kernels();

/// Registers every quantized kernel with the runtime's operator registry. Idempotent: the first
/// call registers, later calls return the first call's result. Returns InvalidArgument when one
/// of the names is already registered by someone else, OutOfResources when the table is full.
Error register_quantized_kernels();

}  // namespace ptec::kernels

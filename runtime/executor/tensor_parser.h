#pragma once

// Turns a schema Tensor into a runtime Tensor (FORMAT.md §2 "Tensor" and "How the runtime picks
// a tensor's data pointer"). Internal to the executor.

#include <cstddef>

#include "core/dtype.h"
#include "core/result.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/named_data_map.h"
#include "runtime/core/tensor.h"
#include "runtime/executor/memory_manager.h"

namespace executorch_flatbuffer {
struct Tensor;
}  // namespace executorch_flatbuffer

namespace ptec::runtime {

class Program;

namespace internal {

/// What validate_tensor() learned about a schema tensor.
struct TensorFacts {
  DType dtype = DType::Float;
  size_t dim = 0;
  size_t numel = 0;
  size_t nbytes = 0;  // at the (upper-bound) sizes
  ShapeDynamism dynamism = ShapeDynamism::Static;
};

/// Checks everything the runtime relies on: a valid dtype, storage_offset 0, sizes and dim_order
/// present with equal rank <= kTensorDimensionLimit, non-negative sizes, dim_order a
/// permutation, element count and strides that fit int32 and a byte size that does not
/// overflow, and a supported shape_dynamism. Errors: InvalidProgram, NotSupported
/// (DYNAMIC_UNBOUND). Messages name `value_index`.
Result<TensorFacts> validate_tensor(const executorch_flatbuffer::Tensor* tensor,
                                    size_t value_index);

/// True when the tensor has data the caller must hold: an external constant from a .ptd.
bool is_external_constant(const executorch_flatbuffer::Tensor* tensor);

/// Builds the runtime tensor in the method allocator and resolves its data pointer (planned
/// memory, a constant, external data, or null). For an external constant the data buffer is
/// moved into `*external_slot`, which must then be non-null.
/// Errors: those of validate_tensor(), MemoryAllocationFailed, InvalidArgument (planned memory
/// missing or too small), InvalidProgram (constant out of range, misaligned data),
/// NotFound/InvalidExternalData (external data missing or of another layout).
Result<Tensor*> parse_tensor(const Program& program, const MemoryManager& memory_manager,
                             const executorch_flatbuffer::Tensor* tensor, size_t value_index,
                             const NamedDataMap* external_data, FreeableBuffer* external_slot);

}  // namespace internal
}  // namespace ptec::runtime

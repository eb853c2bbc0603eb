#pragma once

#include <cstddef>
#include <cstdint>

#include "core/log.h"
#include "core/result.h"
#include "core/span.h"
#include "runtime/core/memory_allocator.h"

namespace ptec::runtime {

/// The planned arenas of a method (ExecuTorch's HierarchicalAllocator). Buffer k-1 backs the
/// tensors whose AllocationDetails.memory_id is k (FORMAT.md §2 "Memory ids"); MethodMeta says
/// how large each must be. Neither the span nor the buffers are copied: both must outlive the
/// allocator and every Method that uses it.
///
///   memory_id:   1            2
///              +------------+------+
///   buffers:   | buffers[0] | [1]  |   each: offset -> tensor data, bounds-checked
///              +------------+------+
class HierarchicalAllocator final {
 public:
  explicit HierarchicalAllocator(Span<Span<uint8_t>> buffers) : buffers_(buffers) {}

  size_t num_buffers() const { return buffers_.size(); }
  Span<uint8_t> buffer(size_t index) const { return buffers_[index]; }

  /// Address of [offset, offset + nbytes) in the buffer of `memory_id` (1-based, as in the
  /// schema). Errors: InvalidArgument when the id is 0 or has no buffer, or when the range does
  /// not fit in the buffer.
  Result<void*> get_offset_address(uint32_t memory_id, uint64_t offset, size_t nbytes) const {
    PTEC_CHECK_OR_RETURN_ERROR(memory_id >= 1 && memory_id <= buffers_.size(), InvalidArgument,
                               "memory_id %u has no planned buffer (%zu provided; ids are 1-based)",
                               memory_id, buffers_.size());
    const Span<uint8_t> buf = buffers_[memory_id - 1];
    PTEC_CHECK_OR_RETURN_ERROR(
        offset <= buf.size() && nbytes <= buf.size() - offset, InvalidArgument,
        "planned tensor [%llu, +%zu) is outside memory_id %u's %zu bytes",
        static_cast<unsigned long long>(offset), nbytes, memory_id, buf.size());
    return static_cast<void*>(buf.data() + offset);
  }

 private:
  Span<Span<uint8_t>> buffers_;
};

/// The memory a Method uses. Every pointer must outlive the Methods loaded with it.
struct MemoryManager {
  /// Method-lifetime structures: values, tensors, instruction tables, delegate state.
  MemoryAllocator* method_allocator = nullptr;
  /// Planned arenas for activations, inputs and outputs; may be null when the method plans
  /// nothing.
  HierarchicalAllocator* planned_memory = nullptr;
  /// Scratch for kernels and delegates, reset after each instruction; may be null.
  MemoryAllocator* temp_allocator = nullptr;
};

}  // namespace ptec::runtime

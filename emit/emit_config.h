#pragma once

#include <cstdint>

namespace ptec::emit {

/// Which memory planner the emitter runs (memory/).
enum class MemoryPlanning { Greedy, Naive };

/// Options of emission and serialization (the emit/serialize part of ExecuTorch's
/// ExecutorchBackendConfig). Every alignment must be a power of two.
struct EmitConfig {
  MemoryPlanning memory_planning = MemoryPlanning::Greedy;
  /// Offsets of planned tensors are multiples of this.
  uint64_t alignment = 16;
  /// Plan memory for user inputs (the runtime copies inputs in) and outputs.
  bool alloc_graph_input = true;
  bool alloc_graph_output = true;
  /// The file offset of the first segment is a multiple of this (FORMAT.md §1.1).
  uint64_t segment_alignment = 128;
  /// Each constant in the constant segment starts at a multiple of this (FORMAT.md §1.2).
  uint64_t constant_tensor_alignment = 16;
};

}  // namespace ptec::emit

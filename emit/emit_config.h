#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace ptec::emit {

/// Which memory planner the emitter runs (memory/).
enum class MemoryPlanning { Greedy, Naive };

/// Options of emission and serialization (the emit/serialize part of ExecuTorch's
/// ExecutorchBackendConfig). Every alignment must be a power of two.
struct EmitConfig {
  MemoryPlanning memory_planning = MemoryPlanning::Greedy;
  /// Per-method planner choice; a method not listed uses `memory_planning`.
  std::map<std::string, MemoryPlanning> memory_planning_per_method;
  /// Offsets of planned tensors are multiples of this.
  uint64_t alignment = 16;
  /// Plan memory for user inputs (the runtime copies inputs in) and outputs.
  bool alloc_graph_input = true;
  bool alloc_graph_output = true;
  /// The file offset of the first segment is a multiple of this (FORMAT.md §1.1).
  uint64_t segment_alignment = 128;
  /// Each constant in the constant segment starts at a multiple of this (FORMAT.md §1.2).
  uint64_t constant_tensor_alignment = 16;
  /// Put parameters, buffers and lifted constants in a .ptd (FlatTensor, FORMAT.md §5) instead
  /// of the constant segment: their tensors get extra_tensor_info{EXTERNAL, fully qualified
  /// name} and no data; EmittedProgram::external_tensors holds the payloads.
  bool external_constants = false;
  /// Store delegate blobs as segments (after the constant segment); otherwise inline in
  /// Program.backend_delegate_data.
  bool extract_delegate_segments = true;

  /// The planner of method `name`.
  MemoryPlanning planner_for(const std::string& name) const {
    auto it = memory_planning_per_method.find(name);
    return it == memory_planning_per_method.end() ? memory_planning : it->second;
  }
};

}  // namespace ptec::emit

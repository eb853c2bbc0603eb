#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "emit/emit_config.h"

namespace ptec::program {

/// Options of EdgeProgramManager::to_executorch (ExecuTorch's ExecutorchBackendConfig).
/// Every alignment must be a power of two.
struct ExecutorchBackendConfig {
  /// Lifetime-based greedy planning by default, or naive (one slot per tensor).
  emit::MemoryPlanning memory_planning = emit::MemoryPlanning::Greedy;
  /// Per-method planner choice; methods not listed use `memory_planning`.
  std::map<std::string, emit::MemoryPlanning> memory_planning_per_method;
  /// Offsets of planned tensors are multiples of this.
  uint64_t alignment = 16;
  /// Plan memory for user inputs / outputs.
  bool alloc_graph_input = true;
  bool alloc_graph_output = true;
  /// Constants go to a .ptd (ExecutorchProgramManager::write_tensor_data_to_file), not the .pte.
  bool external_constants = false;
  /// File alignment of segments (FORMAT.md §1.1).
  uint64_t segment_alignment = 128;
  /// Delegate blobs as segments (default) or inline in the flatbuffer.
  bool extract_delegate_segments = true;
  /// Alignment of each constant in the constant segment.
  uint64_t constant_tensor_alignment = 16;

  /// The emitter's view of these options.
  emit::EmitConfig emit_config() const {
    emit::EmitConfig c;
    c.memory_planning = memory_planning;
    c.memory_planning_per_method = memory_planning_per_method;
    c.alignment = alignment;
    c.alloc_graph_input = alloc_graph_input;
    c.alloc_graph_output = alloc_graph_output;
    c.segment_alignment = segment_alignment;
    c.constant_tensor_alignment = constant_tensor_alignment;
    c.external_constants = external_constants;
    c.extract_delegate_segments = extract_delegate_segments;
    return c;
  }
};

}  // namespace ptec::program

#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ptec::ir {
class Node;
}

namespace ptec::memory {

/// Options shared by every planner (ExecuTorch's MemoryPlanningPass arguments).
struct PlannerOptions {
  /// Every planned offset is a multiple of this (a power of two; exir.tensor.ALIGNMENT = 16).
  uint64_t alignment = 16;
  /// Plan the user inputs (the runtime copies inputs into planned memory when true).
  bool alloc_graph_input = true;
  /// Plan the outputs (when false the caller provides output memory at run time).
  bool alloc_graph_output = true;
};

/// One tensor value to place: its size and its closed lifetime [first, last] over instruction
/// positions (the node order of the graph). Inputs and outputs live for the whole method.
struct TensorLifetime {
  /// For messages: the producing node's name, with "[i]" for output i of a multi-output node.
  std::string name;
  /// The producing node (a placeholder or a call); may be null for hand-made lifetimes in tests.
  const ir::Node* node = nullptr;
  /// Which of the producer's outputs (its meta().val index).
  size_t output_index = 0;
  /// Bytes at the tensor's upper-bound shape.
  uint64_t nbytes = 0;
  /// Position of the definition and of the last use, both inclusive.
  int64_t first = 0;
  int64_t last = 0;

  /// True when both lifetimes contain a common position.
  bool overlaps_in_time(const TensorLifetime& other) const {
    return first <= other.last && other.first <= last;
  }
};

/// Where one tensor lives: buffer `memory_id` (1-based, as in the .pte: memory_id k uses
/// `non_const_buffer_sizes[k]`) at byte `offset`.
struct Allocation {
  uint32_t memory_id = 1;
  uint64_t offset = 0;
};

/// The result of planning one method.
struct MemoryPlan {
  /// The name of the planner that made it ("greedy", "naive").
  std::string planner;
  uint64_t alignment = 16;
  /// The planned tensors and, in parallel, where each lives.
  std::vector<TensorLifetime> tensors;
  std::vector<Allocation> allocations;
  /// Byte size of each planned buffer, in the .pte's `non_const_buffer_sizes` form: index 0 is a
  /// reserved 0 and entry k is the size of memory_id k. Always at least {0, arena}.
  std::vector<uint64_t> buffer_sizes{0, 0};

  /// The allocation of output `output_index` of `node`, or nullptr when it is not planned.
  const Allocation* find(const ir::Node* node, size_t output_index = 0) const;
  /// Sum of the planned buffer sizes.
  uint64_t total_bytes() const;
  /// Sum of the planned tensors' sizes (what a plan without any reuse needs, before padding).
  uint64_t tensor_bytes() const;
  /// Rebuilds the lookup used by find(); planners call it once the allocations are set.
  void index();

 private:
  std::map<std::pair<const ir::Node*, size_t>, size_t> by_value_;
};

/// `value` rounded up to a multiple of `alignment` (a power of two).
constexpr uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

}  // namespace ptec::memory

#pragma once

#include "memory/memory_planner.h"

namespace ptec::memory {

/// Lifetime-based greedy placement in one arena (memory_id 1), like ExecuTorch's `greedy` and
/// TFLite Micro's GreedyMemoryPlanner: tensors are taken largest first (ties: earlier definition
/// first); each goes into the smallest gap (best fit) between already placed tensors whose
/// lifetimes overlap its own, or after the last of them when no gap is large enough.
class GreedyPlanner final : public MemoryPlanner {
 public:
  std::string name() const override { return "greedy"; }
  MemoryPlan plan(std::vector<TensorLifetime> tensors, uint64_t alignment) const override;
};

}  // namespace ptec::memory

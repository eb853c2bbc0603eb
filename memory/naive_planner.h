#pragma once

#include "memory/memory_planner.h"

namespace ptec::memory {

/// Every tensor its own aligned slot in one arena (memory_id 1), in definition order; no reuse.
/// The reference the greedy planner is measured against, and a debugging aid.
class NaivePlanner final : public MemoryPlanner {
 public:
  std::string name() const override { return "naive"; }
  MemoryPlan plan(std::vector<TensorLifetime> tensors, uint64_t alignment) const override;
};

}  // namespace ptec::memory

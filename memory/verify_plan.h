#pragma once

#include <string>
#include <vector>

#include "memory/memory_plan.h"

namespace ptec::memory {

/// Checks `plan` and returns every problem found (empty when the plan is valid):
/// - buffer_sizes[0] is the reserved 0 and every memory_id is in [1, buffer_sizes.size());
/// - every offset is a multiple of plan.alignment (itself a power of two);
/// - every tensor lies inside its buffer;
/// - no two tensors whose lifetimes overlap share a byte of the same buffer.
std::vector<std::string> verify_plan(const MemoryPlan& plan);

}  // namespace ptec::memory

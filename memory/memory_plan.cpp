#include "memory/memory_plan.h"

namespace ptec::memory {

const Allocation* MemoryPlan::find(const ir::Node* node, size_t output_index) const {
  auto it = by_value_.find({node, output_index});
  return it == by_value_.end() ? nullptr : &allocations[it->second];
}

uint64_t MemoryPlan::total_bytes() const {
  uint64_t total = 0;
  for (uint64_t size : buffer_sizes) total += size;
  return total;
}

uint64_t MemoryPlan::tensor_bytes() const {
  uint64_t total = 0;
  for (const TensorLifetime& t : tensors) total += t.nbytes;
  return total;
}

void MemoryPlan::index() {
  by_value_.clear();
  for (size_t i = 0; i < tensors.size() && i < allocations.size(); ++i) {
    if (tensors[i].node != nullptr) by_value_[{tensors[i].node, tensors[i].output_index}] = i;
  }
}

}  // namespace ptec::memory

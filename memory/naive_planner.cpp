#include "memory/naive_planner.h"

#include "ir/exception.h"

namespace ptec::memory {

MemoryPlan NaivePlanner::plan(std::vector<TensorLifetime> tensors, uint64_t alignment) const {
  PTEC_ENFORCE(alignment > 0 && (alignment & (alignment - 1)) == 0, InvalidArgument,
               "memory planning alignment must be a power of two, got {}", alignment);
  MemoryPlan out;
  out.planner = name();
  out.alignment = alignment;
  out.allocations.reserve(tensors.size());
  uint64_t end = 0;
  for (const TensorLifetime& t : tensors) {
    const uint64_t offset = align_up(end, alignment);
    out.allocations.push_back({1, offset});
    end = offset + t.nbytes;
  }
  out.tensors = std::move(tensors);
  out.buffer_sizes = {0, align_up(end, alignment)};
  out.index();
  return out;
}

}  // namespace ptec::memory

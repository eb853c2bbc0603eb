#include "memory/verify_plan.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace ptec::memory {

std::vector<std::string> verify_plan(const MemoryPlan& plan) {
  std::vector<std::string> problems;
  const uint64_t alignment = plan.alignment;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    problems.push_back(fmt::format("alignment {} is not a power of two", alignment));
  }
  if (plan.buffer_sizes.empty() || plan.buffer_sizes[0] != 0) {
    problems.push_back("buffer_sizes[0] must be the reserved placeholder 0");
  }
  if (plan.allocations.size() != plan.tensors.size()) {
    problems.push_back(
        fmt::format("{} tensors but {} allocations", plan.tensors.size(), plan.allocations.size()));
    return problems;
  }

  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const TensorLifetime& t = plan.tensors[i];
    const Allocation& a = plan.allocations[i];
    if (t.first > t.last) {
      problems.push_back(fmt::format("tensor {}: lifetime [{}, {}] ends before it starts", t.name,
                                     t.first, t.last));
    }
    if (a.memory_id == 0 || a.memory_id >= plan.buffer_sizes.size()) {
      problems.push_back(fmt::format("tensor {}: memory_id {} is not in [1, {})", t.name,
                                     a.memory_id, plan.buffer_sizes.size()));
      continue;
    }
    if (alignment != 0 && a.offset % alignment != 0) {
      problems.push_back(
          fmt::format("tensor {}: offset {} is not a multiple of {}", t.name, a.offset, alignment));
    }
    const uint64_t size = plan.buffer_sizes[a.memory_id];
    if (a.offset > size || t.nbytes > size - a.offset) {
      problems.push_back(fmt::format("tensor {}: bytes [{}, {}) are outside buffer {} of {} bytes",
                                     t.name, a.offset, a.offset + t.nbytes, a.memory_id, size));
    }
  }

  // Overlap: sort by (memory_id, offset); only tensors starting before another's end can collide.
  std::vector<size_t> order(plan.tensors.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const Allocation& a = plan.allocations[x];
    const Allocation& b = plan.allocations[y];
    return a.memory_id != b.memory_id ? a.memory_id < b.memory_id : a.offset < b.offset;
  });
  for (size_t oi = 0; oi < order.size(); ++oi) {
    const size_t i = order[oi];
    const TensorLifetime& ti = plan.tensors[i];
    const Allocation& ai = plan.allocations[i];
    if (ti.nbytes == 0) continue;
    for (size_t oj = oi + 1; oj < order.size(); ++oj) {
      const size_t j = order[oj];
      const TensorLifetime& tj = plan.tensors[j];
      const Allocation& aj = plan.allocations[j];
      if (aj.memory_id != ai.memory_id || aj.offset >= ai.offset + ti.nbytes) break;
      if (tj.nbytes == 0 || !ti.overlaps_in_time(tj)) continue;
      problems.push_back(fmt::format(
          "tensors {} (bytes [{}, {}), live [{}, {}]) and {} (bytes [{}, {}), live [{}, {}]) "
          "overlap in memory_id {} while both are live",
          ti.name, ai.offset, ai.offset + ti.nbytes, ti.first, ti.last, tj.name, aj.offset,
          aj.offset + tj.nbytes, tj.first, tj.last, ai.memory_id));
    }
  }
  return problems;
}

}  // namespace ptec::memory

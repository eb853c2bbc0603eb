#include "memory/greedy_planner.h"

#include <algorithm>
#include <numeric>

#include "ir/exception.h"

namespace ptec::memory {

MemoryPlan GreedyPlanner::plan(std::vector<TensorLifetime> tensors, uint64_t alignment) const {
  PTEC_ENFORCE(alignment > 0 && (alignment & (alignment - 1)) == 0, InvalidArgument,
               "memory planning alignment must be a power of two, got {}", alignment);
  const size_t n = tensors.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (tensors[a].nbytes != tensors[b].nbytes) return tensors[a].nbytes > tensors[b].nbytes;
    return tensors[a].first < tensors[b].first;
  });

  MemoryPlan out;
  out.planner = name();
  out.alignment = alignment;
  out.allocations.assign(n, Allocation{1, 0});
  std::vector<size_t> placed;  // indices into `tensors`, in placement order
  placed.reserve(n);
  uint64_t arena = 0;

  struct Range {
    uint64_t begin;
    uint64_t end;
  };
  std::vector<Range> busy;
  for (size_t i : order) {
    const TensorLifetime& t = tensors[i];
    // Byte ranges taken by placed tensors that are alive at the same time as `t`.
    busy.clear();
    for (size_t j : placed) {
      if (tensors[j].nbytes == 0 || !t.overlaps_in_time(tensors[j])) continue;
      busy.push_back({out.allocations[j].offset, out.allocations[j].offset + tensors[j].nbytes});
    }
    std::sort(busy.begin(), busy.end(),
              [](const Range& a, const Range& b) { return a.begin < b.begin; });

    // Best fit: the smallest gap that holds the tensor at an aligned offset.
    uint64_t best_offset = 0;
    uint64_t best_gap = UINT64_MAX;
    bool found = false;
    uint64_t cursor = 0;  // end of the busy bytes seen so far
    for (const Range& r : busy) {
      const uint64_t offset = align_up(cursor, alignment);
      if (r.begin >= offset && r.begin - offset >= t.nbytes) {
        const uint64_t gap = r.begin - cursor;
        if (gap < best_gap) {
          best_gap = gap;
          best_offset = offset;
          found = true;
        }
      }
      cursor = std::max(cursor, r.end);
    }
    if (!found) best_offset = align_up(cursor, alignment);

    out.allocations[i] = {1, best_offset};
    arena = std::max(arena, best_offset + t.nbytes);
    placed.push_back(i);
  }
  out.tensors = std::move(tensors);
  // Like exir, the buffer size is a multiple of the alignment too.
  out.buffer_sizes = {0, align_up(arena, alignment)};
  out.index();
  return out;
}

}  // namespace ptec::memory

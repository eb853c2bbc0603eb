#include "backends/cpu/runtime/arena_plan.h"

#include <algorithm>

namespace ptec::backends::cpu {

size_t plan_arena(ArenaTensor* tensors, uint32_t count, size_t alignment, uint32_t* scratch) {
  auto rounded = [&](size_t bytes) {
    return (std::max<size_t>(bytes, 1) + alignment - 1) & ~(alignment - 1);
  };
  // order[0, placed) are the tensors given an offset so far, largest first.
  uint32_t* order = scratch;
  uint32_t* conflict = scratch + count;  // the placed ones live at the same time as the next
  for (uint32_t i = 0; i < count; ++i) order[i] = i;
  std::sort(order, order + count, [&](uint32_t a, uint32_t b) {
    return tensors[a].bytes != tensors[b].bytes ? tensors[a].bytes > tensors[b].bytes : a < b;
  });
  size_t total = 0;
  for (uint32_t placed = 0; placed < count; ++placed) {
    ArenaTensor& t = tensors[order[placed]];
    uint32_t conflicts = 0;
    for (uint32_t j = 0; j < placed; ++j) {
      const ArenaTensor& p = tensors[order[j]];
      if (p.first <= t.last && t.first <= p.last) conflict[conflicts++] = order[j];
    }
    std::sort(conflict, conflict + conflicts,
              [&](uint32_t a, uint32_t b) { return tensors[a].offset < tensors[b].offset; });
    const size_t size = rounded(t.bytes);
    size_t offset = 0;
    for (uint32_t j = 0; j < conflicts; ++j) {
      const ArenaTensor& p = tensors[conflict[j]];
      if (p.offset >= offset + size) break;  // the gap before p fits
      offset = std::max(offset, p.offset + rounded(p.bytes));
    }
    t.offset = offset;
    total = std::max(total, offset + size);
  }
  return total;
}

}  // namespace ptec::backends::cpu

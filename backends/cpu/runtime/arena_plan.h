#pragma once

// Where PtecCpuBackend puts its intermediates: one arena, in which tensors whose lifetimes do not
// overlap share bytes. A tensor is live from the first node that touches it to the last one
// (both included), so a node's inputs and outputs never share. Reusing bytes freed a few nodes
// earlier keeps the working set small enough to stay in cache: a linear layer writing into a
// buffer last touched one inference ago pays for fetching its lines back first (ViT-Ti's
// 197 x 576 projection: 0.24 ms with its output in cache, 0.30 ms without).

#include <cstddef>
#include <cstdint>

namespace ptec::backends::cpu {

struct ArenaTensor {
  size_t bytes = 0;
  uint32_t first = 0;  // first node that touches it
  uint32_t last = 0;   // last node that touches it (>= first)
  size_t offset = 0;   // written by plan_arena
};

/// Assigns each tensor an offset (a multiple of `alignment`, a power of two) such that tensors
/// whose [first, last] intervals overlap never overlap in bytes; larger tensors are placed first,
/// each at the lowest offset that fits (greedy by size). Returns the arena's size in bytes.
/// O(n^2) in the number of tensors; no heap (the runtime's rule): `scratch` holds 2 * count
/// indices.
size_t plan_arena(ArenaTensor* tensors, uint32_t count, size_t alignment, uint32_t* scratch);

}  // namespace ptec::backends::cpu

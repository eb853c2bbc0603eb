#include "runtime/extension/reusable_arena_allocator.h"

#include <algorithm>
#include <cstdlib>

namespace ptec::runtime {

ReusableArenaAllocator::~ReusableArenaAllocator() {
  reset();
  std::free(block_);
}

void* ReusableArenaAllocator::allocate(size_t size, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) return nullptr;
  if (alignment < alignof(void*)) alignment = alignof(void*);
  if (size > SIZE_MAX / 2) return nullptr;
  const size_t need = (size == 0 ? 1 : size);
  // Whatever this instruction asks for in total (with alignment slack) sizes the next block.
  wanted_ += need + alignment;
  const uintptr_t base = reinterpret_cast<uintptr_t>(block_);
  const uintptr_t start = (base + used_ + alignment - 1) & ~(uintptr_t{alignment} - 1);
  if (block_ != nullptr && start + need <= base + capacity_) {
    used_ = start + need - base;
    track_allocation(size);
    return reinterpret_cast<void*>(start);
  }
  const size_t rounded = (need + alignment - 1) & ~(alignment - 1);
  void* p = std::aligned_alloc(alignment, rounded);
  if (p == nullptr) return nullptr;
  overflow_.push_back(p);
  track_allocation(size);
  return p;
}

void ReusableArenaAllocator::reset() {
  for (void* p : overflow_) std::free(p);
  if (!overflow_.empty()) {
    std::free(block_);
    capacity_ = std::max(capacity_, (wanted_ + kBlockAlign - 1) & ~(kBlockAlign - 1));
    block_ = std::aligned_alloc(kBlockAlign, capacity_);
    if (block_ == nullptr) capacity_ = 0;
    overflow_.clear();
  }
  used_ = 0;
  wanted_ = 0;
}

}  // namespace ptec::runtime

#include "runtime/core/memory_allocator.h"

#include "core/log.h"

namespace ptec::runtime {

void* MemoryAllocator::allocate(size_t size, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    PTEC_LOG(Error, "allocate: alignment %zu is not a power of two", alignment);
    return nullptr;
  }
  const uintptr_t start = reinterpret_cast<uintptr_t>(base_) + used_;
  const uintptr_t aligned = (start + alignment - 1) & ~(uintptr_t{alignment} - 1);
  const size_t padding = aligned - start;
  if (padding > size_ - used_ || size > size_ - used_ - padding) {
    PTEC_LOG(Error, "allocate: %zu bytes do not fit (%zu of %zu bytes used)", size, used_, size_);
    return nullptr;
  }
  used_ += padding + size;
  track_allocation(size);
  return reinterpret_cast<void*>(aligned);
}

}  // namespace ptec::runtime

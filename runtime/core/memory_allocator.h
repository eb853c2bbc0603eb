#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/event_tracer.h"

namespace ptec::runtime {

/// A bump allocator over a caller-provided buffer (ExecuTorch's MemoryAllocator). Never touches
/// the heap; allocate() returns nullptr when the buffer is exhausted. The buffer must outlive the
/// allocator and everything allocated from it.
class MemoryAllocator {
 public:
  static constexpr size_t kDefaultAlignment = alignof(void*);

  MemoryAllocator(void* base, size_t size) : base_(static_cast<uint8_t*>(base)), size_(size) {}
  virtual ~MemoryAllocator() = default;

  /// `alignment` must be a power of two.
  virtual void* allocate(size_t size, size_t alignment = kDefaultAlignment);

  template <typename T>
  T* allocate_list(size_t count) {
    if (count == 0) count = 1;  // a valid non-null pointer for empty lists
    if (count > SIZE_MAX / sizeof(T)) return nullptr;
    return static_cast<T*>(allocate(count * sizeof(T), alignof(T)));
  }

  /// Forgets every allocation (the memory is reused by later allocations).
  virtual void reset() { used_ = 0; }

  size_t used() const { return used_; }
  size_t size() const { return size_; }

  /// Reports every later allocation to `tracer` (track_allocation) under the id that
  /// track_allocator(name) returns; a null tracer stops the reporting. The tracer must outlive
  /// the allocator or be detached first.
  void enable_profiling(EventTracer* tracer, const char* name) {
    tracer_ = tracer;
    if (tracer_ != nullptr) allocator_id_ = tracer_->track_allocator(name);
  }
  EventTracer* profiling_tracer() const { return tracer_; }

 protected:
  /// Subclasses that override allocate() call this for each successful allocation.
  void track_allocation(size_t size) {
    if (tracer_ != nullptr) tracer_->track_allocation(allocator_id_, size);
  }

 private:
  uint8_t* base_;
  size_t size_;
  size_t used_ = 0;
  EventTracer* tracer_ = nullptr;
  AllocatorID allocator_id_ = 0;
};

}  // namespace ptec::runtime

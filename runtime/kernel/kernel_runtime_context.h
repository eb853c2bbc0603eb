#pragma once

#include <cstddef>

#include "core/error.h"
#include "runtime/core/memory_allocator.h"

namespace ptec::runtime {

class EventTracer;

/// Passed to every kernel: reports failure and hands out scratch memory.
class KernelRuntimeContext final {
 public:
  explicit KernelRuntimeContext(MemoryAllocator* temp_allocator = nullptr,
                                EventTracer* event_tracer = nullptr)
      : temp_allocator_(temp_allocator), event_tracer_(event_tracer) {}

  /// Marks the kernel as failed; the executor stops and returns `error`.
  void fail(Error error) { failure_ = error; }
  Error failure_state() const { return failure_; }

  /// Scratch memory valid until the kernel returns; nullptr when none is available.
  void* allocate_temp(size_t size, size_t alignment = MemoryAllocator::kDefaultAlignment) {
    return temp_allocator_ == nullptr ? nullptr : temp_allocator_->allocate(size, alignment);
  }
  EventTracer* event_tracer() const { return event_tracer_; }

 private:
  Error failure_ = Error::Ok;
  MemoryAllocator* temp_allocator_;
  EventTracer* event_tracer_;
};

}  // namespace ptec::runtime

/// Kernel-side check: logs, fails the context and returns `retval` when `cond` is false.
#define PTEC_KERNEL_CHECK_MSG(ctx, cond, error, retval, ...) \
  do {                                                       \
    if (!(cond)) {                                           \
      PTEC_LOG(Error, __VA_ARGS__);                          \
      (ctx).fail(::ptec::Error::error);                      \
      return retval;                                         \
    }                                                        \
  } while (0)

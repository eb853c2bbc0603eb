#pragma once

#include "core/log.h"
#include "runtime/loader/data_loader.h"

namespace ptec::runtime {

/// Serves ranges of bytes already in memory, without copying. The bytes must outlive the loader
/// and every buffer it returns. No heap.
class BufferDataLoader final : public DataLoader {
 public:
  BufferDataLoader(const void* data, size_t size) : data_(data), size_(size) {}

  Result<FreeableBuffer> load(size_t offset, size_t size, const SegmentInfo&) const override {
    PTEC_CHECK_OR_RETURN_ERROR(range_in_bounds(offset, size, size_), InvalidArgument,
                               "BufferDataLoader: range [%zu, +%zu) is outside %zu bytes", offset,
                               size, size_);
    return FreeableBuffer(static_cast<const uint8_t*>(data_) + offset, size, nullptr);
  }

  Result<size_t> size() const override { return size_; }

 private:
  const void* data_;
  size_t size_;
};

}  // namespace ptec::runtime

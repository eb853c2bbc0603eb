#pragma once

#include <cstddef>

#include "runtime/loader/data_loader.h"

namespace ptec::runtime {

/// Maps the whole file read-only once and serves views into the map (no copies). Buffers it
/// returns are valid while the loader lives. Move-only; unmaps on destruction.
class MmapDataLoader final : public DataLoader {
 public:
  /// Errors: AccessFailed (with a log line naming the file and errno).
  static Result<MmapDataLoader> from(const char* path);

  MmapDataLoader(MmapDataLoader&& other) noexcept;
  MmapDataLoader& operator=(MmapDataLoader&&) = delete;
  MmapDataLoader(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(const MmapDataLoader&) = delete;
  ~MmapDataLoader() override;

  Result<FreeableBuffer> load(size_t offset, size_t size, const SegmentInfo& info) const override;
  Result<size_t> size() const override { return size_; }

 private:
  MmapDataLoader(void* data, size_t size) : data_(data), size_(size) {}

  void* data_;
  size_t size_;
};

}  // namespace ptec::runtime

#pragma once

#include <cstddef>

#include "runtime/loader/data_loader.h"

namespace ptec::runtime {

/// Reads ranges of a file with pread() into heap buffers aligned to `alignment`; each buffer is
/// freed when its FreeableBuffer is. Move-only; closes the file on destruction (buffers already
/// returned stay valid).
class FileDataLoader final : public DataLoader {
 public:
  /// Opens `path` (which need not outlive the call). `alignment` must be a power of two; the
  /// default suits every tensor type. Errors: AccessFailed (with a log line naming the file and
  /// errno), InvalidArgument for a bad alignment.
  static Result<FileDataLoader> from(const char* path,
                                     size_t alignment = alignof(std::max_align_t));

  FileDataLoader(FileDataLoader&& other) noexcept;
  FileDataLoader& operator=(FileDataLoader&&) = delete;
  FileDataLoader(const FileDataLoader&) = delete;
  FileDataLoader& operator=(const FileDataLoader&) = delete;
  ~FileDataLoader() override;

  Result<FreeableBuffer> load(size_t offset, size_t size, const SegmentInfo& info) const override;
  Error load_into(size_t offset, size_t size, const SegmentInfo& info, void* buffer) const override;
  Result<size_t> size() const override { return file_size_; }

 private:
  FileDataLoader(int fd, size_t file_size, size_t alignment)
      : fd_(fd), file_size_(file_size), alignment_(alignment) {}

  int fd_;
  size_t file_size_;
  size_t alignment_;
};

}  // namespace ptec::runtime

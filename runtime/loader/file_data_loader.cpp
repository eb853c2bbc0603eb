#include "runtime/loader/file_data_loader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "core/log.h"

namespace ptec::runtime {
namespace {

void free_aligned(void*, void* data, size_t) { std::free(data); }

}  // namespace

Result<FileDataLoader> FileDataLoader::from(const char* path, size_t alignment) {
  PTEC_CHECK_OR_RETURN_ERROR(path != nullptr, InvalidArgument, "FileDataLoader: null path");
  PTEC_CHECK_OR_RETURN_ERROR(
      alignment >= alignof(void*) && (alignment & (alignment - 1)) == 0, InvalidArgument,
      "FileDataLoader: alignment %zu is not a power of two >= %zu", alignment, alignof(void*));
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    PTEC_LOG(Error, "cannot open '%s': %s", path, std::strerror(errno));
    return Error::AccessFailed;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    PTEC_LOG(Error, "cannot read '%s': not a regular file", path);
    ::close(fd);
    return Error::AccessFailed;
  }
  return FileDataLoader(fd, static_cast<size_t>(st.st_size), alignment);
}

FileDataLoader::FileDataLoader(FileDataLoader&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      file_size_(other.file_size_),
      alignment_(other.alignment_) {}

FileDataLoader::~FileDataLoader() {
  if (fd_ >= 0) ::close(fd_);
}

Error FileDataLoader::load_into(size_t offset, size_t size, const SegmentInfo&,
                                void* buffer) const {
  PTEC_CHECK_OR_RETURN_ERROR(fd_ >= 0, InvalidState, "FileDataLoader: file is closed");
  PTEC_CHECK_OR_RETURN_ERROR(range_in_bounds(offset, size, file_size_), InvalidArgument,
                             "FileDataLoader: range [%zu, +%zu) is outside the %zu-byte file",
                             offset, size, file_size_);
  uint8_t* out = static_cast<uint8_t*>(buffer);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd_, out + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      PTEC_LOG(Error, "FileDataLoader: read of %zu bytes at offset %zu failed: %s", size, offset,
               n == 0 ? "unexpected end of file" : std::strerror(errno));
      return Error::AccessFailed;
    }
    done += static_cast<size_t>(n);
  }
  return Error::Ok;
}

Result<FreeableBuffer> FileDataLoader::load(size_t offset, size_t size,
                                            const SegmentInfo& info) const {
  PTEC_CHECK_OR_RETURN_ERROR(range_in_bounds(offset, size, file_size_), InvalidArgument,
                             "FileDataLoader: range [%zu, +%zu) is outside the %zu-byte file",
                             offset, size, file_size_);
  if (size == 0) return FreeableBuffer(nullptr, 0, nullptr);
  // aligned_alloc needs a size that is a multiple of the alignment.
  const size_t rounded = (size + alignment_ - 1) & ~(alignment_ - 1);
  PTEC_CHECK_OR_RETURN_ERROR(rounded >= size, InvalidArgument, "FileDataLoader: size overflows");
  void* data = std::aligned_alloc(alignment_, rounded);
  if (data == nullptr) {
    PTEC_LOG(Error, "FileDataLoader: cannot allocate %zu bytes", size);
    return Error::MemoryAllocationFailed;
  }
  const Error err = load_into(offset, size, info, data);
  if (err != Error::Ok) {
    std::free(data);
    return err;
  }
  return FreeableBuffer(data, size, free_aligned);
}

}  // namespace ptec::runtime

#include "runtime/loader/mmap_data_loader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/log.h"

namespace ptec::runtime {

Result<MmapDataLoader> MmapDataLoader::from(const char* path) {
  PTEC_CHECK_OR_RETURN_ERROR(path != nullptr, InvalidArgument, "MmapDataLoader: null path");
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
  const size_t size = static_cast<size_t>(st.st_size);
  void* data = nullptr;
  if (size > 0) {
    data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      PTEC_LOG(Error, "cannot map '%s': %s", path, std::strerror(errno));
      ::close(fd);
      return Error::AccessFailed;
    }
  }
  ::close(fd);  // the map keeps the file referenced
  return MmapDataLoader(data, size);
}

MmapDataLoader::MmapDataLoader(MmapDataLoader&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MmapDataLoader::~MmapDataLoader() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

Result<FreeableBuffer> MmapDataLoader::load(size_t offset, size_t size, const SegmentInfo&) const {
  PTEC_CHECK_OR_RETURN_ERROR(range_in_bounds(offset, size, size_), InvalidArgument,
                             "MmapDataLoader: range [%zu, +%zu) is outside the %zu-byte file",
                             offset, size, size_);
  if (size == 0) return FreeableBuffer(nullptr, 0, nullptr);
  return FreeableBuffer(static_cast<const uint8_t*>(data_) + offset, size, nullptr);
}

}  // namespace ptec::runtime

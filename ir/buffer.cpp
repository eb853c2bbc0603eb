#include "ir/buffer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ir/exception.h"

namespace ptec::ir {
namespace {

class VectorBuffer final : public Buffer {
 public:
  explicit VectorBuffer(std::vector<uint8_t>&& bytes) : bytes_(std::move(bytes)) {
    bind(bytes_.data(), bytes_.size(), false);
  }

 private:
  std::vector<uint8_t> bytes_;
};

class StringBuffer final : public Buffer {
 public:
  explicit StringBuffer(std::string&& bytes) : bytes_(std::move(bytes)) {
    bind(reinterpret_cast<const uint8_t*>(bytes_.data()), bytes_.size(), false);
  }

 private:
  std::string bytes_;
};

class MappedBuffer final : public Buffer {
 public:
  MappedBuffer(void* addr, size_t size) : addr_(addr), length_(size) {
    bind(static_cast<const uint8_t*>(addr), size, true);
  }
  ~MappedBuffer() override {
    if (addr_ != nullptr) munmap(addr_, length_);
  }

 private:
  void* addr_;
  size_t length_;
};

class SliceBuffer final : public Buffer {
 public:
  SliceBuffer(BufferPtr parent, size_t offset, size_t size) : parent_(std::move(parent)) {
    bind(parent_->data() + offset, size, parent_->is_mapped());
  }

 private:
  BufferPtr parent_;
};

}  // namespace

BufferPtr Buffer::from_vector(std::vector<uint8_t> bytes) {
  return std::make_shared<VectorBuffer>(std::move(bytes));
}

BufferPtr Buffer::from_string(std::string bytes) {
  return std::make_shared<StringBuffer>(std::move(bytes));
}

BufferPtr Buffer::copy_of(const void* data, size_t size) {
  const auto* begin = static_cast<const uint8_t*>(data);
  return from_vector(std::vector<uint8_t>(begin, begin + size));
}

BufferPtr Buffer::map_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) raise(Error::AccessFailed, "{}: cannot open: {}", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    raise(Error::AccessFailed, "{}: cannot stat: {}", path, std::strerror(err));
  }
  const auto size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return from_vector({});
  }
  void* addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);  // the mapping stays valid after close
  if (addr == MAP_FAILED)
    raise(Error::AccessFailed, "{}: cannot map: {}", path, std::strerror(err));
  return std::make_shared<MappedBuffer>(addr, size);
}

void Buffer::release_pages(size_t offset, size_t size) const {
  if (!mapped_ || offset > size_ || size > size_ - offset) return;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data_ + offset);
  const uintptr_t first = (begin + page - 1) / page * page;
  const uintptr_t last = (begin + size) / page * page;
  // The mapping is read-only and private: dropped pages come back from the file unchanged.
  if (first < last) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

BufferPtr Buffer::slice(BufferPtr parent, size_t offset, size_t size) {
  PTEC_ENFORCE(parent != nullptr, InvalidArgument, "Buffer::slice of a null buffer");
  PTEC_ENFORCE(offset <= parent->size() && size <= parent->size() - offset, InvalidArgument,
               "Buffer::slice [{}, +{}) is outside a buffer of {} bytes", offset, size,
               parent->size());
  return std::make_shared<SliceBuffer>(std::move(parent), offset, size);
}

}  // namespace ptec::ir

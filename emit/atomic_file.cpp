#include "emit/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "ir/exception.h"

namespace ptec::emit {

namespace {

constexpr size_t kBufferSize = 1 << 16;

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string temp_name(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return fmt::format("{}.tmp.{}.{}.{:08x}", path, ::getpid(), counter.fetch_add(1),
                     static_cast<uint32_t>(rng()));
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  PTEC_ENFORCE(!path_.empty(), AccessFailed, "cannot write a file with an empty path");
  for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
    temp_path_ = temp_name(path_);
    // 0666 & ~umask, like any newly created file.
    fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) {
    const int error = errno;
    temp_path_.clear();
    raise(Error::AccessFailed, "cannot write '{}': cannot create a file in '{}': {}", path_,
          directory_of(path_), std::strerror(error));
  }
  buffer_.reserve(kBufferSize);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!committed_) discard();
}

void AtomicFileWriter::discard() noexcept {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!temp_path_.empty()) {
    ::unlink(temp_path_.c_str());
    temp_path_.clear();
  }
}

void AtomicFileWriter::fail(const std::string& what, int error) {
  discard();
  raise(Error::AccessFailed, "cannot write '{}': {}: {}", path_, what, std::strerror(error));
}

void AtomicFileWriter::flush() {
  const char* p = buffer_.data();
  size_t left = buffer_.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed", errno);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  buffer_.clear();
}

void AtomicFileWriter::write(const void* data, size_t size) {
  PTEC_ENFORCE(fd_ >= 0 && !committed_, InvalidState, "write to '{}' after it was closed", path_);
  if (size == 0) return;
  if (buffer_.size() + size <= kBufferSize) {
    buffer_.append(static_cast<const char*>(data), size);
  } else {
    flush();
    if (size < kBufferSize) {
      buffer_.append(static_cast<const char*>(data), size);
    } else {
      // Large payloads (weights) go straight from their Buffer to the file.
      const char* p = static_cast<const char*>(data);
      size_t left = size;
      while (left > 0) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0) {
          if (errno == EINTR) continue;
          fail("write failed", errno);
        }
        p += n;
        left -= static_cast<size_t>(n);
      }
    }
  }
  written_ += size;
}

void AtomicFileWriter::write_zeros(uint64_t count) {
  static const char kZeros[4096] = {};
  while (count > 0) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(count, sizeof(kZeros)));
    write(kZeros, n);
    count -= n;
  }
}

void AtomicFileWriter::commit() {
  PTEC_ENFORCE(fd_ >= 0 && !committed_, InvalidState, "commit of '{}' after it was closed", path_);
  flush();
  if (::fsync(fd_) != 0) fail("fsync failed", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close failed", errno);
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) fail("rename failed", errno);
  temp_path_.clear();
  committed_ = true;
  // Make the rename durable; a failure here does not undo a complete, renamed file.
  const int dir = ::open(directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace ptec::emit

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ptec::emit {

/// Writes a file atomically: the bytes go to a temporary file in the target's directory, which
/// is fsync'ed and renamed over the target by commit(). Until commit() succeeds the target is
/// untouched; if the writer is destroyed without a successful commit, or any step fails, the
/// temporary file is removed. Every failure throws ptec::Exception(AccessFailed) naming the path
/// and the system error. Not copyable.
class AtomicFileWriter {
 public:
  /// Creates the temporary file next to `path`.
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  /// Appends `size` bytes.
  void write(const void* data, size_t size);
  /// Appends `count` zero bytes.
  void write_zeros(uint64_t count);
  /// Bytes written so far.
  uint64_t size() const { return written_; }
  /// Flushes, fsyncs and renames the temporary file to the target path.
  void commit();

  const std::string& path() const { return path_; }

 private:
  void flush();
  [[noreturn]] void fail(const std::string& what, int error);
  void discard() noexcept;

  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
  uint64_t written_ = 0;
  std::string buffer_;  // small write-combining buffer; large payloads bypass it
};

}  // namespace ptec::emit

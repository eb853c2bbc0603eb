#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ptec::ir {

class Buffer;
/// Payloads (weights, constants, engines) are shared, immutable and never copied by any stage.
using BufferPtr = std::shared_ptr<const Buffer>;

/// Immutable bytes with shared ownership, backed by heap memory or by a read-only memory map of
/// a file. A Buffer may be a view into another Buffer (it keeps its parent alive).
class Buffer {
 public:
  virtual ~Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  /// True when the bytes live in a memory-mapped file (directly or through a parent).
  bool is_mapped() const { return mapped_; }
  /// For a mapped buffer, lets the system drop the resident pages that lie wholly inside
  /// [offset, offset + size) (the next access reads them from the file again): writers call it on
  /// what they have streamed out, so copying a large mapped payload to a file does not keep it
  /// resident. Does nothing for heap buffers or a range outside the buffer.
  void release_pages(size_t offset, size_t size) const;
  /// How much of a mapped buffer readers take at a time before releasing it: the most of it
  /// that stays resident while it is hashed, compared or written out.
  static constexpr size_t kReleasePiece = size_t{16} << 20;

  /// Takes ownership of `bytes` (no copy).
  static BufferPtr from_vector(std::vector<uint8_t> bytes);
  /// Takes ownership of `bytes` (no copy); used for protobuf raw_data fields.
  static BufferPtr from_string(std::string bytes);
  /// Copies `size` bytes from `data` (for small literals and tests).
  static BufferPtr copy_of(const void* data, size_t size);
  /// Maps the whole file read-only. Throws ptec::Exception (AccessFailed) naming the file.
  static BufferPtr map_file(const std::string& path);
  /// A view of [offset, offset + size) of `parent`, sharing its memory. Throws InvalidArgument when
  /// the range is outside the parent.
  static BufferPtr slice(BufferPtr parent, size_t offset, size_t size);

 protected:
  Buffer() = default;
  /// Called by each implementation's constructor once its storage exists.
  void bind(const uint8_t* data, size_t size, bool mapped) {
    data_ = data;
    size_ = size;
    mapped_ = mapped;
  }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
};

}  // namespace ptec::ir

#pragma once

#include <cstddef>
#include <cstring>

#include "core/result.h"
#include "runtime/core/freeable_buffer.h"

namespace ptec::runtime {

/// Reads byte ranges of a program or data file. Implementations: BufferDataLoader (bytes in
/// memory), FileDataLoader (pread into aligned heap memory), MmapDataLoader (a read-only map).
class DataLoader {
 public:
  /// What a load is for; loaders may use it to choose placement or for logging.
  struct SegmentInfo {
    enum class Type : uint8_t {
      Program,   ///< the flatbuffer (and the head bytes before it)
      Constant,  ///< the constant segment
      Backend,   ///< a delegate blob; `descriptor` is the backend id
      Mutable,   ///< initial values of mutable tensors
      External,  ///< named data (.ptd entries, .pte named_data)
    };
    Type type = Type::Program;
    size_t segment_index = 0;
    const char* descriptor = nullptr;
  };

  virtual ~DataLoader() = default;

  /// Bytes [offset, offset + size). The buffer is aligned to at least alignof(std::max_align_t)
  /// when `offset` is (buffers of a map or a memory buffer inherit the source's alignment).
  /// Errors: InvalidArgument when the range is outside the data; AccessFailed on I/O failure;
  /// MemoryAllocationFailed.
  virtual Result<FreeableBuffer> load(size_t offset, size_t size,
                                      const SegmentInfo& info) const = 0;

  /// Copies bytes [offset, offset + size) into `buffer`. The default loads and copies.
  virtual Error load_into(size_t offset, size_t size, const SegmentInfo& info, void* buffer) const {
    Result<FreeableBuffer> data = load(offset, size, info);
    if (!data.ok()) return data.error();
    if (size > 0) std::memcpy(buffer, data->data(), size);
    return Error::Ok;
  }

  /// Total size of the data in bytes.
  virtual Result<size_t> size() const = 0;
};

/// True when [offset, offset + size) lies inside [0, total) without overflow.
inline bool range_in_bounds(size_t offset, size_t size, size_t total) {
  return offset <= total && size <= total - offset;
}

}  // namespace ptec::runtime

#pragma once

// The headers inserted after a flatbuffer's file identifier (FORMAT.md §1.1 and §5): `eh00` in a
// .pte and `FH01` in a .ptd. Shared by the writer and the runtime: no heap, no exceptions.

#include <cstddef>
#include <cstdint>

#include "core/result.h"

namespace ptec::schema {

/// Offset of both headers in the file: after the u32 root offset and the 4-byte identifier.
constexpr size_t kHeaderOffset = 8;

/// `value` rounded up to a multiple of `alignment` (a power of two). Returns 0 on overflow.
constexpr uint64_t aligned_size(uint64_t value, uint64_t alignment) {
  const uint64_t mask = alignment - 1;
  return value > UINT64_MAX - mask ? 0 : (value + mask) & ~mask;
}

/// The .pte extended header (`eh00`), 32 bytes, all fields little-endian.
struct ExtendedHeader {
  static constexpr char kMagic[4] = {'e', 'h', '0', '0'};
  /// Length a writer stores.
  static constexpr uint32_t kExpectedLength = 32;
  /// Shortest length a reader accepts; segment_data_size is only present from 32 bytes on.
  static constexpr uint32_t kMinimumLength = 24;
  /// Bytes a reader needs from the start of the file to parse the header (the runtime reads 64).
  static constexpr size_t kNumHeadBytes = 64;
  /// Bytes the writer inserts: the header padded to the schema's largest force_align (16).
  static constexpr size_t kPaddedLength = 32;

  /// Flatbuffer size counted from file offset 0, the inserted header included.
  uint64_t program_size = 0;
  /// File offset of the first segment; 0 when the program has no segments.
  uint64_t segment_base_offset = 0;
  /// Bytes of segment data, padding between segments included (0 when the length was < 32).
  uint64_t segment_data_size = 0;

  /// Parses the header from the first `size` bytes of a file (`data` starts at file offset 0).
  /// Errors: NotFound when the magic is absent (a plain flatbuffer, or a buffer shorter than
  /// the header); InvalidProgram when the magic is present but the length is below 24 or the
  /// header does not fit in `size`.
  static Result<ExtendedHeader> parse(const void* data, size_t size);

  /// Writes the 32-byte header (magic, length 32, the three fields) to `out`.
  void write(uint8_t out[kExpectedLength]) const;
};

/// The .ptd header (`FH01`), 40 bytes, all fields little-endian.
struct FlatTensorHeader {
  static constexpr char kMagic[4] = {'F', 'H', '0', '1'};
  static constexpr uint32_t kExpectedLength = 40;
  /// Bytes the Python writer inserts: aligned_size(40, 16).
  static constexpr size_t kPaddedLength = 48;

  /// Number of bytes inserted after the identifier (the padded header length).
  uint64_t flatbuffer_offset = 0;
  /// Size of the original flatbuffer (its bytes [0, 8) included).
  uint64_t flatbuffer_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;

  /// Parses the header from the first `size` bytes of a file. Errors: NotFound when the magic
  /// is absent; InvalidExternalData when the length is below 40 or the header does not fit.
  static Result<FlatTensorHeader> parse(const void* data, size_t size);

  /// Writes the 40-byte header to `out`.
  void write(uint8_t out[kExpectedLength]) const;
};

}  // namespace ptec::schema

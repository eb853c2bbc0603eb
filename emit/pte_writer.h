#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "emit/emitted_program.h"

namespace ptec::emit {

/// The file layout of an emitted program (FORMAT.md §1):
///
/// ```
///   0        u32 root offset (+32 when the header is present)
///   4        "ET12"
///   8        eh00 extended header, 32 bytes          ← only with >= 1 byte of segment data
///   40       rest of the flatbuffer (Program)
///   program_size
///            zero padding
///   segment_base_offset = align(program_size, segment_alignment)
///            segment 0 (constants, each padded to constant_tensor_alignment), segment 1, ...
///   segment_base_offset + segment_data_size = file size
/// ```
struct PteLayout {
  /// The flatbuffer with the extended header inserted (when there is segment data). Small:
  /// constants are not in it.
  std::vector<uint8_t> head;
  /// head.size().
  uint64_t program_size = 0;
  /// 0 when there is no segment data (no header, file = head).
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
  /// Size of the whole file.
  uint64_t file_size() const {
    return segment_data_size == 0 ? program_size : segment_base_offset + segment_data_size;
  }
};

/// Serializes the flatbuffer and computes the layout. Throws Internal for inconsistent segments.
PteLayout layout_pte(const EmittedProgram& program);

/// Streams the .pte to `out`: the flatbuffer, padding, then every segment piece directly from its
/// Buffer (no second copy of the constants). Throws AccessFailed when the stream fails.
void write_pte(const EmittedProgram& program, std::ostream& out);

/// Writes the .pte to `path` atomically (temporary file in the same directory, fsync, rename).
/// On any failure the temporary file is removed, an existing file at `path` is left untouched,
/// and ptec::Exception(AccessFailed) naming the path is thrown.
void write_pte(const EmittedProgram& program, const std::string& path);

/// The whole file in memory (a copy of every constant: for tests and small programs).
std::vector<uint8_t> pte_bytes(const EmittedProgram& program);

}  // namespace ptec::emit

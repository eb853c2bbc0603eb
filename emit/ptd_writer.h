#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "ir/tensor_spec.h"

namespace ptec::emit {

/// Writes named tensors as a .ptd (FlatTensor, FORMAT.md §5, the Python writer's layout):
///
/// ```
///   0     u32 root offset + 48
///   4     "FT01"
///   8     FH01 header (40 bytes, zero-padded to 48)
///   56    rest of the flatbuffer (FlatTensor{version 0, segments, named_data})
///         zero padding
///   segment_base_offset = align(48 + flatbuffer size, segment_alignment)
///         one segment per distinct content (identical bytes are stored once), each at a
///         multiple of tensor_alignment
/// ```
/// Each NamedData has the key, its segment and a TensorLayout{scalar_type, sizes, dim_order}.
/// Payloads are streamed from their Buffers (no second copy). Throws AccessFailed when the
/// stream fails, InvalidArgument for a tensor whose bytes do not match its spec.
void write_ptd(const std::map<std::string, ir::TensorData>& tensors, std::ostream& out,
               uint64_t segment_alignment = 128, uint64_t tensor_alignment = 16);

/// Writes the .ptd to `path` atomically; AccessFailed naming the path on any failure.
void write_ptd(const std::map<std::string, ir::TensorData>& tensors, const std::string& path,
               uint64_t segment_alignment = 128, uint64_t tensor_alignment = 16);

/// The whole .ptd in memory (for tests).
std::vector<uint8_t> ptd_bytes(const std::map<std::string, ir::TensorData>& tensors,
                               uint64_t segment_alignment = 128, uint64_t tensor_alignment = 16);

}  // namespace ptec::emit

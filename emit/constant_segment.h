#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "emit/emitted_program.h"
#include "ir/buffer.h"

namespace ptec::emit {

/// Builds the constant segment (FORMAT.md §2 "Constant placement rules"): index 0 is the
/// reserved placeholder (offset 0); each new constant starts at a multiple of `alignment` after
/// the previous one (the last one is not padded). Constants with identical bytes are stored
/// once (hash, then a full compare). Payloads are referenced, never copied.
class ConstantSegmentBuilder {
 public:
  /// `alignment`: constant_tensor_alignment, a power of two.
  explicit ConstantSegmentBuilder(uint64_t alignment);

  /// The data_buffer_idx (>= 1) of `data`'s bytes, adding them when they are new; 0 (the
  /// placeholder) for an empty buffer.
  uint32_t add(const ir::BufferPtr& data);

  /// `constant_segment.offsets`: {0 (placeholder), offset of constant 1, ...}.
  const std::vector<uint64_t>& offsets() const { return offsets_; }
  /// Size of the segment (end of the last constant).
  uint64_t size() const { return size_; }
  /// The pieces of the segment, at their offsets.
  const std::vector<SegmentPiece>& pieces() const { return pieces_; }

 private:
  uint64_t alignment_;
  uint64_t size_ = 0;
  std::vector<uint64_t> offsets_{0};
  std::vector<SegmentPiece> pieces_;
  std::unordered_multimap<size_t, uint32_t> by_hash_;  // hash of the bytes → data_buffer_idx
};

}  // namespace ptec::emit

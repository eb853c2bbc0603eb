#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/named_data_map.h"
#include "runtime/loader/data_loader.h"

namespace executorch_flatbuffer {
struct Program;
}  // namespace executorch_flatbuffer

namespace ptec::runtime {

namespace internal {
/// Loads Program.segments[index] of a program whose segment data starts at
/// `segment_base_offset` (0 when the file has no extended header) and spans `segment_data_size`
/// bytes. Errors: InvalidProgram (bad index, no header, range outside the segment data), or the
/// loader's error.
Result<FreeableBuffer> load_program_segment(const DataLoader* loader,
                                            const executorch_flatbuffer::Program* program,
                                            uint64_t segment_base_offset,
                                            uint64_t segment_data_size, size_t index,
                                            DataLoader::SegmentInfo::Type type,
                                            const char* descriptor);
}  // namespace internal

/// Serves a .pte's `named_data` table (opaque blobs for delegates, stored in segments). It has
/// no tensor layouts: get_tensor_layout() returns NotImplemented for a known key.
class PteDataMap final : public NamedDataMap {
 public:
  PteDataMap() = default;
  /// `loader` and the flatbuffer must outlive the map.
  PteDataMap(const DataLoader* loader, const executorch_flatbuffer::Program* program,
             uint64_t segment_base_offset, uint64_t segment_data_size)
      : loader_(loader),
        program_(program),
        segment_base_offset_(segment_base_offset),
        segment_data_size_(segment_data_size) {}

  size_t num_entries() const;

  Result<TensorLayout> get_tensor_layout(std::string_view key) const override;
  Result<FreeableBuffer> get_data(std::string_view key) const override;
  Error load_data_into(std::string_view key, void* buffer, size_t size) const override;
  Result<uint32_t> get_num_keys() const override;
  Result<const char*> get_key(uint32_t index) const override;

 private:
  Result<size_t> find(std::string_view key) const;

  const DataLoader* loader_ = nullptr;
  const executorch_flatbuffer::Program* program_ = nullptr;
  uint64_t segment_base_offset_ = 0;
  uint64_t segment_data_size_ = 0;
};

/// Two maps searched in order (the .ptd first, then the .pte's named_data). Either may be null.
class MergedDataMap final : public NamedDataMap {
 public:
  MergedDataMap(const NamedDataMap* first, const NamedDataMap* second)
      : first_(first), second_(second) {}

  Result<TensorLayout> get_tensor_layout(std::string_view key) const override;
  Result<FreeableBuffer> get_data(std::string_view key) const override;
  Error load_data_into(std::string_view key, void* buffer, size_t size) const override;
  Result<uint32_t> get_num_keys() const override;
  Result<const char*> get_key(uint32_t index) const override;

 private:
  const NamedDataMap* first_;
  const NamedDataMap* second_;
};

}  // namespace ptec::runtime

#pragma once

#include <cstddef>
#include <cstdint>

#include "core/result.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/named_data_map.h"
#include "runtime/loader/data_loader.h"
#include "schema/extended_header.h"

namespace flat_tensor_flatbuffer {
struct FlatTensor;
struct NamedData;
}  // namespace flat_tensor_flatbuffer

namespace ptec::runtime {

/// A loaded .ptd (FlatTensor, FORMAT.md §5): the verified flatbuffer and its `FH01` header.
/// Tensor bytes are read through the loader on request. No heap beyond the loader's. Move-only;
/// the loader must outlive the map, and the map every buffer and layout it returns.
class FlatTensorDataMap final : public NamedDataMap {
 public:
  /// Errors: InvalidArgument (null loader), InvalidExternalData (not a .ptd, missing or
  /// inconsistent header, truncated file, failed verification, no named_data), or the loader's
  /// error.
  static Result<FlatTensorDataMap> load(DataLoader* loader);

  FlatTensorDataMap(FlatTensorDataMap&&) noexcept = default;
  FlatTensorDataMap& operator=(FlatTensorDataMap&&) = delete;
  FlatTensorDataMap(const FlatTensorDataMap&) = delete;
  FlatTensorDataMap& operator=(const FlatTensorDataMap&) = delete;
  ~FlatTensorDataMap() override = default;

  Result<TensorLayout> get_tensor_layout(std::string_view key) const override;
  Result<FreeableBuffer> get_data(std::string_view key) const override;
  /// `size` must be at most the stored size (and the layout's nbytes when there is one).
  Error load_data_into(std::string_view key, void* buffer, size_t size) const override;
  Result<uint32_t> get_num_keys() const override;
  Result<const char*> get_key(uint32_t index) const override;

 private:
  FlatTensorDataMap(DataLoader* loader, FreeableBuffer data,
                    const flat_tensor_flatbuffer::FlatTensor* flat_tensor,
                    const schema::FlatTensorHeader& header);
  Result<const flat_tensor_flatbuffer::NamedData*> find(std::string_view key) const;
  /// File offset and size of the segment of `entry`, bounds-checked.
  Error segment_range(const flat_tensor_flatbuffer::NamedData* entry, size_t* offset,
                      size_t* size) const;

  DataLoader* loader_;
  FreeableBuffer data_;
  const flat_tensor_flatbuffer::FlatTensor* flat_tensor_;
  schema::FlatTensorHeader header_;
};

}  // namespace ptec::runtime

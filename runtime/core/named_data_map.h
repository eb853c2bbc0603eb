#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/result.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/tensor_layout.h"

namespace ptec::runtime {

/// Named blobs outside the program's flatbuffer: a .ptd file (FlatTensorDataMap), a .pte's
/// `named_data` table, or both merged. Keys are compared byte for byte.
class NamedDataMap {
 public:
  virtual ~NamedDataMap() = default;

  /// The layout stored with `key`. Errors: NotFound for an unknown key; NotImplemented when the
  /// map stores no layouts (a .pte's named_data); InvalidExternalData for a malformed entry.
  virtual Result<TensorLayout> get_tensor_layout(std::string_view key) const = 0;

  /// The bytes stored under `key`; the buffer may point into memory owned by the map, so the
  /// map must outlive it. Errors: NotFound, InvalidExternalData, or the loader's error.
  virtual Result<FreeableBuffer> get_data(std::string_view key) const = 0;

  /// Copies the bytes stored under `key` into `buffer`; `size` must equal the stored size, or be
  /// at most the layout's nbytes when a layout exists. Errors: NotFound, InvalidArgument.
  virtual Error load_data_into(std::string_view key, void* buffer, size_t size) const = 0;

  virtual Result<uint32_t> get_num_keys() const = 0;
  /// Key `index` in [0, get_num_keys()); the string lives as long as the map.
  virtual Result<const char*> get_key(uint32_t index) const = 0;
};

}  // namespace ptec::runtime

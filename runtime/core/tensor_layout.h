#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dtype.h"
#include "core/result.h"
#include "core/span.h"

namespace ptec::runtime {

/// dtype, sizes and dim order of a tensor stored in a NamedDataMap (a .ptd's TensorLayout).
/// `sizes` and `dim_order` are views that must outlive the layout (in a FlatTensorDataMap: the
/// map's flatbuffer).
class TensorLayout final {
 public:
  /// Validates the layout: a valid dtype, equal ranks up to kTensorDimensionLimit, non-negative
  /// sizes, a dim order that is a permutation and a byte size that does not overflow.
  /// Errors: InvalidArgument.
  static Result<TensorLayout> create(DType dtype, Span<const int32_t> sizes,
                                     Span<const uint8_t> dim_order);

  DType scalar_type() const { return dtype_; }
  Span<const int32_t> sizes() const { return sizes_; }
  Span<const uint8_t> dim_order() const { return dim_order_; }
  /// Bytes of the tensor's data.
  size_t nbytes() const { return nbytes_; }

 private:
  TensorLayout(DType dtype, Span<const int32_t> sizes, Span<const uint8_t> dim_order, size_t nbytes)
      : dtype_(dtype), sizes_(sizes), dim_order_(dim_order), nbytes_(nbytes) {}

  DType dtype_;
  Span<const int32_t> sizes_;
  Span<const uint8_t> dim_order_;
  size_t nbytes_;
};

}  // namespace ptec::runtime

#include "runtime/core/tensor_layout.h"

#include "runtime/core/tensor.h"

namespace ptec::runtime {

Result<TensorLayout> TensorLayout::create(DType dtype, Span<const int32_t> sizes,
                                          Span<const uint8_t> dim_order) {
  PTEC_CHECK_OR_RETURN_ERROR(is_valid_dtype(static_cast<int64_t>(dtype)), InvalidArgument,
                             "tensor layout: invalid scalar type %d", static_cast<int>(dtype));
  PTEC_CHECK_OR_RETURN_ERROR(sizes.size() == dim_order.size(), InvalidArgument,
                             "tensor layout: %zu sizes but %zu dim_order entries", sizes.size(),
                             dim_order.size());
  PTEC_CHECK_OR_RETURN_ERROR(sizes.size() <= kTensorDimensionLimit, InvalidArgument,
                             "tensor layout: rank %zu exceeds the limit of %zu", sizes.size(),
                             kTensorDimensionLimit);
  bool seen[kTensorDimensionLimit] = {};
  size_t nbytes = element_size(dtype);
  for (size_t i = 0; i < sizes.size(); ++i) {
    PTEC_CHECK_OR_RETURN_ERROR(sizes[i] >= 0, InvalidArgument,
                               "tensor layout: negative size %d at dim %zu", sizes[i], i);
    PTEC_CHECK_OR_RETURN_ERROR(dim_order[i] < sizes.size() && !seen[dim_order[i]], InvalidArgument,
                               "tensor layout: dim_order is not a permutation of [0, %zu)",
                               sizes.size());
    seen[dim_order[i]] = true;
    const size_t s = static_cast<size_t>(sizes[i]);
    PTEC_CHECK_OR_RETURN_ERROR(s == 0 || nbytes <= SIZE_MAX / s, InvalidArgument,
                               "tensor layout: byte size overflows");
    nbytes *= s;
  }
  return TensorLayout(dtype, sizes, dim_order, nbytes);
}

}  // namespace ptec::runtime

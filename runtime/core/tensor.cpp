#include "runtime/core/tensor.h"

#include "core/log.h"

namespace ptec::runtime {

Tensor::Tensor(DType dtype, size_t dim, SizesType* sizes, DimOrderType* dim_order,
               StridesType* strides, void* data, ShapeDynamism dynamism)
    : dtype_(dtype),
      dim_(dim),
      sizes_(sizes),
      dim_order_(dim_order),
      strides_(strides),
      data_(data),
      dynamism_(dynamism) {
  recompute();
  capacity_numel_ = numel();
}

void Tensor::recompute() {
  // Strides follow the dim order: the last dimension in dim order is the fastest.
  StridesType stride = 1;
  for (size_t i = dim_; i > 0; --i) {
    const DimOrderType d = dim_order_[i - 1];
    strides_[d] = stride;
    stride *= sizes_[d] == 0 ? 1 : sizes_[d];
  }
}

bool Tensor::is_contiguous() const {
  for (size_t i = 0; i < dim_; ++i) {
    if (dim_order_[i] != i) return false;
  }
  return true;
}

Error Tensor::resize(Span<const SizesType> new_sizes) {
  if (new_sizes.size() != dim_) {
    PTEC_LOG(Error, "resize: rank %zu does not match tensor rank %zu", new_sizes.size(), dim_);
    return Error::InvalidArgument;
  }
  bool same = true;
  size_t numel = 1;
  for (size_t i = 0; i < dim_; ++i) {
    if (new_sizes[i] < 0) {
      PTEC_LOG(Error, "resize: negative size %d at dim %zu", new_sizes[i], i);
      return Error::InvalidArgument;
    }
    same = same && new_sizes[i] == sizes_[i];
    numel *= static_cast<size_t>(new_sizes[i]);
  }
  if (same) return Error::Ok;
  if (dynamism_ == ShapeDynamism::Static) {
    PTEC_LOG(Error, "resize: tensor has a static shape and cannot change its sizes");
    return Error::NotSupported;
  }
  if (numel > capacity_numel_) {
    PTEC_LOG(Error, "resize: %zu elements exceed the tensor's capacity of %zu", numel,
             capacity_numel_);
    return Error::NotSupported;
  }
  for (size_t i = 0; i < dim_; ++i) sizes_[i] = new_sizes[i];
  recompute();
  return Error::Ok;
}

}  // namespace ptec::runtime

#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dtype.h"
#include "core/error.h"
#include "core/span.h"

namespace ptec::runtime {

/// Maximum rank of a runtime tensor (ExecuTorch's kTensorDimensionLimit).
constexpr size_t kTensorDimensionLimit = 16;

using SizesType = int32_t;
using DimOrderType = uint8_t;
using StridesType = int32_t;

/// How a tensor's shape may change at run time (schema Tensor.shape_dynamism).
enum class ShapeDynamism : uint8_t { Static = 0, DynamicBound = 1, DynamicUnbound = 2 };

/// A non-owning tensor view: dtype, sizes, dim order, strides and a data pointer.
/// `sizes`, `dim_order` and `strides` point into memory that must outlive the tensor (in a loaded
/// Method: the method allocator). Strides are derived from sizes and dim order.
/// The capacity (element count the data buffer holds) is fixed at construction: for DynamicBound
/// tensors it is the upper bound, and resize() may shrink or grow within it.
class Tensor final {
 public:
  Tensor() = default;
  /// `sizes`/`dim_order`/`strides` must each have `dim` writable elements; strides are computed.
  Tensor(DType dtype, size_t dim, SizesType* sizes, DimOrderType* dim_order, StridesType* strides,
         void* data, ShapeDynamism dynamism = ShapeDynamism::Static);

  DType dtype() const { return dtype_; }
  DType scalar_type() const { return dtype_; }
  size_t dim() const { return dim_; }
  /// Number of elements for the current sizes. Computed from the sizes on each call: copies of a
  /// Tensor share its sizes array (e.g. in a TensorList), so a resize through one copy must be
  /// visible through all of them.
  size_t numel() const {
    size_t n = 1;
    for (size_t i = 0; i < dim_; ++i) n *= static_cast<size_t>(sizes_[i]);
    return n;
  }
  size_t element_size() const { return ptec::element_size(dtype_); }
  size_t nbytes() const { return numel() * element_size(); }
  /// Number of elements the data buffer can hold.
  size_t capacity_numel() const { return capacity_numel_; }
  ShapeDynamism shape_dynamism() const { return dynamism_; }

  Span<const SizesType> sizes() const { return {sizes_, dim_}; }
  Span<const DimOrderType> dim_order() const { return {dim_order_, dim_}; }
  Span<const StridesType> strides() const { return {strides_, dim_}; }
  /// Size of dimension `d`; negative `d` counts from the end. `d` must be in range.
  SizesType size(int64_t d) const { return sizes_[d < 0 ? d + static_cast<int64_t>(dim_) : d]; }
  bool is_contiguous() const;

  void* mutable_data_ptr() const { return data_; }
  const void* const_data_ptr() const { return data_; }
  template <typename T>
  T* mutable_data_ptr() const {
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* const_data_ptr() const {
    return static_cast<const T*>(data_);
  }
  void set_data(void* data) { data_ = data; }

  /// Changes the sizes (same rank). Static tensors accept only their current sizes; DynamicBound
  /// tensors accept any sizes whose element count fits the capacity. Returns NotSupported or
  /// InvalidArgument (with a log line) otherwise.
  Error resize(Span<const SizesType> new_sizes);

 private:
  void recompute();

  DType dtype_ = DType::Float;
  size_t dim_ = 0;
  SizesType* sizes_ = nullptr;
  DimOrderType* dim_order_ = nullptr;
  StridesType* strides_ = nullptr;
  void* data_ = nullptr;
  size_t capacity_numel_ = 1;
  ShapeDynamism dynamism_ = ShapeDynamism::Static;
};

/// Resizes `out` to `sizes`; the usual first line of an out-variant kernel.
inline Error resize_tensor(Tensor& out, Span<const SizesType> sizes) { return out.resize(sizes); }

}  // namespace ptec::runtime

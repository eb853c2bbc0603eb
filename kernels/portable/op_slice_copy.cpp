// slice_copy.Tensor_out and select_copy.int_out: a strided slice (or one index) of one dim.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/strided.h"

namespace ptec::kernels {

Tensor& slice_copy_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                              std::optional<int64_t> start, std::optional<int64_t> end,
                              int64_t step, Tensor& out) {
  constexpr const char* kOp = "slice_copy.Tensor_out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, self.dim() > 0, InvalidArgument, out,
                        "%s: cannot slice a zero-dimensional tensor", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, step > 0, InvalidArgument, out, "%s: step must be positive", kOp);
  size_t d = 0;
  if (!wrap_dim(ctx, kOp, dim, self.dim(), &d)) return out;
  // ATen's clamping: negative bounds count from the end, then clamp into [0, size].
  const int64_t size = self.sizes()[d];
  int64_t lo = start.value_or(0), hi = end.value_or(size);
  if (lo < 0) lo += size;
  if (hi < 0) hi += size;
  lo = lo < 0 ? 0 : (lo > size ? size : lo);
  hi = hi < lo ? lo : (hi > size ? size : hi);
  const int64_t len = (hi - lo + step - 1) / step;
  int64_t strides[kTensorDimensionLimit] = {};
  contiguous_strides(self, strides);
  Shape shape = shape_of(self);
  shape.sizes[d] = static_cast<SizesType>(len);
  StridedView view;
  for (size_t i = 0; i < self.dim(); ++i) {
    view.add_dim(shape.sizes[i], i == d ? strides[i] * step : strides[i]);
  }
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  if (len == 0) return out;
  const auto* base = static_cast<const uint8_t*>(self.const_data_ptr()) +
                     lo * strides[d] * static_cast<int64_t>(self.element_size());
  copy_strided(base, out.mutable_data_ptr(), self.element_size(), view);
  return out;
}

Tensor& select_copy_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                            int64_t index, Tensor& out) {
  constexpr const char* kOp = "select_copy.int_out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, self.dim() > 0, InvalidArgument, out,
                        "%s: cannot select from a zero-dimensional tensor", kOp);
  size_t d = 0;
  if (!wrap_dim(ctx, kOp, dim, self.dim(), &d)) return out;
  const int64_t size = self.sizes()[d];
  PTEC_KERNEL_CHECK_MSG(ctx, index >= -size && index < size, InvalidArgument, out,
                        "%s: index %lld is out of range for dim %zu of size %lld", kOp,
                        static_cast<long long>(index), d, static_cast<long long>(size));
  if (index < 0) index += size;
  int64_t strides[kTensorDimensionLimit] = {};
  contiguous_strides(self, strides);
  Shape shape;
  StridedView view;
  for (size_t i = 0; i < self.dim(); ++i) {
    if (i == d) continue;
    shape.push(self.sizes()[i]);
    view.add_dim(self.sizes()[i], strides[i]);
  }
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  const auto* base = static_cast<const uint8_t*>(self.const_data_ptr()) +
                     index * strides[d] * static_cast<int64_t>(self.element_size());
  copy_strided(base, out.mutable_data_ptr(), self.element_size(), view);
  return out;
}

}  // namespace ptec::kernels

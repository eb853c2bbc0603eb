// gather.out: out[..., i, ...] = self[..., index[..., i, ...], ...] along `dim`; out has the
// index's shape, which may not exceed self's in the other dims.

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/index_util.h"
#include "kernels/portable/util/strided.h"

namespace ptec::kernels {

Tensor& gather_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                   bool sparse_grad, Tensor& out) {
  (void)sparse_grad;
  constexpr const char* kOp = "gather.out";
  if (!check_contiguous(ctx, kOp, {&self, &index, &out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  size_t d = 0;
  if (!wrap_dim(ctx, kOp, dim, self.dim(), &d)) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, index.dim() == self.dim() || (self.dim() == 0 && index.dim() <= 1),
                        InvalidArgument, out, "%s: index must have the rank of self", kOp);
  for (size_t i = 0; i < self.dim(); ++i) {
    PTEC_KERNEL_CHECK_MSG(ctx, i == d || index.sizes()[i] <= self.sizes()[i], InvalidArgument, out,
                          "%s: index size %d exceeds self size %d at dim %zu", kOp,
                          static_cast<int>(index.sizes()[i]), static_cast<int>(self.sizes()[i]), i);
  }
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  if (!check_indices(ctx, kOp, index, size, /*allow_negative=*/false)) return out;
  if (!resize_out(ctx, kOp, out, index.sizes())) return out;
  // Walk the index's positions in self's layout; the dim itself contributes index * stride.
  int64_t strides[kTensorDimensionLimit] = {};
  contiguous_strides(self, strides);
  StridedView view;
  for (size_t i = 0; i < index.dim(); ++i) {
    view.add_dim(index.sizes()[i], self.dim() == 0 || i == d ? 0 : strides[i]);
  }
  const int64_t dim_stride = self.dim() == 0 ? 0 : strides[d];
  const size_t es = self.element_size();
  const auto* src = static_cast<const uint8_t*>(self.const_data_ptr());
  auto* dst = static_cast<uint8_t*>(out.mutable_data_ptr());
  int64_t i = 0;
  view.for_each([&](int64_t base) {
    const int64_t off = base + index_at(index, i, size) * dim_stride;
    std::memcpy(dst + i * static_cast<int64_t>(es), src + off * static_cast<int64_t>(es), es);
    ++i;
  });
  return out;
}

}  // namespace ptec::kernels

// unsqueeze_copy.out and squeeze_copy.dims_out: the same elements with size-1 dims added or
// removed.

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {
namespace {

void copy_data(const Tensor& self, Tensor& out) {
  if (self.nbytes() > 0 && out.mutable_data_ptr() != self.const_data_ptr()) {
    std::memcpy(out.mutable_data_ptr(), self.const_data_ptr(), self.nbytes());
  }
}

}  // namespace

Tensor& unsqueeze_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                           Tensor& out) {
  constexpr const char* kOp = "unsqueeze_copy.out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, self.dim() < kTensorDimensionLimit, InvalidArgument, out,
                        "%s: rank limit reached", kOp);
  size_t d = 0;
  // The new dim may be at any of rank + 1 positions.
  const int64_t rank1 = static_cast<int64_t>(self.dim()) + 1;
  PTEC_KERNEL_CHECK_MSG(ctx, dim >= -rank1 && dim < rank1, InvalidArgument, out,
                        "%s: dim %lld is out of range for rank %zu", kOp,
                        static_cast<long long>(dim), self.dim());
  d = static_cast<size_t>(dim < 0 ? dim + rank1 : dim);
  Shape shape;
  for (size_t i = 0; i < self.dim(); ++i) {
    if (i == d) shape.push(1);
    shape.push(self.sizes()[i]);
  }
  if (d == self.dim()) shape.push(1);
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  copy_data(self, out);
  return out;
}

Tensor& squeeze_copy_dims_out(KernelRuntimeContext& ctx, const Tensor& self, IntList dims,
                              Tensor& out) {
  constexpr const char* kOp = "squeeze_copy.dims_out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  bool drop[kTensorDimensionLimit] = {};
  for (int64_t dim : dims) {
    size_t d = 0;
    if (!wrap_dim(ctx, kOp, dim, self.dim(), &d)) return out;
    if (self.dim() > 0 && self.sizes()[d] == 1) drop[d] = true;
  }
  Shape shape;
  for (size_t i = 0; i < self.dim(); ++i) {
    if (!drop[i]) shape.push(self.sizes()[i]);
  }
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  copy_data(self, out);
  return out;
}

}  // namespace ptec::kernels

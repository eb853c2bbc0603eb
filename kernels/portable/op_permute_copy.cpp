// permute_copy.out, transpose_copy.int_out and t_copy.out: copies of a dim permutation.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/strided.h"

namespace ptec::kernels {
namespace {

// out = self with dims reordered by perm (already validated).
void permute_impl(KernelRuntimeContext& ctx, const char* op, const Tensor& self, const size_t* perm,
                  Tensor& out) {
  int64_t strides[kTensorDimensionLimit] = {};
  contiguous_strides(self, strides);
  Shape shape;
  StridedView view;
  for (size_t i = 0; i < self.dim(); ++i) {
    shape.push(self.sizes()[perm[i]]);
    view.add_dim(self.sizes()[perm[i]], strides[perm[i]]);
  }
  if (!resize_out(ctx, op, out, shape.span())) return;
  copy_strided(self.const_data_ptr(), out.mutable_data_ptr(), self.element_size(), view);
}

bool prologue(KernelRuntimeContext& ctx, const char* op, const Tensor& self, const Tensor& out) {
  return check_contiguous(ctx, op, {&self, &out}) && check_dtype(ctx, op, out, self.dtype(), "out");
}

}  // namespace

Tensor& permute_copy_out(KernelRuntimeContext& ctx, const Tensor& self, IntList dims, Tensor& out) {
  constexpr const char* kOp = "permute_copy.out";
  if (!prologue(ctx, kOp, self, out)) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, dims.size() == self.dim(), InvalidArgument, out,
                        "%s: %zu dims given for a tensor of rank %zu", kOp, dims.size(),
                        self.dim());
  size_t perm[kTensorDimensionLimit] = {};
  bool seen[kTensorDimensionLimit] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!wrap_dim(ctx, kOp, dims[i], self.dim(), &perm[i])) return out;
    PTEC_KERNEL_CHECK_MSG(ctx, !seen[perm[i]], InvalidArgument, out, "%s: repeated dim %zu", kOp,
                          perm[i]);
    seen[perm[i]] = true;
  }
  permute_impl(ctx, kOp, self, perm, out);
  return out;
}

Tensor& transpose_copy_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim0,
                               int64_t dim1, Tensor& out) {
  constexpr const char* kOp = "transpose_copy.int_out";
  if (!prologue(ctx, kOp, self, out)) return out;
  size_t d0 = 0, d1 = 0;
  if (!wrap_dim(ctx, kOp, dim0, self.dim(), &d0) || !wrap_dim(ctx, kOp, dim1, self.dim(), &d1)) {
    return out;
  }
  size_t perm[kTensorDimensionLimit] = {};
  for (size_t i = 0; i < self.dim(); ++i) perm[i] = i;
  if (self.dim() > 0) {
    perm[d0] = d1;
    perm[d1] = d0;
  }
  permute_impl(ctx, kOp, self, perm, out);
  return out;
}

Tensor& t_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  constexpr const char* kOp = "t_copy.out";
  if (!prologue(ctx, kOp, self, out)) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, self.dim() <= 2, InvalidArgument, out,
                        "%s: expects a tensor of rank <= 2, got rank %zu", kOp, self.dim());
  size_t perm[2] = {1, 0};
  if (self.dim() < 2) perm[0] = 0;
  permute_impl(ctx, kOp, self, perm, out);
  return out;
}

}  // namespace ptec::kernels

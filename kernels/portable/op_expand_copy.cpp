// expand_copy.out: broadcasts size-1 dims (and new leading dims) to `size`; -1 keeps a size.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/strided.h"

namespace ptec::kernels {

Tensor& expand_copy_out(KernelRuntimeContext& ctx, const Tensor& self, IntList size, bool implicit,
                        Tensor& out) {
  (void)implicit;  // only affects autograd tracing in ATen
  constexpr const char* kOp = "expand_copy.out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, size.size() >= self.dim() && size.size() <= kTensorDimensionLimit,
                        InvalidArgument, out,
                        "%s: the number of sizes (%zu) must be >= the tensor rank (%zu)", kOp,
                        size.size(), self.dim());
  int64_t strides[kTensorDimensionLimit] = {};
  contiguous_strides(self, strides);
  const size_t lead = size.size() - self.dim();
  Shape shape;
  StridedView view;
  for (size_t i = 0; i < size.size(); ++i) {
    int64_t target = size[i];
    int64_t stride = 0;
    if (i < lead) {
      PTEC_KERNEL_CHECK_MSG(ctx, target >= 0, InvalidArgument, out,
                            "%s: size %lld is not allowed for a new leading dim", kOp,
                            static_cast<long long>(target));
    } else {
      const int64_t have = self.sizes()[i - lead];
      if (target == -1) target = have;
      PTEC_KERNEL_CHECK_MSG(ctx, have == target || have == 1, InvalidArgument, out,
                            "%s: size %lld at dim %zu cannot expand to %lld", kOp,
                            static_cast<long long>(have), i, static_cast<long long>(target));
      stride = have == 1 ? 0 : strides[i - lead];
    }
    shape.push(target);
    view.add_dim(target, stride);
  }
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  copy_strided(self.const_data_ptr(), out.mutable_data_ptr(), self.element_size(), view);
  return out;
}

}  // namespace ptec::kernels

#include "kernels/portable/util/reduce.h"

namespace ptec::kernels {

bool make_reduce_plan(KernelRuntimeContext& ctx, const char* op, const Tensor& in,
                      std::optional<Span<const int64_t>> dims, bool keepdim, ReducePlan* plan) {
  const size_t rank = in.dim();
  const bool all = !dims.has_value() || dims->empty();
  if (all) {
    for (size_t d = 0; d < rank; ++d) plan->reduced[d] = true;
  } else {
    for (int64_t dim : *dims) {
      size_t d = 0;
      if (!wrap_dim(ctx, op, dim, rank, &d)) return false;
      if (rank == 0) continue;  // dim 0 / -1 of a scalar: nothing to collapse
      PTEC_KERNEL_CHECK_MSG(ctx, !plan->reduced[d], InvalidArgument, false,
                            "%s: dim %zu appears more than once in the dim list", op, d);
      plan->reduced[d] = true;
    }
  }
  int64_t strides[kTensorDimensionLimit] = {};
  contiguous_strides(in, strides);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = in.sizes()[d];
    if (plan->reduced[d]) {
      plan->inner.add_dim(size, strides[d]);
      plan->reduced_numel *= size;
      if (keepdim) plan->out_shape.push(1);
    } else {
      plan->outer.add_dim(size, strides[d]);
      plan->out_shape.push(size);
    }
  }
  return true;
}

DimSplit split_at(const Tensor& t, size_t dim) {
  DimSplit s;
  if (t.dim() == 0) return s;
  s.outer = size_product(t, 0, dim);
  s.size = t.sizes()[dim];
  s.inner = size_product(t, dim + 1, t.dim());
  return s;
}

}  // namespace ptec::kernels

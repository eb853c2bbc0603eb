// nonzero.out: the indices of self's nonzero elements (NaN counts as nonzero), one row of
// self.dim() int64 coordinates per element in row-major order. The output's row count depends
// on the data: out is resized to [count, dim] (its planned size is the upper bound, numel rows).

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"

namespace ptec::kernels {

Tensor& nonzero_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  constexpr const char* kOp = "nonzero.out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, out.dtype() == DType::Long, InvalidArgument, out,
                        "%s: out must be int64, got %s", kOp, to_string(out.dtype()));
  PTEC_KERNEL_CHECK_MSG(ctx, out.dim() == 2, InvalidArgument, out, "%s: out must be 2-D", kOp);
  const int64_t rank = static_cast<int64_t>(self.dim());
  const int64_t numel = static_cast<int64_t>(self.numel());
  // Elements load as double: every storage dtype converts to it with zero kept zero, and NaN
  // compares unequal to 0.
  const LoadFn<double> load = get_load_fn<double>(self.dtype());
  PTEC_KERNEL_CHECK_MSG(ctx, load != nullptr, InvalidArgument, out, "%s: unsupported dtype %s", kOp,
                        to_string(self.dtype()));
  const void* x = self.const_data_ptr();
  int64_t count = 0;
  for (int64_t i = 0; i < numel; ++i) count += load(x, i) != 0.0 ? 1 : 0;
  const SizesType shape[2] = {static_cast<SizesType>(count), static_cast<SizesType>(rank)};
  if (!resize_out(ctx, kOp, out, shape)) return out;
  int64_t* o = out.mutable_data_ptr<int64_t>();
  int64_t coord[kTensorDimensionLimit] = {};
  for (int64_t i = 0; i < numel; ++i) {
    if (load(x, i) != 0.0) {
      for (int64_t d = 0; d < rank; ++d) *o++ = coord[d];
    }
    for (int64_t d = rank - 1; d >= 0; --d) {  // the next row-major coordinate
      if (++coord[d] < self.size(static_cast<size_t>(d))) break;
      coord[d] = 0;
    }
  }
  return out;
}

}  // namespace ptec::kernels

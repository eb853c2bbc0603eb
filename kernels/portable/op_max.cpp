// max.dim_max: the largest value along one dim and its (first) index; NaN wins, as in ATen.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/reduce.h"

namespace ptec::kernels {

std::tuple<Tensor&, Tensor&> max_dim_max(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                                         bool keepdim, Tensor& max, Tensor& max_values) {
  constexpr const char* kOp = "max.dim_max";
  std::tuple<Tensor&, Tensor&> ret{max, max_values};
  if (!check_contiguous(ctx, kOp, {&self, &max, &max_values})) return ret;
  if (!check_dtype(ctx, kOp, max, self.dtype(), "max (values out)")) return ret;
  if (!check_dtype(ctx, kOp, max_values, DType::Long, "max_values (indices out)")) return ret;
  PTEC_KERNEL_CHECK_MSG(ctx, is_supported_dtype(self.dtype()), InvalidArgument, ret,
                        "%s: unsupported dtype %s", kOp, to_string(self.dtype()));
  size_t d = 0;
  if (!wrap_dim(ctx, kOp, dim, self.dim(), &d)) return ret;
  const int64_t dims[1] = {dim};
  ReducePlan plan;
  if (!make_reduce_plan(ctx, kOp, self, Span<const int64_t>(dims), keepdim, &plan)) return ret;
  PTEC_KERNEL_CHECK_MSG(ctx, self.dim() == 0 || self.sizes()[d] > 0, InvalidArgument, ret,
                        "%s: cannot reduce over dim %zu of size 0", kOp, d);
  if (!resize_out(ctx, kOp, max, plan.out_shape.span(), "max")) return ret;
  if (!resize_out(ctx, kOp, max_values, plan.out_shape.span(), "max_values")) return ret;
  const DimSplit s = split_at(self, d);
  dispatch_real_bool(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = self.const_data_ptr<T>();
    T* vals = max.mutable_data_ptr<T>();
    int64_t* idxs = max_values.mutable_data_ptr<int64_t>();
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t i = 0; i < s.inner; ++i) {
        const T* p = in + o * s.size * s.inner + i;
        T best = p[0];
        int64_t best_k = 0;
        for (int64_t k = 1; k < s.size && !is_nan(best); ++k) {
          const T v = p[k * s.inner];
          if (is_nan(v) || v > best) {
            best = v;
            best_k = k;
          }
        }
        vals[o * s.inner + i] = best;
        idxs[o * s.inner + i] = best_k;
      }
    }
  });
  return ret;
}

}  // namespace ptec::kernels

// amin.out: the minimum over `dim` (empty: every dim); NaN propagates.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/reduce.h"

namespace ptec::kernels {

Tensor& amin_out(KernelRuntimeContext& ctx, const Tensor& self, IntList dim, bool keepdim,
                 Tensor& out) {
  constexpr const char* kOp = "amin.out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, is_supported_dtype(self.dtype()), InvalidArgument, out,
                        "%s: unsupported dtype %s", kOp, to_string(self.dtype()));
  ReducePlan plan;
  if (!make_reduce_plan(ctx, kOp, self, dim, keepdim, &plan)) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, plan.reduced_numel > 0 || plan.outer.numel() == 0, InvalidArgument,
                        out, "%s: cannot reduce over a zero-size dim", kOp);
  if (!resize_out(ctx, kOp, out, plan.out_shape.span())) return out;
  dispatch_real_bool(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = self.const_data_ptr<T>();
    T* o = out.mutable_data_ptr<T>();
    plan.outer.for_each([&](int64_t base) {
      T best = highest_value<T>();
      plan.inner.for_each([&](int64_t off) {
        const T v = in[base + off];
        if (!is_nan(best) && (is_nan(v) || v < best)) best = v;
      });
      *o++ = best;
    });
  });
  return out;
}

}  // namespace ptec::kernels

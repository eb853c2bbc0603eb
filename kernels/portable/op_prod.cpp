// prod.int_out: the product along one dim, computed in out's dtype (ATen: `dtype`, else Long for
// integral and bool inputs, else the input's dtype).

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/reduce.h"

namespace ptec::kernels {

Tensor& prod_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                     const std::optional<DType>& dtype, Tensor& out) {
  constexpr const char* kOp = "prod.int_out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (dtype && !check_dtype(ctx, kOp, out, *dtype, "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, is_supported_dtype(self.dtype()) && is_supported_dtype(out.dtype()),
                        InvalidArgument, out, "%s: unsupported dtype (%s -> %s)", kOp,
                        to_string(self.dtype()), to_string(out.dtype()));
  ReducePlan plan;
  if (!make_reduce_plan(ctx, kOp, self, Span<const int64_t>(&dim, 1), keepdim, &plan)) return out;
  if (!resize_out(ctx, kOp, out, plan.out_shape.span())) return out;
  dispatch_real_bool(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Acc = std::conditional_t<std::is_same_v<T, bool>, bool, acc_t<T>>;
    const LoadFn<Acc> load = get_load_fn<Acc>(self.dtype());
    const void* in = self.const_data_ptr();
    T* o = out.mutable_data_ptr<T>();
    plan.outer.for_each([&](int64_t base) {
      Acc acc{1};
      plan.inner.for_each([&](int64_t off) {
        if constexpr (std::is_same_v<Acc, bool>) {
          acc = acc && load(in, base + off);
        } else {
          acc *= load(in, base + off);
        }
      });
      *o++ = static_cast<T>(acc);
    });
  });
  return out;
}

}  // namespace ptec::kernels

// sum.IntList_out: sums over `dim` (None or empty: every dim) in the out dtype, accumulating in
// double (floating) or int64 (integral).

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/reduce.h"

namespace ptec::kernels {

Tensor& sum_dim_out(KernelRuntimeContext& ctx, const Tensor& self, OptIntList dim, bool keepdim,
                    std::optional<DType> dtype, Tensor& out) {
  constexpr const char* kOp = "sum.IntList_out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, !dtype.has_value() || *dtype == out.dtype(), InvalidArgument, out,
                        "%s: dtype %s does not match the out dtype %s", kOp,
                        dtype ? to_string(*dtype) : "", to_string(out.dtype()));
  PTEC_KERNEL_CHECK_MSG(ctx, is_supported_dtype(self.dtype()) && is_supported_dtype(out.dtype()),
                        InvalidArgument, out, "%s: unsupported dtype (%s -> %s)", kOp,
                        to_string(self.dtype()), to_string(out.dtype()));
  ReducePlan plan;
  if (!make_reduce_plan(ctx, kOp, self, dim, keepdim, &plan)) return out;
  if (!resize_out(ctx, kOp, out, plan.out_shape.span())) return out;
  dispatch_real_bool(out.dtype(), [&](auto tag) {
    using OT = decltype(tag);
    using AT = acc_t<OT>;
    const LoadFn<OT> load = get_load_fn<OT>(self.dtype());
    const void* in = self.const_data_ptr();
    OT* o = out.mutable_data_ptr<OT>();
    plan.outer.for_each([&](int64_t base) {
      AT acc = 0;
      plan.inner.for_each([&](int64_t off) { acc += static_cast<AT>(load(in, base + off)); });
      *o++ = convert<OT>(acc);
    });
  });
  return out;
}

}  // namespace ptec::kernels

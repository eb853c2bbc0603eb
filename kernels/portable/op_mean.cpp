// mean.out: the arithmetic mean over `dim` (None or empty: every dim), accumulated in double.
// Needs a floating result: a floating input, or a floating `dtype`.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/reduce.h"

namespace ptec::kernels {

Tensor& mean_out(KernelRuntimeContext& ctx, const Tensor& self, OptIntList dim, bool keepdim,
                 std::optional<DType> dtype, Tensor& out) {
  constexpr const char* kOp = "mean.out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, !dtype.has_value() || *dtype == out.dtype(), InvalidArgument, out,
                        "%s: dtype %s does not match the out dtype %s", kOp,
                        dtype ? to_string(*dtype) : "", to_string(out.dtype()));
  PTEC_KERNEL_CHECK_MSG(ctx, is_floating_point(dtype.value_or(self.dtype())), InvalidArgument, out,
                        "%s: input dtype must be floating point (or pass a floating dtype)", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, is_supported_dtype(self.dtype()), InvalidArgument, out,
                        "%s: unsupported input dtype %s", kOp, to_string(self.dtype()));
  ReducePlan plan;
  if (!make_reduce_plan(ctx, kOp, self, dim, keepdim, &plan)) return out;
  if (!resize_out(ctx, kOp, out, plan.out_shape.span())) return out;
  const bool ok = dispatch_float(out.dtype(), [&](auto tag) {
    using OT = decltype(tag);
    const LoadFn<OT> load = get_load_fn<OT>(self.dtype());
    const void* in = self.const_data_ptr();
    OT* o = out.mutable_data_ptr<OT>();
    const double n = static_cast<double>(plan.reduced_numel);
    plan.outer.for_each([&](int64_t base) {
      double acc = 0;
      plan.inner.for_each([&](int64_t off) { acc += static_cast<double>(load(in, base + off)); });
      *o++ = static_cast<OT>(acc / n);
    });
  });
  PTEC_KERNEL_CHECK_MSG(ctx, ok, InvalidArgument, out, "%s: out dtype %s must be Float or Double",
                        kOp, to_string(out.dtype()));
  return out;
}

}  // namespace ptec::kernels

// arange.start_out: start + i * step for i in [0, ceil((end - start) / step)), computed in
// double (int64 for integral outs) and converted to out's dtype.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"

namespace ptec::kernels {

Tensor& arange_start_out(KernelRuntimeContext& ctx, const Scalar& start, const Scalar& end,
                         const Scalar& step, Tensor& out) {
  constexpr const char* kOp = "arange.start_out";
  if (!check_contiguous(ctx, kOp, {&out})) return out;
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  PTEC_KERNEL_CHECK_MSG(ctx, st != 0, InvalidArgument, out, "%s: step must be nonzero", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, std::isfinite(s) && std::isfinite(e), InvalidArgument, out,
                        "%s: unsupported range %g -> %g", kOp, s, e);
  PTEC_KERNEL_CHECK_MSG(ctx, (st > 0 && e >= s) || (st < 0 && e <= s), InvalidArgument, out,
                        "%s: upper bound and larger bound inconsistent with step sign", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, out.dim() == 1, InvalidArgument, out, "%s: out must be 1-D", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, is_supported_dtype(out.dtype()) && out.dtype() != DType::Bool,
                        InvalidArgument, out, "%s: unsupported out dtype %s", kOp,
                        to_string(out.dtype()));
  const bool integral = start.is_integral() && end.is_integral() && step.is_integral();
  const auto n = static_cast<int64_t>(
      integral ? (end.to_int() - start.to_int() + step.to_int() - (step.to_int() > 0 ? 1 : -1)) /
                     step.to_int()
               : std::ceil((e - s) / st));
  const SizesType shape[1] = {static_cast<SizesType>(n)};
  if (!resize_out(ctx, kOp, out, shape)) return out;
  dispatch_real(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.mutable_data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        o[i] = static_cast<T>(s + st * static_cast<double>(i));
      } else {
        o[i] = static_cast<T>(integral ? start.to_int() + step.to_int() * i
                                       : static_cast<int64_t>(s + st * static_cast<double>(i)));
      }
    }
  });
  return out;
}

}  // namespace ptec::kernels

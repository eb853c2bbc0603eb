// native_group_norm.out: normalizes each of `group` channel groups of an (N, C, *) input. out1 /
// out2 receive the mean and 1/sqrt(var + eps) per (N, group). Statistics accumulate in double.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {

std::tuple<Tensor&, Tensor&, Tensor&> native_group_norm_out(
    KernelRuntimeContext& ctx, const Tensor& input, const OptTensor& weight, const OptTensor& bias,
    int64_t n, int64_t c, int64_t hxw, int64_t group, double eps, Tensor& out0, Tensor& out1,
    Tensor& out2) {
  constexpr const char* kOp = "native_group_norm.out";
  std::tuple<Tensor&, Tensor&, Tensor&> ret{out0, out1, out2};
  if (!check_contiguous(ctx, kOp, {&input, &out0, &out1, &out2})) return ret;
  PTEC_KERNEL_CHECK_MSG(ctx, input.dtype() == DType::Float || input.dtype() == DType::Double,
                        InvalidArgument, ret, "%s: dtype %s is not Float or Double", kOp,
                        to_string(input.dtype()));
  PTEC_KERNEL_CHECK_MSG(ctx,
                        input.dim() >= 2 && input.sizes()[0] == n && input.sizes()[1] == c &&
                            static_cast<int64_t>(input.numel()) == n * c * hxw,
                        InvalidArgument, ret, "%s: input shape does not match N, C, HxW", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, group > 0 && c % group == 0, InvalidArgument, ret,
                        "%s: group %lld must divide the %lld channels", kOp,
                        static_cast<long long>(group), static_cast<long long>(c));
  for (const OptTensor* p : {&weight, &bias}) {
    if (!p->has_value()) continue;
    const Tensor& t = **p;
    PTEC_KERNEL_CHECK_MSG(
        ctx, t.dim() == 1 && t.sizes()[0] == c && t.dtype() == input.dtype() && t.is_contiguous(),
        InvalidArgument, ret, "%s: weight and bias must have shape [C]", kOp);
  }
  if (!check_dtype(ctx, kOp, out0, input.dtype(), "out0") ||
      !check_dtype(ctx, kOp, out1, input.dtype(), "out1") ||
      !check_dtype(ctx, kOp, out2, input.dtype(), "out2")) {
    return ret;
  }
  const SizesType stat[2] = {static_cast<SizesType>(n), static_cast<SizesType>(group)};
  if (!resize_out(ctx, kOp, out0, input.sizes(), "out0") ||
      !resize_out(ctx, kOp, out1, stat, "out1") || !resize_out(ctx, kOp, out2, stat, "out2")) {
    return ret;
  }
  const int64_t cg = c / group, len = cg * hxw;
  dispatch_float(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* w = weight ? weight->const_data_ptr<T>() : nullptr;
    const T* b = bias ? bias->const_data_ptr<T>() : nullptr;
    for (int64_t i = 0; i < n * group; ++i) {
      const T* x = input.const_data_ptr<T>() + i * len;
      T* y = out0.mutable_data_ptr<T>() + i * len;
      double sum = 0, sq = 0;
      for (int64_t j = 0; j < len; ++j) sum += x[j];
      const double mean = len > 0 ? sum / static_cast<double>(len) : 0;
      for (int64_t j = 0; j < len; ++j) sq += (x[j] - mean) * (x[j] - mean);
      const double rstd = 1.0 / std::sqrt((len > 0 ? sq / static_cast<double>(len) : 0) + eps);
      for (int64_t ch = 0; ch < cg; ++ch) {
        const int64_t cc = (i % group) * cg + ch;
        for (int64_t j = 0; j < hxw; ++j) {
          double v = (x[ch * hxw + j] - mean) * rstd;
          if (w) v *= w[cc];
          if (b) v += b[cc];
          y[ch * hxw + j] = static_cast<T>(v);
        }
      }
      out1.mutable_data_ptr<T>()[i] = static_cast<T>(mean);
      out2.mutable_data_ptr<T>()[i] = static_cast<T>(rstd);
    }
  });
  return ret;
}

}  // namespace ptec::kernels

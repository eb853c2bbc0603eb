// native_layer_norm.out: normalizes over the trailing `normalized_shape` dims. out0 is the
// result; out1 / out2 receive the mean and 1/sqrt(var + eps) with shape
// input.shape[:axis] + [1] * len(normalized_shape). Statistics accumulate in double.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {

std::tuple<Tensor&, Tensor&, Tensor&> native_layer_norm_out(
    KernelRuntimeContext& ctx, const Tensor& input, IntList normalized_shape,
    const OptTensor& weight, const OptTensor& bias, double eps, Tensor& out0, Tensor& out1,
    Tensor& out2) {
  constexpr const char* kOp = "native_layer_norm.out";
  std::tuple<Tensor&, Tensor&, Tensor&> ret{out0, out1, out2};
  if (!check_contiguous(ctx, kOp, {&input, &out0, &out1, &out2})) return ret;
  PTEC_KERNEL_CHECK_MSG(ctx, input.dtype() == DType::Float || input.dtype() == DType::Double,
                        InvalidArgument, ret, "%s: dtype %s is not Float or Double", kOp,
                        to_string(input.dtype()));
  const size_t k = normalized_shape.size();
  PTEC_KERNEL_CHECK_MSG(ctx, k >= 1 && k <= input.dim(), InvalidArgument, ret,
                        "%s: normalized_shape must have 1 to %zu dims, got %zu", kOp, input.dim(),
                        k);
  const size_t axis = input.dim() - k;
  for (size_t i = 0; i < k; ++i) {
    PTEC_KERNEL_CHECK_MSG(ctx, input.sizes()[axis + i] == normalized_shape[i], InvalidArgument, ret,
                          "%s: normalized_shape does not match the input's trailing dims", kOp);
  }
  for (const OptTensor* p : {&weight, &bias}) {
    if (!p->has_value()) continue;
    const Tensor& t = **p;
    bool ok = t.dim() == k && t.dtype() == input.dtype() && t.is_contiguous();
    for (size_t i = 0; ok && i < k; ++i) ok = t.sizes()[i] == normalized_shape[i];
    PTEC_KERNEL_CHECK_MSG(ctx, ok, InvalidArgument, ret,
                          "%s: weight and bias must have normalized_shape and the input dtype",
                          kOp);
  }
  if (!check_dtype(ctx, kOp, out0, input.dtype(), "out0") ||
      !check_dtype(ctx, kOp, out1, input.dtype(), "out1") ||
      !check_dtype(ctx, kOp, out2, input.dtype(), "out2")) {
    return ret;
  }
  Shape stat = shape_of(input);
  for (size_t i = axis; i < input.dim(); ++i) stat.sizes[i] = 1;
  if (!resize_out(ctx, kOp, out0, input.sizes(), "out0") ||
      !resize_out(ctx, kOp, out1, stat.span(), "out1") ||
      !resize_out(ctx, kOp, out2, stat.span(), "out2")) {
    return ret;
  }
  const int64_t m = size_product(input, 0, axis), n = size_product(input, axis, input.dim());
  dispatch_float(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = input.const_data_ptr<T>();
    const T* w = weight ? weight->const_data_ptr<T>() : nullptr;
    const T* b = bias ? bias->const_data_ptr<T>() : nullptr;
    T* y = out0.mutable_data_ptr<T>();
    for (int64_t r = 0; r < m; ++r) {
      const T* xr = x + r * n;
      double sum = 0, sq = 0;
      for (int64_t j = 0; j < n; ++j) sum += xr[j];
      const double mean = n > 0 ? sum / static_cast<double>(n) : 0;
      for (int64_t j = 0; j < n; ++j) sq += (xr[j] - mean) * (xr[j] - mean);
      const double var = n > 0 ? sq / static_cast<double>(n) : 0;
      const double rstd = 1.0 / std::sqrt(var + eps);
      for (int64_t j = 0; j < n; ++j) {
        double v = (xr[j] - mean) * rstd;
        if (w) v *= w[j];
        if (b) v += b[j];
        y[r * n + j] = static_cast<T>(v);
      }
      out1.mutable_data_ptr<T>()[r] = static_cast<T>(mean);
      out2.mutable_data_ptr<T>()[r] = static_cast<T>(rstd);
    }
  });
  return ret;
}

}  // namespace ptec::kernels

// _native_batch_norm_legit_no_training.out: inference batch norm over dim 1 of an (N, C, ...)
// input: out = (x - mean) * rsqrt(var + eps) * weight + bias. out1 and out2 (save_mean,
// save_invstd) are empty in inference, as ATen returns them; a static out of shape [C] is
// filled with the mean and the inverse std instead.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {
namespace {

bool check_channel_vector(KernelRuntimeContext& ctx, const char* op, const Tensor& t, int64_t c,
                          DType dtype, const char* what) {
  if (!check_contiguous(ctx, op, {&t})) return false;
  PTEC_KERNEL_CHECK_MSG(ctx, t.dim() == 1 && t.sizes()[0] == c, InvalidArgument, false,
                        "%s: %s must have shape [%lld]", op, what, static_cast<long long>(c));
  return check_dtype(ctx, op, t, dtype, what);
}

}  // namespace

std::tuple<Tensor&, Tensor&, Tensor&> native_batch_norm_no_training_out(
    KernelRuntimeContext& ctx, const Tensor& input, const OptTensor& weight, const OptTensor& bias,
    const Tensor& running_mean, const Tensor& running_var, double momentum, double eps,
    Tensor& out0, Tensor& out1, Tensor& out2) {
  (void)momentum;  // only used when training
  constexpr const char* kOp = "_native_batch_norm_legit_no_training.out";
  std::tuple<Tensor&, Tensor&, Tensor&> ret{out0, out1, out2};
  if (!check_contiguous(ctx, kOp, {&input, &out0})) return ret;
  PTEC_KERNEL_CHECK_MSG(ctx, input.dim() >= 2, InvalidArgument, ret,
                        "%s: input must have rank >= 2 (N, C, ...), got %zu", kOp, input.dim());
  PTEC_KERNEL_CHECK_MSG(ctx, input.dtype() == DType::Float || input.dtype() == DType::Double,
                        InvalidArgument, ret, "%s: dtype %s is not Float or Double", kOp,
                        to_string(input.dtype()));
  if (!check_dtype(ctx, kOp, out0, input.dtype(), "out0")) return ret;
  const int64_t c = input.sizes()[1];
  const DType dt = input.dtype();
  if (!check_channel_vector(ctx, kOp, running_mean, c, dt, "running_mean") ||
      !check_channel_vector(ctx, kOp, running_var, c, dt, "running_var")) {
    return ret;
  }
  if (weight && !check_channel_vector(ctx, kOp, *weight, c, dt, "weight")) return ret;
  if (bias && !check_channel_vector(ctx, kOp, *bias, c, dt, "bias")) return ret;
  if (!resize_out(ctx, kOp, out0, input.sizes(), "out0")) return ret;
  // save_mean / save_invstd: empty, or (static [C] outs) the statistics used.
  Tensor* stats[2] = {&out1, &out2};
  bool fill_stats[2] = {false, false};
  for (int k = 0; k < 2; ++k) {
    const SizesType empty[1] = {0};
    Tensor& t = *stats[k];
    if (t.dim() == 1 && t.resize(empty) == Error::Ok) continue;
    PTEC_KERNEL_CHECK_MSG(ctx, t.dim() == 1 && t.sizes()[0] == c && t.dtype() == dt,
                          InvalidArgument, ret,
                          "%s: out%d must be an empty 1-D tensor (or [%lld] of the input dtype)",
                          kOp, k + 1, static_cast<long long>(c));
    fill_stats[k] = true;
  }
  const int64_t n = input.sizes()[0];
  const int64_t inner = size_product(input, 2, input.dim());
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    const T* x = input.const_data_ptr<T>();
    const T* mean = running_mean.const_data_ptr<T>();
    const T* var = running_var.const_data_ptr<T>();
    const T* w = weight ? weight->const_data_ptr<T>() : nullptr;
    const T* b = bias ? bias->const_data_ptr<T>() : nullptr;
    T* y = out0.mutable_data_ptr<T>();
    for (int64_t ch = 0; ch < c; ++ch) {
      // ATen's linear form: y = x * alpha + beta.
      const T invstd = static_cast<T>(1) / std::sqrt(var[ch] + static_cast<T>(eps));
      const T alpha = w ? invstd * w[ch] : invstd;
      const T beta = (b ? b[ch] : T{0}) - mean[ch] * alpha;
      for (int64_t i = 0; i < n; ++i) {
        const T* xs = x + (i * c + ch) * inner;
        T* ys = y + (i * c + ch) * inner;
        for (int64_t j = 0; j < inner; ++j) ys[j] = xs[j] * alpha + beta;
      }
      if (fill_stats[0]) out1.mutable_data_ptr<T>()[ch] = mean[ch];
      if (fill_stats[1]) out2.mutable_data_ptr<T>()[ch] = invstd;
    }
  });
  return ret;
}

}  // namespace ptec::kernels

#include "kernels/quantized/quant_util.h"

#include <limits>

namespace ptec::kernels::quant {

bool quant_range(DType t, int64_t* lo, int64_t* hi) {
  return dispatch_quant(t, [&](auto tag) {
    using Q = decltype(tag);
    *lo = std::numeric_limits<Q>::min();
    *hi = std::numeric_limits<Q>::max();
  });
}

bool check_quant_dtype(KernelRuntimeContext& ctx, const char* op, DType t, const char* what) {
  int64_t lo = 0, hi = 0;
  PTEC_KERNEL_CHECK_MSG(ctx, quant_range(t, &lo, &hi), InvalidArgument, false,
                        "%s: %s has dtype %s; expected Byte, Char, Short or Int", op, what,
                        to_string(t));
  return true;
}

bool check_param_tensor(KernelRuntimeContext& ctx, const char* op, const Tensor& t, DType dtype,
                        int64_t numel, const char* what) {
  PTEC_KERNEL_CHECK_MSG(ctx, t.dtype() == dtype, InvalidArgument, false,
                        "%s: %s must be a %s tensor, got %s", op, what, to_string(dtype),
                        to_string(t.dtype()));
  PTEC_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(t.numel()) == numel, InvalidArgument, false,
                        "%s: %s must have %lld element(s), got %lld", op, what,
                        static_cast<long long>(numel), static_cast<long long>(t.numel()));
  return check_contiguous(ctx, op, {&t});
}

bool channel_layout(KernelRuntimeContext& ctx, const char* op, const Tensor& input, int64_t axis,
                    ChannelLayout* layout) {
  PTEC_KERNEL_CHECK_MSG(ctx, input.dim() >= 1, InvalidArgument, false,
                        "%s: input must have at least one dim for per-channel quantization", op);
  size_t d = 0;
  if (!wrap_dim(ctx, op, axis, input.dim(), &d)) return false;
  layout->outer = size_product(input, 0, d);
  layout->channels = input.sizes()[d];
  layout->inner = size_product(input, d + 1, input.dim());
  return true;
}

}  // namespace ptec::kernels::quant

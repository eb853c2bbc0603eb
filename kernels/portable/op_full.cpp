// full.out, full_like.out, zeros.out and ones.out: fill out with one value.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {
namespace {

void fill(KernelRuntimeContext& ctx, const char* op, const Scalar& value, Tensor& out) {
  PTEC_KERNEL_CHECK_MSG(ctx, is_supported_dtype(out.dtype()), InvalidArgument, ,
                        "%s: unsupported out dtype %s", op, to_string(out.dtype()));
  dispatch_real_bool(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.mutable_data_ptr<T>();
    const T v = scalar_to<T>(value);
    for (size_t i = 0; i < out.numel(); ++i) o[i] = v;
  });
}

// Resizes out to `size` (as int64 values) and fills it.
void fill_sized(KernelRuntimeContext& ctx, const char* op, IntList size, const Scalar& value,
                Tensor& out) {
  if (!check_contiguous(ctx, op, {&out})) return;
  Shape shape;
  for (int64_t s : size) {
    PTEC_KERNEL_CHECK_MSG(ctx, s >= 0 && shape.push(s), InvalidArgument, ,
                          "%s: invalid size %lld (or too many dims)", op,
                          static_cast<long long>(s));
  }
  if (!resize_out(ctx, op, out, shape.span())) return;
  fill(ctx, op, value, out);
}

}  // namespace

Tensor& full_out(KernelRuntimeContext& ctx, IntList size, const Scalar& fill_value, Tensor& out) {
  fill_sized(ctx, "full.out", size, fill_value, out);
  return out;
}

Tensor& zeros_out(KernelRuntimeContext& ctx, IntList size, Tensor& out) {
  fill_sized(ctx, "zeros.out", size, Scalar(int64_t{0}), out);
  return out;
}

Tensor& ones_out(KernelRuntimeContext& ctx, IntList size, Tensor& out) {
  fill_sized(ctx, "ones.out", size, Scalar(int64_t{1}), out);
  return out;
}

Tensor& full_like_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& fill_value,
                      std::optional<DType> dtype, std::optional<int64_t> layout,
                      std::optional<int64_t> device, std::optional<bool> pin_memory,
                      std::optional<int64_t> memory_format, Tensor& out) {
  (void)layout;
  (void)device;
  (void)pin_memory;
  constexpr const char* kOp = "full_like.out";
  PTEC_KERNEL_CHECK_MSG(ctx, !memory_format || *memory_format == 0 || *memory_format == 1,
                        InvalidArgument, out, "%s: unsupported memory_format", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, !dtype || *dtype == out.dtype(), InvalidArgument, out,
                        "%s: dtype %s does not match the out dtype %s", kOp,
                        dtype ? to_string(*dtype) : "", to_string(out.dtype()));
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (!resize_out(ctx, kOp, out, self.sizes())) return out;
  fill(ctx, kOp, fill_value, out);
  return out;
}

}  // namespace ptec::kernels

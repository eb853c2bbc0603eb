#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {

bool broadcast_shape(KernelRuntimeContext& ctx, const char* op,
                     std::initializer_list<const Tensor*> inputs, Shape* out) {
  size_t nd = 0;
  for (const Tensor* t : inputs) nd = t->dim() > nd ? t->dim() : nd;
  out->ndim = nd;
  for (size_t d = 0; d < nd; ++d) {
    SizesType size = 1;
    for (const Tensor* t : inputs) {
      const size_t offset = nd - t->dim();
      if (d < offset) continue;
      const SizesType s = t->sizes()[d - offset];
      if (s == 1) continue;
      PTEC_KERNEL_CHECK_MSG(ctx, size == 1 || size == s, InvalidArgument, false,
                            "%s: shapes are not broadcastable (size %d vs %d at dim %zu)", op,
                            static_cast<int>(size), static_cast<int>(s), d);
      size = s;
    }
    out->sizes[d] = size;
  }
  return true;
}

bool check_common_dtype(KernelRuntimeContext& ctx, const char* op, DType a, DType b,
                        const Tensor& out, DType common, unsigned support) {
  PTEC_KERNEL_CHECK_MSG(ctx, common != kNoPromotion, InvalidArgument, false,
                        "%s: type promotion of %s and %s is not supported (uint16, uint32 and "
                        "uint64 combine only with their own dtype or a floating dtype)",
                        op, to_string(a), to_string(b));
  PTEC_KERNEL_CHECK_MSG(ctx, is_accepted_dtype(common, support), InvalidArgument, false,
                        "%s: unsupported result dtype %s", op, to_string(common));
  PTEC_KERNEL_CHECK_MSG(ctx, can_cast(common, out.dtype()), InvalidArgument, false,
                        "%s: result type %s can't be cast to the out dtype %s", op,
                        to_string(common), to_string(out.dtype()));
  return true;
}

bool binary_op_prologue(KernelRuntimeContext& ctx, const char* op, const Tensor& a, const Tensor& b,
                        Tensor& out, DType common, unsigned support) {
  if (!check_contiguous(ctx, op, {&a, &b, &out})) return false;
  Shape shape;
  if (!broadcast_shape(ctx, op, {&a, &b}, &shape)) return false;
  PTEC_KERNEL_CHECK_MSG(ctx,
                        is_accepted_dtype(a.dtype(), support) &&
                            is_accepted_dtype(b.dtype(), support) &&
                            is_accepted_dtype(out.dtype(), support),
                        InvalidArgument, false, "%s: unsupported dtype (%s, %s -> %s)", op,
                        to_string(a.dtype()), to_string(b.dtype()), to_string(out.dtype()));
  if (!check_common_dtype(ctx, op, a.dtype(), b.dtype(), out, common, support)) return false;
  return resize_out(ctx, op, out, shape.span());
}

bool unary_op_prologue(KernelRuntimeContext& ctx, const char* op, const Tensor& a, Tensor& out,
                       DType common, unsigned support) {
  if (!check_contiguous(ctx, op, {&a, &out})) return false;
  PTEC_KERNEL_CHECK_MSG(
      ctx, is_accepted_dtype(a.dtype(), support) && is_accepted_dtype(out.dtype(), support),
      InvalidArgument, false, "%s: unsupported dtype (%s -> %s)", op, to_string(a.dtype()),
      to_string(out.dtype()));
  if (!check_common_dtype(ctx, op, a.dtype(), a.dtype(), out, common, support)) return false;
  return resize_out(ctx, op, out, a.sizes());
}

}  // namespace ptec::kernels

namespace ptec::kernels {

bool check_alpha(KernelRuntimeContext& ctx, const char* op, DType common, const Scalar& alpha) {
  PTEC_KERNEL_CHECK_MSG(ctx, common == DType::Bool || !alpha.is_boolean(), InvalidArgument, false,
                        "%s: a boolean alpha is only supported for boolean results", op);
  PTEC_KERNEL_CHECK_MSG(ctx, is_floating_point(common) || !alpha.is_floating_point(),
                        InvalidArgument, false,
                        "%s: for integral inputs, alpha must not be a floating point number", op);
  return true;
}

}  // namespace ptec::kernels

#include "kernels/portable/util/upsample.h"

namespace ptec::kernels {

namespace {

bool upsample2d_output(KernelRuntimeContext& ctx, const char* op, const Tensor& in,
                       const OptIntList& output_size,
                       const std::optional<Span<const double>>& scale_factors, int64_t* oh,
                       int64_t* ow, std::optional<double>* scale_h,
                       std::optional<double>* scale_w) {
  if (!check_contiguous(ctx, op, {&in})) return false;
  PTEC_KERNEL_CHECK_MSG(ctx, in.dim() == 4, InvalidArgument, false,
                        "%s: expected a 4-D input, got rank %zu", op, in.dim());
  PTEC_KERNEL_CHECK_MSG(ctx, output_size.has_value() != scale_factors.has_value(), InvalidArgument,
                        false, "%s: must specify exactly one of output_size and scale_factors", op);
  if (output_size) {
    PTEC_KERNEL_CHECK_MSG(ctx, output_size->size() == 2, InvalidArgument, false,
                          "%s: output_size must have 2 elements", op);
    *oh = (*output_size)[0];
    *ow = (*output_size)[1];
  } else {
    PTEC_KERNEL_CHECK_MSG(ctx, scale_factors->size() == 2, InvalidArgument, false,
                          "%s: scale_factors must have 2 elements", op);
    *scale_h = (*scale_factors)[0];
    *scale_w = (*scale_factors)[1];
    *oh = static_cast<int64_t>(std::floor(static_cast<double>(in.sizes()[2]) * **scale_h));
    *ow = static_cast<int64_t>(std::floor(static_cast<double>(in.sizes()[3]) * **scale_w));
  }
  PTEC_KERNEL_CHECK_MSG(ctx, *oh > 0 && *ow > 0 && in.sizes()[2] > 0 && in.sizes()[3] > 0,
                        InvalidArgument, false, "%s: input and output sizes must be positive", op);
  return true;
}

}  // namespace

bool upsample2d_prepare(KernelRuntimeContext& ctx, const char* op, const Tensor& in,
                        const OptIntList& output_size,
                        const std::optional<Span<const double>>& scale_factors,
                        bool (*dtype_ok)(DType), const char* supported, Tensor& out,
                        Upsample2d* g) {
  if (!upsample2d_output(ctx, op, in, output_size, scale_factors, &g->oh, &g->ow, &g->scale_h,
                         &g->scale_w)) {
    return false;
  }
  if (!check_contiguous(ctx, op, {&out})) return false;
  if (!check_dtype(ctx, op, out, in.dtype(), "out")) return false;
  PTEC_KERNEL_CHECK_MSG(ctx, dtype_ok(in.dtype()), InvalidArgument, false, "%s: dtype %s is not %s",
                        op, to_string(in.dtype()), supported);
  const SizesType shape[4] = {in.sizes()[0], in.sizes()[1], static_cast<SizesType>(g->oh),
                              static_cast<SizesType>(g->ow)};
  if (!resize_out(ctx, op, out, shape)) return false;
  g->h = in.sizes()[2];
  g->w = in.sizes()[3];
  g->planes = static_cast<int64_t>(in.sizes()[0]) * in.sizes()[1];
  return true;
}

}  // namespace ptec::kernels

#include "kernels/portable/util/upsample.h"

namespace ptec::kernels {

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

}  // namespace ptec::kernels

// upsample_bilinear2d.vec_out: bilinear resize of the last two dims of an NCHW input, with
// ATen's align_corners and half-pixel source-index rules (computed in float).

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/upsample.h"

namespace ptec::kernels {

Tensor& upsample_bilinear2d_vec_out(KernelRuntimeContext& ctx, const Tensor& input,
                                    const OptIntList& output_size, bool align_corners,
                                    const std::optional<Span<const double>>& scale_factors,
                                    Tensor& out) {
  constexpr const char* kOp = "upsample_bilinear2d.vec_out";
  int64_t oh = 0, ow = 0;
  std::optional<double> sh, sw;
  if (!upsample2d_output(ctx, kOp, input, output_size, scale_factors, &oh, &ow, &sh, &sw)) {
    return out;
  }
  if (!check_contiguous(ctx, kOp, {&out})) return out;
  if (!check_dtype(ctx, kOp, out, input.dtype(), "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, input.dtype() == DType::Float || input.dtype() == DType::Double,
                        InvalidArgument, out, "%s: dtype %s is not Float or Double", kOp,
                        to_string(input.dtype()));
  const SizesType shape[4] = {input.sizes()[0], input.sizes()[1], static_cast<SizesType>(oh),
                              static_cast<SizesType>(ow)};
  if (!resize_out(ctx, kOp, out, shape)) return out;
  const int64_t h = input.sizes()[2], w = input.sizes()[3];
  const int64_t planes = static_cast<int64_t>(input.sizes()[0]) * input.sizes()[1];
  dispatch_float(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t p = 0; p < planes; ++p) {
      const T* in = input.const_data_ptr<T>() + p * h * w;
      T* o = out.mutable_data_ptr<T>() + p * oh * ow;
      for (int64_t y = 0; y < oh; ++y) {
        const LinearTap ty = linear_tap(y, h, oh, align_corners, sh);
        for (int64_t x = 0; x < ow; ++x) {
          const LinearTap tx = linear_tap(x, w, ow, align_corners, sw);
          const T v = static_cast<T>(
              ty.l0 * (tx.l0 * in[ty.i0 * w + tx.i0] + tx.l1 * in[ty.i0 * w + tx.i1]) +
              ty.l1 * (tx.l0 * in[ty.i1 * w + tx.i0] + tx.l1 * in[ty.i1 * w + tx.i1]));
          o[y * ow + x] = v;
        }
      }
    }
  });
  return out;
}

}  // namespace ptec::kernels

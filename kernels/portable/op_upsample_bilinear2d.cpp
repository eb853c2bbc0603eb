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
  Upsample2d g;
  auto floating = [](DType t) { return t == DType::Float || t == DType::Double; };
  if (!upsample2d_prepare(ctx, "upsample_bilinear2d.vec_out", input, output_size, scale_factors,
                          floating, "Float or Double", out, &g)) {
    return out;
  }
  const int64_t h = g.h, w = g.w, oh = g.oh, ow = g.ow, planes = g.planes;
  const std::optional<double>&sh = g.scale_h, &sw = g.scale_w;
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

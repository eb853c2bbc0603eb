// upsample_nearest2d.vec_out: nearest-neighbour resize of the last two dims of an NCHW input.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/upsample.h"

namespace ptec::kernels {

Tensor& upsample_nearest2d_vec_out(KernelRuntimeContext& ctx, const Tensor& input,
                                   const OptIntList& output_size,
                                   const std::optional<Span<const double>>& scale_factors,
                                   Tensor& out) {
  Upsample2d g;
  if (!upsample2d_prepare(ctx, "upsample_nearest2d.vec_out", input, output_size, scale_factors,
                          is_supported_dtype, "a supported one", out, &g)) {
    return out;
  }
  const int64_t h = g.h, w = g.w, oh = g.oh, ow = g.ow, planes = g.planes;
  const std::optional<double>&sh = g.scale_h, &sw = g.scale_w;
  dispatch_real_bool(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t p = 0; p < planes; ++p) {
      const T* in = input.const_data_ptr<T>() + p * h * w;
      T* o = out.mutable_data_ptr<T>() + p * oh * ow;
      for (int64_t y = 0; y < oh; ++y) {
        const int64_t iy = nearest_index(y, h, oh, sh);
        for (int64_t x = 0; x < ow; ++x) o[y * ow + x] = in[iy * w + nearest_index(x, w, ow, sw)];
      }
    }
  });
  return out;
}

}  // namespace ptec::kernels

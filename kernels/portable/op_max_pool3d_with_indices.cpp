// max_pool3d_with_indices.out: 3-D max pooling; indices (int64) are flat offsets
// (d * H + h) * W + w within each input plane. NaN wins, as in ATen.

#include <algorithm>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/pool.h"

namespace ptec::kernels {

std::tuple<Tensor&, Tensor&> max_pool3d_with_indices_out(KernelRuntimeContext& ctx,
                                                         const Tensor& self, IntList kernel_size,
                                                         IntList stride, IntList padding,
                                                         IntList dilation, bool ceil_mode,
                                                         Tensor& out, Tensor& indices) {
  constexpr const char* kOp = "max_pool3d_with_indices.out";
  std::tuple<Tensor&, Tensor&> ret{out, indices};
  Pool3d p;
  if (!make_pool3d(ctx, kOp, self, kernel_size, stride, padding, dilation, ceil_mode, &p)) {
    return ret;
  }
  if (!check_contiguous(ctx, kOp, {&out, &indices})) return ret;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return ret;
  if (!check_dtype(ctx, kOp, indices, DType::Long, "indices")) return ret;
  PTEC_KERNEL_CHECK_MSG(ctx, is_supported_dtype(self.dtype()) && self.dtype() != DType::Bool,
                        InvalidArgument, ret, "%s: unsupported dtype %s", kOp,
                        to_string(self.dtype()));
  if (!resize_out(ctx, kOp, out, p.out_shape.span(), "out")) return ret;
  if (!resize_out(ctx, kOp, indices, p.out_shape.span(), "indices")) return ret;
  dispatch_real(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t in_plane = p.d * p.h * p.w, out_plane = p.od * p.oh * p.ow;
    for (int64_t plane = 0; plane < p.planes; ++plane) {
      const T* in = self.const_data_ptr<T>() + plane * in_plane;
      T* o = out.mutable_data_ptr<T>() + plane * out_plane;
      int64_t* idx = indices.mutable_data_ptr<int64_t>() + plane * out_plane;
      for (int64_t oz = 0; oz < p.od; ++oz) {
        for (int64_t oy = 0; oy < p.oh; ++oy) {
          for (int64_t ox = 0; ox < p.ow; ++ox) {
            int64_t z0 = oz * p.sd - p.pd, y0 = oy * p.sh - p.ph, x0 = ox * p.sw - p.pw;
            const int64_t z1 = std::min(z0 + (p.kd - 1) * p.dd + 1, p.d);
            const int64_t y1 = std::min(y0 + (p.kh - 1) * p.dh + 1, p.h);
            const int64_t x1 = std::min(x0 + (p.kw - 1) * p.dw + 1, p.w);
            while (z0 < 0) z0 += p.dd;
            while (y0 < 0) y0 += p.dh;
            while (x0 < 0) x0 += p.dw;
            int64_t best_i = (z0 * p.h + y0) * p.w + x0;
            T best = lowest_value<T>();
            for (int64_t z = z0; z < z1; z += p.dd) {
              for (int64_t y = y0; y < y1; y += p.dh) {
                for (int64_t x = x0; x < x1; x += p.dw) {
                  const int64_t i = (z * p.h + y) * p.w + x;
                  const T v = in[i];
                  if (v > best || is_nan(v)) {
                    best = v;
                    best_i = i;
                  }
                }
              }
            }
            const int64_t at = (oz * p.oh + oy) * p.ow + ox;
            o[at] = best;
            idx[at] = best_i;
          }
        }
      }
    }
  });
  return ret;
}

}  // namespace ptec::kernels

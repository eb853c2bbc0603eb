// max_pool2d_with_indices.out: 2-D max pooling; indices (int64) are flat offsets h * W + w
// within each input plane. NaN wins, as in ATen.

#include <algorithm>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/pool.h"

namespace ptec::kernels {

std::tuple<Tensor&, Tensor&> max_pool2d_with_indices_out(KernelRuntimeContext& ctx,
                                                         const Tensor& self, IntList kernel_size,
                                                         IntList stride, IntList padding,
                                                         IntList dilation, bool ceil_mode,
                                                         Tensor& out, Tensor& indices) {
  constexpr const char* kOp = "max_pool2d_with_indices.out";
  std::tuple<Tensor&, Tensor&> ret{out, indices};
  Pool2d p;
  if (!make_pool2d(ctx, kOp, self, kernel_size, stride, padding, dilation, ceil_mode, &p)) {
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
    for (int64_t plane = 0; plane < p.planes; ++plane) {
      const T* in = self.const_data_ptr<T>() + plane * p.h * p.w;
      T* o = out.mutable_data_ptr<T>() + plane * p.oh * p.ow;
      int64_t* idx = indices.mutable_data_ptr<int64_t>() + plane * p.oh * p.ow;
      for (int64_t oy = 0; oy < p.oh; ++oy) {
        for (int64_t ox = 0; ox < p.ow; ++ox) {
          int64_t y0 = oy * p.sh - p.ph, x0 = ox * p.sw - p.pw;
          const int64_t y1 = std::min(y0 + (p.kh - 1) * p.dh + 1, p.h);
          const int64_t x1 = std::min(x0 + (p.kw - 1) * p.dw + 1, p.w);
          while (y0 < 0) y0 += p.dh;
          while (x0 < 0) x0 += p.dw;
          int64_t best_i = y0 * p.w + x0;
          T best = lowest_value<T>();
          for (int64_t y = y0; y < y1; y += p.dh) {
            for (int64_t x = x0; x < x1; x += p.dw) {
              const T v = in[y * p.w + x];
              if (v > best || is_nan(v)) {
                best = v;
                best_i = y * p.w + x;
              }
            }
          }
          o[oy * p.ow + ox] = best;
          idx[oy * p.ow + ox] = best_i;
        }
      }
    }
  });
  return ret;
}

}  // namespace ptec::kernels

// avg_pool3d.out: 3-D average pooling with ceil_mode, count_include_pad and divisor_override,
// following ATen's window clipping rules (as avg_pool2d.out).

#include <algorithm>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/pool.h"

namespace ptec::kernels {

Tensor& avg_pool3d_out(KernelRuntimeContext& ctx, const Tensor& self, IntList kernel_size,
                       IntList stride, IntList padding, bool ceil_mode, bool count_include_pad,
                       std::optional<int64_t> divisor_override, Tensor& out) {
  constexpr const char* kOp = "avg_pool3d.out";
  const int64_t one[1] = {1};
  Pool3d p;
  if (!make_pool3d(ctx, kOp, self, kernel_size, stride, padding, one, ceil_mode, &p)) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, !divisor_override || *divisor_override != 0, InvalidArgument, out,
                        "%s: divisor must not be zero", kOp);
  if (!check_contiguous(ctx, kOp, {&out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, self.dtype() == DType::Float || self.dtype() == DType::Double,
                        InvalidArgument, out, "%s: dtype %s is not Float or Double", kOp,
                        to_string(self.dtype()));
  if (!resize_out(ctx, kOp, out, p.out_shape.span())) return out;
  dispatch_float(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t in_plane = p.d * p.h * p.w, out_plane = p.od * p.oh * p.ow;
    for (int64_t plane = 0; plane < p.planes; ++plane) {
      const T* in = self.const_data_ptr<T>() + plane * in_plane;
      T* o = out.mutable_data_ptr<T>() + plane * out_plane;
      for (int64_t oz = 0; oz < p.od; ++oz) {
        for (int64_t oy = 0; oy < p.oh; ++oy) {
          for (int64_t ox = 0; ox < p.ow; ++ox) {
            int64_t z0 = oz * p.sd - p.pd, y0 = oy * p.sh - p.ph, x0 = ox * p.sw - p.pw;
            int64_t z1 = std::min(z0 + p.kd, p.d + p.pd), y1 = std::min(y0 + p.kh, p.h + p.ph),
                    x1 = std::min(x0 + p.kw, p.w + p.pw);
            const int64_t pool_size = (z1 - z0) * (y1 - y0) * (x1 - x0);
            z0 = std::max<int64_t>(z0, 0);
            y0 = std::max<int64_t>(y0, 0);
            x0 = std::max<int64_t>(x0, 0);
            z1 = std::min(z1, p.d);
            y1 = std::min(y1, p.h);
            x1 = std::min(x1, p.w);
            const int64_t at = (oz * p.oh + oy) * p.ow + ox;
            if (z0 >= z1 || y0 >= y1 || x0 >= x1) {
              o[at] = T{0};
              continue;
            }
            T sum = 0;
            for (int64_t z = z0; z < z1; ++z) {
              for (int64_t y = y0; y < y1; ++y) {
                for (int64_t x = x0; x < x1; ++x) sum += in[(z * p.h + y) * p.w + x];
              }
            }
            const int64_t divisor =
                divisor_override
                    ? *divisor_override
                    : (count_include_pad ? pool_size : (z1 - z0) * (y1 - y0) * (x1 - x0));
            o[at] = sum / static_cast<T>(divisor);
          }
        }
      }
    }
  });
  return out;
}

}  // namespace ptec::kernels

// avg_pool2d.out: 2-D average pooling with ceil_mode, count_include_pad and divisor_override,
// following ATen's window clipping rules.

#include <algorithm>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/pool.h"

namespace ptec::kernels {

Tensor& avg_pool2d_out(KernelRuntimeContext& ctx, const Tensor& self, IntList kernel_size,
                       IntList stride, IntList padding, bool ceil_mode, bool count_include_pad,
                       std::optional<int64_t> divisor_override, Tensor& out) {
  constexpr const char* kOp = "avg_pool2d.out";
  const int64_t one[1] = {1};
  Pool2d p;
  if (!make_pool2d(ctx, kOp, self, kernel_size, stride, padding, one, ceil_mode, &p)) return out;
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
    for (int64_t plane = 0; plane < p.planes; ++plane) {
      const T* in = self.const_data_ptr<T>() + plane * p.h * p.w;
      T* o = out.mutable_data_ptr<T>() + plane * p.oh * p.ow;
      for (int64_t oy = 0; oy < p.oh; ++oy) {
        for (int64_t ox = 0; ox < p.ow; ++ox) {
          int64_t y0 = oy * p.sh - p.ph, x0 = ox * p.sw - p.pw;
          int64_t y1 = std::min(y0 + p.kh, p.h + p.ph), x1 = std::min(x0 + p.kw, p.w + p.pw);
          const int64_t pool_size = (y1 - y0) * (x1 - x0);
          y0 = std::max<int64_t>(y0, 0);
          x0 = std::max<int64_t>(x0, 0);
          y1 = std::min(y1, p.h);
          x1 = std::min(x1, p.w);
          if (y0 >= y1 || x0 >= x1) {
            o[oy * p.ow + ox] = T{0};
            continue;
          }
          T sum = 0;
          for (int64_t y = y0; y < y1; ++y) {
            for (int64_t x = x0; x < x1; ++x) sum += in[y * p.w + x];
          }
          const int64_t divisor = divisor_override
                                      ? *divisor_override
                                      : (count_include_pad ? pool_size : (y1 - y0) * (x1 - x0));
          o[oy * p.ow + ox] = sum / static_cast<T>(divisor);
        }
      }
    }
  });
  return out;
}

}  // namespace ptec::kernels

// _adaptive_avg_pool2d.out: averages over windows [floor(i * H / OH), ceil((i + 1) * H / OH)).

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {

Tensor& adaptive_avg_pool2d_out(KernelRuntimeContext& ctx, const Tensor& self, IntList output_size,
                                Tensor& out) {
  constexpr const char* kOp = "_adaptive_avg_pool2d.out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, self.dim() == 3 || self.dim() == 4, InvalidArgument, out,
                        "%s: expected a 3-D or 4-D input, got rank %zu", kOp, self.dim());
  if (!check_int_list(ctx, kOp, output_size, 2, 2, 0, "output_size")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, self.dtype() == DType::Float || self.dtype() == DType::Double,
                        InvalidArgument, out, "%s: dtype %s is not Float or Double", kOp,
                        to_string(self.dtype()));
  const size_t r = self.dim();
  const int64_t h = self.sizes()[r - 2], w = self.sizes()[r - 1];
  for (size_t i = 1; i < r; ++i) {
    PTEC_KERNEL_CHECK_MSG(ctx, self.sizes()[i] > 0, InvalidArgument, out,
                          "%s: non-batch dims must be non-zero", kOp);
  }
  const int64_t oh = output_size[0], ow = output_size[1];
  Shape shape;
  for (size_t i = 0; i + 2 < r; ++i) shape.push(self.sizes()[i]);
  shape.push(oh);
  shape.push(ow);
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  const int64_t planes = size_product(self, 0, r - 2);
  dispatch_float(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t plane = 0; plane < planes; ++plane) {
      const T* in = self.const_data_ptr<T>() + plane * h * w;
      T* o = out.mutable_data_ptr<T>() + plane * oh * ow;
      for (int64_t oy = 0; oy < oh; ++oy) {
        const int64_t y0 = oy * h / oh, y1 = ((oy + 1) * h + oh - 1) / oh;
        for (int64_t ox = 0; ox < ow; ++ox) {
          const int64_t x0 = ox * w / ow, x1 = ((ox + 1) * w + ow - 1) / ow;
          T sum = 0;
          for (int64_t y = y0; y < y1; ++y) {
            for (int64_t x = x0; x < x1; ++x) sum += in[y * w + x];
          }
          o[oy * ow + ox] = sum / static_cast<T>((y1 - y0) * (x1 - x0));
        }
      }
    }
  });
  return out;
}

}  // namespace ptec::kernels

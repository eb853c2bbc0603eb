// _softmax.out and _log_softmax.out along one dim, max-subtracted, sums accumulated in double.

#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/reduce.h"

namespace ptec::kernels {
namespace {

Tensor& softmax_impl(KernelRuntimeContext& ctx, const char* op, const Tensor& self, int64_t dim,
                     bool half_to_float, bool log, Tensor& out) {
  PTEC_KERNEL_CHECK_MSG(ctx, !half_to_float, InvalidArgument, out,
                        "%s: half_to_float is not supported (no Half kernels)", op);
  if (!check_contiguous(ctx, op, {&self, &out})) return out;
  if (!check_dtype(ctx, op, out, self.dtype(), "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, self.dtype() == DType::Float || self.dtype() == DType::Double,
                        InvalidArgument, out, "%s: dtype %s is not Float or Double", op,
                        to_string(self.dtype()));
  size_t d = 0;
  if (!wrap_dim(ctx, op, dim, self.dim(), &d)) return out;
  if (!resize_out(ctx, op, out, self.sizes())) return out;
  const DimSplit s = split_at(self, d);
  dispatch_float(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = self.const_data_ptr<T>();
    T* o = out.mutable_data_ptr<T>();
    for (int64_t outer = 0; outer < s.outer; ++outer) {
      for (int64_t inner = 0; inner < s.inner; ++inner) {
        const int64_t base = outer * s.size * s.inner + inner;
        T mx = lowest_value<T>();
        for (int64_t k = 0; k < s.size; ++k) {
          const T v = in[base + k * s.inner];
          if (is_nan(v) || v > mx) mx = v;
        }
        double sum = 0;
        for (int64_t k = 0; k < s.size; ++k) sum += std::exp(in[base + k * s.inner] - mx);
        if (log) {
          const T lse = static_cast<T>(std::log(sum));
          for (int64_t k = 0; k < s.size; ++k) {
            o[base + k * s.inner] = in[base + k * s.inner] - mx - lse;
          }
        } else {
          for (int64_t k = 0; k < s.size; ++k) {
            o[base + k * s.inner] = static_cast<T>(std::exp(in[base + k * s.inner] - mx) / sum);
          }
        }
      }
    }
  });
  return out;
}

}  // namespace

Tensor& softmax_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                    Tensor& out) {
  return softmax_impl(ctx, "_softmax.out", self, dim, half_to_float, /*log=*/false, out);
}

Tensor& log_softmax_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                        bool half_to_float, Tensor& out) {
  return softmax_impl(ctx, "_log_softmax.out", self, dim, half_to_float, /*log=*/true, out);
}

}  // namespace ptec::kernels

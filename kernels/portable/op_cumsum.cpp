// cumsum.out: running sums along `dim`, computed in out's dtype (ATen: `dtype`, else Long for
// integral and bool inputs, else the input's dtype; the shape function picks out's dtype).

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/reduce.h"

namespace ptec::kernels {

Tensor& cumsum_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                   const std::optional<DType>& dtype, Tensor& out) {
  constexpr const char* kOp = "cumsum.out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (dtype && !check_dtype(ctx, kOp, out, *dtype, "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx,
                        is_supported_dtype(self.dtype()) && is_supported_dtype(out.dtype()) &&
                            out.dtype() != DType::Bool,
                        InvalidArgument, out, "%s: unsupported dtype (%s -> %s)", kOp,
                        to_string(self.dtype()), to_string(out.dtype()));
  size_t d = 0;
  if (!wrap_dim(ctx, kOp, dim, self.dim(), &d)) return out;
  if (!resize_out(ctx, kOp, out, self.sizes())) return out;
  const DimSplit s = split_at(self, d);
  dispatch_real(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const LoadFn<T> load = get_load_fn<T>(self.dtype());
    const void* in = self.const_data_ptr();
    T* o = out.mutable_data_ptr<T>();
    for (int64_t a = 0; a < s.outer; ++a) {
      for (int64_t c = 0; c < s.inner; ++c) {
        T acc{0};
        for (int64_t i = 0; i < s.size; ++i) {
          const int64_t idx = (a * s.size + i) * s.inner + c;
          acc = static_cast<T>(acc + load(in, idx));
          o[idx] = acc;
        }
      }
    }
  });
  return out;
}

}  // namespace ptec::kernels

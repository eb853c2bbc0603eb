// scatter.src_out / scatter.value_out: out = self, then out[..., index[i], ...] = src[i] (or the
// Scalar value) along `dim` for every position i of `index`. Index values must lie in
// [0, self.size(dim)); with repeated indices the last write wins, as in ATen's CPU kernel.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/scatter_util.h"

namespace ptec::kernels {

Tensor& scatter_src_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                        const Tensor& index, const Tensor& src, Tensor& out) {
  constexpr const char* kOp = "scatter.src_out";
  size_t d = 0;
  if (!scatter_prologue(ctx, kOp, self, dim, index, &src, out, &d)) return out;
  dispatch_real_bool(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.mutable_data_ptr<T>();
    const T* s = src.const_data_ptr<T>();
    scatter_for_each(self, d, index, &src, [&](int64_t oi, int64_t si) { o[oi] = s[si]; });
  });
  return out;
}

Tensor& scatter_value_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                          const Tensor& index, const Scalar& value, Tensor& out) {
  constexpr const char* kOp = "scatter.value_out";
  size_t d = 0;
  if (!scatter_prologue(ctx, kOp, self, dim, index, nullptr, out, &d)) return out;
  dispatch_real_bool(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.mutable_data_ptr<T>();
    const T v = scalar_to<T>(value);
    scatter_for_each(self, d, index, nullptr, [&](int64_t oi, int64_t) { o[oi] = v; });
  });
  return out;
}

}  // namespace ptec::kernels

// scatter_add.out: out = self, then out[..., index[i], ...] += src[i] along `dim` for every
// position i of `index` (repeated indices accumulate; Bool adds as logical or; Half and
// BFloat16 round after each addition).

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/scatter_util.h"

namespace ptec::kernels {

Tensor& scatter_add_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                        const Tensor& index, const Tensor& src, Tensor& out) {
  constexpr const char* kOp = "scatter_add.out";
  size_t d = 0;
  if (!scatter_prologue(ctx, kOp, self, dim, index, &src, out, kReducedFloat, &d)) return out;
  dispatch_real_bool_reduced(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.mutable_data_ptr<T>();
    const T* s = src.const_data_ptr<T>();
    scatter_for_each(self, d, index, &src,
                     [&](int64_t oi, int64_t si) { o[oi] = reduce_add(o[oi], s[si]); });
  });
  return out;
}

}  // namespace ptec::kernels

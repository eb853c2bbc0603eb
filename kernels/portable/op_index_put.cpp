// index_put.out: out = self, then out[indices] = values (or += with accumulate=True), with
// `values` broadcast to the indexing result's shape (util/advanced_index.h). Repeated indices
// accumulate; without accumulate the last write wins, as in ATen's CPU kernel. Writes support every
// storage dtype; accumulating ones real_bool, Half and BFloat16.

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/advanced_index.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/scatter_util.h"

namespace ptec::kernels {

Tensor& index_put_out(KernelRuntimeContext& ctx, const Tensor& self, Span<const OptTensor> indices,
                      const Tensor& values, bool accumulate, Tensor& out) {
  constexpr const char* kOp = "index_put.out";
  if (!check_contiguous(ctx, kOp, {&self, &values, &out})) return out;
  // Writes copy bytes (every storage dtype); accumulating computes in real_bool, Half, BFloat16.
  PTEC_KERNEL_CHECK_MSG(
      ctx,
      is_accepted_dtype(self.dtype(),
                        accumulate ? kReducedFloat : kReducedFloat | kBarebonesUnsigned),
      InvalidArgument, out, "%s: unsupported dtype %s%s", kOp, to_string(self.dtype()),
      accumulate ? " with accumulate=True" : "");
  PTEC_KERNEL_CHECK_MSG(ctx, values.dtype() == self.dtype(), InvalidArgument, out,
                        "%s: self (%s) and values (%s) must have the same dtype", kOp,
                        to_string(self.dtype()), to_string(values.dtype()));
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  AdvancedIndex ai;
  if (!ai.init(ctx, kOp, self, indices)) return out;
  // values broadcast to the result's shape (right-aligned): its strides over the result dims.
  const Shape& res = ai.result();
  bool fits = values.dim() <= res.ndim;
  int64_t vstrides[kTensorDimensionLimit] = {};
  int64_t s = 1;
  for (size_t j = values.dim(); fits && j > 0; --j) {
    const size_t rd = res.ndim - (values.dim() - j) - 1;
    const int64_t n = values.sizes()[j - 1];
    fits = n == res.sizes[rd] || n == 1;
    vstrides[rd] = n == 1 ? 0 : s;
    s *= n;
  }
  PTEC_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, out,
                        "%s: shape mismatch: value tensor of rank %zu cannot be broadcast to the "
                        "indexing result of rank %zu",
                        kOp, values.dim(), res.ndim);
  if (!resize_out(ctx, kOp, out, self.sizes())) return out;
  if (out.const_data_ptr() != self.const_data_ptr() && self.nbytes() != 0) {
    std::memcpy(out.mutable_data_ptr(), self.const_data_ptr(), self.nbytes());
  }
  // Calls f(out_offset, values_offset) for every element of the indexing result.
  auto walk = [&](auto&& f) {
    int64_t coord[kTensorDimensionLimit] = {};
    ai.for_each([&](int64_t, int64_t off) {
      int64_t vo = 0;
      for (size_t d = 0; d < res.ndim; ++d) vo += coord[d] * vstrides[d];
      f(off, vo);
      for (size_t d = res.ndim; d > 0; --d) {
        if (++coord[d - 1] < res.sizes[d - 1]) break;
        coord[d - 1] = 0;
      }
    });
  };
  if (!accumulate) {
    const int64_t es = static_cast<int64_t>(self.element_size());
    auto* o = static_cast<uint8_t*>(out.mutable_data_ptr());
    const auto* v = static_cast<const uint8_t*>(values.const_data_ptr());
    walk([&](int64_t off, int64_t vo) {
      std::memcpy(o + off * es, v + vo * es, static_cast<size_t>(es));
    });
    return out;
  }
  dispatch_real_bool_reduced(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.mutable_data_ptr<T>();
    const T* v = values.const_data_ptr<T>();
    walk([&](int64_t off, int64_t vo) { o[off] = reduce_add(o[off], v[vo]); });
  });
  return out;
}

}  // namespace ptec::kernels

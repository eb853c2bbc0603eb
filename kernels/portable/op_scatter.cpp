// scatter.src_out / scatter.value_out: out = self, then out[..., index[i], ...] = src[i] (or the
// Scalar value) along `dim` for every position i of `index`. Index values must lie in
// [0, self.size(dim)); with repeated indices the last write wins, as in ATen's CPU kernel. Every
// storage dtype (Half, BFloat16 and the barebones unsigned types included).

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/scatter_util.h"

namespace ptec::kernels {

Tensor& scatter_src_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                        const Tensor& index, const Tensor& src, Tensor& out) {
  constexpr const char* kOp = "scatter.src_out";
  size_t d = 0;
  if (!scatter_prologue(ctx, kOp, self, dim, index, &src, out, kReducedFloat | kBarebonesUnsigned,
                        &d)) {
    return out;
  }
  const int64_t es = static_cast<int64_t>(self.element_size());
  auto* o = static_cast<uint8_t*>(out.mutable_data_ptr());
  const auto* s = static_cast<const uint8_t*>(src.const_data_ptr());
  scatter_for_each(self, d, index, &src, [&](int64_t oi, int64_t si) {
    std::memcpy(o + oi * es, s + si * es, static_cast<size_t>(es));
  });
  return out;
}

Tensor& scatter_value_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                          const Tensor& index, const Scalar& value, Tensor& out) {
  constexpr const char* kOp = "scatter.value_out";
  size_t d = 0;
  if (!scatter_prologue(ctx, kOp, self, dim, index, nullptr, out,
                        kReducedFloat | kBarebonesUnsigned, &d)) {
    return out;
  }
  dispatch_storage(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.mutable_data_ptr<T>();
    const T v = scalar_as<T>(value);
    scatter_for_each(self, d, index, nullptr, [&](int64_t oi, int64_t) { o[oi] = v; });
  });
  return out;
}

}  // namespace ptec::kernels

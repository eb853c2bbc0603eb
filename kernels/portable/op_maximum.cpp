// maximum.out and minimum.out: element-wise max/min with broadcasting; NaN propagates.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {
namespace {

template <bool kMax>
Tensor& extremum(KernelRuntimeContext& ctx, const char* op, const Tensor& self, const Tensor& other,
                 Tensor& out) {
  const DType common = result_type(self, other);
  if (!binary_op_prologue(ctx, op, self, other, out, common, kReducedFloat | kBarebonesUnsigned))
    return out;
  auto run = [&](auto tag) {
    using CT = decltype(tag);
    apply_binary<CT>(ctx, op, self, other, out, [](CT a, CT b) {
      if (is_nan(a)) return a;
      if (is_nan(b)) return b;
      return kMax ? (a > b ? a : b) : (a < b ? a : b);
    });
  };
  if (!dispatch_real_bool(compute_dtype(common), run)) dispatch_unsigned(common, run);
  return out;
}

}  // namespace

Tensor& maximum_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                    Tensor& out) {
  return extremum<true>(ctx, "maximum.out", self, other, out);
}

Tensor& minimum_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                    Tensor& out) {
  return extremum<false>(ctx, "minimum.out", self, other, out);
}

}  // namespace ptec::kernels

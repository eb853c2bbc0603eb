// eq/ne/lt/le/gt/ge, .Tensor_out (broadcasting) and .Scalar_out: comparisons in the promoted
// dtype, written as bool (or converted to out's dtype).

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {
namespace {

enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };

template <typename T>
bool compare(Cmp c, T a, T b) {
  switch (c) {
    case Cmp::Eq: return a == b;
    case Cmp::Ne: return a != b;
    case Cmp::Lt: return a < b;
    case Cmp::Le: return a <= b;
    case Cmp::Gt: return a > b;
    case Cmp::Ge: return a >= b;
  }
  return false;
}

Tensor& compare_tensor(KernelRuntimeContext& ctx, const char* op, Cmp c, const Tensor& self,
                       const Tensor& other, Tensor& out) {
  const DType common = result_type(self, other);
  // Any out dtype can hold a bool.
  if (!binary_op_prologue(ctx, op, self, other, out, DType::Bool, kReducedFloat)) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, common != kNoPromotion, InvalidArgument, out,
                        "%s: type promotion of %s and %s is not supported", op,
                        to_string(self.dtype()), to_string(other.dtype()));
  dispatch_real_bool(compute_dtype(common), [&](auto tag) {
    using CT = decltype(tag);
    apply_binary<CT>(ctx, op, self, other, out, [c](CT a, CT b) { return compare(c, a, b); });
  });
  return out;
}

Tensor& compare_scalar(KernelRuntimeContext& ctx, const char* op, Cmp c, const Tensor& self,
                       const Scalar& other, Tensor& out) {
  const DType common = result_type(self, other);
  if (!unary_op_prologue(ctx, op, self, out, DType::Bool, kReducedFloat)) return out;
  dispatch_real_bool(compute_dtype(common), [&](auto tag) {
    using CT = decltype(tag);
    const CT b = scalar_to<CT>(other);
    apply_unary<CT>(ctx, op, self, out, [c, b](CT a) { return compare(c, a, b); });
  });
  return out;
}

}  // namespace

#define PTEC_DEFINE_COMPARE(name, cmp)                                                          \
  Tensor& name##_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, \
                            Tensor& out) {                                                      \
    return compare_tensor(ctx, #name ".Tensor_out", cmp, self, other, out);                     \
  }                                                                                             \
  Tensor& name##_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, \
                            Tensor& out) {                                                      \
    return compare_scalar(ctx, #name ".Scalar_out", cmp, self, other, out);                     \
  }

PTEC_DEFINE_COMPARE(eq, Cmp::Eq)
PTEC_DEFINE_COMPARE(ne, Cmp::Ne)
PTEC_DEFINE_COMPARE(lt, Cmp::Lt)
PTEC_DEFINE_COMPARE(le, Cmp::Le)
PTEC_DEFINE_COMPARE(gt, Cmp::Gt)
PTEC_DEFINE_COMPARE(ge, Cmp::Ge)

#undef PTEC_DEFINE_COMPARE

}  // namespace ptec::kernels

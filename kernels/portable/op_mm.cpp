// mm.out, bmm.out and addmm.out: (batched) matrix products of same-dtype real tensors.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/matmul.h"

namespace ptec::kernels {
namespace {

bool check_operands(KernelRuntimeContext& ctx, const char* op, const Tensor& a, const Tensor& b,
                    const Tensor& out, size_t rank) {
  if (!check_contiguous(ctx, op, {&a, &b, &out})) return false;
  PTEC_KERNEL_CHECK_MSG(ctx, a.dim() == rank && b.dim() == rank, InvalidArgument, false,
                        "%s: operands must have rank %zu (got %zu and %zu)", op, rank, a.dim(),
                        b.dim());
  PTEC_KERNEL_CHECK_MSG(ctx, a.dtype() == b.dtype() && out.dtype() == a.dtype(), InvalidArgument,
                        false, "%s: operands and out must have the same dtype (%s, %s, %s)", op,
                        to_string(a.dtype()), to_string(b.dtype()), to_string(out.dtype()));
  PTEC_KERNEL_CHECK_MSG(ctx, is_supported_dtype(a.dtype()) && a.dtype() != DType::Bool,
                        InvalidArgument, false, "%s: unsupported dtype %s", op,
                        to_string(a.dtype()));
  PTEC_KERNEL_CHECK_MSG(ctx, a.size(-1) == b.size(-2), InvalidArgument, false,
                        "%s: shapes cannot be multiplied (inner sizes %d and %d)", op,
                        static_cast<int>(a.size(-1)), static_cast<int>(b.size(-2)));
  return true;
}

}  // namespace

Tensor& mm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  constexpr const char* kOp = "mm.out";
  if (!check_operands(ctx, kOp, self, mat2, out, 2)) return out;
  const SizesType shape[2] = {self.sizes()[0], mat2.sizes()[1]};
  if (!resize_out(ctx, kOp, out, shape)) return out;
  dispatch_real(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    matmul(self.const_data_ptr<T>(), mat2.const_data_ptr<T>(), out.mutable_data_ptr<T>(), shape[0],
           self.sizes()[1], shape[1]);
  });
  return out;
}

Tensor& bmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  constexpr const char* kOp = "bmm.out";
  if (!check_operands(ctx, kOp, self, mat2, out, 3)) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, self.sizes()[0] == mat2.sizes()[0], InvalidArgument, out,
                        "%s: batch sizes differ (%d vs %d)", kOp, static_cast<int>(self.sizes()[0]),
                        static_cast<int>(mat2.sizes()[0]));
  const SizesType shape[3] = {self.sizes()[0], self.sizes()[1], mat2.sizes()[2]};
  if (!resize_out(ctx, kOp, out, shape)) return out;
  const int64_t n = shape[1], k = self.sizes()[2], m = shape[2];
  dispatch_real(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < shape[0]; ++b) {
      matmul(self.const_data_ptr<T>() + b * n * k, mat2.const_data_ptr<T>() + b * k * m,
             out.mutable_data_ptr<T>() + b * n * m, n, k, m);
    }
  });
  return out;
}

Tensor& addmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat1,
                  const Tensor& mat2, const Scalar& beta, const Scalar& alpha, Tensor& out) {
  constexpr const char* kOp = "addmm.out";
  if (!check_operands(ctx, kOp, mat1, mat2, out, 2)) return out;
  if (!check_contiguous(ctx, kOp, {&self})) return out;
  if (!check_dtype(ctx, kOp, self, out.dtype(), "self")) return out;
  const SizesType shape[2] = {mat1.sizes()[0], mat2.sizes()[1]};
  // self broadcasts to [n, m].
  PTEC_KERNEL_CHECK_MSG(ctx, self.dim() <= 2, InvalidArgument, out, "%s: self must have rank <= 2",
                        kOp);
  for (size_t i = 0; i < self.dim(); ++i) {
    const SizesType want = shape[2 - self.dim() + i];
    PTEC_KERNEL_CHECK_MSG(ctx, self.sizes()[i] == want || self.sizes()[i] == 1, InvalidArgument,
                          out, "%s: self of size %d at dim %zu does not broadcast to %d", kOp,
                          static_cast<int>(self.sizes()[i]), i, static_cast<int>(want));
  }
  PTEC_KERNEL_CHECK_MSG(
      ctx,
      is_floating_point(out.dtype()) || (!beta.is_floating_point() && !alpha.is_floating_point()),
      InvalidArgument, out, "%s: floating beta/alpha need a floating dtype", kOp);
  if (!resize_out(ctx, kOp, out, shape)) return out;
  dispatch_real(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.mutable_data_ptr<T>();
    matmul(mat1.const_data_ptr<T>(), mat2.const_data_ptr<T>(), o, shape[0], mat1.sizes()[1],
           shape[1]);
    const T a = scalar_to<T>(alpha), b = scalar_to<T>(beta);
    const T* s = self.const_data_ptr<T>();
    const Tensor* ins[1] = {&self};
    for_each_broadcast<1>(out.sizes(), {ins[0]}, [&](int64_t i, const std::array<int64_t, 1>& j) {
      // beta == 0 ignores self entirely (NaN/inf in self do not propagate), as in ATen.
      o[i] = b == T{0} ? static_cast<T>(a * o[i]) : static_cast<T>(a * o[i] + b * s[j[0]]);
    });
  });
  return out;
}

}  // namespace ptec::kernels

// mm.out, bmm.out and addmm.out, optimized: fp32 contiguous operands run on the packed GEMM
// (kernels/optimized/gemm.h) with scratch from the temp allocator; addmm's `self` becomes the
// fused bias (a row vector) or residual (a full matrix) when beta = alpha = 1. Everything else
// runs the portable kernels.

#include "kernels/optimized/gemm.h"
#include "kernels/optimized/ops/ops.h"
#include "kernels/portable/functions.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels::optimized {
namespace {

bool all_float(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts) {
    if (t->dtype() != DType::Float) return false;
  }
  return true;
}

// out[b] = a[b] * m2[b] (+ epilogue) for `batches` contiguous matrices; false when it cannot run
// here (the caller falls back).
bool run_gemm(KernelRuntimeContext& ctx, int64_t batches, int64_t m, int64_t n, int64_t k,
              const float* a, const float* b, float* c, const GemmEpilogue& e) {
  const size_t bytes = gemm_scratch_bytes(m, n, k, false, false);
  void* scratch = bytes > 0 ? ctx.allocate_temp(bytes, 64) : nullptr;
  if (bytes > 0 && scratch == nullptr) return false;
  for (int64_t i = 0; i < batches; ++i) {
    if (!gemm(m, n, k, GemmOperand::matrix(a + i * m * k, k), GemmOperand::matrix(b + i * k * n, n),
              c + i * m * n, n, e, scratch)) {
      return false;
    }
  }
  return true;
}

}  // namespace

Tensor& mm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  if (!all_float({&self, &mat2, &out}) || self.dim() != 2 || mat2.dim() != 2 ||
      self.size(1) != mat2.size(0) || !check_contiguous(ctx, "mm.out", {&self, &mat2, &out})) {
    return kernels::mm_out(ctx, self, mat2, out);
  }
  const SizesType shape[2] = {self.size(0), mat2.size(1)};
  if (!resize_out(ctx, "mm.out", out, shape)) return out;
  if (!run_gemm(ctx, 1, self.size(0), mat2.size(1), self.size(1), self.const_data_ptr<float>(),
                mat2.const_data_ptr<float>(), out.mutable_data_ptr<float>(), {})) {
    return kernels::mm_out(ctx, self, mat2, out);
  }
  return out;
}

Tensor& bmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  if (!all_float({&self, &mat2, &out}) || self.dim() != 3 || mat2.dim() != 3 ||
      self.size(0) != mat2.size(0) || self.size(2) != mat2.size(1) ||
      !check_contiguous(ctx, "bmm.out", {&self, &mat2, &out})) {
    return kernels::bmm_out(ctx, self, mat2, out);
  }
  const SizesType shape[3] = {self.size(0), self.size(1), mat2.size(2)};
  if (!resize_out(ctx, "bmm.out", out, shape)) return out;
  if (!run_gemm(ctx, self.size(0), self.size(1), mat2.size(2), self.size(2),
                self.const_data_ptr<float>(), mat2.const_data_ptr<float>(),
                out.mutable_data_ptr<float>(), {})) {
    return kernels::bmm_out(ctx, self, mat2, out);
  }
  return out;
}

Tensor& addmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat1,
                  const Tensor& mat2, const Scalar& beta, const Scalar& alpha, Tensor& out) {
  auto portable = [&]() -> Tensor& {
    return kernels::addmm_out(ctx, self, mat1, mat2, beta, alpha, out);
  };
  if (!all_float({&self, &mat1, &mat2, &out}) || mat1.dim() != 2 || mat2.dim() != 2 ||
      mat1.size(1) != mat2.size(0) || beta.to_double() != 1.0 || alpha.to_double() != 1.0 ||
      !check_contiguous(ctx, "addmm.out", {&self, &mat1, &mat2, &out})) {
    return portable();
  }
  const int64_t m = mat1.size(0), n = mat2.size(1), k = mat1.size(1);
  GemmEpilogue e;
  const bool row_vector = (self.dim() == 1 && self.size(0) == n) ||
                          (self.dim() == 2 && self.size(0) == 1 && self.size(1) == n);
  const bool full = self.dim() == 2 && self.size(0) == m && self.size(1) == n;
  if (row_vector) {
    e.bias = self.const_data_ptr<float>();
  } else if (full && self.const_data_ptr<float>() != out.const_data_ptr<float>()) {
    e.residual = self.const_data_ptr<float>();
    e.ldr = n;
  } else {
    return portable();  // other broadcasts (a column, a scalar) or self aliasing out
  }
  const SizesType shape[2] = {static_cast<SizesType>(m), static_cast<SizesType>(n)};
  if (!resize_out(ctx, "addmm.out", out, shape)) return out;
  if (!run_gemm(ctx, 1, m, n, k, mat1.const_data_ptr<float>(), mat2.const_data_ptr<float>(),
                out.mutable_data_ptr<float>(), e)) {
    return portable();
  }
  return out;
}

}  // namespace ptec::kernels::optimized

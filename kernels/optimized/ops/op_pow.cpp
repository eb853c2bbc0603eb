// pow.Tensor_Scalar_out, optimized: an fp32 contiguous tensor to the power 2, 3, 0.5 or -1 takes
// the products, square root or reciprocal ATen's CPU kernel takes for them (x * x for a layer or
// RMS norm's variance, where the portable kernel calls powf per element). Every other case runs
// the portable kernel.

#include <cmath>

#include "kernels/optimized/ops/ops.h"
#include "kernels/portable/functions.h"

namespace ptec::kernels::optimized {
namespace {

template <typename F>
void map(const float* x, float* y, size_t n, F f) {
  for (size_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

}  // namespace

Tensor& pow_tensor_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& exponent,
                              Tensor& out) {
  const double e = exponent.to_double();
  const bool special = !exponent.is_boolean() && (e == 2.0 || e == 3.0 || e == 0.5 || e == -1.0);
  if (!special || self.dtype() != DType::Float || out.dtype() != DType::Float ||
      !self.is_contiguous() || !out.is_contiguous()) {
    return kernels::pow_tensor_scalar_out(ctx, self, exponent, out);
  }
  if (!resize_out(ctx, "pow.Tensor_Scalar_out", out, self.sizes())) return out;
  const float* x = self.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  const size_t n = self.numel();
  if (e == 2.0) {
    map(x, y, n, [](float v) { return v * v; });
  } else if (e == 3.0) {
    map(x, y, n, [](float v) { return v * v * v; });
  } else if (e == 0.5) {
    map(x, y, n, [](float v) { return std::sqrt(v); });
  } else {
    map(x, y, n, [](float v) { return 1.0f / v; });
  }
  return out;
}

}  // namespace ptec::kernels::optimized

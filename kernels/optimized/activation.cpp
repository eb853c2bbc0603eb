#include "kernels/optimized/activation.h"

#include "kernels/optimized/activation_simd.h"
#include "kernels/optimized/gemm.h"

namespace ptec::kernels::optimized {
namespace {

// The vectorized loops for the active ISA, or null without AVX2.
const detail::ActivationLoops* simd_loops() {
#if defined(PTEC_GEMM_HAVE_AVX2)
  switch (active_gemm_isa()) {
    case GemmIsa::Avx512: return &detail::kActivationAvx512;
    case GemmIsa::Avx2: return &detail::kActivationAvx2;
    case GemmIsa::Generic: return nullptr;
  }
#endif
  return nullptr;
}

}  // namespace

void activate_in_place(float* x, int64_t n, Activation a, float lo, float hi) {
  switch (a) {
    case Activation::None: return;
    case Activation::Relu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
      return;
    case Activation::Clamp:
      for (int64_t i = 0; i < n; ++i) x[i] = std::min(std::max(x[i], lo), hi);
      return;
    case Activation::LeakyRelu:  // the compiler vectorizes this select
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : x[i] * lo;
      return;
    case Activation::HardSwish:
    case Activation::Sigmoid:
    case Activation::Silu:
    case Activation::Tanh:
    case Activation::Gelu: break;
  }
  if (const detail::ActivationLoops* loops = simd_loops()) {
    switch (a) {
      case Activation::Sigmoid: loops->sigmoid(x, n); return;
      case Activation::Silu: loops->silu(x, n); return;
      case Activation::Tanh: loops->tanh(x, n); return;
      case Activation::Gelu: loops->gelu(x, n); return;
      case Activation::HardSwish: loops->hardswish(x, n); return;
      default: break;
    }
  }
  for (int64_t i = 0; i < n; ++i) x[i] = activate(x[i], a, lo, hi);
}

void erf_in_place(float* x, int64_t n) {
  if (const detail::ActivationLoops* loops = simd_loops()) {
    loops->erf(x, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i) x[i] = std::erf(x[i]);
}

void softmax_row(const float* x, float* y, int64_t n) {
  if (n <= 0) return;
  float mx;
  float sum = 0.0f;
  if (const detail::ActivationLoops* loops = simd_loops()) {
    mx = loops->max(x, n);
    sum = loops->exp_shifted_sum(x, y, n, mx);
  } else {
    mx = x[0];
    for (int64_t i = 1; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
    for (int64_t i = 0; i < n; ++i) {
      const float d = x[i] - mx;
      y[i] = d < -87.3f ? 0.0f : exp_approx(d);
      sum += y[i];
    }
  }
  const float scale = 1.0f / sum;
  for (int64_t i = 0; i < n; ++i) y[i] *= scale;
}

}  // namespace ptec::kernels::optimized

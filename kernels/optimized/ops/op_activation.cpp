// Element-wise activations, optimized: erf.out, sigmoid.out, tanh.out and gelu.out (the erf form)
// of an fp32 contiguous tensor run the vectorized loops of activation.h on their output, in
// chunks over the threads when there are enough elements. Where the CPU backend does not take
// them (tensors with two dynamic dims: a transformer with dynamic batch and sequence, a CNN with
// dynamic height and width), they ran per element on the portable kernels' library calls: the
// SiLU of a YOLO-style detector (x * sigmoid(x)) took more time in sigmoid than its convolutions.
// Accuracy (activation_simd.h): erf within 4e-7 relative below |x| = 0.5 and 5e-7 absolute
// above, sigmoid within 1e-6 relative, tanh within 2e-7 absolute, GELU within 1e-6 x max(1, |x|).
// Every other case runs the portable kernel.

#include <algorithm>
#include <cstring>

#include "kernels/optimized/activation.h"
#include "kernels/optimized/ops/ops.h"
#include "kernels/optimized/threadpool.h"
#include "kernels/portable/functions.h"

namespace ptec::kernels::optimized {
namespace {

bool fp32_contiguous(const Tensor& self, const Tensor& out) {
  return self.dtype() == DType::Float && out.dtype() == DType::Float && self.is_contiguous() &&
         out.is_contiguous();
}

// out = f(self) for an fp32 contiguous self: f(y, n) runs in place on out's chunks.
template <typename F>
Tensor& unary(KernelRuntimeContext& ctx, const char* name, const Tensor& self, Tensor& out, F f) {
  if (!resize_out(ctx, name, out, self.sizes())) return out;
  const auto n = static_cast<int64_t>(self.numel());
  const float* x = self.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  constexpr int64_t kChunk = int64_t{1} << 14;
  for_rows((n + kChunk - 1) / kChunk, n, [&](int64_t c) {
    const int64_t begin = c * kChunk, count = std::min(kChunk, n - begin);
    if (y != x) std::memcpy(y + begin, x + begin, sizeof(float) * static_cast<size_t>(count));
    f(y + begin, count);
  });
  return out;
}

// activate_in_place with activation `a` as a unary loop.
auto activation(Activation a) {
  return [a](float* y, int64_t n) { activate_in_place(y, n, a, 0.0f, 0.0f); };
}

}  // namespace

Tensor& erf_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (!fp32_contiguous(self, out)) return kernels::erf_out(ctx, self, out);
  return unary(ctx, "erf.out", self, out, erf_in_place);
}

Tensor& sigmoid_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (!fp32_contiguous(self, out)) return kernels::sigmoid_out(ctx, self, out);
  return unary(ctx, "sigmoid.out", self, out, activation(Activation::Sigmoid));
}

Tensor& tanh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (!fp32_contiguous(self, out)) return kernels::tanh_out(ctx, self, out);
  return unary(ctx, "tanh.out", self, out, activation(Activation::Tanh));
}

Tensor& gelu_out(KernelRuntimeContext& ctx, const Tensor& self, std::string_view approximate,
                 Tensor& out) {
  if (approximate != "none" || !fp32_contiguous(self, out)) {
    return kernels::gelu_out(ctx, self, approximate, out);
  }
  return unary(ctx, "gelu.out", self, out, activation(Activation::Gelu));
}

}  // namespace ptec::kernels::optimized

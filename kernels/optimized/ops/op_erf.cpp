// erf.out, optimized: an fp32 contiguous tensor runs erf_in_place (vectorized: a series
// below |x| = 0.5, within 4e-7 relative, and above it the approximation ATen's vectorized CPU
// kernel takes, within 5e-7 absolute) on its output, in chunks over
// the threads when there are enough elements. The erf form of GELU where the CPU backend does not
// take it (tensors with two dynamic dims) spent most of its time in the portable std::erf. Every
// other case runs the portable kernel.

#include <algorithm>
#include <cstring>

#include "kernels/optimized/activation.h"
#include "kernels/optimized/ops/ops.h"
#include "kernels/optimized/threadpool.h"
#include "kernels/portable/functions.h"

namespace ptec::kernels::optimized {

Tensor& erf_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (self.dtype() != DType::Float || out.dtype() != DType::Float || !self.is_contiguous() ||
      !out.is_contiguous()) {
    return kernels::erf_out(ctx, self, out);
  }
  if (!resize_out(ctx, "erf.out", out, self.sizes())) return out;
  const auto n = static_cast<int64_t>(self.numel());
  const float* x = self.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  constexpr int64_t kChunk = int64_t{1} << 14;
  for_rows((n + kChunk - 1) / kChunk, n, [&](int64_t c) {
    const int64_t begin = c * kChunk, count = std::min(kChunk, n - begin);
    if (y != x) std::memcpy(y + begin, x + begin, sizeof(float) * static_cast<size_t>(count));
    erf_in_place(y + begin, count);
  });
  return out;
}

}  // namespace ptec::kernels::optimized

// _softmax.out, optimized: fp32 contiguous tensors along their last dim run softmax_row
// (kernels/optimized/activation.h: vectorized exp, max-subtracted) row by row, over the threads
// when there are enough of them (for_rows, as the CPU backend's softmax): attention's scores on a
// dynamic sequence, which the CPU backend leaves to the kernels. Everything else runs the
// portable kernel.

#include "kernels/optimized/activation.h"
#include "kernels/optimized/ops/ops.h"
#include "kernels/optimized/threadpool.h"
#include "kernels/portable/functions.h"

namespace ptec::kernels::optimized {

Tensor& softmax_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                    Tensor& out) {
  const int64_t rank = static_cast<int64_t>(self.dim());
  const bool last = rank > 0 && (dim == rank - 1 || dim == -1);
  if (half_to_float || !last || self.dtype() != DType::Float || out.dtype() != DType::Float ||
      !self.is_contiguous() || !out.is_contiguous()) {
    return kernels::softmax_out(ctx, self, dim, half_to_float, out);
  }
  if (!resize_out(ctx, "_softmax.out", out, self.sizes())) return out;
  const int64_t len = self.size(rank - 1);
  const float* x = self.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  for_rows(len > 0 ? static_cast<int64_t>(self.numel()) / len : 0,
           static_cast<int64_t>(self.numel()),
           [&](int64_t r) { softmax_row(x + r * len, y + r * len, len); });
  return out;
}

}  // namespace ptec::kernels::optimized

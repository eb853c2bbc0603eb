// _softmax.out, optimized: fp32 contiguous tensors along their last dim run softmax_row
// (kernels/optimized/activation.h: vectorized exp, max-subtracted), rows spread over the threads
// when there are enough of them (attention's scores on a dynamic sequence, which the CPU backend
// leaves to the kernels). Everything else runs the portable kernel.

#include "kernels/optimized/activation.h"
#include "kernels/optimized/ops/ops.h"
#include "kernels/optimized/threadpool.h"
#include "kernels/portable/functions.h"

namespace ptec::kernels::optimized {
namespace {

// Below this many elements a softmax runs on the calling thread (waking the others costs more).
constexpr int64_t kParallelElements = int64_t{1} << 16;
// Rows per work item when it is spread.
constexpr int64_t kRowsPerItem = 16;

}  // namespace

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
  const int64_t rows = len > 0 ? self.numel() / len : 0;
  const float* x = self.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  auto run = [&](int64_t item) {
    const int64_t end = std::min(rows, (item + 1) * kRowsPerItem);
    for (int64_t r = item * kRowsPerItem; r < end; ++r) softmax_row(x + r * len, y + r * len, len);
  };
  const int64_t items = (rows + kRowsPerItem - 1) / kRowsPerItem;
  if (self.numel() < kParallelElements) {
    for (int64_t i = 0; i < items; ++i) run(i);
  } else {
    parallel_for(items, [&](int64_t i) { run(i); });
  }
  return out;
}

}  // namespace ptec::kernels::optimized

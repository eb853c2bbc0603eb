// mean.out, optimized: an fp32 contiguous tensor's mean over its last dim (a layer or RMS norm's
// statistics, as ONNX exporters before opset 17 write them) sums each row with row_sum
// (vectorized), over the threads when there are enough elements (for_rows). Every other case
// runs the portable kernel, which accumulates in double: the fast path rounds differently, within
// fp32 sums' error.

#include <array>

#include "kernels/optimized/ops/ops.h"
#include "kernels/optimized/row_sum.h"
#include "kernels/optimized/threadpool.h"
#include "kernels/portable/functions.h"

namespace ptec::kernels::optimized {

Tensor& mean_out(KernelRuntimeContext& ctx, const Tensor& self, OptIntList dim, bool keepdim,
                 std::optional<DType> dtype, Tensor& out) {
  const int64_t rank = static_cast<int64_t>(self.dim());
  const bool last =
      rank > 0 && dim.has_value() && dim->size() == 1 && ((*dim)[0] == rank - 1 || (*dim)[0] == -1);
  if (!last || self.dtype() != DType::Float || out.dtype() != DType::Float ||
      (dtype.has_value() && *dtype != DType::Float) || self.size(rank - 1) == 0 ||
      !self.is_contiguous() || !out.is_contiguous()) {
    return kernels::mean_out(ctx, self, dim, keepdim, dtype, out);
  }
  std::array<runtime::SizesType, runtime::kTensorDimensionLimit> sizes{};
  for (int64_t d = 0; d + 1 < rank; ++d) sizes[static_cast<size_t>(d)] = self.sizes()[d];
  sizes[static_cast<size_t>(rank - 1)] = 1;
  const size_t out_rank = static_cast<size_t>(keepdim ? rank : rank - 1);
  if (!resize_out(ctx, "mean.out", out, {sizes.data(), out_rank})) return out;
  const int64_t len = self.size(rank - 1);
  const float* x = self.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  const auto n = static_cast<float>(len);
  for_rows(static_cast<int64_t>(self.numel()) / len, static_cast<int64_t>(self.numel()),
           [&](int64_t r) { y[r] = row_sum(x + r * len, len) / n; });
  return out;
}

}  // namespace ptec::kernels::optimized

// repeat.out: tiles `self` `repeats[d]` times along each dim; `repeats` may be longer than the
// rank (self gets leading size-1 dims), not shorter.

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"

namespace ptec::kernels {

Tensor& repeat_out(KernelRuntimeContext& ctx, const Tensor& self, IntList repeats, Tensor& out) {
  constexpr const char* kOp = "repeat.out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  const size_t rank = repeats.size();
  PTEC_KERNEL_CHECK_MSG(ctx, rank >= self.dim() && rank <= kTensorDimensionLimit, InvalidArgument,
                        out, "%s: %zu repeats for a tensor of rank %zu", kOp, rank, self.dim());
  int64_t in_sizes[kTensorDimensionLimit] = {};
  Shape shape;
  for (size_t d = 0; d < rank; ++d) {
    const size_t offset = rank - self.dim();
    in_sizes[d] = d < offset ? 1 : self.sizes()[d - offset];
    PTEC_KERNEL_CHECK_MSG(ctx, repeats[d] >= 0, InvalidArgument, out, "%s: negative repeat %lld",
                          kOp, static_cast<long long>(repeats[d]));
    shape.push(in_sizes[d] * repeats[d]);
  }
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  const int64_t numel = shape.numel();
  if (numel == 0) return out;
  int64_t in_strides[kTensorDimensionLimit] = {};
  int64_t s = 1;
  for (size_t d = rank; d > 0; --d) {
    in_strides[d - 1] = s;
    s *= in_sizes[d - 1];
  }
  const size_t es = self.element_size();
  const auto* src = static_cast<const uint8_t*>(self.const_data_ptr());
  auto* dst = static_cast<uint8_t*>(out.mutable_data_ptr());
  int64_t idx[kTensorDimensionLimit] = {};
  for (int64_t o = 0; o < numel; ++o) {
    int64_t in = 0;
    for (size_t d = 0; d < rank; ++d) in += (idx[d] % in_sizes[d]) * in_strides[d];
    std::memcpy(dst + static_cast<size_t>(o) * es, src + static_cast<size_t>(in) * es, es);
    for (size_t d = rank; d > 0; --d) {
      if (++idx[d - 1] < shape.sizes[d - 1]) break;
      idx[d - 1] = 0;
    }
  }
  return out;
}

}  // namespace ptec::kernels

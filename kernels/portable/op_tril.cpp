// tril.out and triu.out: the lower / upper triangle (relative to `diagonal`) of the last two dims
// of a tensor of rank >= 2; the other elements become zero. Any supported dtype.

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"

namespace ptec::kernels {
namespace {

Tensor& triangle(KernelRuntimeContext& ctx, const char* op, bool lower, const Tensor& self,
                 int64_t diagonal, Tensor& out) {
  if (!check_contiguous(ctx, op, {&self, &out})) return out;
  if (!check_dtype(ctx, op, out, self.dtype(), "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, self.dim() >= 2, InvalidArgument, out,
                        "%s: input must have at least 2 dims, got %zu", op, self.dim());
  PTEC_KERNEL_CHECK_MSG(ctx, is_supported_dtype(self.dtype()), InvalidArgument, out,
                        "%s: unsupported dtype %s", op, to_string(self.dtype()));
  if (!resize_out(ctx, op, out, self.sizes())) return out;
  const int64_t rows = self.sizes()[self.dim() - 2];
  const int64_t cols = self.sizes()[self.dim() - 1];
  const int64_t matrices =
      rows * cols == 0 ? 0 : static_cast<int64_t>(self.numel()) / (rows * cols);
  const size_t es = self.element_size();
  const auto* src = static_cast<const uint8_t*>(self.const_data_ptr());
  auto* dst = static_cast<uint8_t*>(out.mutable_data_ptr());
  for (int64_t m = 0; m < matrices; ++m) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        const size_t off = static_cast<size_t>((m * rows + i) * cols + j) * es;
        const bool keep = lower ? j - i <= diagonal : j - i >= diagonal;
        if (keep) {
          std::memcpy(dst + off, src + off, es);
        } else {
          std::memset(dst + off, 0, es);
        }
      }
    }
  }
  return out;
}

}  // namespace

Tensor& tril_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t diagonal, Tensor& out) {
  return triangle(ctx, "tril.out", true, self, diagonal, out);
}

Tensor& triu_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t diagonal, Tensor& out) {
  return triangle(ctx, "triu.out", false, self, diagonal, out);
}

}  // namespace ptec::kernels

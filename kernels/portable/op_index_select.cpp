// index_select.out: picks entries of `dim` by a 1-D (or 0-D) index tensor.

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/index_util.h"
#include "kernels/portable/util/reduce.h"

namespace ptec::kernels {

Tensor& index_select_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                         const Tensor& index, Tensor& out) {
  constexpr const char* kOp = "index_select.out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, index.dim() <= 1, InvalidArgument, out,
                        "%s: index must be 0-D or 1-D, got rank %zu", kOp, index.dim());
  size_t d = 0;
  if (!wrap_dim(ctx, kOp, dim, self.dim(), &d)) return out;
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  if (!check_indices(ctx, kOp, index, size, /*allow_negative=*/false)) return out;
  Shape shape = shape_of(self);
  if (self.dim() > 0) shape.sizes[d] = static_cast<SizesType>(index.numel());
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  const DimSplit s = split_at(self, d);
  const size_t es = self.element_size();
  const size_t chunk = static_cast<size_t>(s.inner) * es;
  const auto* src = static_cast<const uint8_t*>(self.const_data_ptr());
  auto* dst = static_cast<uint8_t*>(out.mutable_data_ptr());
  const auto n = static_cast<int64_t>(index.numel());
  for (int64_t o = 0; o < s.outer && chunk > 0; ++o) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t j = index_at(index, i, size);
      std::memcpy(dst + (o * n + i) * chunk, src + (o * s.size + j) * chunk, chunk);
    }
  }
  return out;
}

}  // namespace ptec::kernels

// split_with_sizes_copy.out: copies consecutive chunks of `dim` into the out tensors.
//
// Note: the out list arrives as copies of the runtime's Tensor values; resizing a copy updates
// the shared sizes/strides arrays but not the original Tensor's cached element count, so
// dynamic-shape outs rely on the runtime re-reading sizes.

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/reduce.h"

namespace ptec::kernels {

void split_with_sizes_copy_out(KernelRuntimeContext& ctx, const Tensor& self, IntList split_sizes,
                               int64_t dim, TensorList out) {
  constexpr const char* kOp = "split_with_sizes_copy.out";
  if (!check_contiguous(ctx, kOp, {&self})) return;
  PTEC_KERNEL_CHECK_MSG(ctx, self.dim() > 0, InvalidArgument, ,
                        "%s: cannot split a zero-dimensional tensor", kOp);
  size_t d = 0;
  if (!wrap_dim(ctx, kOp, dim, self.dim(), &d)) return;
  PTEC_KERNEL_CHECK_MSG(ctx, split_sizes.size() == out.size(), InvalidArgument, ,
                        "%s: %zu split sizes but %zu out tensors", kOp, split_sizes.size(),
                        out.size());
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    PTEC_KERNEL_CHECK_MSG(ctx, s >= 0, InvalidArgument, , "%s: negative split size %lld", kOp,
                          static_cast<long long>(s));
    total += s;
  }
  PTEC_KERNEL_CHECK_MSG(ctx, total == self.sizes()[d], InvalidArgument, ,
                        "%s: split sizes add up to %lld, dim %zu has size %d", kOp,
                        static_cast<long long>(total), d, static_cast<int>(self.sizes()[d]));
  for (size_t k = 0; k < out.size(); ++k) {
    Tensor t = out[k];
    if (!check_contiguous(ctx, kOp, {&t})) return;
    if (!check_dtype(ctx, kOp, t, self.dtype(), "out tensor")) return;
    Shape shape = shape_of(self);
    shape.sizes[d] = static_cast<SizesType>(split_sizes[k]);
    if (!resize_out(ctx, kOp, t, shape.span(), "out tensor")) return;
  }
  const DimSplit s = split_at(self, d);
  const size_t es = self.element_size();
  const auto* src = static_cast<const uint8_t*>(self.const_data_ptr());
  int64_t offset = 0;
  for (size_t k = 0; k < out.size(); ++k) {
    auto* dst = static_cast<uint8_t*>(out[k].mutable_data_ptr());
    const int64_t chunk = split_sizes[k] * s.inner;
    for (int64_t o = 0; o < s.outer && chunk > 0; ++o) {
      std::memcpy(dst + o * chunk * es, src + (o * s.size + offset) * s.inner * es, chunk * es);
    }
    offset += split_sizes[k];
  }
}

}  // namespace ptec::kernels

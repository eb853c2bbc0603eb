// flip.out: reverses the order of elements along each dim of `dims` (wrapped; no repeats).

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/strided.h"

namespace ptec::kernels {

Tensor& flip_out(KernelRuntimeContext& ctx, const Tensor& self, IntList dims, Tensor& out) {
  constexpr const char* kOp = "flip.out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  bool flipped[kTensorDimensionLimit] = {};
  for (int64_t dim : dims) {
    size_t d = 0;
    if (!wrap_dim(ctx, kOp, dim, self.dim(), &d)) return out;
    PTEC_KERNEL_CHECK_MSG(ctx, self.dim() == 0 || !flipped[d], InvalidArgument, out,
                          "%s: dim %zu appears more than once", kOp, d);
    flipped[d] = true;
  }
  if (!resize_out(ctx, kOp, out, self.sizes())) return out;
  // Read the input through a view with negative strides on the flipped dims.
  int64_t strides[kTensorDimensionLimit] = {};
  contiguous_strides(self, strides);
  StridedView view;
  int64_t start = 0;
  for (size_t d = 0; d < self.dim(); ++d) {
    const int64_t size = self.sizes()[d];
    if (flipped[d] && size > 0) {
      start += (size - 1) * strides[d];
      view.add_dim(size, -strides[d]);
    } else {
      view.add_dim(size, strides[d]);
    }
  }
  const size_t es = self.element_size();
  const auto* src = static_cast<const uint8_t*>(self.const_data_ptr());
  auto* dst = static_cast<uint8_t*>(out.mutable_data_ptr());
  int64_t o = 0;
  view.for_each([&](int64_t off) {
    std::memcpy(dst + static_cast<size_t>(o++) * es, src + static_cast<size_t>(start + off) * es,
                es);
  });
  return out;
}

}  // namespace ptec::kernels

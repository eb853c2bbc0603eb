// view_copy.out: the same elements under a new shape; one size may be -1 (inferred).

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {

Tensor& view_copy_out(KernelRuntimeContext& ctx, const Tensor& self, IntList size, Tensor& out) {
  constexpr const char* kOp = "view_copy.out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  Shape shape;
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      PTEC_KERNEL_CHECK_MSG(ctx, infer < 0, InvalidArgument, out, "%s: only one dim can be -1",
                            kOp);
      infer = static_cast<int>(i);
    } else {
      PTEC_KERNEL_CHECK_MSG(ctx, size[i] >= 0, InvalidArgument, out, "%s: invalid size %lld", kOp,
                            static_cast<long long>(size[i]));
      known *= size[i];
    }
    PTEC_KERNEL_CHECK_MSG(ctx, shape.push(size[i]), InvalidArgument, out, "%s: too many dims", kOp);
  }
  const auto numel = static_cast<int64_t>(self.numel());
  if (infer >= 0) {
    PTEC_KERNEL_CHECK_MSG(ctx, known != 0 && numel % known == 0, InvalidArgument, out,
                          "%s: cannot infer the -1 size for %lld elements", kOp,
                          static_cast<long long>(numel));
    shape.sizes[infer] = static_cast<SizesType>(numel / known);
  }
  PTEC_KERNEL_CHECK_MSG(ctx, shape.numel() == numel, InvalidArgument, out,
                        "%s: shape has %lld elements, input has %lld", kOp,
                        static_cast<long long>(shape.numel()), static_cast<long long>(numel));
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  if (self.nbytes() > 0 && out.mutable_data_ptr() != self.const_data_ptr()) {
    std::memcpy(out.mutable_data_ptr(), self.const_data_ptr(), self.nbytes());
  }
  return out;
}

}  // namespace ptec::kernels

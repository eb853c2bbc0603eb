// index.Tensor_out: advanced indexing self[indices] with a Tensor?[] of Long/Int index tensors
// (None keeps a dim whole); see util/advanced_index.h for the result's shape. Copies bytes:
// every storage dtype.

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/advanced_index.h"
#include "kernels/portable/util/dtype_util.h"

namespace ptec::kernels {

Tensor& index_tensor_out(KernelRuntimeContext& ctx, const Tensor& self,
                         Span<const OptTensor> indices, Tensor& out) {
  constexpr const char* kOp = "index.Tensor_out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, is_accepted_dtype(self.dtype(), kReducedFloat | kBarebonesUnsigned),
                        InvalidArgument, out, "%s: unsupported dtype %s", kOp,
                        to_string(self.dtype()));
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  AdvancedIndex ai;
  if (!ai.init(ctx, kOp, self, indices)) return out;
  if (!resize_out(ctx, kOp, out, ai.result().span())) return out;
  const size_t es = self.element_size();
  const auto* src = static_cast<const uint8_t*>(self.const_data_ptr());
  auto* dst = static_cast<uint8_t*>(out.mutable_data_ptr());
  ai.for_each([&](int64_t r, int64_t off) {
    std::memcpy(dst + r * static_cast<int64_t>(es), src + off * static_cast<int64_t>(es), es);
  });
  return out;
}

}  // namespace ptec::kernels

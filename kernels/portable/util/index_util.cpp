#include "kernels/portable/util/index_util.h"

namespace ptec::kernels {

bool check_indices(KernelRuntimeContext& ctx, const char* op, const Tensor& index, int64_t size,
                   bool allow_negative) {
  if (!check_contiguous(ctx, op, {&index})) return false;
  PTEC_KERNEL_CHECK_MSG(ctx, index.dtype() == DType::Long || index.dtype() == DType::Int,
                        InvalidArgument, false, "%s: indices must be int64 or int32, got %s", op,
                        to_string(index.dtype()));
  const int64_t lo = allow_negative ? -size : 0;
  for (size_t i = 0; i < index.numel(); ++i) {
    const int64_t v = index.dtype() == DType::Long ? index.const_data_ptr<int64_t>()[i]
                                                   : index.const_data_ptr<int32_t>()[i];
    PTEC_KERNEL_CHECK_MSG(ctx, v >= lo && v < size, InvalidArgument, false,
                          "%s: index %lld is out of range for size %lld", op,
                          static_cast<long long>(v), static_cast<long long>(size));
  }
  return true;
}

}  // namespace ptec::kernels

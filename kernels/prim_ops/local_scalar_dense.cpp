// aten::_local_scalar_dense: the single element of a tensor (torch's .item()) as a Scalar EValue:
// Bool for a bool tensor, Int for an integer one, Double for a floating one.

#include "kernels/prim_ops/prim_op_util.h"
#include "runtime/core/bfloat16.h"
#include "runtime/core/half.h"

namespace ptec::kernels::prim {

void local_scalar_dense(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack) {
  constexpr const char* kOp = "aten::_local_scalar_dense";
  if (!check_arity(ctx, kOp, stack, 2)) return;
  PTEC_KERNEL_CHECK_MSG(ctx, stack[0]->is_tensor(), InvalidArgument, , "%s: expected a Tensor",
                        kOp);
  const runtime::Tensor& t = stack[0]->to_tensor();
  PTEC_KERNEL_CHECK_MSG(ctx, t.numel() == 1, InvalidArgument, ,
                        "%s: expected a tensor of one element, got %lld", kOp,
                        static_cast<long long>(t.numel()));
  auto as = [&]<typename T>() { return t.const_data_ptr<T>()[0]; };
  switch (t.scalar_type()) {
    case DType::Bool: *stack[1] = runtime::EValue(as.operator()<bool>()); return;
    case DType::Byte: *stack[1] = runtime::EValue(int64_t{as.operator()<uint8_t>()}); return;
    case DType::Char: *stack[1] = runtime::EValue(int64_t{as.operator()<int8_t>()}); return;
    case DType::Short: *stack[1] = runtime::EValue(int64_t{as.operator()<int16_t>()}); return;
    case DType::Int: *stack[1] = runtime::EValue(int64_t{as.operator()<int32_t>()}); return;
    case DType::Long: *stack[1] = runtime::EValue(as.operator()<int64_t>()); return;
    case DType::Float: *stack[1] = runtime::EValue(double{as.operator()<float>()}); return;
    case DType::Double: *stack[1] = runtime::EValue(as.operator()<double>()); return;
    case DType::Half:
      *stack[1] =
          runtime::EValue(static_cast<double>(static_cast<float>(as.operator()<runtime::Half>())));
      return;
    case DType::BFloat16:
      *stack[1] = runtime::EValue(
          static_cast<double>(static_cast<float>(as.operator()<runtime::BFloat16>())));
      return;
    default: break;
  }
  PTEC_KERNEL_CHECK_MSG(ctx, false, InvalidArgument, , "%s: unsupported dtype", kOp);
}

}  // namespace ptec::kernels::prim

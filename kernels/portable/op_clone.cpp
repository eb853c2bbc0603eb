// clone.out and _to_copy.out: element-wise copies, _to_copy converting to out's dtype.

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/elementwise.h"

namespace ptec::kernels {
namespace {

// c10::MemoryFormat: Contiguous = 0, Preserve = 1 keep the default dim order here.
bool check_memory_format(KernelRuntimeContext& ctx, const char* op,
                         const std::optional<int64_t>& memory_format) {
  PTEC_KERNEL_CHECK_MSG(ctx, !memory_format || *memory_format == 0 || *memory_format == 1,
                        InvalidArgument, false,
                        "%s: only contiguous or preserve memory_format is supported, got %lld", op,
                        static_cast<long long>(memory_format.value_or(0)));
  return true;
}

}  // namespace

Tensor& clone_out(KernelRuntimeContext& ctx, const Tensor& self,
                  std::optional<int64_t> memory_format, Tensor& out) {
  constexpr const char* kOp = "clone.out";
  if (!check_memory_format(ctx, kOp, memory_format)) return out;
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  if (!resize_out(ctx, kOp, out, self.sizes())) return out;
  if (self.nbytes() > 0 && out.mutable_data_ptr() != self.const_data_ptr()) {
    std::memcpy(out.mutable_data_ptr(), self.const_data_ptr(), self.nbytes());
  }
  return out;
}

Tensor& to_copy_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<DType> dtype,
                    std::optional<int64_t> layout, std::optional<int64_t> device,
                    std::optional<bool> pin_memory, bool non_blocking,
                    std::optional<int64_t> memory_format, Tensor& out) {
  (void)device;  // host memory only
  (void)pin_memory;
  (void)non_blocking;
  constexpr const char* kOp = "_to_copy.out";
  PTEC_KERNEL_CHECK_MSG(ctx, !layout || *layout == 0, InvalidArgument, out,
                        "%s: only the strided layout is supported", kOp);
  if (!check_memory_format(ctx, kOp, memory_format)) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, !dtype || *dtype == out.dtype(), InvalidArgument, out,
                        "%s: dtype %s does not match the out dtype %s", kOp,
                        dtype ? to_string(*dtype) : "", to_string(out.dtype()));
  // Any conversion among the storage dtypes is allowed: pass the out dtype as the "common" type.
  if (!unary_op_prologue(ctx, kOp, self, out, out.dtype(), kReducedFloat | kBarebonesUnsigned)) {
    return out;
  }
  dispatch_storage(out.dtype(), [&](auto tag) {
    using CT = decltype(tag);
    apply_unary<CT>(ctx, kOp, self, out, [](CT x) { return x; });
  });
  return out;
}

}  // namespace ptec::kernels

// argmax.out and argmin.out: the index (Long) of the first maximum/minimum along `dim`, or over
// the flattened input when dim is None; NaN counts as the extreme (the first NaN wins).

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/reduce.h"

namespace ptec::kernels {
namespace {

Tensor& arg_reduce(KernelRuntimeContext& ctx, const char* op, bool is_max, const Tensor& self,
                   const std::optional<int64_t>& dim, bool keepdim, Tensor& out) {
  if (!check_contiguous(ctx, op, {&self, &out})) return out;
  if (!check_dtype(ctx, op, out, DType::Long, "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, is_supported_dtype(self.dtype()) && self.dtype() != DType::Bool,
                        InvalidArgument, out, "%s: unsupported dtype %s", op,
                        to_string(self.dtype()));
  ReducePlan plan;
  const int64_t d = dim.value_or(0);
  const std::optional<Span<const int64_t>> dims =
      dim ? std::optional<Span<const int64_t>>(Span<const int64_t>(&d, 1)) : std::nullopt;
  if (!make_reduce_plan(ctx, op, self, dims, keepdim, &plan)) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, plan.reduced_numel > 0 || plan.outer.numel() == 0, InvalidArgument,
                        out, "%s: cannot reduce over a zero-size dim", op);
  if (!resize_out(ctx, op, out, plan.out_shape.span())) return out;
  dispatch_real(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = self.const_data_ptr<T>();
    int64_t* o = out.mutable_data_ptr<int64_t>();
    plan.outer.for_each([&](int64_t base) {
      int64_t best_index = 0;
      int64_t j = 0;
      bool have = false;
      T best{};
      plan.inner.for_each([&](int64_t off) {
        const T v = in[base + off];
        if (!have) {
          best = v;
          best_index = j;
          have = true;
        } else if (!is_nan(best) && (is_nan(v) || (is_max ? v > best : v < best))) {
          best = v;
          best_index = j;
        }
        ++j;
      });
      *o++ = best_index;
    });
  });
  return out;
}

}  // namespace

Tensor& argmax_out(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<int64_t>& dim,
                   bool keepdim, Tensor& out) {
  return arg_reduce(ctx, "argmax.out", true, self, dim, keepdim, out);
}

Tensor& argmin_out(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<int64_t>& dim,
                   bool keepdim, Tensor& out) {
  return arg_reduce(ctx, "argmin.out", false, self, dim, keepdim, out);
}

}  // namespace ptec::kernels

// native_group_norm.out, optimized for fp32 contiguous tensors (group_norm.h: float statistics in
// 16 lanes, where the portable kernel accumulates in double one element at a time; groups in
// parallel). Everything else runs the portable kernel.

#include "kernels/optimized/group_norm.h"
#include "kernels/optimized/ops/ops.h"
#include "kernels/portable/functions.h"

namespace ptec::kernels::optimized {
namespace {

bool float_contiguous(const Tensor& t) { return t.dtype() == DType::Float && t.is_contiguous(); }

}  // namespace

std::tuple<Tensor&, Tensor&, Tensor&> native_group_norm_out(
    KernelRuntimeContext& ctx, const Tensor& input, const OptTensor& weight, const OptTensor& bias,
    int64_t n, int64_t c, int64_t hxw, int64_t group, double eps, Tensor& out0, Tensor& out1,
    Tensor& out2) {
  auto portable = [&]() {
    return kernels::native_group_norm_out(ctx, input, weight, bias, n, c, hxw, group, eps, out0,
                                          out1, out2);
  };
  const bool shapes = input.dim() >= 2 && n >= 0 && c > 0 && hxw >= 0 && group > 0 &&
                      c % group == 0 && input.sizes()[0] == n && input.sizes()[1] == c &&
                      static_cast<int64_t>(input.numel()) == n * c * hxw;
  bool params = true;
  for (const OptTensor* p : {&weight, &bias}) {
    if (p->has_value()) params &= float_contiguous(**p) && (*p)->dim() == 1 && (*p)->size(0) == c;
  }
  if (!shapes || !params || !float_contiguous(input) || !float_contiguous(out0) ||
      !float_contiguous(out1) || !float_contiguous(out2)) {
    return portable();
  }
  std::tuple<Tensor&, Tensor&, Tensor&> ret{out0, out1, out2};
  constexpr const char* kOp = "native_group_norm.out";
  const SizesType stat[2] = {static_cast<SizesType>(n), static_cast<SizesType>(group)};
  if (!resize_out(ctx, kOp, out0, input.sizes(), "out0") ||
      !resize_out(ctx, kOp, out1, stat, "out1") || !resize_out(ctx, kOp, out2, stat, "out2")) {
    return ret;
  }
  group_norm(input.const_data_ptr<float>(), weight ? weight->const_data_ptr<float>() : nullptr,
             bias ? bias->const_data_ptr<float>() : nullptr, n, c, hxw, group, eps,
             out0.mutable_data_ptr<float>(), out1.mutable_data_ptr<float>(),
             out2.mutable_data_ptr<float>());
  return ret;
}

}  // namespace ptec::kernels::optimized

// convolution.out, optimized: fp32 2-D forward convolutions run on kernels/optimized/conv2d.h
// (packed GEMM / direct depthwise) with scratch from the temp allocator; every other case
// (other dtypes or ranks, transposed, no temp allocator) runs the portable kernel.

#include "kernels/optimized/conv2d.h"
#include "kernels/optimized/ops/ops.h"
#include "kernels/portable/functions.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels::optimized {

Tensor& convolution_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                        const OptTensor& bias, IntList stride, IntList padding, IntList dilation,
                        bool transposed, IntList output_padding, int64_t groups, Tensor& out) {
  auto portable = [&]() -> Tensor& {
    return kernels::convolution_out(ctx, input, weight, bias, stride, padding, dilation, transposed,
                                    output_padding, groups, out);
  };
  const bool floats = input.dtype() == DType::Float && weight.dtype() == DType::Float &&
                      out.dtype() == DType::Float &&
                      (!bias.has_value() || bias->dtype() == DType::Float);
  if (!floats || transposed || input.dim() != 4 || weight.dim() != 4 || stride.size() != 2 ||
      padding.size() != 2 || dilation.size() != 2 || groups <= 0 ||
      (bias.has_value() && (bias->dim() != 1 || bias->size(0) != weight.size(0)))) {
    return portable();
  }
  Conv2dShape s;
  s.n = input.size(0);
  s.c = input.size(1);
  s.h = input.size(2);
  s.w = input.size(3);
  s.oc = weight.size(0);
  s.kh = weight.size(2);
  s.kw = weight.size(3);
  s.sh = stride[0];
  s.sw = stride[1];
  s.ph = padding[0];
  s.pw = padding[1];
  s.dh = dilation[0];
  s.dw = dilation[1];
  s.groups = groups;
  if (!s.valid() || weight.size(1) != s.c_per_group()) return portable();  // it reports the error
  const SizesType out_sizes[4] = {static_cast<SizesType>(s.n), static_cast<SizesType>(s.oc),
                                  static_cast<SizesType>(s.oh()), static_cast<SizesType>(s.ow())};
  if (!check_contiguous(ctx, "convolution.out", {&input, &weight, &out})) return out;
  if (!resize_out(ctx, "convolution.out", out, out_sizes)) return out;
  const size_t scratch_bytes = conv2d_scratch_bytes(s, false);
  void* scratch = scratch_bytes > 0 ? ctx.allocate_temp(scratch_bytes, 64) : nullptr;
  if (scratch_bytes > 0 && scratch == nullptr) return portable();
  GemmEpilogue e;
  e.bias = bias.has_value() ? bias->const_data_ptr<float>() : nullptr;
  if (!conv2d(s, input.const_data_ptr<float>(), weight.const_data_ptr<float>(), nullptr, e,
              out.mutable_data_ptr<float>(), scratch)) {
    return portable();
  }
  return out;
}

}  // namespace ptec::kernels::optimized

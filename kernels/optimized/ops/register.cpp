#include "kernels/optimized/ops/register.h"

#include <cstring>

#include "kernels/optimized/ops/ops.h"
#include "kernels/portable/register.h"
#include "runtime/kernel/boxing.h"

namespace ptec::kernels {
namespace {

const runtime::Kernel kOptimizedKernels[] = {
    PTEC_KERNEL("aten::convolution.out", optimized::convolution_out),
    PTEC_KERNEL("aten::mm.out", optimized::mm_out),
    PTEC_KERNEL("aten::bmm.out", optimized::bmm_out),
    PTEC_KERNEL("aten::addmm.out", optimized::addmm_out),
    PTEC_KERNEL("aten::native_group_norm.out", optimized::native_group_norm_out),
    PTEC_KERNEL("aten::_softmax.out", optimized::softmax_out),
    PTEC_KERNEL("aten::erf.out", optimized::erf_out),
    PTEC_KERNEL("aten::sigmoid.out", optimized::sigmoid_out),
    PTEC_KERNEL("aten::tanh.out", optimized::tanh_out),
    PTEC_KERNEL("aten::gelu.out", optimized::gelu_out),
    PTEC_KERNEL("aten::mean.out", optimized::mean_out),
    PTEC_KERNEL("aten::pow.Tensor_Scalar_out", optimized::pow_tensor_scalar_out),
    PTEC_KERNEL("aten::upsample_bilinear2d.vec_out", optimized::upsample_bilinear2d_vec_out),
    PTEC_KERNEL("aten::upsample_nearest2d.vec_out", optimized::upsample_nearest2d_vec_out),
};

bool overridden(const char* name) {
  for (const runtime::Kernel& k : kOptimizedKernels) {
    if (std::strcmp(k.name, name) == 0) return true;
  }
  return false;
}

Error register_all() {
  // The optimized kernels first, then the portable kernels they do not replace (a fixed table:
  // no heap).
  static runtime::Kernel table[runtime::kMaxRegisteredKernels];
  size_t count = 0;
  for (const runtime::Kernel& k : kOptimizedKernels) table[count++] = k;
  for (const runtime::Kernel& k : portable_kernels()) {
    if (overridden(k.name)) continue;
    if (count == runtime::kMaxRegisteredKernels) return Error::OutOfResources;
    table[count++] = k;
  }
  return runtime::register_kernels({table, count});
}

}  // namespace

Span<const runtime::Kernel> optimized_kernels() { return kOptimizedKernels; }

Error register_optimized_kernels() {
  static const Error result = register_all();
  return result;
}

}  // namespace ptec::kernels

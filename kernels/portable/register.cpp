#include "kernels/portable/register.h"

#include "kernels/portable/functions.h"
#include "runtime/kernel/boxing.h"

namespace ptec::kernels {
namespace {

// The kernel list is data: one row per registered operator name.
const runtime::Kernel kPortableKernels[] = {
    // Element-wise arithmetic.
    PTEC_KERNEL("aten::add.out", add_out),
    PTEC_KERNEL("aten::add.Scalar_out", add_scalar_out),
    PTEC_KERNEL("aten::sub.out", sub_out),
    PTEC_KERNEL("aten::sub.Scalar_out", sub_scalar_out),
    PTEC_KERNEL("aten::rsub.Scalar_out", rsub_scalar_out),
    PTEC_KERNEL("aten::mul.out", mul_out),
    PTEC_KERNEL("aten::mul.Scalar_out", mul_scalar_out),
    PTEC_KERNEL("aten::div.out", div_out),
    PTEC_KERNEL("aten::div.Scalar_out", div_scalar_out),
    // Activations.
    PTEC_KERNEL("aten::relu.out", relu_out),
    PTEC_KERNEL("aten::sigmoid.out", sigmoid_out),
    PTEC_KERNEL("aten::clamp.out", clamp_out),
    PTEC_KERNEL("aten::hardtanh.out", hardtanh_out),
    // Reductions.
    PTEC_KERNEL("aten::sum.IntList_out", sum_dim_out),
    PTEC_KERNEL("aten::max.dim_max", max_dim_max),
};

}  // namespace

Span<const runtime::Kernel> portable_kernels() { return kPortableKernels; }

Error register_portable_kernels() {
  static const Error result = runtime::register_kernels(portable_kernels());
  return result;
}

}  // namespace ptec::kernels

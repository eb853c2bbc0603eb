#include "kernels/portable/register.h"

#include "kernels/portable/functions.h"
#include "runtime/kernel/boxing.h"

namespace ptec::kernels {
namespace {

// The kernel list is data: one row per registered operator name.
const runtime::Kernel kPortableKernels[] = {
    // Element-wise arithmetic.
    PTEC_KERNEL("aten::add.out", add_out),
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

#pragma once

// The portable kernels' unboxed entry points (ExecuTorch's NativeFunctions.h). Each takes the
// KernelRuntimeContext, then the ATen out-variant schema's arguments in schema order, out tensors
// last (see /work/shared/OPERATORS.md). A kernel reports bad arguments by logging a message that
// names the op and failing the context with InvalidArgument; it never throws or aborts.
// Tensors must use the default (contiguous) dim order. Half and BFloat16 are not supported.

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>

#include "core/dtype.h"
#include "core/span.h"
#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace ptec::kernels {

using runtime::KernelRuntimeContext;
using runtime::Scalar;
using runtime::Tensor;
using OptTensor = std::optional<Tensor>;
using OptScalar = std::optional<Scalar>;
using IntList = Span<const int64_t>;
using OptIntList = std::optional<Span<const int64_t>>;
using TensorList = Span<const Tensor>;

// ---- Element-wise arithmetic (NumPy broadcasting, ATen type promotion) ----
/// add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out);

/// add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
Tensor& add_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, Tensor& out);
/// sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
Tensor& sub_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out);
/// sub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
Tensor& sub_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, Tensor& out);
/// rsub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out):
/// other - alpha * self.
Tensor& rsub_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                        const Scalar& alpha, Tensor& out);
/// mul.out(Tensor self, Tensor other, *, Tensor(a!) out)
Tensor& mul_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
/// mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
Tensor& mul_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out);
/// div.out(Tensor self, Tensor other, *, Tensor(a!) out): true division.
Tensor& div_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
/// div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
Tensor& div_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out);

// ---- Activations ----
/// relu.out(Tensor self, *, Tensor(a!) out)
Tensor& relu_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
/// sigmoid.out(Tensor self, *, Tensor(a!) out)
Tensor& sigmoid_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
/// clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)
Tensor& clamp_out(KernelRuntimeContext& ctx, const Tensor& self, const OptScalar& min,
                  const OptScalar& max, Tensor& out);
/// hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out)
Tensor& hardtanh_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& min_val,
                     const Scalar& max_val, Tensor& out);

// ---- Reductions ----
/// sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
/// Tensor(a!) out)
Tensor& sum_dim_out(KernelRuntimeContext& ctx, const Tensor& self, OptIntList dim, bool keepdim,
                    std::optional<DType> dtype, Tensor& out);
/// max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max,
/// Tensor(b!) max_values): `max` receives the values, `max_values` the int64 indices.
std::tuple<Tensor&, Tensor&> max_dim_max(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                                         bool keepdim, Tensor& max, Tensor& max_values);

}  // namespace ptec::kernels

#pragma once

// ATen out-variant kernels of the optimized library: the same schemas as the portable kernels
// (kernels/portable/functions.h), faster for the cases they specialize (fp32, contiguous), and
// falling back to the portable implementation for everything else, so they accept exactly what
// the portable kernels accept.

#include <string_view>

#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels::optimized {

Tensor& convolution_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                        const OptTensor& bias, IntList stride, IntList padding, IntList dilation,
                        bool transposed, IntList output_padding, int64_t groups, Tensor& out);
Tensor& mm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
Tensor& bmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
Tensor& addmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat1,
                  const Tensor& mat2, const Scalar& beta, const Scalar& alpha, Tensor& out);
std::tuple<Tensor&, Tensor&, Tensor&> native_group_norm_out(
    KernelRuntimeContext& ctx, const Tensor& input, const OptTensor& weight, const OptTensor& bias,
    int64_t n, int64_t c, int64_t hxw, int64_t group, double eps, Tensor& out0, Tensor& out1,
    Tensor& out2);
Tensor& erf_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& sigmoid_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& tanh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& gelu_out(KernelRuntimeContext& ctx, const Tensor& self, std::string_view approximate,
                 Tensor& out);
Tensor& mean_out(KernelRuntimeContext& ctx, const Tensor& self, OptIntList dim, bool keepdim,
                 std::optional<DType> dtype, Tensor& out);
Tensor& pow_tensor_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& exponent,
                              Tensor& out);
Tensor& softmax_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                    Tensor& out);
Tensor& upsample_bilinear2d_vec_out(KernelRuntimeContext& ctx, const Tensor& input,
                                    const OptIntList& output_size, bool align_corners,
                                    const std::optional<Span<const double>>& scale_factors,
                                    Tensor& out);
Tensor& upsample_nearest2d_vec_out(KernelRuntimeContext& ctx, const Tensor& input,
                                   const OptIntList& output_size,
                                   const std::optional<Span<const double>>& scale_factors,
                                   Tensor& out);

}  // namespace ptec::kernels::optimized

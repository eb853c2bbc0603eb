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
#include "kernels/portable/util/kernel_util.h"
#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace ptec::kernels {

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
/// tanh.out / exp.out / log.out / sqrt.out / rsqrt.out / reciprocal.out / erf.out
/// (Tensor self, *, Tensor(a!) out): integral inputs compute in Float.
Tensor& tanh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& exp_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& log_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& sqrt_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& rsqrt_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& reciprocal_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& erf_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
/// neg.out / abs.out (Tensor self, *, Tensor(a!) out)
Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& abs_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
/// gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out)
Tensor& gelu_out(KernelRuntimeContext& ctx, const Tensor& self, std::string_view approximate,
                 Tensor& out);
/// leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out)
Tensor& leaky_relu_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& negative_slope,
                       Tensor& out);
/// elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *,
/// Tensor(a!) out)
Tensor& elu_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& alpha,
                const Scalar& scale, const Scalar& input_scale, Tensor& out);
/// pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out)
Tensor& pow_tensor_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& exponent,
                              Tensor& out);
/// pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out)
Tensor& pow_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& exponent,
                              Tensor& out);
/// maximum.out / minimum.out (Tensor self, Tensor other, *, Tensor(a!) out)
Tensor& maximum_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                    Tensor& out);
Tensor& minimum_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                    Tensor& out);

// ---- Comparisons and logic (out is Bool, or any dtype a bool converts to) ----
/// {eq,ne,lt,le,gt,ge}.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) and
/// {eq,ne,lt,le,gt,ge}.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
#define PTEC_DECLARE_COMPARE(name)                                                              \
  Tensor& name##_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, \
                            Tensor& out);                                                       \
  Tensor& name##_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, \
                            Tensor& out);
PTEC_DECLARE_COMPARE(eq)
PTEC_DECLARE_COMPARE(ne)
PTEC_DECLARE_COMPARE(lt)
PTEC_DECLARE_COMPARE(le)
PTEC_DECLARE_COMPARE(gt)
PTEC_DECLARE_COMPARE(ge)
#undef PTEC_DECLARE_COMPARE
/// logical_not.out(Tensor self, *, Tensor(a!) out)
Tensor& logical_not_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);

// ---- Reductions ----
/// sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
/// Tensor(a!) out)
Tensor& sum_dim_out(KernelRuntimeContext& ctx, const Tensor& self, OptIntList dim, bool keepdim,
                    std::optional<DType> dtype, Tensor& out);
/// max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max,
/// Tensor(b!) max_values): `max` receives the values, `max_values` the int64 indices.
std::tuple<Tensor&, Tensor&> max_dim_max(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                                         bool keepdim, Tensor& max, Tensor& max_values);
/// mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
/// Tensor(a!) out)
Tensor& mean_out(KernelRuntimeContext& ctx, const Tensor& self, OptIntList dim, bool keepdim,
                 std::optional<DType> dtype, Tensor& out);
/// amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
Tensor& amax_out(KernelRuntimeContext& ctx, const Tensor& self, IntList dim, bool keepdim,
                 Tensor& out);
/// _softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
Tensor& softmax_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                    Tensor& out);
/// _log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
Tensor& log_softmax_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                        bool half_to_float, Tensor& out);

// ---- Convolution, normalization, pooling ----
/// convolution.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding,
/// int[] dilation, bool transposed, int[] output_padding, int groups, *, Tensor(a!) out)
Tensor& convolution_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                        const OptTensor& bias, IntList stride, IntList padding, IntList dilation,
                        bool transposed, IntList output_padding, int64_t groups, Tensor& out);
/// _native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias,
/// Tensor running_mean, Tensor running_var, float momentum, float eps, *, Tensor(a!) out0,
/// Tensor(b!) out1, Tensor(c!) out2)
std::tuple<Tensor&, Tensor&, Tensor&> native_batch_norm_no_training_out(
    KernelRuntimeContext& ctx, const Tensor& input, const OptTensor& weight, const OptTensor& bias,
    const Tensor& running_mean, const Tensor& running_var, double momentum, double eps,
    Tensor& out0, Tensor& out1, Tensor& out2);
/// max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
/// int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
/// Tensor(b!) indices)
std::tuple<Tensor&, Tensor&> max_pool2d_with_indices_out(KernelRuntimeContext& ctx,
                                                         const Tensor& self, IntList kernel_size,
                                                         IntList stride, IntList padding,
                                                         IntList dilation, bool ceil_mode,
                                                         Tensor& out, Tensor& indices);
/// avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
/// bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
/// Tensor(a!) out)
Tensor& avg_pool2d_out(KernelRuntimeContext& ctx, const Tensor& self, IntList kernel_size,
                       IntList stride, IntList padding, bool ceil_mode, bool count_include_pad,
                       std::optional<int64_t> divisor_override, Tensor& out);
/// max_pool3d_with_indices.out(Tensor self, int[3] kernel_size, int[3] stride=[],
/// int[3] padding=0, int[3] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
/// Tensor(b!) indices)
std::tuple<Tensor&, Tensor&> max_pool3d_with_indices_out(KernelRuntimeContext& ctx,
                                                         const Tensor& self, IntList kernel_size,
                                                         IntList stride, IntList padding,
                                                         IntList dilation, bool ceil_mode,
                                                         Tensor& out, Tensor& indices);
/// avg_pool3d.out(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0,
/// bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
/// Tensor(a!) out)
Tensor& avg_pool3d_out(KernelRuntimeContext& ctx, const Tensor& self, IntList kernel_size,
                       IntList stride, IntList padding, bool ceil_mode, bool count_include_pad,
                       std::optional<int64_t> divisor_override, Tensor& out);
/// _adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out)
Tensor& adaptive_avg_pool2d_out(KernelRuntimeContext& ctx, const Tensor& self, IntList output_size,
                                Tensor& out);
/// native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias,
/// float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
std::tuple<Tensor&, Tensor&, Tensor&> native_layer_norm_out(
    KernelRuntimeContext& ctx, const Tensor& input, IntList normalized_shape,
    const OptTensor& weight, const OptTensor& bias, double eps, Tensor& out0, Tensor& out1,
    Tensor& out2);
/// native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
/// SymInt HxW, int group, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
std::tuple<Tensor&, Tensor&, Tensor&> native_group_norm_out(
    KernelRuntimeContext& ctx, const Tensor& input, const OptTensor& weight, const OptTensor& bias,
    int64_t n, int64_t c, int64_t hxw, int64_t group, double eps, Tensor& out0, Tensor& out1,
    Tensor& out2);
/// upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors, *,
/// Tensor(a!) out)
Tensor& upsample_nearest2d_vec_out(KernelRuntimeContext& ctx, const Tensor& input,
                                   const OptIntList& output_size,
                                   const std::optional<Span<const double>>& scale_factors,
                                   Tensor& out);
/// grid_sampler_2d.out(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
///                     bool align_corners, *, Tensor(a!) out)
Tensor& grid_sampler_2d_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& grid,
                            int64_t interpolation_mode, int64_t padding_mode, bool align_corners,
                            Tensor& out);
/// upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners,
/// float[]? scale_factors, *, Tensor(a!) out)
Tensor& upsample_bilinear2d_vec_out(KernelRuntimeContext& ctx, const Tensor& input,
                                    const OptIntList& output_size, bool align_corners,
                                    const std::optional<Span<const double>>& scale_factors,
                                    Tensor& out);

// ---- Linear algebra ----
/// mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
Tensor& mm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
/// bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
Tensor& bmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
/// addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
/// Tensor(a!) out)
Tensor& addmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat1,
                  const Tensor& mat2, const Scalar& beta, const Scalar& alpha, Tensor& out);

// ---- Shape and copy ops ----
/// view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out)
Tensor& view_copy_out(KernelRuntimeContext& ctx, const Tensor& self, IntList size, Tensor& out);
/// permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
Tensor& permute_copy_out(KernelRuntimeContext& ctx, const Tensor& self, IntList dims, Tensor& out);
/// t_copy.out(Tensor self, *, Tensor(a!) out)
Tensor& t_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
/// transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out)
Tensor& transpose_copy_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim0,
                               int64_t dim1, Tensor& out);
/// unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out)
Tensor& unsqueeze_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, Tensor& out);
/// squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out)
Tensor& squeeze_copy_dims_out(KernelRuntimeContext& ctx, const Tensor& self, IntList dims,
                              Tensor& out);
/// expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out)
Tensor& expand_copy_out(KernelRuntimeContext& ctx, const Tensor& self, IntList size, bool implicit,
                        Tensor& out);
/// cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
Tensor& cat_out(KernelRuntimeContext& ctx, TensorList tensors, int64_t dim, Tensor& out);
/// split_with_sizes_copy.out(Tensor self, int[] split_sizes, int dim=0, *, Tensor(a!)[] out)
void split_with_sizes_copy_out(KernelRuntimeContext& ctx, const Tensor& self, IntList split_sizes,
                               int64_t dim, TensorList out);
/// slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None,
/// SymInt step=1, *, Tensor(a!) out)
Tensor& slice_copy_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                              std::optional<int64_t> start, std::optional<int64_t> end,
                              int64_t step, Tensor& out);
/// select_copy.int_out(Tensor self, int dim, int index, *, Tensor(a!) out)
Tensor& select_copy_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                            int64_t index, Tensor& out);
/// constant_pad_nd.out(Tensor self, int[] pad, Scalar value=0, *, Tensor(a!) out)
Tensor& constant_pad_nd_out(KernelRuntimeContext& ctx, const Tensor& self, IntList pad,
                            const Scalar& value, Tensor& out);
/// clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out)
Tensor& clone_out(KernelRuntimeContext& ctx, const Tensor& self,
                  std::optional<int64_t> memory_format, Tensor& out);
/// _to_copy.out(Tensor self, *, ScalarType? dtype=None, Layout? layout=None,
/// Device? device=None, bool? pin_memory=None, bool non_blocking=False,
/// MemoryFormat? memory_format=None, Tensor(a!) out). Layout, Device and MemoryFormat arrive
/// as Int (or None).
Tensor& to_copy_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<DType> dtype,
                    std::optional<int64_t> layout, std::optional<int64_t> device,
                    std::optional<bool> pin_memory, bool non_blocking,
                    std::optional<int64_t> memory_format, Tensor& out);
/// where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
Tensor& where_self_out(KernelRuntimeContext& ctx, const Tensor& condition, const Tensor& self,
                       const Tensor& other, Tensor& out);
/// embedding.out(Tensor weight, Tensor indices, int padding_idx=-1,
/// bool scale_grad_by_freq=False, bool sparse=False, *, Tensor(a!) out)
Tensor& embedding_out(KernelRuntimeContext& ctx, const Tensor& weight, const Tensor& indices,
                      int64_t padding_idx, bool scale_grad_by_freq, bool sparse, Tensor& out);
/// index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out)
Tensor& index_select_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                         const Tensor& index, Tensor& out);
/// gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out)
Tensor& gather_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                   bool sparse_grad, Tensor& out);
/// scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
Tensor& scatter_src_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                        const Tensor& index, const Tensor& src, Tensor& out);
/// scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, Tensor(a!) out)
Tensor& scatter_value_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                          const Tensor& index, const Scalar& value, Tensor& out);
/// scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
Tensor& scatter_add_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                        const Tensor& index, const Tensor& src, Tensor& out);
/// scatter_reduce.two_out(Tensor self, int dim, Tensor index, Tensor src, str reduce, *,
/// bool include_self=True, Tensor(a!) out)
Tensor& scatter_reduce_two_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                               const Tensor& index, const Tensor& src, std::string_view reduce,
                               bool include_self, Tensor& out);
/// index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out)
Tensor& index_tensor_out(KernelRuntimeContext& ctx, const Tensor& self,
                         Span<const OptTensor> indices, Tensor& out);
/// index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, *,
/// Tensor(a!) out)
Tensor& index_put_out(KernelRuntimeContext& ctx, const Tensor& self, Span<const OptTensor> indices,
                      const Tensor& values, bool accumulate, Tensor& out);
/// topk.values(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True, *,
/// Tensor(a!) values, Tensor(b!) indices)
std::tuple<Tensor&, Tensor&> topk_values(KernelRuntimeContext& ctx, const Tensor& self, int64_t k,
                                         int64_t dim, bool largest, bool sorted, Tensor& values,
                                         Tensor& indices);

// ---- Element-wise math, logic and rounding (conformance coverage) ----
/// sin.out / cos.out / tan.out / asin.out / acos.out / atan.out / sinh.out / cosh.out
/// (Tensor self, *, Tensor(a!) out): integral inputs compute in Float.
Tensor& sin_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& cos_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& tan_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& asin_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& acos_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& atan_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& sinh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& cosh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& asinh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& acosh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& atanh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
/// floor.out / ceil.out / round.out / trunc.out / sign.out (Tensor self, *, Tensor(a!) out)
Tensor& floor_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& ceil_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& round_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& trunc_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& sign_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
/// isnan.out / isinf.out (Tensor self, *, Tensor(a!) out)
Tensor& isnan_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& isinf_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
/// logical_and.out / logical_or.out / logical_xor.out (Tensor self, Tensor other, *,
/// Tensor(a!) out)
Tensor& logical_and_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out);
Tensor& logical_or_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                       Tensor& out);
Tensor& logical_xor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out);
/// clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out)
Tensor& clamp_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const OptTensor& min,
                         const OptTensor& max, Tensor& out);
/// div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out)
Tensor& div_out_mode(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                     const std::optional<std::string_view>& rounding_mode, Tensor& out);
Tensor& div_scalar_mode_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                            const std::optional<std::string_view>& rounding_mode, Tensor& out);
/// remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out): Python's %.
Tensor& remainder_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                             Tensor& out);
/// remainder.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
Tensor& remainder_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                             Tensor& out);
/// fmod.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out): C's fmod.
Tensor& fmod_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out);
/// fmod.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
Tensor& fmod_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                        Tensor& out);

// ---- Reductions and scans (conformance coverage) ----
/// ptec::non_max_suppression.out: ONNX NonMaxSuppression, out resized to [selected, 3].
Tensor& non_max_suppression_out(KernelRuntimeContext& ctx, const Tensor& boxes,
                                const Tensor& scores, int64_t max_output_boxes_per_class,
                                double iou_threshold, double score_threshold,
                                int64_t center_point_box, Tensor& out);
/// ptec::roi_align.out: ONNX RoiAlign, out resized to [rois, C, output_height, output_width].
Tensor& roi_align_out(KernelRuntimeContext& ctx, const Tensor& x, const Tensor& rois,
                      const Tensor& batch_indices, int64_t output_height, int64_t output_width,
                      int64_t sampling_ratio, double spatial_scale, bool aligned, bool max_mode,
                      Tensor& out);
/// nonzero.out(Tensor self, *, Tensor(a!) out): out resized to [count, self.dim()].
Tensor& nonzero_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
/// argmax.out / argmin.out (Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
Tensor& argmax_out(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<int64_t>& dim,
                   bool keepdim, Tensor& out);
Tensor& argmin_out(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<int64_t>& dim,
                   bool keepdim, Tensor& out);
/// amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
/// bitwise_left_shift.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
Tensor& bitwise_left_shift_tensor_out(KernelRuntimeContext& ctx, const Tensor& self,
                                      const Tensor& other, Tensor& out);
/// bitwise_left_shift.Tensor_Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
Tensor& bitwise_left_shift_scalar_out(KernelRuntimeContext& ctx, const Tensor& self,
                                      const Scalar& other, Tensor& out);
/// bitwise_right_shift.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
Tensor& bitwise_right_shift_tensor_out(KernelRuntimeContext& ctx, const Tensor& self,
                                       const Tensor& other, Tensor& out);
/// bitwise_right_shift.Tensor_Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
Tensor& bitwise_right_shift_scalar_out(KernelRuntimeContext& ctx, const Tensor& self,
                                       const Scalar& other, Tensor& out);
Tensor& amin_out(KernelRuntimeContext& ctx, const Tensor& self, IntList dim, bool keepdim,
                 Tensor& out);
/// prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None,
/// Tensor(a!) out)
Tensor& prod_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                     const std::optional<DType>& dtype, Tensor& out);
/// cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out)
Tensor& cumsum_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                   const std::optional<DType>& dtype, Tensor& out);

// ---- Shape and copy ops (conformance coverage) ----
/// tril.out / triu.out (Tensor self, int diagonal=0, *, Tensor(a!) out)
Tensor& tril_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t diagonal, Tensor& out);
Tensor& triu_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t diagonal, Tensor& out);
/// flip.out(Tensor self, int[] dims, *, Tensor(a!) out)
Tensor& flip_out(KernelRuntimeContext& ctx, const Tensor& self, IntList dims, Tensor& out);
/// repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out)
Tensor& repeat_out(KernelRuntimeContext& ctx, const Tensor& self, IntList repeats, Tensor& out);
/// reflection_pad2d.out / replication_pad2d.out (Tensor self, int[4] padding, *, Tensor(a!) out)
Tensor& reflection_pad2d_out(KernelRuntimeContext& ctx, const Tensor& self, IntList padding,
                             Tensor& out);
Tensor& replication_pad2d_out(KernelRuntimeContext& ctx, const Tensor& self, IntList padding,
                              Tensor& out);

// ---- Factories ----
/// full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out)
Tensor& full_out(KernelRuntimeContext& ctx, IntList size, const Scalar& fill_value, Tensor& out);
/// full_like.out(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None,
/// Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None,
/// Tensor(a!) out)
Tensor& full_like_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& fill_value,
                      std::optional<DType> dtype, std::optional<int64_t> layout,
                      std::optional<int64_t> device, std::optional<bool> pin_memory,
                      std::optional<int64_t> memory_format, Tensor& out);
/// zeros.out(SymInt[] size, *, Tensor(a!) out)
Tensor& zeros_out(KernelRuntimeContext& ctx, IntList size, Tensor& out);
/// ones.out(SymInt[] size, *, Tensor(a!) out)
Tensor& ones_out(KernelRuntimeContext& ctx, IntList size, Tensor& out);
/// arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out)
Tensor& arange_start_out(KernelRuntimeContext& ctx, const Scalar& start, const Scalar& end,
                         const Scalar& step, Tensor& out);

}  // namespace ptec::kernels

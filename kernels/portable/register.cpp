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
    PTEC_KERNEL("aten::tanh.out", tanh_out),
    PTEC_KERNEL("aten::exp.out", exp_out),
    PTEC_KERNEL("aten::log.out", log_out),
    PTEC_KERNEL("aten::sqrt.out", sqrt_out),
    PTEC_KERNEL("aten::rsqrt.out", rsqrt_out),
    PTEC_KERNEL("aten::reciprocal.out", reciprocal_out),
    PTEC_KERNEL("aten::erf.out", erf_out),
    PTEC_KERNEL("aten::neg.out", neg_out),
    PTEC_KERNEL("aten::abs.out", abs_out),
    PTEC_KERNEL("aten::gelu.out", gelu_out),
    PTEC_KERNEL("aten::leaky_relu.out", leaky_relu_out),
    PTEC_KERNEL("aten::elu.out", elu_out),
    PTEC_KERNEL("aten::pow.Tensor_Scalar_out", pow_tensor_scalar_out),
    PTEC_KERNEL("aten::pow.Tensor_Tensor_out", pow_tensor_tensor_out),
    PTEC_KERNEL("aten::maximum.out", maximum_out),
    PTEC_KERNEL("aten::minimum.out", minimum_out),
    // Comparisons and logic.
    PTEC_KERNEL("aten::eq.Tensor_out", eq_tensor_out),
    PTEC_KERNEL("aten::eq.Scalar_out", eq_scalar_out),
    PTEC_KERNEL("aten::ne.Tensor_out", ne_tensor_out),
    PTEC_KERNEL("aten::ne.Scalar_out", ne_scalar_out),
    PTEC_KERNEL("aten::lt.Tensor_out", lt_tensor_out),
    PTEC_KERNEL("aten::lt.Scalar_out", lt_scalar_out),
    PTEC_KERNEL("aten::le.Tensor_out", le_tensor_out),
    PTEC_KERNEL("aten::le.Scalar_out", le_scalar_out),
    PTEC_KERNEL("aten::gt.Tensor_out", gt_tensor_out),
    PTEC_KERNEL("aten::gt.Scalar_out", gt_scalar_out),
    PTEC_KERNEL("aten::ge.Tensor_out", ge_tensor_out),
    PTEC_KERNEL("aten::ge.Scalar_out", ge_scalar_out),
    PTEC_KERNEL("aten::logical_not.out", logical_not_out),
    // Reductions.
    PTEC_KERNEL("aten::sum.IntList_out", sum_dim_out),
    PTEC_KERNEL("aten::max.dim_max", max_dim_max),
    PTEC_KERNEL("aten::mean.out", mean_out),
    PTEC_KERNEL("aten::amax.out", amax_out),
    PTEC_KERNEL("aten::_softmax.out", softmax_out),
    PTEC_KERNEL("aten::_log_softmax.out", log_softmax_out),
    // Convolution, normalization, pooling.
    PTEC_KERNEL("aten::convolution.out", convolution_out),
    PTEC_KERNEL("aten::_native_batch_norm_legit_no_training.out",
                native_batch_norm_no_training_out),
    PTEC_KERNEL("aten::max_pool2d_with_indices.out", max_pool2d_with_indices_out),
    PTEC_KERNEL("aten::avg_pool2d.out", avg_pool2d_out),
    PTEC_KERNEL("aten::max_pool3d_with_indices.out", max_pool3d_with_indices_out),
    PTEC_KERNEL("aten::avg_pool3d.out", avg_pool3d_out),
    PTEC_KERNEL("aten::_adaptive_avg_pool2d.out", adaptive_avg_pool2d_out),
    PTEC_KERNEL("aten::native_layer_norm.out", native_layer_norm_out),
    PTEC_KERNEL("aten::native_group_norm.out", native_group_norm_out),
    PTEC_KERNEL("aten::upsample_nearest2d.vec_out", upsample_nearest2d_vec_out),
    PTEC_KERNEL("aten::upsample_bilinear2d.vec_out", upsample_bilinear2d_vec_out),
    // Linear algebra.
    PTEC_KERNEL("aten::mm.out", mm_out),
    PTEC_KERNEL("aten::bmm.out", bmm_out),
    PTEC_KERNEL("aten::addmm.out", addmm_out),
    // Shape and copy ops.
    PTEC_KERNEL("aten::view_copy.out", view_copy_out),
    PTEC_KERNEL("aten::permute_copy.out", permute_copy_out),
    PTEC_KERNEL("aten::t_copy.out", t_copy_out),
    PTEC_KERNEL("aten::transpose_copy.int_out", transpose_copy_int_out),
    PTEC_KERNEL("aten::unsqueeze_copy.out", unsqueeze_copy_out),
    PTEC_KERNEL("aten::squeeze_copy.dims_out", squeeze_copy_dims_out),
    PTEC_KERNEL("aten::expand_copy.out", expand_copy_out),
    PTEC_KERNEL("aten::cat.out", cat_out),
    PTEC_KERNEL("aten::split_with_sizes_copy.out", split_with_sizes_copy_out),
    PTEC_KERNEL("aten::slice_copy.Tensor_out", slice_copy_tensor_out),
    PTEC_KERNEL("aten::select_copy.int_out", select_copy_int_out),
    PTEC_KERNEL("aten::constant_pad_nd.out", constant_pad_nd_out),
    PTEC_KERNEL("aten::clone.out", clone_out),
    PTEC_KERNEL("aten::_to_copy.out", to_copy_out),
    PTEC_KERNEL("aten::where.self_out", where_self_out),
    PTEC_KERNEL("aten::embedding.out", embedding_out),
    PTEC_KERNEL("aten::index_select.out", index_select_out),
    PTEC_KERNEL("aten::gather.out", gather_out),
    PTEC_KERNEL("aten::scatter.src_out", scatter_src_out),
    PTEC_KERNEL("aten::scatter.value_out", scatter_value_out),
    PTEC_KERNEL("aten::scatter_add.out", scatter_add_out),
    PTEC_KERNEL("aten::scatter_reduce.two_out", scatter_reduce_two_out),
    PTEC_KERNEL("aten::index.Tensor_out", index_tensor_out),
    PTEC_KERNEL("aten::index_put.out", index_put_out),
    PTEC_KERNEL("aten::topk.values", topk_values),
    // Factories.
    PTEC_KERNEL("aten::full.out", full_out),
    PTEC_KERNEL("aten::full_like.out", full_like_out),
    PTEC_KERNEL("aten::zeros.out", zeros_out),
    PTEC_KERNEL("aten::ones.out", ones_out),
    PTEC_KERNEL("aten::arange.start_out", arange_start_out),
    // Conformance coverage: math, logic, rounding.
    PTEC_KERNEL("aten::sin.out", sin_out),
    PTEC_KERNEL("aten::cos.out", cos_out),
    PTEC_KERNEL("aten::tan.out", tan_out),
    PTEC_KERNEL("aten::asin.out", asin_out),
    PTEC_KERNEL("aten::acos.out", acos_out),
    PTEC_KERNEL("aten::atan.out", atan_out),
    PTEC_KERNEL("aten::sinh.out", sinh_out),
    PTEC_KERNEL("aten::cosh.out", cosh_out),
    PTEC_KERNEL("aten::asinh.out", asinh_out),
    PTEC_KERNEL("aten::acosh.out", acosh_out),
    PTEC_KERNEL("aten::atanh.out", atanh_out),
    PTEC_KERNEL("aten::floor.out", floor_out),
    PTEC_KERNEL("aten::ceil.out", ceil_out),
    PTEC_KERNEL("aten::round.out", round_out),
    PTEC_KERNEL("aten::trunc.out", trunc_out),
    PTEC_KERNEL("aten::sign.out", sign_out),
    PTEC_KERNEL("aten::isnan.out", isnan_out),
    PTEC_KERNEL("aten::isinf.out", isinf_out),
    PTEC_KERNEL("aten::logical_and.out", logical_and_out),
    PTEC_KERNEL("aten::logical_or.out", logical_or_out),
    PTEC_KERNEL("aten::logical_xor.out", logical_xor_out),
    PTEC_KERNEL("aten::clamp.Tensor_out", clamp_tensor_out),
    PTEC_KERNEL("aten::div.out_mode", div_out_mode),
    PTEC_KERNEL("aten::remainder.Tensor_out", remainder_tensor_out),
    PTEC_KERNEL("aten::remainder.Scalar_out", remainder_scalar_out),
    PTEC_KERNEL("aten::fmod.Tensor_out", fmod_tensor_out),
    PTEC_KERNEL("aten::fmod.Scalar_out", fmod_scalar_out),
    // Conformance coverage: reductions, scans, shape ops.
    PTEC_KERNEL("aten::argmax.out", argmax_out),
    PTEC_KERNEL("aten::argmin.out", argmin_out),
    PTEC_KERNEL("aten::amin.out", amin_out),
    PTEC_KERNEL("aten::prod.int_out", prod_int_out),
    PTEC_KERNEL("aten::cumsum.out", cumsum_out),
    PTEC_KERNEL("aten::tril.out", tril_out),
    PTEC_KERNEL("aten::triu.out", triu_out),
    PTEC_KERNEL("aten::flip.out", flip_out),
    PTEC_KERNEL("aten::repeat.out", repeat_out),
    PTEC_KERNEL("aten::reflection_pad2d.out", reflection_pad2d_out),
    PTEC_KERNEL("aten::replication_pad2d.out", replication_pad2d_out),
};

}  // namespace

Span<const runtime::Kernel> portable_kernels() { return kPortableKernels; }

Error register_portable_kernels() {
  static const Error result = runtime::register_kernels(portable_kernels());
  return result;
}

}  // namespace ptec::kernels

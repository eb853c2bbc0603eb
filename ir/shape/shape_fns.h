#pragma once

// Shape functions of the op table (ir/op_table.cpp), one family per file in ir/shape/. Each
// computes a call's output specs from its arguments (schema order) and throws
// ptec::Exception(InvalidArgument) naming the op and the argument when they do not fit.

#include <vector>

#include "ir/op_schema.h"

namespace ptec::ir::shape {

std::vector<TensorSpec> adaptive_avg_pool2d(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> addmm(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> amax_amin(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> any_dims(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> arange(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> argmax_argmin(const OpSchema& op, const ArgumentList& args);
/// nonzero: [n, rank] int64 where n depends on the data: a symbol named after the input node
/// ("nonzero_<name>"), in [0, numel] (its upper bound).
std::vector<TensorSpec> nonzero(const OpSchema& op, const ArgumentList& args);
/// ptec::non_max_suppression: [n, 3] int64 (batch, class, box), n a symbol named after the
/// boxes node ("nms_<name>") in [0, batches * classes * min(boxes, max_output_boxes_per_class)].
std::vector<TensorSpec> non_max_suppression(const OpSchema& op, const ArgumentList& args);
/// ptec::roi_align: [rois, C, output_height, output_width] (the roi count may be symbolic).
std::vector<TensorSpec> roi_align(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> avg_pool2d(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> avg_pool3d(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> batch_norm_no_training(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> binary_scalar(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> binary_scalar_integral(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> binary_tensor(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> binary_tensor_float(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> binary_tensor_integral(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> bmm(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> cat(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> choose_qparams(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> clamp_tensor(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> compare_scalar(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> compare_tensor(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> constant_pad_nd(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> convolution(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> cumsum(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> dequantize(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> div_scalar(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> div_tensor(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> embedding(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> expand_copy(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> full(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> full_like(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> gather(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> getitem(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> grid_sampler_2d(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> index_select(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> index_tensor(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> index_put(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> masked_fill_scalar(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> max_min_dim(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> max_pool2d_with_indices(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> max_pool3d_with_indices(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> mean_dim(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> mm(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> narrow_copy(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> native_group_norm(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> native_layer_norm(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> opaque(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> pad_nd_fixed(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> permute_copy(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> pixel_shuffle(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> quantize(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> repeat(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> scalar_result(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> scalar_tensor(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> scalar_tensor_binary(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> scatter_reduce(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> scatter_src(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> scatter_value(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> select_copy(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> slice_copy(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> softmax(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> split_copy(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> split_with_sizes_copy(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> squeeze_copy_dim(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> squeeze_copy_dims(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> stack(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> sum_dim(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> t_copy(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> to_copy(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> topk(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> transpose_copy(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> unary_float(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> unary_floating_only(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> unary_integral(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> unary_same(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> unary_to_bool(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> unary_with_scalars(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> unbind_copy(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> unsqueeze_copy(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> upsample2d_vec(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> var_correction(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> view_copy(const OpSchema& op, const ArgumentList& args);
std::vector<TensorSpec> where_self(const OpSchema& op, const ArgumentList& args);

}  // namespace ptec::ir::shape

// Normalization: BatchNormalization (inference) → _native_batch_norm_legit_no_training +
// getitem 0 (a pass folds it into the preceding conv), LayerNormalization → native_layer_norm +
// getitems (Y, Mean, InvStdDev), InstanceNormalization → native_group_norm (one group per channel)
// + getitem 0.

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

void import_batch_norm(ImportContext& ctx, const NodeView& node) {
  if (node.opset() < 9 && node.attr_int("spatial", 1) != 1) {
    node.fail(Error::NotSupported, "spatial=0 is not supported");
  }
  if (node.attr_int("training_mode", 0) != 0) {
    node.fail(Error::NotSupported, "training_mode=1 is not supported (inference only)");
  }
  const double eps = node.attr_float("epsilon", 1e-5f);
  // ONNX's momentum weighs the running value, PyTorch's the new batch value.
  const double momentum = 1.0 - static_cast<double>(node.attr_float("momentum", 0.9f));
  ir::Node* bn = ctx.call("aten::_native_batch_norm_legit_no_training",
                          {ctx.input(node, 0), ctx.input(node, 1), ctx.input(node, 2),
                           ctx.input(node, 3), ctx.input(node, 4), momentum, eps});
  ctx.set_output(node, 0, ctx.getitem(bn, 0));
}

void import_layer_norm(ImportContext& ctx, const NodeView& node) {
  const ir::Shape x = ctx.input_shape(node, 0);
  const int64_t rank = static_cast<int64_t>(x.size());
  const int64_t axis = node.normalize_axis(node.attr_int("axis", -1), rank);
  const std::vector<int64_t> normalized =
      static_sizes(ir::TensorSpec(DType::Float, ir::Shape(x.begin() + axis, x.end())),
                   node.where() + ": the normalized dims");
  for (size_t i : {1, 2}) {
    if (node.has_input(i) && ctx.input_sizes(node, i) != normalized) {
      node.fail(Error::NotSupported,
                "input {} has sizes {}; only {} (the normalized shape) is "
                "supported",
                i, sizes_to_string(ctx.input_sizes(node, i)), sizes_to_string(normalized));
    }
  }
  const double eps = node.attr_float("epsilon", 1e-5f);
  ir::Argument weight = node.has_input(1) ? ir::Argument(ctx.input(node, 1)) : ir::Argument();
  ir::Argument bias = node.has_input(2) ? ir::Argument(ctx.input(node, 2)) : ir::Argument();
  ir::Node* ln =
      ctx.call("aten::native_layer_norm", {ctx.input(node, 0), normalized, weight, bias, eps});
  ctx.set_output(node, 0, ctx.getitem(ln, 0));
  // Mean and InvStdDev: native_layer_norm's mean and rstd have ONNX's shapes (reduced dims 1).
  for (size_t i : {1, 2}) {
    if (node.has_output(i)) ctx.set_output(node, i, ctx.getitem(ln, static_cast<int64_t>(i)));
  }
}

void import_instance_norm(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> x = ctx.input_sizes(node, 0);
  if (x.size() < 3) node.fail(Error::InvalidArgument, "input of rank {}", x.size());
  const double eps = node.attr_float("epsilon", 1e-5f);
  const int64_t hw = product(x, 2, x.size());
  ir::Node* gn = ctx.call(
      "aten::native_group_norm",
      {ctx.input(node, 0), ctx.input(node, 1), ctx.input(node, 2), x[0], x[1], hw, x[1], eps});
  ctx.set_output(node, 0, ctx.getitem(gn, 0));
}

// GroupNormalization-18's scale or bias ([G], per group) repeated over each group's C / G
// channels: [C], as native_group_norm takes them.
ir::Node* per_channel(ImportContext& ctx, const NodeView& node, size_t i, int64_t groups,
                      int64_t channels) {
  ir::Node* v = view(ctx, ctx.input(node, i), {groups, 1});
  v = ctx.call("aten::expand_copy", {v, std::vector<int64_t>{groups, channels / groups}, false});
  return view(ctx, v, {channels});
}

void import_group_norm(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> x = ctx.input_sizes(node, 0);
  if (x.size() < 2) node.fail(Error::InvalidArgument, "input of rank {}", x.size());
  if (!node.has_attr("num_groups")) node.fail(Error::InvalidArgument, "num_groups is required");
  const int64_t groups = node.attr_int("num_groups", 0);
  const int64_t channels = x[1];
  if (groups <= 0 || channels % groups != 0) {
    node.fail(Error::InvalidArgument, "num_groups {} does not divide the {} channels", groups,
              channels);
  }
  // stash_type (version 21): the precision of the mean and variance, float32 by default; the
  // kernels compute them in float (1 = FLOAT).
  const int64_t stash = node.attr_int("stash_type", 1);
  if (stash != onnx::TensorProto::FLOAT) {
    node.fail(Error::NotSupported, "stash_type {} (only float)", stash);
  }
  const bool per_group = node.opset() < 21;
  const int64_t want = per_group ? groups : channels;
  for (size_t i : {1, 2}) {
    if (ctx.input_sizes(node, i) != std::vector<int64_t>{want}) {
      node.fail(Error::InvalidArgument, "input {} has sizes {}; expected [{}] (one per {})", i,
                sizes_to_string(ctx.input_sizes(node, i)), want, per_group ? "group" : "channel");
    }
  }
  ir::Node* scale = per_group ? per_channel(ctx, node, 1, groups, channels) : ctx.input(node, 1);
  ir::Node* bias = per_group ? per_channel(ctx, node, 2, groups, channels) : ctx.input(node, 2);
  const double eps = node.attr_float("epsilon", 1e-5f);
  ir::Node* gn = ctx.call(
      "aten::native_group_norm",
      {ctx.input(node, 0), scale, bias, x[0], channels, product(x, 2, x.size()), groups, eps});
  ctx.set_output(node, 0, ctx.getitem(gn, 0));
}

// RMSNormalization (opset 23): x / sqrt(mean(x^2 over dims axis..rank-1) + epsilon) * scale,
// scale broadcasting to the normalized dims.
void import_rms_norm(ImportContext& ctx, const NodeView& node) {
  const int64_t rank = ctx.input_rank(node, 0);
  if (rank < 1) node.fail(Error::InvalidArgument, "input of rank 0");
  const int64_t axis = node.normalize_axis(node.attr_int("axis", -1), rank);
  const int64_t stash = node.attr_int("stash_type", 1);
  if (stash != onnx::TensorProto::FLOAT) {
    node.fail(Error::NotSupported, "stash_type {} (only float)", stash);
  }
  std::vector<int64_t> dims;
  for (int64_t d = axis; d < rank; ++d) dims.push_back(d);
  const double eps = node.attr_float("epsilon", 1e-5f);
  ir::Node* x = ctx.input(node, 0);
  ir::Node* mean = ctx.call("aten::mean.dim",
                            {ctx.call("aten::mul.Tensor", {x, x}), dims, true, ir::Argument()});
  ir::Node* rms = ctx.call("aten::sqrt", {ctx.call("aten::add.Scalar", {mean, eps, 1})});
  ir::Node* y = ctx.call("aten::div.Tensor", {x, rms});
  ctx.set_output(node, 0, ctx.call("aten::mul.Tensor", {y, ctx.input(node, 1)}));
}

}  // namespace

std::vector<OpEntry> norm_ops() {
  return {
      {"BatchNormalization", 6, 17, import_batch_norm},
      {"LayerNormalization", 17, 17, import_layer_norm},
      {"InstanceNormalization", 6, 22, import_instance_norm},
      {"GroupNormalization", 18, 21, import_group_norm},
      {"RMSNormalization", 23, 23, import_rms_norm},
  };
}

}  // namespace ptec::onnx_import

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

}  // namespace

std::vector<OpEntry> norm_ops() {
  return {
      {"BatchNormalization", 6, 17, import_batch_norm},
      {"LayerNormalization", 17, 17, import_layer_norm},
      {"InstanceNormalization", 6, 17, import_instance_norm},
  };
}

}  // namespace ptec::onnx_import

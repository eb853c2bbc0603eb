// Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (= _log_softmax over the class
// axis, then the same NLL), decomposed into core ATen ops:
//   picked = -gather(x, 1, target[:, None, ...])[:, 0, ...]          (x: [N, C, d...])
//   w      = weight[target] (or 1), times (target != ignore_index) when one is given
//   none: picked * w;  sum: sum(picked * w);  mean: sum(picked * w) / sum(w) (or mean(picked))
// Ignored targets are replaced by 0 before the gather so that the index stays in range.

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

ir::Node* all_dims_sum(ImportContext& ctx, ir::Node* x) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < x->spec().rank(); ++d) dims.push_back(static_cast<int64_t>(d));
  return ctx.call("aten::sum.dim_IntList", {x, dims, false, x->spec().dtype});
}

/// The loss of log-probabilities `x` against `target` (inputs `target_index` and
/// `weight_index` of `node`).
ir::Node* nll(ImportContext& ctx, const NodeView& node, ir::Node* x, size_t target_index,
              size_t weight_index) {
  const std::string reduction = node.attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    node.fail(Error::InvalidArgument, "unknown reduction '{}'", reduction);
  }
  const DType dtype = x->spec().dtype;
  ir::Node* target = ctx.input(node, target_index);
  if (target->spec().dtype != DType::Long) {
    target = ctx.call("aten::_to_copy", {target, DType::Long});
  }
  const std::vector<int64_t> target_sizes = static_sizes(target->spec(), node.where());
  ir::Node* mask = nullptr;
  if (std::optional<int64_t> ignore = node.attr_int_opt("ignore_index")) {
    mask = ctx.call("aten::ne.Scalar", {target, *ignore});
    target = ctx.call("aten::mul.Tensor", {target, mask});
  }
  ir::Node* picked =
      ctx.call("aten::gather", {x, 1, ctx.call("aten::unsqueeze_copy", {target, 1})});
  picked = ctx.call("aten::squeeze_copy.dims", {picked, std::vector<int64_t>{1}});
  ir::Node* loss = ctx.call("aten::neg", {picked});
  ir::Node* w = nullptr;
  if (node.has_input(weight_index)) {
    ir::Node* flat = view(ctx, target, {element_count(target_sizes)});
    w = ctx.call("aten::index_select", {ctx.input(node, weight_index), 0, flat});
    w = view(ctx, w, target_sizes);
    if (mask != nullptr) w = ctx.call("aten::mul.Tensor", {w, mask});
  } else if (mask != nullptr) {
    w = ctx.call("aten::_to_copy", {mask, dtype});
  }
  if (w != nullptr) loss = ctx.call("aten::mul.Tensor", {loss, w});
  if (reduction == "none") return loss;
  if (reduction == "sum") return all_dims_sum(ctx, loss);
  if (w == nullptr) {
    std::vector<int64_t> dims;
    for (size_t d = 0; d < loss->spec().rank(); ++d) dims.push_back(static_cast<int64_t>(d));
    return ctx.call("aten::mean.dim", {loss, dims, false, ir::Argument()});
  }
  return ctx.call("aten::div.Tensor", {all_dims_sum(ctx, loss), all_dims_sum(ctx, w)});
}

void import_nll(ImportContext& ctx, const NodeView& node) {
  ctx.set_output(node, 0, nll(ctx, node, ctx.input(node, 0), 1, 2));
}

void import_softmax_cross_entropy(ImportContext& ctx, const NodeView& node) {
  ir::Node* log_prob = ctx.call("aten::_log_softmax", {ctx.input(node, 0), 1, false});
  ctx.set_output(node, 0, nll(ctx, node, log_prob, 1, 2));
  if (node.has_output(1)) ctx.set_output(node, 1, log_prob);
}

}  // namespace

std::vector<OpEntry> loss_ops() {
  return {
      {"NegativeLogLikelihoodLoss", 12, 22, import_nll},
      {"SoftmaxCrossEntropyLoss", 12, 17, import_softmax_cross_entropy},
  };
}

}  // namespace ptec::onnx_import

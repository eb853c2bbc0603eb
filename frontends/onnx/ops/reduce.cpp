// Reductions: ReduceMean → mean.dim, ReduceSum → sum.dim_IntList, ReduceMax/ReduceMin →
// amax/amin, ArgMax/ArgMin → argmax/argmin. Axes come from the attribute (before ReduceSum-13
// and the opset-18 forms) or from the second input, which must be known at import time.

#include <algorithm>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

void import_reduce(ImportContext& ctx, const NodeView& node) {
  const int64_t rank = ctx.input_rank(node, 0);
  std::vector<int64_t> axes;
  if (node.has_input(1)) {
    axes = ctx.require_constant(node, 1, "axes").to_int64();
  } else {
    axes = node.attr_ints("axes", {});
  }
  const bool keepdims = node.attr_int("keepdims", 1) != 0;
  if (axes.empty()) {
    if (node.attr_int("noop_with_empty_axes", 0) != 0) {
      ctx.forward_input(node, 0, 0);
      return;
    }
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  for (int64_t& a : axes) a = node.normalize_axis(a, rank, "axis");
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    node.fail(Error::InvalidArgument, "axes {} repeat a dim", sizes_to_string(axes));
  }
  ir::Node* x = ctx.input(node, 0);
  const std::string& op = node.op_type();
  ir::Node* y = nullptr;
  if (op == "ReduceMean") {
    y = ctx.call("aten::mean.dim", {x, axes, keepdims, ir::Argument()});
  } else if (op == "ReduceSum") {
    y = ctx.call("aten::sum.dim_IntList", {x, axes, keepdims, ir::Argument()});
  } else if (op == "ReduceMax") {
    y = ctx.call("aten::amax", {x, axes, keepdims});
  } else {
    y = ctx.call("aten::amin", {x, axes, keepdims});
  }
  ctx.set_output(node, 0, y);
}

void import_arg_reduce(ImportContext& ctx, const NodeView& node) {
  if (node.attr_int("select_last_index", 0) != 0) {
    node.fail(Error::NotSupported, "select_last_index=1 is not supported");
  }
  const int64_t rank = ctx.input_rank(node, 0);
  const int64_t axis = node.normalize_axis(node.attr_int("axis", 0), rank);
  const bool keepdims = node.attr_int("keepdims", 1) != 0;
  const char* op = node.op_type() == "ArgMax" ? "aten::argmax" : "aten::argmin";
  ctx.set_output(node, 0, ctx.call(op, {ctx.input(node, 0), axis, keepdims}));
}

}  // namespace

std::vector<OpEntry> reduce_ops() {
  return {
      {"ReduceMean", 1, 18, import_reduce}, {"ReduceSum", 1, 17, import_reduce},
      {"ReduceMax", 1, 18, import_reduce},  {"ReduceMin", 1, 18, import_reduce},
      {"ArgMax", 1, 17, import_arg_reduce}, {"ArgMin", 1, 17, import_arg_reduce},
  };
}

}  // namespace ptec::onnx_import

#include "frontends/onnx/if_import.h"

#include <optional>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

onnx::GraphProto& branch_graph(const NodeView& node, onnx::NodeProto& proto, const char* name) {
  for (onnx::AttributeProto& a : *proto.mutable_attribute()) {
    if (a.name() == name && a.has_g()) return *a.mutable_g();
  }
  node.fail(Error::InvalidArgument, "no {} graph", name);
}

/// Imports `branch` under the If's source and returns its outputs' values.
std::vector<Value> import_branch(ImportContext& ctx, const NodeView& node, onnx::GraphProto& branch,
                                 const ImportNodeFn& import_node) {
  import_subgraph(ctx, branch, node.source(), import_node);
  ctx.set_current(&node);
  std::vector<Value> outputs;
  for (const onnx::ValueInfoProto& out : branch.output()) {
    const Value* v = ctx.find(out.name());
    if (v == nullptr) {
      node.fail(Error::InvalidArgument, "branch output '{}' is not produced", out.name());
    }
    outputs.push_back(*v);
  }
  return outputs;
}

/// Refuses what a run-time condition cannot choose between, in the form the conformance runner
/// recognises ("('x') is computed at run time; it must be known at import time").
[[noreturn]] void refuse(const NodeView& node, const std::string& why) {
  node.fail(Error::NotSupported,
            "the condition ('{}') is computed at run time; it must be known at import time "
            "where {}",
            node.input(0), why);
}

/// The condition as a Scalar argument: a shape value's single item (a comparison of dims), or
/// the single element of a tensor.
ir::Argument run_time_condition(ImportContext& ctx, const NodeView& node) {
  if (const SymValue* sym = ctx.sym_value(node.input(0))) {
    if (sym->items.size() != 1) {
      node.fail(Error::InvalidArgument, "the condition has {} elements, not one",
                sym->items.size());
    }
    return sym->items[0];
  }
  ir::Node* cond = ctx.input(node, 0);
  const ir::TensorSpec& spec = cond->spec();
  for (const ir::SymInt& d : spec.shape) {
    if (!d.is_static() || d.value() != 1) {
      node.fail(Error::InvalidArgument, "the condition is {}, not one element", spec.to_string());
    }
  }
  return ctx.call("aten::_local_scalar_dense", {cond});
}

/// The dims where `a` and `b` differ (nullopt when their ranks differ).
std::optional<std::vector<size_t>> differing_dims(const ir::Shape& a, const ir::Shape& b) {
  if (a.size() != b.size()) return std::nullopt;
  std::vector<size_t> dims;
  for (size_t d = 0; d < a.size(); ++d) {
    if (a[d] != b[d]) dims.push_back(d);
  }
  return dims;
}

/// Rows [0, keep * len) of `x` along `dim` (keep: a Bool or Int scalar, 0 or 1); nullptr when
/// `x` has no rows there.
ir::Node* keep_rows(ImportContext& ctx, ir::Node* x, size_t dim, const ir::Argument& keep) {
  const ir::SymInt& len = x->spec().shape[dim];
  if (len.is_static() && len.value() == 0) return nullptr;
  ir::Node* end = ctx.call("executorch_prim::mul.Scalar", {keep, ctx.sym_size(len)});
  return ctx.call("aten::slice_copy.Tensor",
                  {x, static_cast<int64_t>(dim), int64_t{0}, ir::Argument(end), int64_t{1}});
}

/// Output `i`: cond ? then_value : else_value.
ir::Node* select(ImportContext& ctx, const NodeView& node, size_t i, const ir::Argument& cond,
                 Value then_value, Value else_value) {
  ir::Node* t = ctx.materialize(node.output(i) + "_then", then_value);
  ir::Node* e = ctx.materialize(node.output(i) + "_else", else_value);
  const ir::TensorSpec& ts = t->spec();
  const ir::TensorSpec& es = e->spec();
  if (ts.dtype != es.dtype) {
    node.fail(Error::InvalidArgument, "output {}: the branches give {} and {}", i, ts.to_string(),
              es.to_string());
  }
  const auto dims = differing_dims(ts.shape, es.shape);
  if (!dims || dims->size() > 1) {
    refuse(node, fmt::format("output {} is {} in one branch and {} in the other", i, ts.to_string(),
                             es.to_string()));
  }
  if (dims->empty()) {
    ir::Node* flag = ctx.call("aten::full", {ir::ArgumentList{}, cond, DType::Bool});
    return ctx.call("aten::where.self", {flag, t, e});
  }
  const size_t dim = (*dims)[0];
  ir::Node* kept_then = keep_rows(ctx, t, dim, cond);
  ir::Node* kept_else =
      keep_rows(ctx, e, dim, ir::Argument(ctx.call("executorch_prim::sym_not.Scalar", {cond})));
  if (kept_then == nullptr) return kept_else;
  if (kept_else == nullptr) return kept_then;
  return ctx.call("aten::cat", {ir::ArgumentList{kept_then, kept_else}, static_cast<int64_t>(dim)});
}

}  // namespace

void import_if(ImportContext& ctx, const NodeView& node, onnx::NodeProto& proto,
               const ImportNodeFn& import_node) {
  if (const ConstTensor* cond = ctx.constant(node, 0)) {
    if (cond->numel() != 1) {
      node.fail(Error::InvalidArgument, "the condition has {} elements, not one", cond->numel());
    }
    onnx::GraphProto& taken =
        branch_graph(node, proto, cond->int_at(0) != 0 ? "then_branch" : "else_branch");
    const std::vector<Value> outputs = import_branch(ctx, node, taken, import_node);
    for (size_t i = 0; i < node.num_outputs() && i < outputs.size(); ++i) {
      if (node.has_output(i)) ctx.define(node.output(i), outputs[i]);
    }
    return;
  }
  const ir::Argument cond = run_time_condition(ctx, node);
  onnx::GraphProto& then_graph = branch_graph(node, proto, "then_branch");
  onnx::GraphProto& else_graph = branch_graph(node, proto, "else_branch");
  for (const onnx::GraphProto* g : {&then_graph, &else_graph}) {
    if (static_cast<size_t>(g->output_size()) != node.num_outputs()) {
      node.fail(Error::InvalidArgument, "a branch has {} outputs, the If {}", g->output_size(),
                node.num_outputs());
    }
  }
  const std::vector<Value> then_values = import_branch(ctx, node, then_graph, import_node);
  const std::vector<Value> else_values = import_branch(ctx, node, else_graph, import_node);
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    if (!node.has_output(i)) continue;
    for (const std::string& name : {then_graph.output(static_cast<int>(i)).name(),
                                    else_graph.output(static_cast<int>(i)).name()}) {
      if (ctx.seq_value(name) != nullptr || ctx.sym_value(name) != nullptr) {
        refuse(node, fmt::format("branch output '{}' is a sequence or a shape value", name));
      }
    }
    ctx.set_output(node, i, select(ctx, node, i, cond, then_values[i], else_values[i]));
  }
}

}  // namespace ptec::onnx_import

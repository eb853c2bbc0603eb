#include "frontends/onnx/loop_unroll.h"

#include <algorithm>
#include <list>
#include <unordered_set>

#include "frontends/onnx/const_eval.h"
#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

/// Names `graph` defines: its inputs and initializers, and its nodes' outputs (also in nested
/// subgraphs, which the importer inlines into the same namespace).
void collect_defined(const onnx::GraphProto& graph, std::unordered_set<std::string>& names) {
  for (const auto& in : graph.input()) names.insert(in.name());
  for (const auto& init : graph.initializer()) names.insert(init.name());
  for (const auto& n : graph.node()) {
    for (const auto& out : n.output()) {
      if (!out.empty()) names.insert(out);
    }
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_defined(a.g(), names);
    }
  }
}

/// The single value of a condition that must be known at import time.
bool known_condition(const NodeView& node, const Value* v, const std::string& name) {
  if (v == nullptr) node.fail(Error::InvalidArgument, "condition '{}' is not defined", name);
  if (!v->constant) {
    node.fail(Error::NotSupported,
              "the condition ('{}') is computed at run time; it must be known at import time: "
              "ptec unrolls a Loop at export (its programs have no control flow)",
              name);
  }
  if (v->constant->numel() != 1) {
    node.fail(Error::InvalidArgument, "condition '{}' has {} elements, not one", name,
              v->constant->numel());
  }
  return v->constant->int_at(0) != 0;
}

/// A value flowing into or out of a body copy: a tensor, or a sequence (a list of tensor values).
struct Carried {
  Value value;
  std::optional<std::vector<Value>> seq;
};

/// Imports copies of a Loop's or Scan's body, one per iteration, with their inputs bound to
/// given values. Each copy is its own proto (importing moves tensors' raw bytes out of the
/// protos); the copies outlive the import (values may point into them). The body's names are
/// forgotten after each copy so that the next can define them again.
class BodyUnroller {
 public:
  BodyUnroller(ImportContext& ctx, const NodeView& node, const ImportNodeFn& import_node,
               const onnx::GraphProto& body)
      : ctx_(ctx), node_(node), import_node_(import_node), body_(body) {
    collect_defined(body, defined_);
  }

  /// The value named `name` (a tensor or a sequence); `what` names it in errors.
  Carried value(const std::string& name, std::string_view what) const {
    const Value* v = ctx_.find(name);
    if (v == nullptr) node_.fail(Error::InvalidArgument, "{} '{}' is not defined", what, name);
    if (ctx_.sym_value(name) != nullptr) {
      node_.fail(Error::NotSupported, "{} '{}' is a shape value of dynamic dims", what, name);
    }
    Carried c{*v, std::nullopt};
    if (const std::vector<Value>* seq = ctx_.seq_value(name)) c.seq = *seq;
    return c;
  }

  void define(const std::string& name, const Carried& c) const {
    if (c.seq) {
      ctx_.define_seq(name, *c.seq, node_.source());
    } else {
      ctx_.define(name, c.value);
    }
  }

  /// Iteration `it`: the body's inputs bound to `inputs`, its nodes imported; its outputs.
  std::vector<Carried> run(int64_t it, const std::vector<Carried>& inputs) {
    onnx::GraphProto& copy = copies_.emplace_back(body_);
    for (size_t i = 0; i < inputs.size(); ++i)
      define(copy.input(static_cast<int>(i)).name(), inputs[i]);
    import_subgraph(ctx_, copy, fmt::format("{}/{}", node_.source(), it), import_node_);
    ctx_.set_current(&node_);
    std::vector<Carried> outputs;
    for (const auto& out : copy.output()) outputs.push_back(value(out.name(), "body output"));
    for (const std::string& name : defined_) ctx_.undefine(name);
    return outputs;
  }

 private:
  ImportContext& ctx_;
  const NodeView& node_;
  const ImportNodeFn& import_node_;
  const onnx::GraphProto& body_;
  std::unordered_set<std::string> defined_;
  std::list<onnx::GraphProto> copies_;
};

const onnx::GraphProto& body_of(const NodeView& node, const onnx::NodeProto& proto) {
  for (const onnx::AttributeProto& a : proto.attribute()) {
    if (a.name() == "body" && a.has_g()) return a.g();
  }
  node.fail(Error::InvalidArgument, "no body graph");
}

}  // namespace

void import_subgraph(ImportContext& ctx, onnx::GraphProto& graph, const std::string& prefix,
                     const ImportNodeFn& import_node) {
  for (onnx::TensorProto& init : *graph.mutable_initializer()) {
    ctx.define(init.name(),
               Value{nullptr, ctx.tensor_from_proto(init, init.name()), true, init.name()});
  }
  int child = 0;
  for (onnx::NodeProto& inner : *graph.mutable_node()) {
    import_node(inner,
                fmt::format("{}/{}", prefix,
                            inner.name().empty() ? fmt::format("{}_{}", inner.op_type(), child)
                                                 : inner.name()));
    ++child;
  }
}

void import_loop(ImportContext& ctx, const NodeView& node, onnx::NodeProto& proto,
                 const ImportNodeFn& import_node) {
  const onnx::GraphProto& body = body_of(node, proto);
  if (node.num_inputs() < 2) node.fail(Error::InvalidArgument, "expected M and cond inputs");
  const size_t carried_count = node.num_inputs() - 2;
  if (static_cast<size_t>(body.input_size()) != carried_count + 2 ||
      static_cast<size_t>(body.output_size()) < carried_count + 1) {
    node.fail(Error::InvalidArgument,
              "the body has {} inputs and {} outputs; {} loop-carried values need {} inputs and "
              "at least {} outputs",
              body.input_size(), body.output_size(), carried_count, carried_count + 2,
              carried_count + 1);
  }
  const size_t scan_count = static_cast<size_t>(body.output_size()) - carried_count - 1;

  int64_t trip = INT64_MAX;
  if (node.has_input(0)) {
    const ConstTensor* m = ctx.constant(node, 0);
    if (m == nullptr) {
      node.fail(Error::NotSupported,
                "the trip count ('{}') is computed at run time; it must be known at import "
                "time: ptec unrolls a Loop at export (its programs have no control flow)",
                node.input(0));
    }
    if (m->numel() != 1) node.fail(Error::InvalidArgument, "the trip count is not a scalar");
    trip = m->to_int64()[0];
  }
  if (trip > kMaxLoopIterations && trip != INT64_MAX) {
    node.fail(Error::NotSupported,
              "the trip count {} is more than {} iterations; ptec unrolls "
              "loops at export",
              trip, kMaxLoopIterations);
  }
  bool cond = !node.has_input(1) || known_condition(node, ctx.find(node.input(1)), node.input(1));

  BodyUnroller unroller(ctx, node, import_node, body);
  std::vector<Carried> carried;
  for (size_t i = 0; i < carried_count; ++i) {
    carried.push_back(unroller.value(node.input(2 + i), "loop-carried input"));
  }
  std::vector<std::vector<Value>> scans(scan_count);
  int64_t it = 0;
  for (; it < trip && cond; ++it) {
    if (it == kMaxLoopIterations) {
      node.fail(Error::NotSupported,
                "the condition is still true after {} iterations; ptec unrolls loops at export "
                "and stops there",
                kMaxLoopIterations);
    }
    std::vector<Carried> inputs;
    inputs.push_back(
        {Value{nullptr, ConstTensor::from_int64(DType::Long, {}, {it}), false, node.source()},
         std::nullopt});
    inputs.push_back(
        {Value{nullptr, ConstTensor::from_int64(DType::Bool, {}, {1}), false, node.source()},
         std::nullopt});
    inputs.insert(inputs.end(), carried.begin(), carried.end());
    std::vector<Carried> outputs = unroller.run(it, inputs);
    cond = known_condition(node, &outputs[0].value, body.output(0).name());
    for (size_t i = 0; i < carried_count; ++i) carried[i] = outputs[1 + i];
    for (size_t k = 0; k < scan_count; ++k) {
      Carried& c = outputs[1 + carried_count + k];
      if (c.seq) {
        node.fail(Error::NotSupported, "scan output '{}' is a sequence",
                  body.output(static_cast<int>(1 + carried_count + k)).name());
      }
      scans[k].push_back(std::move(c.value));
    }
  }

  for (size_t i = 0; i < carried_count; ++i) {
    if (node.has_output(i)) unroller.define(node.output(i), carried[i]);
  }
  for (size_t k = 0; k < scan_count; ++k) {
    if (!node.has_output(carried_count + k)) continue;
    if (it == 0) {
      node.fail(Error::NotSupported, "scan output '{}' of a loop that runs no iteration",
                node.output(carried_count + k));
    }
    ctx.define(node.output(carried_count + k),
               concat_values(ctx, node, scans[k], node.output(carried_count + k), 0, true));
  }
}

void import_scan(ImportContext& ctx, const NodeView& node, onnx::NodeProto& proto,
                 const ImportNodeFn& import_node) {
  if (node.opset() < 9) {
    node.fail(Error::NotSupported,
              "Scan-8 (with a batch axis and sequence_lens); Scan-9 and "
              "later are supported");
  }
  const onnx::GraphProto& body = body_of(node, proto);
  const auto scan_inputs = static_cast<size_t>(node.attr_int("num_scan_inputs", 0));
  if (scan_inputs == 0 || scan_inputs > node.num_inputs()) {
    node.fail(Error::InvalidArgument, "num_scan_inputs {} for {} inputs", scan_inputs,
              node.num_inputs());
  }
  const size_t states = node.num_inputs() - scan_inputs;
  if (static_cast<size_t>(body.input_size()) != node.num_inputs() ||
      static_cast<size_t>(body.output_size()) < states) {
    node.fail(Error::InvalidArgument, "the body has {} inputs and {} outputs for {} inputs",
              body.input_size(), body.output_size(), node.num_inputs());
  }
  const size_t scan_outputs = static_cast<size_t>(body.output_size()) - states;
  auto per_item = [&](const char* attr, size_t count) {
    std::vector<int64_t> v = node.attr_ints(attr, {});
    if (v.empty()) v.assign(count, 0);
    if (v.size() != count)
      node.fail(Error::InvalidArgument, "{} has {} entries, not {}", attr, v.size(), count);
    return v;
  };
  const std::vector<int64_t> in_axes = per_item("scan_input_axes", scan_inputs);
  const std::vector<int64_t> in_dirs = per_item("scan_input_directions", scan_inputs);
  const std::vector<int64_t> out_axes = per_item("scan_output_axes", scan_outputs);
  const std::vector<int64_t> out_dirs = per_item("scan_output_directions", scan_outputs);

  // The scan inputs' iteration axes, all of one static length.
  int64_t steps = -1;
  std::vector<int64_t> axes(scan_inputs);
  for (size_t j = 0; j < scan_inputs; ++j) {
    const std::vector<int64_t> sizes = ctx.input_sizes(node, states + j);
    axes[j] = node.normalize_axis(in_axes[j], static_cast<int64_t>(sizes.size()));
    const int64_t n = sizes[static_cast<size_t>(axes[j])];
    if (steps >= 0 && n != steps) {
      node.fail(Error::InvalidArgument, "scan inputs of {} and {} steps", steps, n);
    }
    steps = n;
  }
  if (steps > kMaxLoopIterations) {
    node.fail(Error::NotSupported, "{} steps are more than {}; ptec unrolls Scan at export", steps,
              kMaxLoopIterations);
  }
  BodyUnroller unroller(ctx, node, import_node, body);
  std::vector<Carried> state;
  for (size_t i = 0; i < states; ++i) state.push_back(unroller.value(node.input(i), "state"));
  std::vector<std::vector<Value>> outs(scan_outputs);
  for (int64_t it = 0; it < steps; ++it) {
    std::vector<Carried> inputs = state;
    for (size_t j = 0; j < scan_inputs; ++j) {
      const int64_t t = in_dirs[j] != 0 ? steps - 1 - it : it;
      Value slice;
      if (const ConstTensor* c = ctx.constant(node, states + j)) {
        std::vector<int64_t> sizes = c->sizes;
        sizes.erase(sizes.begin() + axes[j]);
        slice = Value{nullptr, eval::slice(*c, {eval::SliceAxis{axes[j], t, 1, 1}}).reshaped(sizes),
                      false, node.source()};
      } else {
        slice = Value{ctx.call("aten::select_copy.int", {ctx.input(node, states + j), axes[j], t}),
                      std::nullopt, false, node.source()};
      }
      inputs.push_back({slice, std::nullopt});
    }
    std::vector<Carried> outputs = unroller.run(it, inputs);
    for (size_t i = 0; i < states; ++i) state[i] = outputs[i];
    for (size_t k = 0; k < scan_outputs; ++k) {
      if (outputs[states + k].seq) node.fail(Error::NotSupported, "a scan output is a sequence");
      outs[k].push_back(outputs[states + k].value);
    }
  }
  for (size_t i = 0; i < states; ++i) {
    if (node.has_output(i)) unroller.define(node.output(i), state[i]);
  }
  for (size_t k = 0; k < scan_outputs; ++k) {
    if (!node.has_output(states + k)) continue;
    if (steps == 0) node.fail(Error::NotSupported, "scan outputs of a Scan of no step");
    if (out_dirs[k] != 0) std::reverse(outs[k].begin(), outs[k].end());
    const ir::TensorSpec item =
        outs[k][0].node != nullptr ? outs[k][0].node->spec() : outs[k][0].constant->spec();
    const int64_t axis = node.normalize_axis(out_axes[k], static_cast<int64_t>(item.rank()) + 1);
    ctx.define(node.output(states + k),
               concat_values(ctx, node, outs[k], node.output(states + k), axis, true));
  }
}

}  // namespace ptec::onnx_import

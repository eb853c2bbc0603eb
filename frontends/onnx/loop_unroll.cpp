#include "frontends/onnx/loop_unroll.h"

#include <list>
#include <unordered_set>

#include "frontends/onnx/const_eval.h"

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

/// The per-iteration values of one scan output stacked along a new axis 0.
Value stack(ImportContext& ctx, const NodeView& node, std::vector<Value>& parts,
            const std::string& name) {
  const bool all_constant = std::all_of(parts.begin(), parts.end(),
                                        [](const Value& v) { return v.constant.has_value(); });
  if (all_constant) {
    std::vector<ConstTensor> rows;
    for (const Value& v : parts) {
      std::vector<int64_t> sizes = v.constant->sizes;
      sizes.insert(sizes.begin(), 1);
      rows.push_back(v.constant->reshaped(std::move(sizes)));
    }
    std::vector<const ConstTensor*> ptrs;
    for (const ConstTensor& r : rows) ptrs.push_back(&r);
    return Value{nullptr, eval::concat(ptrs, 0), false, node.source()};
  }
  ir::ArgumentList rows;
  for (size_t i = 0; i < parts.size(); ++i) {
    ir::Node* x = ctx.materialize(fmt::format("{}_{}", name, i), parts[i]);
    rows.emplace_back(ctx.call("aten::unsqueeze_copy", {x, int64_t{0}}));
  }
  return Value{ctx.call("aten::cat", {std::move(rows), int64_t{0}}), std::nullopt, false,
               node.source()};
}

}  // namespace

void import_loop(ImportContext& ctx, const NodeView& node, onnx::NodeProto& proto,
                 const ImportNodeFn& import_node) {
  const onnx::GraphProto* body = nullptr;
  for (const onnx::AttributeProto& a : proto.attribute()) {
    if (a.name() == "body" && a.has_g()) body = &a.g();
  }
  if (body == nullptr) node.fail(Error::InvalidArgument, "no body graph");
  if (node.num_inputs() < 2) node.fail(Error::InvalidArgument, "expected M and cond inputs");
  const size_t carried_count = node.num_inputs() - 2;
  if (static_cast<size_t>(body->input_size()) != carried_count + 2 ||
      static_cast<size_t>(body->output_size()) < carried_count + 1) {
    node.fail(Error::InvalidArgument,
              "the body has {} inputs and {} outputs; {} loop-carried values need {} inputs and "
              "at least {} outputs",
              body->input_size(), body->output_size(), carried_count, carried_count + 2,
              carried_count + 1);
  }
  const size_t scan_count = static_cast<size_t>(body->output_size()) - carried_count - 1;

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

  // A loop-carried value: a tensor, or a sequence (a list of tensor values).
  struct Carried {
    Value value;
    std::optional<std::vector<Value>> seq;
  };
  auto carried_value = [&](const std::string& name) {
    const Value* v = ctx.find(name);
    if (v == nullptr) node.fail(Error::InvalidArgument, "'{}' is not defined", name);
    if (ctx.sym_value(name) != nullptr) {
      node.fail(Error::NotSupported, "loop-carried value '{}' is a shape value of dynamic dims",
                name);
    }
    Carried c{*v, std::nullopt};
    if (const std::vector<Value>* seq = ctx.seq_value(name)) c.seq = *seq;
    return c;
  };
  std::vector<Carried> carried;
  for (size_t i = 0; i < carried_count; ++i) carried.push_back(carried_value(node.input(2 + i)));
  auto define_carried = [&](const std::string& name, const Carried& c) {
    if (c.seq) {
      ctx.define_seq(name, *c.seq, node.source());
    } else {
      ctx.define(name, c.value);
    }
  };
  std::vector<std::vector<Value>> scans(scan_count);

  std::unordered_set<std::string> defined;
  collect_defined(*body, defined);
  // Each iteration imports its own copy of the body: importing moves the tensors' raw bytes out
  // of the protos. The copies outlive the loop's import (values may point into them).
  std::list<onnx::GraphProto> copies;
  int64_t it = 0;
  for (; it < trip && cond; ++it) {
    if (it == kMaxLoopIterations) {
      node.fail(Error::NotSupported,
                "the condition is still true after {} iterations; ptec unrolls loops at export "
                "and stops there",
                kMaxLoopIterations);
    }
    onnx::GraphProto& copy = copies.emplace_back(*body);
    ctx.define(copy.input(0).name(), Value{nullptr, ConstTensor::from_int64(DType::Long, {}, {it}),
                                           false, node.source()});
    ctx.define(copy.input(1).name(),
               Value{nullptr, ConstTensor::from_int64(DType::Bool, {}, {1}), false, node.source()});
    for (size_t i = 0; i < carried_count; ++i) {
      define_carried(copy.input(static_cast<int>(2 + i)).name(), carried[i]);
    }
    for (onnx::TensorProto& init : *copy.mutable_initializer()) {
      ctx.define(init.name(),
                 Value{nullptr, ctx.tensor_from_proto(init, init.name()), true, init.name()});
    }
    int child = 0;
    for (onnx::NodeProto& inner : *copy.mutable_node()) {
      import_node(inner,
                  fmt::format("{}/{}/{}", node.source(), it,
                              inner.name().empty() ? fmt::format("{}_{}", inner.op_type(), child)
                                                   : inner.name()));
      ++child;
    }
    ctx.set_current(&node);
    auto output = [&](size_t i) { return carried_value(copy.output(static_cast<int>(i)).name()); };
    cond = known_condition(node, ctx.find(copy.output(0).name()), copy.output(0).name());
    for (size_t i = 0; i < carried_count; ++i) carried[i] = output(1 + i);
    for (size_t k = 0; k < scan_count; ++k) {
      Carried c = output(1 + carried_count + k);
      if (c.seq) {
        node.fail(Error::NotSupported, "scan output '{}' is a sequence",
                  copy.output(static_cast<int>(1 + carried_count + k)).name());
      }
      scans[k].push_back(std::move(c.value));
    }
    for (const std::string& name : defined) ctx.undefine(name);
  }

  for (size_t i = 0; i < carried_count; ++i) {
    if (node.has_output(i)) define_carried(node.output(i), carried[i]);
  }
  for (size_t k = 0; k < scan_count; ++k) {
    if (!node.has_output(carried_count + k)) continue;
    if (it == 0) {
      node.fail(Error::NotSupported, "scan output '{}' of a loop that runs no iteration",
                node.output(carried_count + k));
    }
    ctx.define(node.output(carried_count + k),
               stack(ctx, node, scans[k], node.output(carried_count + k)));
  }
}

}  // namespace ptec::onnx_import

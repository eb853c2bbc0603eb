#include "memory/lifetime.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ir/exception.h"
#include "ir/exported_program.h"
#include "ir/op_schema.h"

namespace ptec::memory {

bool is_getitem(const ir::Node& node) {
  return node.is_call() && node.op() != nullptr && node.op()->ns.empty() &&
         node.op()->name == "getitem";
}

std::pair<const ir::Node*, size_t> resolve_value(const ir::Node* node) {
  if (node == nullptr || !is_getitem(*node)) return {node, 0};
  PTEC_ENFORCE(node->args().size() >= 2 && node->arg(1).is_int() && node->arg(1).as_int() >= 0,
               InvalidArgument, "getitem %{} must take a non-negative index", node->name());
  const ir::Argument& self = node->arg(0);
  const auto index = static_cast<size_t>(node->arg(1).as_int());
  if (self.is_list()) {
    // getitem of a list of tensors: the item itself.
    PTEC_ENFORCE(index < self.as_list().size() && self.as_list()[index].is_node(), InvalidArgument,
                 "getitem %{} takes item {} of a list of {}", node->name(), index,
                 self.as_list().size());
    return resolve_value(self.as_list()[index].as_node());
  }
  PTEC_ENFORCE(self.is_node(), InvalidArgument, "getitem %{} must take a node or a list",
               node->name());
  const ir::Node* producer = self.as_node();
  PTEC_ENFORCE(index < producer->meta().val.size(), InvalidArgument,
               "getitem %{} takes output {} of %{}, which has {} outputs", node->name(), index,
               producer->name(), producer->meta().val.size());
  return {producer, index};
}

namespace {

bool is_user_input(const ir::ExportedProgram& program, const ir::Node& node) {
  const ir::InputSpec* spec = program.signature().find_input(node.name());
  if (spec != nullptr) return spec->kind == ir::InputKind::UserInput;
  // A placeholder the signature does not describe is an input unless it names a constant.
  return program.constant_for_placeholder(node.name()) == nullptr;
}

std::string value_name(const ir::Node& node, size_t output_index) {
  return node.meta().val.size() > 1 ? fmt::format("{}[{}]", node.name(), output_index)
                                    : node.name();
}

}  // namespace

std::vector<TensorLifetime> compute_lifetimes(const ir::ExportedProgram& program,
                                              const PlannerOptions& options) {
  const ir::Graph& graph = program.graph();
  using Key = std::pair<const ir::Node*, size_t>;
  std::map<Key, size_t> index;  // value → position in `out`
  std::vector<TensorLifetime> out;
  std::set<Key> inputs;

  auto define = [&](const ir::Node& node, size_t output_index, int64_t position) {
    TensorLifetime t;
    t.name = value_name(node, output_index);
    t.node = &node;
    t.output_index = output_index;
    t.nbytes = node.meta().val[output_index].nbytes_upper_bound();
    t.first = position;
    t.last = position;
    index[{&node, output_index}] = out.size();
    out.push_back(std::move(t));
  };
  auto use = [&](const ir::Node* node, int64_t position) {
    if (!is_getitem(*node) && node->meta().val.size() > 1) {
      // A multi-output node used whole (e.g. as a list): all of its outputs are used.
      for (size_t i = 0; i < node->meta().val.size(); ++i) {
        auto it = index.find({node, i});
        if (it != index.end()) out[it->second].last = std::max(out[it->second].last, position);
      }
      return;
    }
    auto it = index.find(resolve_value(node));
    if (it != index.end()) out[it->second].last = std::max(out[it->second].last, position);
  };

  const int64_t end = static_cast<int64_t>(graph.size());
  int64_t position = 0;
  for (const ir::Node* node : graph.nodes()) {
    if (node->is_placeholder()) {
      if (options.alloc_graph_input && !node->meta().val.empty() && is_user_input(program, *node)) {
        define(*node, 0, 0);
        out.back().last = end;
        inputs.insert({node, 0});
      }
    } else if (node->is_call() && !is_getitem(*node)) {
      for (const ir::Argument& a : node->args()) {
        ir::for_each_node(a, [&](ir::Node* n) { use(n, position); });
      }
      for (size_t i = 0; i < node->meta().val.size(); ++i) define(*node, i, position);
    } else if (node->is_output()) {
      for (const ir::Argument& a : node->args()) {
        ir::for_each_node(a, [&](ir::Node* n) { use(n, end); });
      }
    }
    ++position;
  }

  if (!options.alloc_graph_output) {
    std::set<Key> returned;
    for (const ir::Node* n : graph.outputs()) {
      if (n == nullptr) continue;
      if (!is_getitem(*n) && n->meta().val.size() > 1) {
        for (size_t i = 0; i < n->meta().val.size(); ++i) returned.insert({n, i});
      } else {
        returned.insert(resolve_value(n));
      }
    }
    std::erase_if(out, [&](const TensorLifetime& t) {
      const Key key{t.node, t.output_index};
      return returned.count(key) != 0 && inputs.count(key) == 0;
    });
  }
  return out;
}

}  // namespace ptec::memory

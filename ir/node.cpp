#include "ir/node.h"

#include <algorithm>

#include "ir/exception.h"
#include "ir/graph.h"
#include "ir/op_schema.h"

namespace ptec::ir {

const char* to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::Placeholder: return "placeholder";
    case NodeKind::CallFunction: return "call_function";
    case NodeKind::GetAttr: return "get_attr";
    case NodeKind::Output: return "output";
  }
  return "unknown";
}

bool Node::is_op(std::string_view qualified_name) const {
  return op_ != nullptr && target_ == qualified_name;
}

const Argument& Node::arg(std::string_view name) const {
  PTEC_ENFORCE(op_ != nullptr, InvalidArgument, "node %{} is not an operator call", name_);
  const int index = op_->arg_index(name);
  PTEC_ENFORCE(index >= 0 && static_cast<size_t>(index) < args_.size(), InvalidArgument,
               "node %{} ({}) has no argument '{}'", name_, target_, name);
  return args_[static_cast<size_t>(index)];
}

std::vector<Node*> Node::inputs() const {
  std::vector<Node*> out;
  for (const Argument& a : args_) {
    for_each_node(a, [&](Node* n) {
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    });
  }
  return out;
}

void Node::set_debug_handle(int64_t handle) {
  debug_handle_ = handle;
  graph_->next_debug_handle_ = std::max(graph_->next_debug_handle_, handle + 1);
}

const TensorSpec& Node::spec() const {
  PTEC_ENFORCE(meta_.val.size() == 1, InvalidState,
               "node %{} ({}) has {} output tensor specs where one was expected", name_, target_,
               meta_.val.size());
  return meta_.val[0];
}

}  // namespace ptec::ir

#include "ir/graph.h"

#include <algorithm>
#include <cctype>
#include <functional>

#include "ir/exception.h"
#include "ir/op_schema.h"

namespace ptec::ir {
namespace {

// Node names are identifiers: letters, digits and '_', not starting with a digit.
std::string sanitize(std::string_view hint) {
  std::string out;
  out.reserve(hint.size());
  for (char c : hint) {
    out.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_');
  }
  if (out.empty()) out = "node";
  if (std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(out.begin(), '_');
  return out;
}

}  // namespace

Node* Graph::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : it->second;
}

Node& Graph::get(std::string_view name) const {
  Node* n = find(name);
  PTEC_ENFORCE(n != nullptr, NotFound, "graph has no node named %{}", name);
  return *n;
}

std::vector<Node*> Graph::placeholders() const {
  std::vector<Node*> out;
  for (Node* n : order_) {
    if (n->is_placeholder()) out.push_back(n);
  }
  return out;
}

std::vector<Node*> Graph::outputs() const {
  if (output_ == nullptr || output_->args_.empty()) return {};
  return output_->args_[0].to_node_vector();
}

std::string Graph::unique_name(std::string_view hint) const {
  const std::string base = sanitize(hint);
  if (by_name_.count(base) == 0) return base;
  // FX style: relu, relu_1, relu_2, ... (a base already ending in _N keeps it and adds another).
  for (size_t i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (by_name_.count(candidate) == 0) return candidate;
  }
}

Node* Graph::create(NodeKind kind, const std::string& name_hint, Node* before, bool exact_name) {
  std::string name =
      exact_name && by_name_.count(name_hint) == 0 && sanitize(name_hint) == name_hint
          ? name_hint
          : unique_name(name_hint);
  auto owned = std::unique_ptr<Node>(new Node(this, kind, name));
  Node* node = owned.get();
  node->debug_handle_ = next_debug_handle_++;
  if (before == nullptr) before = output_;
  if (before != nullptr) {
    PTEC_ENFORCE(&before->graph() == this, InvalidArgument,
                 "insertion point %{} belongs to another graph", before->name());
    node->position_ = order_.insert(before->position_, node);
  } else {
    node->position_ = order_.insert(order_.end(), node);
  }
  by_name_.emplace(name, node);
  storage_.emplace(node, std::move(owned));
  return node;
}

Node* Graph::add_placeholder(const std::string& name, TensorSpec spec) {
  // Placeholders go after the last placeholder (before the first other node).
  Node* before = nullptr;
  for (Node* n : order_) {
    if (!n->is_placeholder()) {
      before = n;
      break;
    }
  }
  Node* node = create(NodeKind::Placeholder, name, before, /*exact_name=*/true);
  node->target_ = node->name_;
  node->meta_.val.push_back(std::move(spec));
  return node;
}

Node* Graph::add_call(const OpSchema& op, ArgumentList args, const std::string& name_hint,
                      Node* before) {
  Node* node = create(NodeKind::CallFunction, name_hint.empty() ? op.name : name_hint, before,
                      /*exact_name=*/!name_hint.empty());
  node->op_ = &op;
  node->target_ = op.qualified_name();
  node->args_ = std::move(args);
  add_uses(node);
  return node;
}

Node* Graph::add_get_attr(const std::string& target, const std::string& name_hint, Node* before) {
  Node* node = create(NodeKind::GetAttr, name_hint.empty() ? target : name_hint, before,
                      /*exact_name=*/!name_hint.empty());
  node->target_ = target;
  return node;
}

Node* Graph::set_output(const std::vector<Node*>& values) {
  if (output_ == nullptr) {
    // With no output node yet, create() appends at the end: the output node is always last.
    output_ = create(NodeKind::Output, "output", nullptr, /*exact_name=*/true);
    output_->target_ = "output";
  } else {
    remove_uses(output_);
  }
  output_->args_ = {Argument(values)};
  add_uses(output_);
  return output_;
}

void Graph::add_uses(Node* user) {
  for (Node* input : user->inputs()) {
    PTEC_ENFORCE(&input->graph() == this, InvalidArgument,
                 "node %{} uses %{}, which belongs to another graph", user->name(), input->name());
    if (std::find(input->users_.begin(), input->users_.end(), user) == input->users_.end()) {
      input->users_.push_back(user);
    }
  }
}

void Graph::remove_uses(Node* user) {
  for (Node* input : user->inputs()) {
    auto& users = input->users_;
    users.erase(std::remove(users.begin(), users.end(), user), users.end());
  }
}

void Graph::set_arg(Node* node, size_t index, Argument value) {
  PTEC_ENFORCE(index < node->args_.size(), InvalidArgument,
               "node %{} has {} arguments; cannot set argument {}", node->name(),
               node->args_.size(), index);
  remove_uses(node);
  node->args_[index] = std::move(value);
  add_uses(node);
}

void Graph::set_args(Node* node, ArgumentList args) {
  remove_uses(node);
  node->args_ = std::move(args);
  add_uses(node);
}

namespace {
bool replace_in(Argument& arg, Node* old_node, Node* replacement) {
  if (arg.is_node()) {
    if (arg.as_node() != old_node) return false;
    arg = Argument(replacement);
    return true;
  }
  bool changed = false;
  if (arg.is_list()) {
    for (Argument& item : arg.as_list()) changed |= replace_in(item, old_node, replacement);
  }
  return changed;
}
}  // namespace

size_t Graph::replace_all_uses_with(Node* old_node, Node* replacement) {
  PTEC_ENFORCE(old_node != replacement, InvalidArgument,
               "cannot replace the uses of %{} with itself", old_node->name());
  const std::vector<Node*> users = old_node->users_;
  for (Node* user : users) {
    remove_uses(user);
    for (Argument& a : user->args_) replace_in(a, old_node, replacement);
    add_uses(user);
  }
  return users.size();
}

void Graph::erase(Node* node) {
  PTEC_ENFORCE(&node->graph() == this, InvalidArgument, "node %{} belongs to another graph",
               node->name());
  if (!node->users_.empty()) {
    std::string names;
    for (Node* u : node->users_) names += (names.empty() ? "%" : ", %") + u->name();
    raise(Error::InvalidState, "cannot erase %{}: it is still used by {}", node->name(), names);
  }
  remove_uses(node);
  if (node == output_) output_ = nullptr;
  order_.erase(node->position_);
  by_name_.erase(node->name_);
  storage_.erase(node);
}

void Graph::move_before(Node* node, Node* before) {
  PTEC_ENFORCE(&node->graph() == this && &before->graph() == this, InvalidArgument,
               "move_before: nodes belong to different graphs");
  if (node == before) return;
  order_.erase(node->position_);
  node->position_ = order_.insert(before->position_, node);
}

std::unique_ptr<Graph> Graph::clone(std::unordered_map<const Node*, Node*>* mapping) const {
  auto copy = std::make_unique<Graph>();
  std::unordered_map<const Node*, Node*> local;
  std::unordered_map<const Node*, Node*>& map = mapping != nullptr ? *mapping : local;

  // Remap node references inside an argument.
  std::function<Argument(const Argument&)> remap = [&](const Argument& a) -> Argument {
    if (a.is_node()) return Argument(map.at(a.as_node()));
    if (a.is_list()) {
      ArgumentList items;
      items.reserve(a.as_list().size());
      for (const Argument& item : a.as_list()) items.push_back(remap(item));
      return Argument(std::move(items));
    }
    return a;
  };

  // Create every node first so that arguments may refer to any node, whatever the order.
  for (const Node* n : order_) {
    auto owned = std::unique_ptr<Node>(new Node(copy.get(), n->kind_, n->name_));
    Node* c = owned.get();
    c->op_ = n->op_;
    c->target_ = n->target_;
    c->debug_handle_ = n->debug_handle_;
    c->meta_ = n->meta_;
    c->position_ = copy->order_.insert(copy->order_.end(), c);
    copy->by_name_.emplace(c->name_, c);
    copy->storage_.emplace(c, std::move(owned));
    map[n] = c;
  }
  for (const Node* n : order_) {
    Node* c = map.at(n);
    c->args_.reserve(n->args_.size());
    for (const Argument& a : n->args_) c->args_.push_back(remap(a));
  }
  // Users in the same order as in the original.
  for (const Node* n : order_) {
    Node* c = map.at(n);
    for (const Node* u : n->users_) c->users_.push_back(map.at(u));
  }
  copy->output_ = output_ == nullptr ? nullptr : map.at(output_);
  copy->next_debug_handle_ = next_debug_handle_;
  return copy;
}

}  // namespace ptec::ir

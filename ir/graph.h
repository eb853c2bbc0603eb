#pragma once

#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/node.h"

namespace ptec::ir {

/// A dataflow graph of Nodes in topological order (torch.fx's Graph): placeholders first, then
/// calls and get_attrs, then one output node. Node names are unique and stable; every node has a
/// debug handle unique in the graph. Use-def lists are kept current by every mutation.
class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  /// Topological order.
  const std::list<Node*>& nodes() const { return order_; }
  size_t size() const { return order_.size(); }
  Node* find(std::string_view name) const;
  /// The node named `name`; throws NotFound.
  Node& get(std::string_view name) const;

  std::vector<Node*> placeholders() const;
  /// The output node, or nullptr before set_output.
  Node* output_node() const { return output_; }
  /// The nodes the output node returns.
  std::vector<Node*> outputs() const;

  /// Adds a placeholder after the existing placeholders. `name` is used as given when free (or
  /// made unique with a suffix).
  Node* add_placeholder(const std::string& name, TensorSpec spec);
  /// Adds a call of `op` with `args` in schema order (all of them, defaults materialised) before
  /// `before` (default: before the output node, or at the end). `name_hint` defaults to the op's
  /// base name ("convolution", "convolution_1", ...). `meta.val` is left empty: the caller (the
  /// builder, an importer or a pass) sets it, normally from the op's shape function.
  Node* add_call(const OpSchema& op, ArgumentList args, const std::string& name_hint = "",
                 Node* before = nullptr);
  /// Adds a get_attr of `target` (a module attribute such as a lowered module or an engine).
  Node* add_get_attr(const std::string& target, const std::string& name_hint = "",
                     Node* before = nullptr);
  /// Adds or replaces the output node returning `values`.
  Node* set_output(const std::vector<Node*>& values);

  /// Replaces argument `index` of `node`, keeping use lists current.
  void set_arg(Node* node, size_t index, Argument value);
  /// Replaces all arguments of `node`.
  void set_args(Node* node, ArgumentList args);
  /// Makes every user of `old_node` use `replacement` instead. Returns the number of users changed.
  size_t replace_all_uses_with(Node* old_node, Node* replacement);
  /// Removes `node`; it must have no users (InvalidState otherwise, naming the users).
  void erase(Node* node);
  /// Moves `node` to just before `before` (both in this graph).
  void move_before(Node* node, Node* before);

  /// A new name based on `hint` that no node uses ("relu", "relu_1", ...).
  std::string unique_name(std::string_view hint) const;
  /// Next unused debug handle (handles start at 1).
  int64_t next_debug_handle() const { return next_debug_handle_; }

  /// A structural copy: same node names, order, args, meta and debug handles. `mapping`, when
  /// given, receives old node → new node.
  std::unique_ptr<Graph> clone(std::unordered_map<const Node*, Node*>* mapping = nullptr) const;

 private:
  friend class Node;  // Node::set_debug_handle keeps next_debug_handle_ ahead of every handle
  Node* create(NodeKind kind, const std::string& name_hint, Node* before, bool exact_name);
  void add_uses(Node* user);
  void remove_uses(Node* user);

  std::unordered_map<const Node*, std::unique_ptr<Node>> storage_;
  std::list<Node*> order_;
  std::unordered_map<std::string, Node*> by_name_;
  Node* output_ = nullptr;
  int64_t next_debug_handle_ = 1;
};

}  // namespace ptec::ir

#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <string>
#include <vector>

#include "ir/argument.h"
#include "ir/tensor_spec.h"

namespace ptec::ir {

struct OpSchema;
class Graph;

enum class NodeKind { Placeholder, CallFunction, GetAttr, Output };
const char* to_string(NodeKind kind);

/// Per-node metadata kept through every pass.
struct NodeMeta {
  /// Output tensor specs: one per tensor the node produces (several for multi-output ops, none
  /// for the output node or for nodes producing a non-tensor value).
  std::vector<TensorSpec> val;
  /// Where the node came from, e.g. the ONNX node name ("/layer1/conv1/Conv").
  std::string source;
  /// Partition tag set by a partitioner; empty when untagged.
  std::string delegation_tag;
  /// Free-form string annotations (printed and parsed; keep keys identifier-like).
  std::map<std::string, std::string> extra;

  bool operator==(const NodeMeta&) const = default;
};

/// A node of a Graph (torch.fx's Node). Created, changed and erased only through Graph, which
/// keeps use-def lists current.
class Node {
 public:
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  const std::string& name() const { return name_; }
  NodeKind kind() const { return kind_; }
  bool is_placeholder() const { return kind_ == NodeKind::Placeholder; }
  bool is_call() const { return kind_ == NodeKind::CallFunction; }
  bool is_get_attr() const { return kind_ == NodeKind::GetAttr; }
  bool is_output() const { return kind_ == NodeKind::Output; }

  /// The operator of a CallFunction node (nullptr otherwise).
  const OpSchema* op() const { return op_; }
  /// "aten::add.Tensor" for calls, the attribute name for GetAttr, the name for placeholders.
  const std::string& target() const { return target_; }
  /// True when this is a call of the operator with this qualified name.
  bool is_op(std::string_view qualified_name) const;

  /// Arguments in schema order, defaults materialised (all of the schema's arguments). The output
  /// node has one argument: the list of returned nodes.
  const ArgumentList& args() const { return args_; }
  const Argument& arg(size_t i) const { return args_.at(i); }
  /// The argument named `name` in the op schema; throws InvalidArgument when there is none.
  const Argument& arg(std::string_view name) const;

  /// Nodes that use this node, in the order they started to use it, each once.
  const std::vector<Node*>& users() const { return users_; }
  /// Nodes this node uses, each once, in argument order.
  std::vector<Node*> inputs() const;

  int64_t debug_handle() const { return debug_handle_; }
  /// Sets the handle (e.g. when parsing a printed graph); later nodes get larger handles.
  void set_debug_handle(int64_t handle);

  NodeMeta& meta() { return meta_; }
  const NodeMeta& meta() const { return meta_; }
  /// The single output spec; throws InvalidState when the node has not exactly one.
  const TensorSpec& spec() const;

  Graph& graph() const { return *graph_; }

 private:
  friend class Graph;
  Node(Graph* graph, NodeKind kind, std::string name)
      : graph_(graph), kind_(kind), name_(std::move(name)) {}

  Graph* graph_;
  NodeKind kind_;
  std::string name_;
  const OpSchema* op_ = nullptr;
  std::string target_;
  ArgumentList args_;
  std::vector<Node*> users_;
  int64_t debug_handle_ = 0;
  NodeMeta meta_;
  std::list<Node*>::iterator position_;
};

}  // namespace ptec::ir

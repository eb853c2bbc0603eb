#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/dtype.h"

namespace ptec::ir {

class Node;
struct Argument;
using ArgumentList = std::vector<Argument>;

/// One argument of a node, as in torch.fx: None, a node (a tensor or symbolic value), an int,
/// a float, a bool, a string, a dtype, or a list of arguments (int[] holds Int or symbolic
/// Node items; Tensor[] holds Nodes; Tensor?[] holds Nodes and Nones).
struct Argument {
  using Value =
      std::variant<std::monostate, Node*, int64_t, double, bool, std::string, DType, ArgumentList>;
  Value value;

  Argument() = default;
  /* implicit */ Argument(std::nullptr_t) {}
  /* implicit */ Argument(Node* node) : value(node) {}
  /* implicit */ Argument(int64_t v) : value(v) {}
  /* implicit */ Argument(int v) : value(int64_t{v}) {}
  /* implicit */ Argument(double v) : value(v) {}
  /* implicit */ Argument(bool v) : value(v) {}
  /* implicit */ Argument(std::string v) : value(std::move(v)) {}
  /* implicit */ Argument(const char* v) : value(std::string(v)) {}
  /* implicit */ Argument(DType v) : value(v) {}
  /* implicit */ Argument(ArgumentList v) : value(std::move(v)) {}
  /* implicit */ Argument(const std::vector<int64_t>& ints);
  /* implicit */ Argument(const std::vector<Node*>& nodes);

  bool is_none() const { return std::holds_alternative<std::monostate>(value); }
  bool is_node() const { return std::holds_alternative<Node*>(value); }
  bool is_int() const { return std::holds_alternative<int64_t>(value); }
  bool is_double() const { return std::holds_alternative<double>(value); }
  bool is_bool() const { return std::holds_alternative<bool>(value); }
  bool is_string() const { return std::holds_alternative<std::string>(value); }
  bool is_dtype() const { return std::holds_alternative<DType>(value); }
  bool is_list() const { return std::holds_alternative<ArgumentList>(value); }

  Node* as_node() const { return std::get<Node*>(value); }
  int64_t as_int() const { return std::get<int64_t>(value); }
  double as_double() const { return std::get<double>(value); }
  bool as_bool() const { return std::get<bool>(value); }
  const std::string& as_string() const { return std::get<std::string>(value); }
  DType as_dtype() const { return std::get<DType>(value); }
  const ArgumentList& as_list() const { return std::get<ArgumentList>(value); }
  ArgumentList& as_list() { return std::get<ArgumentList>(value); }

  /// An int or a double as a double (Scalar arguments).
  double to_double() const;
  /// A list of Int items as int64 values; throws InvalidArgument if an item is not an int.
  std::vector<int64_t> to_int_vector() const;
  /// A list of Node items (nullptr for None items).
  std::vector<Node*> to_node_vector() const;

  bool operator==(const Argument& other) const { return value == other.value; }
};

/// Calls `fn(Node*)` for every node referenced by `arg`, including inside lists.
template <typename Fn>
void for_each_node(const Argument& arg, Fn&& fn) {
  if (arg.is_node()) {
    fn(arg.as_node());
  } else if (arg.is_list()) {
    for (const Argument& item : arg.as_list()) for_each_node(item, fn);
  }
}

}  // namespace ptec::ir

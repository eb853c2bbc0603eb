#include "ir/argument.h"

#include "ir/exception.h"
#include "ir/node.h"

namespace ptec::ir {

Argument::Argument(const std::vector<int64_t>& ints) {
  ArgumentList list;
  list.reserve(ints.size());
  for (int64_t v : ints) list.emplace_back(v);
  value = std::move(list);
}

Argument::Argument(const std::vector<Node*>& nodes) {
  ArgumentList list;
  list.reserve(nodes.size());
  for (Node* n : nodes) list.push_back(n == nullptr ? Argument() : Argument(n));
  value = std::move(list);
}

double Argument::to_double() const {
  if (is_double()) return as_double();
  if (is_int()) return static_cast<double>(as_int());
  if (is_bool()) return as_bool() ? 1.0 : 0.0;
  raise(Error::InvalidArgument, "expected a number");
}

std::vector<int64_t> Argument::to_int_vector() const {
  PTEC_ENFORCE(is_list(), InvalidArgument, "expected a list of ints");
  std::vector<int64_t> out;
  out.reserve(as_list().size());
  for (const Argument& item : as_list()) {
    PTEC_ENFORCE(item.is_int(), InvalidArgument,
                 "expected a list of ints, found an item that is not an int{}",
                 item.is_node() ? fmt::format(" (node %{})", item.as_node()->name()) : "");
    out.push_back(item.as_int());
  }
  return out;
}

std::vector<Node*> Argument::to_node_vector() const {
  PTEC_ENFORCE(is_list(), InvalidArgument, "expected a list of tensors");
  std::vector<Node*> out;
  out.reserve(as_list().size());
  for (const Argument& item : as_list()) {
    PTEC_ENFORCE(item.is_node() || item.is_none(), InvalidArgument,
                 "expected a list of tensors, found an item that is not a node");
    out.push_back(item.is_node() ? item.as_node() : nullptr);
  }
  return out;
}

}  // namespace ptec::ir

#include "ir/verifier.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "ir/exception.h"

namespace ptec::ir {
namespace {

bool produces_scalar(const Node& n) {
  return n.is_call() && n.op() != nullptr && !n.op()->returns_tensors();
}

bool produces_tensor(const Node& n) { return n.meta().val.size() == 1 && !produces_scalar(n); }

std::string_view kind_name(const Node& n) {
  if (n.is_call()) return n.target();
  return to_string(n.kind());
}

std::string where(const Node& n) { return fmt::format("%{} ({})", n.name(), kind_name(n)); }

std::string spec_string(const std::vector<TensorSpec>& specs) {
  if (specs.size() == 1) return specs[0].to_string();
  std::string out = "(";
  for (size_t i = 0; i < specs.size(); ++i) out += (i ? ", " : "") + specs[i].to_string();
  return out + ")";
}

bool same_type(const TensorSpec& a, const TensorSpec& b) {
  if (a.dtype != b.dtype || a.shape.size() != b.shape.size()) return false;
  for (size_t i = 0; i < a.shape.size(); ++i) {
    const SymInt& x = a.shape[i];
    const SymInt& y = b.shape[i];
    if (x == y) continue;
    // Data-dependent counts named after a since-replaced input (Symbol::data_dependent).
    const bool renamed = x.is_symbolic() && y.is_symbolic() && x.symbol()->data_dependent &&
                         y.symbol()->data_dependent && x.lower_bound() == y.lower_bound() &&
                         x.upper_bound() == y.upper_bound();
    if (!renamed) return false;
  }
  return true;
}

std::optional<std::string> check_item(BaseType base, bool element_optional, const Argument& v) {
  if (v.is_none()) {
    if (element_optional) return std::nullopt;
    return fmt::format("expected {}, got None", to_string(base));
  }
  auto expected = [&](const char* what) {
    return fmt::format("expected {}, got {}", what, describe_argument(v));
  };
  const bool scalar_node = v.is_node() && produces_scalar(*v.as_node());
  switch (base) {
    case BaseType::Tensor:
      if (v.is_node() && produces_tensor(*v.as_node())) return std::nullopt;
      if (v.is_node()) {
        return fmt::format("expected Tensor, got %{} with {} output specs", v.as_node()->name(),
                           v.as_node()->meta().val.size());
      }
      return expected("Tensor");
    case BaseType::Int:
    case BaseType::SymInt:
      if (v.is_int() || scalar_node) return std::nullopt;
      return expected("int");
    case BaseType::Float:
      if (v.is_double() || v.is_int() || scalar_node) return std::nullopt;
      return expected("float");
    case BaseType::Bool:
      if (v.is_bool() || scalar_node) return std::nullopt;
      return expected("bool");
    case BaseType::Scalar:
      if (v.is_int() || v.is_double() || v.is_bool() || scalar_node) return std::nullopt;
      return expected("Scalar");
    case BaseType::ScalarType:
      if (v.is_dtype()) return std::nullopt;
      return expected("ScalarType");
    case BaseType::Layout:
    case BaseType::MemoryFormat:
      if (v.is_int()) return std::nullopt;
      return expected(to_string(base));
    case BaseType::Device:
      if (v.is_string() || v.is_int()) return std::nullopt;
      return expected("Device");
    case BaseType::String:
      if (v.is_string()) return std::nullopt;
      return expected("str");
    case BaseType::CustomObj:
      if (v.is_node() && (v.as_node()->is_placeholder() || v.as_node()->is_get_attr())) {
        return std::nullopt;
      }
      return expected("CustomObj (a placeholder or get_attr node)");
  }
  return expected("?");
}

}  // namespace

std::string describe_argument(const Argument& v) {
  if (v.is_none()) return "None";
  if (v.is_node()) return "%" + v.as_node()->name();
  if (v.is_int()) return fmt::format("int {}", v.as_int());
  if (v.is_double()) return fmt::format("float {}", v.as_double());
  if (v.is_bool()) return v.as_bool() ? "bool True" : "bool False";
  if (v.is_string()) return fmt::format("str \"{}\"", v.as_string());
  if (v.is_dtype()) return fmt::format("dtype {}", to_string(v.as_dtype()));
  return fmt::format("a list of {}", v.as_list().size());
}

bool is_multi_output_op(const OpSchema& op) {
  return op.returns.size() > 1 || (op.returns.size() == 1 && op.returns[0].is_list);
}

bool is_multi_output(const Node& node) {
  return node.is_call() && node.op() != nullptr && is_multi_output_op(*node.op());
}

std::optional<std::string> check_argument(const ArgSchema& schema, const Argument& value) {
  const TypeRef& t = schema.type;
  if (value.is_none()) {
    if (t.optional) return std::nullopt;
    return fmt::format("expected {}, got None", t.to_string());
  }
  if (!t.is_list) {
    if (value.is_list())
      return fmt::format("expected {}, got {}", t.to_string(), describe_argument(value));
    return check_item(t.base, false, value);
  }
  // Tensor[]: a multi-output node also stands for its list of outputs (getitem's input).
  if (t.base == BaseType::Tensor && value.is_node() && is_multi_output(*value.as_node())) {
    return std::nullopt;
  }
  if (!value.is_list()) {
    return fmt::format("expected {}, got {}", t.to_string(), describe_argument(value));
  }
  const ArgumentList& items = value.as_list();
  for (size_t i = 0; i < items.size(); ++i) {
    if (auto problem = check_item(t.base, t.element_optional, items[i])) {
      return fmt::format("item {} of {}: {}", i, t.to_string(), *problem);
    }
  }
  return std::nullopt;
}

std::vector<std::string> verify_graph(const Graph& graph) {
  std::vector<std::string> problems;
  auto report = [&](std::string message) { problems.push_back(std::move(message)); };

  std::unordered_map<const Node*, size_t> position;
  size_t index = 0;
  for (const Node* n : graph.nodes()) position.emplace(n, index++);

  // Names, placeholders first, output last, debug handles.
  std::set<std::string> names;
  std::map<int64_t, const Node*> handles;
  bool seen_non_placeholder = false;
  size_t outputs = 0;
  index = 0;
  for (const Node* n : graph.nodes()) {
    if (n->name().empty()) report(fmt::format("a {} node has an empty name", kind_name(*n)));
    if (!names.insert(n->name()).second) {
      report(fmt::format("{}: the name %{} is used by more than one node", where(*n), n->name()));
    } else if (graph.find(n->name()) != n) {
      report(fmt::format("{}: the graph's name index does not find this node", where(*n)));
    }
    if (n->is_placeholder() && seen_non_placeholder) {
      report(fmt::format("{}: placeholder after a non-placeholder node (placeholders come first)",
                         where(*n)));
    }
    if (!n->is_placeholder()) seen_non_placeholder = true;
    if (n->is_output()) {
      ++outputs;
      if (index + 1 != graph.size())
        report(fmt::format("{}: the output node is not last", where(*n)));
      if (graph.output_node() != n) {
        report(fmt::format("{}: not the graph's registered output node", where(*n)));
      }
    }
    if (n->debug_handle() <= 0) {
      report(fmt::format("{}: debug handle {} is not positive", where(*n), n->debug_handle()));
    } else if (auto [it, fresh] = handles.emplace(n->debug_handle(), n); !fresh) {
      report(fmt::format("{}: debug handle {} is also used by %{}", where(*n), n->debug_handle(),
                         it->second->name()));
    }
    ++index;
  }
  if (outputs != 1)
    report(fmt::format("the graph has {} output nodes (expected exactly 1)", outputs));

  for (const Node* n : graph.nodes()) {
    const std::string at = where(*n);
    // Uses: every argument node is in the graph and defined earlier.
    bool dangling = false;
    for (const Argument& a : n->args()) {
      for_each_node(a, [&](Node* used) {
        auto it = position.find(used);
        if (it == position.end()) {
          // Do not dereference: the node may have been freed.
          report(fmt::format("{}: uses a node that is not in the graph", at));
          dangling = true;
        } else if (it->second >= position.at(n)) {
          report(fmt::format("{}: uses %{} before it is defined", at, used->name()));
        }
      });
    }
    if (!dangling) {
      for (const Node* input : n->inputs()) {
        const auto& users = input->users();
        if (std::find(users.begin(), users.end(), n) == users.end()) {
          report(fmt::format("{}: uses %{} but is missing from its users list", at, input->name()));
        }
      }
    }
    std::unordered_set<const Node*> seen_users;
    for (const Node* user : n->users()) {
      if (!seen_users.insert(user).second) {
        report(fmt::format("{}: users list names a user twice", at));
        continue;
      }
      if (position.count(user) == 0) {
        report(fmt::format("{}: users list names a node that is not in the graph", at));
        continue;
      }
      const std::vector<Node*> inputs = user->inputs();
      if (std::find(inputs.begin(), inputs.end(), n) == inputs.end()) {
        report(fmt::format("{}: users list names %{}, which does not use it", at, user->name()));
      }
    }

    switch (n->kind()) {
      case NodeKind::Placeholder:
        if (!n->args().empty()) report(fmt::format("{}: a placeholder has arguments", at));
        break;
      case NodeKind::GetAttr:
        if (!n->args().empty()) report(fmt::format("{}: a get_attr has arguments", at));
        if (n->target().empty()) report(fmt::format("{}: a get_attr has no target", at));
        break;
      case NodeKind::Output:
        if (n->args().size() != 1 || !n->args()[0].is_list()) {
          report(
              fmt::format("{}: the output node must have one argument, the list of outputs", at));
        } else if (!n->meta().val.empty()) {
          report(fmt::format("{}: the output node has meta.val", at));
        }
        break;
      case NodeKind::CallFunction: {
        const OpSchema* op = n->op();
        if (op == nullptr) {
          report(fmt::format("{}: call node without an operator", at));
          break;
        }
        if (n->target() != op->qualified_name()) {
          report(
              fmt::format("{}: target does not match its operator {}", at, op->qualified_name()));
        }
        const size_t expected = op->args.size();
        const size_t given = n->args().size();
        if (given < expected || (given > expected && !op->is_vararg)) {
          report(fmt::format("{}: has {} arguments, the schema has {}{}", at, given, expected,
                             op->is_vararg ? " or more" : ""));
          break;
        }
        bool args_ok = !dangling;
        for (size_t i = 0; i < expected; ++i) {
          if (dangling) break;
          if (auto problem = check_argument(op->args[i], n->args()[i])) {
            report(fmt::format("{}: argument '{}': {}", at, op->args[i].name, *problem));
            args_ok = false;
          }
        }
        for (size_t i = expected; i < given && !dangling; ++i) {
          if (!n->args()[i].is_node()) {
            report(fmt::format("{}: variadic argument {} is {}, expected a node", at, i,
                               describe_argument(n->args()[i])));
            args_ok = false;
          }
        }
        if (is_multi_output(*n)) {
          for (const Node* user : n->users()) {
            if (!user->is_op("getitem")) {
              report(fmt::format("{}: multi-output node used by %{} ({}); only getitem may use it",
                                 at, user->name(), kind_name(*user)));
            }
          }
        }
        if (!args_ok || op->opaque_outputs || op->shape_fn == nullptr) break;
        try {
          const std::vector<TensorSpec> computed = op->shape_fn(*op, n->args());
          bool same = computed.size() == n->meta().val.size();
          for (size_t i = 0; same && i < computed.size(); ++i) {
            same = same_type(computed[i], n->meta().val[i]);
          }
          if (!same) {
            report(fmt::format("{}: meta.val is {} but {} computes {}", at,
                               n->meta().val.empty() ? "empty" : spec_string(n->meta().val),
                               op->qualified_name(),
                               computed.empty() ? "no tensor" : spec_string(computed)));
          }
        } catch (const Exception& e) {
          report(fmt::format("{}: {}", at, e.what()));
        }
        break;
      }
    }
  }
  return problems;
}

std::vector<std::string> verify(const ExportedProgram& program) {
  std::vector<std::string> problems = verify_graph(program.graph());
  auto report = [&](std::string message) { problems.push_back(std::move(message)); };
  const Graph& graph = program.graph();
  const GraphSignature& sig = program.signature();

  // Range constraints.
  for (const auto& [name, symbol] : program.range_constraints()) {
    if (symbol == nullptr) {
      report(fmt::format("range constraint '{}' has no symbol", name));
    } else if (symbol->name != name) {
      report(fmt::format("range constraint '{}' holds symbol '{}'", name, symbol->name));
    } else if (symbol->min > symbol->max) {
      report(fmt::format("range constraint '{}' has an empty range [{}, {}]", name, symbol->min,
                         symbol->max));
    }
  }

  // Inputs.
  const std::vector<Node*> placeholders = graph.placeholders();
  if (sig.inputs.size() != placeholders.size()) {
    report(fmt::format("signature has {} input specs for {} placeholders", sig.inputs.size(),
                       placeholders.size()));
  }
  for (size_t i = 0; i < std::min(sig.inputs.size(), placeholders.size()); ++i) {
    const InputSpec& in = sig.inputs[i];
    const Node& p = *placeholders[i];
    const std::string at = where(p);
    if (in.name != p.name()) {
      report(
          fmt::format("{}: input spec {} is for '{}' (placeholders and input specs must be in "
                      "the same order)",
                      at, i, in.name));
      continue;
    }
    if (in.kind == InputKind::CustomObj) {
      if (program.custom_objects().count(in.target) == 0) {
        report(fmt::format("{}: CUSTOM_OBJ target '{}' is not in custom_objects", at, in.target));
      }
      continue;
    }
    if (p.meta().val.size() != 1) {
      report(fmt::format("{}: a tensor placeholder needs one spec in meta.val, has {}", at,
                         p.meta().val.size()));
      continue;
    }
    const TensorSpec& spec = p.meta().val[0];
    for (const SymInt& d : spec.shape) {
      if (!d.is_symbolic()) continue;
      auto it = program.range_constraints().find(d.symbol()->name);
      if (it == program.range_constraints().end() || it->second == nullptr) {
        report(fmt::format("{}: symbol '{}' has no range constraint", at, d.symbol()->name));
      } else if (SymInt(it->second) != d) {
        report(
            fmt::format("{}: symbol '{}' has range [{}, {}] but its range constraint says [{}, "
                        "{}]",
                        at, d.symbol()->name, d.lower_bound(), d.upper_bound(), it->second->min,
                        it->second->max));
      }
    }
    const std::map<std::string, TensorData>* table = nullptr;
    const char* table_name = "";
    switch (in.kind) {
      case InputKind::Parameter:
      case InputKind::Buffer:
        table = &program.state_dict();
        table_name = "state_dict";
        break;
      case InputKind::ConstantTensor:
        table = &program.constants();
        table_name = "constants";
        break;
      default: break;
    }
    if (table == nullptr) continue;
    auto it = table->find(in.target);
    if (it == table->end()) {
      report(fmt::format("{}: {} target '{}' is not in {}", at, to_string(in.kind), in.target,
                         table_name));
      continue;
    }
    if (!same_type(it->second.spec, spec)) {
      report(fmt::format("{}: placeholder is {} but {} '{}' is {}", at, spec.to_string(),
                         table_name, in.target, it->second.spec.to_string()));
    }
    try {
      it->second.check(fmt::format("{} '{}'", table_name, in.target));
    } catch (const Exception& e) {
      report(fmt::format("{}: {}", at, e.what()));
    }
  }

  // Outputs.
  if (graph.output_node() != nullptr && graph.output_node()->args().size() == 1 &&
      graph.output_node()->args()[0].is_list()) {
    const ArgumentList& returned = graph.output_node()->args()[0].as_list();
    if (sig.outputs.size() != returned.size()) {
      report(fmt::format("signature has {} output specs for {} returned values", sig.outputs.size(),
                         returned.size()));
    }
    for (size_t i = 0; i < std::min(sig.outputs.size(), returned.size()); ++i) {
      const OutputSpec& out = sig.outputs[i];
      const std::string name = returned[i].is_node() ? returned[i].as_node()->name() : "";
      if (out.name != name) {
        report(fmt::format("output spec {} is for '{}' but the output node returns {}", i, out.name,
                           describe_argument(returned[i])));
      }
      if (out.kind == OutputKind::BufferMutation) {
        const InputSpec* buffer = nullptr;
        for (const InputSpec& in : sig.inputs) {
          if (in.kind == InputKind::Buffer && in.target == out.target) buffer = &in;
        }
        if (buffer == nullptr) {
          report(
              fmt::format("output spec {} ('{}'): BUFFER_MUTATION target '{}' is not a buffer "
                          "input",
                          i, out.name, out.target));
        }
      } else if (out.kind == OutputKind::UserInputMutation) {
        const InputSpec* input = sig.find_input(out.target);
        if (input == nullptr || input->kind != InputKind::UserInput) {
          report(
              fmt::format("output spec {} ('{}'): USER_INPUT_MUTATION target '{}' is not a "
                          "user input",
                          i, out.name, out.target));
        }
      }
    }
  }
  return problems;
}

void verify_or_throw(const ExportedProgram& program) {
  const std::vector<std::string> problems = verify(program);
  if (problems.empty()) return;
  raise(Error::InvalidProgram, "program {} is invalid ({} problem{}):\n  {}", program.uuid(),
        problems.size(), problems.size() == 1 ? "" : "s", fmt::join(problems, "\n  "));
}

}  // namespace ptec::ir

#include "passes/rewrite_utils.h"

#include <algorithm>

#include "ir/exception.h"

namespace ptec::passes {

ir::Node* insert_call(ir::Graph& graph, const ir::OpSchema& op, ir::ArgumentList args,
                      ir::Node* before, const ir::Node* origin, const std::string& name_hint) {
  PTEC_ENFORCE(args.size() <= op.args.size() || op.is_vararg, InvalidArgument,
               "{} takes {} arguments, {} given", op.qualified_name(), op.args.size(), args.size());
  for (size_t i = args.size(); i < op.args.size(); ++i) {
    const ir::ArgSchema& a = op.args[i];
    if (a.default_value) {
      args.push_back(*a.default_value);
    } else if (a.type.optional) {
      args.emplace_back();
    } else {
      raise(Error::InvalidArgument, "{}: argument '{}' has no default", op.qualified_name(),
            a.name);
    }
  }
  std::vector<ir::TensorSpec> specs;
  if (op.shape_fn != nullptr) specs = op.shape_fn(op, args);
  ir::Node* node = graph.add_call(op, std::move(args), name_hint, before);
  node->meta().val = std::move(specs);
  if (origin != nullptr) {
    // Debug handles are unique per graph (ir::verify): the new node keeps its own handle and
    // records where it came from.
    node->meta().source = origin->meta().source;
    node->meta().extra["from_node"] = origin->name();
  }
  return node;
}

ir::Node* add_parameter(ir::ExportedProgram& program, const std::string& name_hint,
                        ir::TensorData data, ir::Node* next_to) {
  std::string target = name_hint;
  for (size_t i = 1;
       program.state_dict().count(target) != 0 || program.constants().count(target) != 0; ++i) {
    target = name_hint + "_" + std::to_string(i);
  }
  ir::Graph& graph = program.graph();
  ir::Node* node = graph.add_placeholder(graph.unique_name(target), data.spec);
  if (next_to != nullptr) graph.move_before(node, next_to);
  ir::InputSpec spec{ir::InputKind::Parameter, node->name(), target};
  auto& inputs = program.signature().inputs;
  auto it = next_to == nullptr
                ? inputs.end()
                : std::find_if(inputs.begin(), inputs.end(),
                               [&](const ir::InputSpec& s) { return s.name == next_to->name(); });
  inputs.insert(it, std::move(spec));
  program.state_dict()[target] = std::move(data);
  return node;
}

const ir::TensorData* float_constant(const ir::ExportedProgram& program, const ir::Argument& arg) {
  if (!arg.is_node() || !arg.as_node()->is_placeholder()) return nullptr;
  const ir::TensorData* data = program.constant_for_placeholder(arg.as_node()->name());
  if (data == nullptr || data->spec.dtype != DType::Float || !data->spec.is_static() ||
      data->data == nullptr || data->data->size() != data->spec.nbytes_upper_bound()) {
    return nullptr;
  }
  return data;
}

bool is_program_output(const ir::ExportedProgram& program, const ir::Node* node) {
  for (const ir::Node* out : program.graph().outputs()) {
    if (out == node) return true;
  }
  return false;
}

size_t replace_all_uses(ir::ExportedProgram& program, ir::Node* old_node, ir::Node* replacement) {
  for (ir::OutputSpec& out : program.signature().outputs) {
    if (out.name == old_node->name()) out.name = replacement->name();
  }
  return program.graph().replace_all_uses_with(old_node, replacement);
}

size_t remove_unused_constants(ir::ExportedProgram& program) {
  ir::Graph& graph = program.graph();
  auto& inputs = program.signature().inputs;
  size_t removed = 0;
  for (ir::Node* node : graph.placeholders()) {
    if (!node->users().empty()) continue;
    auto it = std::find_if(inputs.begin(), inputs.end(),
                           [&](const ir::InputSpec& s) { return s.name == node->name(); });
    if (it == inputs.end()) continue;
    const ir::InputKind kind = it->kind;
    if (kind != ir::InputKind::Parameter && kind != ir::InputKind::Buffer &&
        kind != ir::InputKind::ConstantTensor) {
      continue;
    }
    const std::string target = it->target;
    inputs.erase(it);
    graph.erase(node);
    ++removed;
    const bool still_used = std::any_of(inputs.begin(), inputs.end(), [&](const ir::InputSpec& s) {
      return s.target == target && s.kind == kind;
    });
    if (!still_used) {
      if (kind == ir::InputKind::ConstantTensor) {
        program.constants().erase(target);
      } else {
        program.state_dict().erase(target);
      }
    }
  }
  return removed;
}

}  // namespace ptec::passes

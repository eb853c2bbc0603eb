#include "passes/duplicate_shared_constants.h"

#include <algorithm>
#include <vector>

#include "ir/exported_program.h"

namespace ptec::passes {
namespace {

/// `arg` with every reference to `from` (at any depth of its lists) made a reference to `to`.
ir::Argument replaced(const ir::Argument& arg, const ir::Node* from, ir::Node* to) {
  if (arg.is_node()) return arg.as_node() == from ? ir::Argument(to) : arg;
  if (!arg.is_list()) return arg;
  ir::ArgumentList items;
  for (const ir::Argument& item : arg.as_list()) items.push_back(replaced(item, from, to));
  return ir::Argument(std::move(items));
}

// A constant placeholder (with its input spec) that several nodes read.
bool shared_constant(const ir::ExportedProgram& program, const ir::Node& node) {
  return node.users().size() >= 2 && program.constant_for_placeholder(node.name()) != nullptr &&
         program.signature().find_input(node.name()) != nullptr;
}

}  // namespace

bool DuplicateSharedConstants::applies(const ir::ExportedProgram& program) {
  const std::vector<ir::Node*> placeholders = program.graph().placeholders();
  return std::any_of(placeholders.begin(), placeholders.end(),
                     [&](const ir::Node* node) { return shared_constant(program, *node); });
}

PassResult DuplicateSharedConstants::run(ir::ExportedProgram& program) {
  ir::Graph& graph = program.graph();
  auto& inputs = program.signature().inputs;
  bool modified = false;
  for (ir::Node* node : graph.placeholders()) {
    if (!shared_constant(program, *node)) continue;
    const std::vector<ir::Node*> users(node->users().begin(), node->users().end());
    const auto spec = std::find_if(inputs.begin(), inputs.end(),
                                   [&](const ir::InputSpec& s) { return s.name == node->name(); });
    const ir::InputSpec original = *spec;
    size_t at = static_cast<size_t>(spec - inputs.begin());
    // The first user keeps the placeholder; each other one gets a copy placed after it.
    for (size_t u = 1; u < users.size(); ++u) {
      ir::Node* copy = graph.add_placeholder(graph.unique_name(node->name()), node->spec());
      copy->meta() = node->meta();
      inputs.insert(inputs.begin() + static_cast<std::ptrdiff_t>(++at),
                    ir::InputSpec{original.kind, copy->name(), original.target});
      // Placeholders follow the signature's order.
      if (at + 1 < inputs.size()) graph.move_before(copy, graph.find(inputs[at + 1].name));
      ir::Node* user = users[u];
      ir::ArgumentList args;
      for (const ir::Argument& a : user->args()) args.push_back(replaced(a, node, copy));
      graph.set_args(user, std::move(args));
      modified = true;
    }
  }
  return {modified};
}

}  // namespace ptec::passes

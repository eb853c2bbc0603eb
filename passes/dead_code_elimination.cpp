#include "passes/dead_code_elimination.h"

#include <vector>

#include "ir/exported_program.h"
#include "ir/op_schema.h"
#include "passes/rewrite_utils.h"

namespace ptec::passes {

namespace {
bool has_side_effects(const ir::Node& node) {
  const ir::OpSchema* op = node.op();
  if (op == nullptr) return false;
  return op->returns.empty() || (!op->name.empty() && op->name.back() == '_');
}
}  // namespace

PassResult DeadCodeElimination::run(ir::ExportedProgram& program) {
  ir::Graph& graph = program.graph();
  // Reverse topological order: a node's users are visited (and possibly erased) before it.
  const std::vector<ir::Node*> order(graph.nodes().rbegin(), graph.nodes().rend());
  bool modified = false;
  for (ir::Node* node : order) {
    if (!(node->is_call() || node->is_get_attr()) || !node->users().empty()) continue;
    if (has_side_effects(*node)) continue;
    graph.erase(node);
    modified = true;
  }
  modified |= remove_unused_constants(program) > 0;
  return {modified};
}

}  // namespace ptec::passes

#include "passes/infer_view_size.h"

#include <vector>

#include "ir/exception.h"
#include "ir/exported_program.h"
#include "ir/op_schema.h"

namespace ptec::passes {
namespace {

// `node`'s size list with its one run-time entry replaced by -1; empty when the rewrite does not
// apply.
ir::ArgumentList inferred_args(const ir::Node& node) {
  const ir::OpSchema& op = *node.op();
  const int index = op.arg_index("size");
  if (index < 0 || static_cast<size_t>(index) >= node.args().size()) return {};
  const ir::Argument& size = node.args()[static_cast<size_t>(index)];
  if (!size.is_list()) return {};
  std::vector<ir::Argument> items = size.as_list();
  int runtime_entries = 0;
  size_t at = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const ir::Argument& item = items[i];
    if (item.is_int()) {
      if (item.as_int() <= 0) return {};  // -1 already, or a 0 that leaves -1 undetermined
      continue;
    }
    if (!item.is_node()) return {};
    ++runtime_entries;
    at = i;
  }
  if (runtime_entries != 1) return {};
  items[at] = ir::Argument(int64_t{-1});
  ir::ArgumentList args = node.args();
  args[static_cast<size_t>(index)] = ir::Argument(std::move(items));
  return args;
}

}  // namespace

PassResult InferViewSize::run(ir::ExportedProgram& program) {
  bool modified = false;
  for (ir::Node* node : program.graph().nodes()) {
    if (!node->is_op("aten::view_copy") || node->meta().val.size() != 1) continue;
    ir::ArgumentList args = inferred_args(*node);
    if (args.empty() || node->op()->shape_fn == nullptr) continue;
    // Only where the shape function gives the node's own output shape from the new list.
    try {
      const std::vector<ir::TensorSpec> specs = node->op()->shape_fn(*node->op(), args);
      if (specs.size() != 1 || specs[0].shape != node->spec().shape) continue;
    } catch (const Exception&) {
      continue;
    }
    program.graph().set_args(node, std::move(args));
    modified = true;
  }
  return {modified};
}

}  // namespace ptec::passes
